package formats

// Q5_0: 32 elements in 22 bytes; 5-bit codes with one fp16 scale.
var Q5_0 = register(Meta{Name: "Q5_0", GGMLType: 6, BlockElems: 32, BlockBytes: 22, SubBlock: 32, IntZero: 16,
	Doc: "5-bit codes, one fp16 scale per 32 (ggml legacy)"},
	func(dst []float32, src []BlockQ5_0) { dequantRows(dst, src, (*BlockQ5_0).Dequant) })

// BlockQ5_0 is ggml's block_q5_0.
type BlockQ5_0 struct {
	D  Half      // @0: scale
	Qh [4]uint8  // @2: u32 little-endian; bit j is bit 4 of element j's code
	Qs [16]uint8 // @6: low 4 bits; element j<16 in the low nibble of Qs[j], j>=16 in the high nibble of Qs[j-16]
}

// Dequant: q = nibble | ((qh>>j)&1)<<4; (q - 16) · d.
func (b *BlockQ5_0) Dequant(j int32) float32 {
	q := b.Qs[j&15]
	if j >= 16 {
		q >>= 4
	}
	h := (b.Qh[j>>3] >> uint32(j&7)) & 1
	return float32(int32(q&15|h<<4)-16) * b.D.Float32()
}

// Quantize is quantize_row_q5_0_ref: d = max/-16 where max is the signed
// value of largest magnitude (first wins), codes from the unrounded 1/d,
// truncated through an int8 after adding 16.5, capped at 31.
func (b *BlockQ5_0) Quantize(x []float32) {
	x = x[:32]
	d := signedAbsMax(x) / -16
	id := recip(d)
	b.D = HalfFromFloat32(d)
	var qh uint32
	for j := range 16 {
		q0 := uint8(cMin(31, int32(int8(cvtt(float32(x[j]*id)+16.5)))))
		q1 := uint8(cMin(31, int32(int8(cvtt(float32(x[j+16]*id)+16.5)))))
		b.Qs[j] = q0&15 | (q1&15)<<4
		qh |= uint32(q0>>4&1)<<j | uint32(q1>>4&1)<<(j+16)
	}
	b.Qh = [4]uint8{uint8(qh), uint8(qh >> 8), uint8(qh >> 16), uint8(qh >> 24)}
}

// Codes: the 5-bit codes (0..31): Q4_0's nibbles with bits 4w..4w+3 of qh
// spread to bit 4 of each byte. Offset -16d makes them (q-16)·d, exactly
// (see Q4_0).
func (b *BlockQ5_0) Codes(w int32) uint32 {
	lo := Word32(b.Qs[:], 4*(w&3)) >> (4 * uint32((w>>2)&1)) & 0x0F0F0F0F
	return lo | spread4(Word32(b.Qh[:], 0)>>(4*uint32(w&7)))<<4
}

// Scale: d.
func (b *BlockQ5_0) Scale(s int32) float32 { return b.D.Float32() }

// Offset: -16d.
func (b *BlockQ5_0) Offset(s int32) float32 { return -16 * b.D.Float32() }
