package formats

// Q4_0: 32 elements in 18 bytes; 4-bit codes with one fp16 scale.
var Q4_0 = register(Meta{Name: "Q4_0", GGMLType: 2, BlockElems: 32, BlockBytes: 18, SubBlock: 32, IntZero: 8,
	Doc: "4-bit codes, one fp16 scale per 32 (ggml legacy)"},
	func(dst []float32, src []BlockQ4_0) { dequantRows(dst, src, (*BlockQ4_0).Dequant) })

// BlockQ4_0 is ggml's block_q4_0.
type BlockQ4_0 struct {
	D  Half      // @0: scale
	Qs [16]uint8 // @2: element j<16 in the low nibble of Qs[j], j>=16 in the high nibble of Qs[j-16]
}

// Dequant: (nibble - 8) · d.
func (b *BlockQ4_0) Dequant(j int32) float32 {
	q := b.Qs[j&15]
	if j >= 16 {
		q >>= 4
	}
	return float32(int32(q&15)-8) * b.D.Float32()
}

// Quantize is quantize_row_q4_0_ref: d = max/-8 where max is the signed
// value of largest magnitude (first wins), codes from the unrounded 1/d,
// truncated through an int8 after adding 8.5, capped at 15.
func (b *BlockQ4_0) Quantize(x []float32) {
	x = x[:32]
	d := signedAbsMax(x) / -8
	id := recip(d)
	b.D = HalfFromFloat32(d)
	for j := range 16 {
		lo := cMin(15, int32(int8(cvtt(float32(x[j]*id)+8.5))))
		hi := cMin(15, int32(int8(cvtt(float32(x[j+16]*id)+8.5))))
		b.Qs[j] = uint8(lo) | uint8(hi)<<4
	}
}

// Codes: the nibbles themselves (0..15), read as one word of Qs: words
// 0..3 are the low nibbles, 4..7 the high ones. Offset -8d makes them
// (q-8)·d: d·q and -8d are exact (an 11-bit significand times at most 4
// bits), and so is their sum.
func (b *BlockQ4_0) Codes(w int32) uint32 {
	return Word32(b.Qs[:], 4*(w&3)) >> (4 * uint32((w>>2)&1)) & 0x0F0F0F0F
}

// Scale: d.
func (b *BlockQ4_0) Scale(s int32) float32 { return b.D.Float32() }

// Offset: -8d.
func (b *BlockQ4_0) Offset(s int32) float32 { return -8 * b.D.Float32() }
