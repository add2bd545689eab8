package formats

// Q5_1: 32 elements in 24 bytes; 5-bit codes with an fp16 scale and minimum.
var Q5_1 = register(Meta{Name: "Q5_1", GGMLType: 7, BlockElems: 32, BlockBytes: 24, SubBlock: 32, IntExact: true,
	Doc: "5-bit codes, fp16 scale and min per 32 (ggml legacy)"},
	func(dst []float32, src []BlockQ5_1) { dequantRows(dst, src, (*BlockQ5_1).Dequant) })

// BlockQ5_1 is ggml's block_q5_1.
type BlockQ5_1 struct {
	D  Half      // @0: scale
	M  Half      // @2: minimum (the value of code 0)
	Qh [4]uint8  // @4: u32 little-endian; bit j is bit 4 of element j's code
	Qs [16]uint8 // @8: low 4 bits; element j<16 in the low nibble of Qs[j], j>=16 in the high nibble of Qs[j-16]
}

// Dequant: q = nibble | ((qh>>j)&1)<<4; q·d + m, rounded twice.
func (b *BlockQ5_1) Dequant(j int32) float32 {
	q := b.Qs[j&15]
	if j >= 16 {
		q >>= 4
	}
	h := (b.Qh[j>>3] >> uint32(j&7)) & 1
	return float32(int32(q&15|h<<4))*b.D.Float32() + b.M.Float32()
}

// Quantize is quantize_row_q5_1_ref: d = (max-min)/31, codes from the
// unrounded float32 min and 1/d as (x-min)·id + 0.5 truncated through a
// uint8, with no clamp.
func (b *BlockQ5_1) Quantize(x []float32) {
	x = x[:32]
	lo, hi := minMax32(x)
	d := (hi - lo) / 31
	id := recip(d)
	b.D = HalfFromFloat32(d)
	b.M = HalfFromFloat32(lo)
	var qh uint32
	for j := range 16 {
		q0 := uint8(cvtt(float32((x[j]-lo)*id) + 0.5))
		q1 := uint8(cvtt(float32((x[j+16]-lo)*id) + 0.5))
		b.Qs[j] = q0&15 | (q1&15)<<4
		qh |= uint32(q0>>4&1)<<j | uint32(q1>>4&1)<<(j+16)
	}
	b.Qh = [4]uint8{uint8(qh), uint8(qh >> 8), uint8(qh >> 16), uint8(qh >> 24)}
}

// Codes: the 5-bit codes, as Q5_0's; Scale d and Offset m give Dequant's
// own two operations.
func (b *BlockQ5_1) Codes(w int32) uint32 {
	lo := Word32(b.Qs[:], 4*(w&3)) >> (4 * uint32((w>>2)&1)) & 0x0F0F0F0F
	return lo | spread4(Word32(b.Qh[:], 0)>>(4*uint32(w&7)))<<4
}

// Scale: d.
func (b *BlockQ5_1) Scale(s int32) float32 { return b.D.Float32() }

// Offset: m.
func (b *BlockQ5_1) Offset(s int32) float32 { return b.M.Float32() }
