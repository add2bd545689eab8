package formats

// Q4_1: 32 elements in 20 bytes; 4-bit codes with an fp16 scale and minimum.
var Q4_1 = register(Meta{Name: "Q4_1", GGMLType: 3, BlockElems: 32, BlockBytes: 20, SubBlock: 32, IntExact: true,
	Doc: "4-bit codes, fp16 scale and min per 32 (ggml legacy)"},
	func(dst []float32, src []BlockQ4_1) { dequantRows(dst, src, (*BlockQ4_1).Dequant) })

// BlockQ4_1 is ggml's block_q4_1.
type BlockQ4_1 struct {
	D  Half      // @0: scale
	M  Half      // @2: minimum (the value of code 0)
	Qs [16]uint8 // @4: element j<16 in the low nibble of Qs[j], j>=16 in the high nibble of Qs[j-16]
}

// Dequant: nibble·d + m, rounded twice (product, then sum).
func (b *BlockQ4_1) Dequant(j int32) float32 {
	q := b.Qs[j&15]
	if j >= 16 {
		q >>= 4
	}
	return float32(int32(q&15))*b.D.Float32() + b.M.Float32()
}

// Quantize is quantize_row_q4_1_ref: d = (max-min)/15, codes from the
// unrounded float32 min and 1/d as (x-min)·id + 0.5 truncated through an
// int8, capped at 15.
func (b *BlockQ4_1) Quantize(x []float32) {
	x = x[:32]
	lo, hi := minMax32(x)
	d := (hi - lo) / 15
	id := recip(d)
	b.D = HalfFromFloat32(d)
	b.M = HalfFromFloat32(lo)
	for j := range 16 {
		q0 := cMin(15, int32(int8(cvtt(float32((x[j]-lo)*id)+0.5))))
		q1 := cMin(15, int32(int8(cvtt(float32((x[j+16]-lo)*id)+0.5))))
		b.Qs[j] = uint8(q0) | uint8(q1)<<4
	}
}

// Codes: the nibbles, as Q4_0's; Scale d and Offset m give Dequant's own
// two operations.
func (b *BlockQ4_1) Codes(w int32) uint32 {
	return Word32(b.Qs[:], 4*(w&3)) >> (4 * uint32((w>>2)&1)) & 0x0F0F0F0F
}

// Scale: d.
func (b *BlockQ4_1) Scale(s int32) float32 { return b.D.Float32() }

// Offset: m.
func (b *BlockQ4_1) Offset(s int32) float32 { return b.M.Float32() }
