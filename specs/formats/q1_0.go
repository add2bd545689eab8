package formats

// Q1_0: 128 elements in 18 bytes; one sign bit per element and one fp16
// scale.
var Q1_0 = register(Meta{Name: "Q1_0", GGMLType: 41, BlockElems: 128, BlockBytes: 18, SubBlock: 32,
	Doc: "1-bit signs, one fp16 scale per 128 (±d)"},
	func(dst []float32, src []BlockQ1_0) { dequantRows(dst, src, (*BlockQ1_0).Dequant) })

// BlockQ1_0 is ggml's block_q1_0.
type BlockQ1_0 struct {
	D  Half      // @0: scale
	Qs [16]uint8 // @2: element j in bit j%8 of Qs[j/8]; set means +d
}

// Dequant: d where the bit is set, -d where it is clear.
func (b *BlockQ1_0) Dequant(j int32) float32 {
	d := b.D.Float32()
	if (b.Qs[j>>3]>>uint32(j&7))&1 != 0 {
		return d
	}
	return -d
}

// Quantize is quantize_row_q1_0_ref: d is the mean of |x| (a float32 sum in
// element order, divided by 128), and each element keeps only its sign:
// x ≥ 0 sets the bit, so -0 sets it and NaN does not.
func (b *BlockQ1_0) Quantize(x []float32) {
	x = x[:128]
	var sum float32
	for _, v := range x {
		sum += abs32(v)
	}
	b.D = HalfFromFloat32(sum / 128)
	b.Qs = [16]uint8{}
	for j, v := range x {
		if v >= 0 {
			b.Qs[j/8] |= 1 << (j % 8)
		}
	}
}

// Codes: the sign bits (0 or 1) of elements 4w..4w+3, spread to one byte
// each. Scale 2d and Offset -d make them ±d: 2d is exact, and 2d - d and
// 0 - d are exactly d and -d.
func (b *BlockQ1_0) Codes(w int32) uint32 {
	return spread4(uint32(b.Qs[(w>>1)&15]) >> (4 * uint32(w&1)))
}

// Scale: 2d.
func (b *BlockQ1_0) Scale(s int32) float32 { return 2 * b.D.Float32() }

// Offset: -d.
func (b *BlockQ1_0) Offset(s int32) float32 { return -b.D.Float32() }
