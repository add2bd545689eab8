package formats

// Q8_0: 32 elements in 34 bytes; int8 codes with one fp16 scale.
var Q8_0 = register(Meta{Name: "Q8_0", GGMLType: 8, BlockElems: 32, BlockBytes: 34, SubBlock: 32, IntExact: true,
	Doc: "8-bit codes, one fp16 scale per 32 (ggml legacy)"},
	func(dst []float32, src []BlockQ8_0) { dequantRows(dst, src, (*BlockQ8_0).Dequant) })

// BlockQ8_0 is ggml's block_q8_0.
type BlockQ8_0 struct {
	D  Half     // @0: scale
	Qs [32]int8 // @2: element j's code
}

// Dequant: qs[j] · d.
func (b *BlockQ8_0) Dequant(j int32) float32 {
	return float32(b.Qs[j]) * b.D.Float32()
}

// Quantize is quantize_row_q8_0_ref: d = amax/127, codes roundf(x·id)
// (ties away from zero) with the unrounded float32 id = 1/d.
func (b *BlockQ8_0) Quantize(x []float32) {
	x = x[:32]
	d := absMaxC(x) / 127
	id := recip(d)
	b.D = HalfFromFloat32(d)
	for j, v := range x {
		b.Qs[j] = int8(cvtt(roundf(float32(v * id))))
	}
}

// Codes: the int8 codes as stored; Scale d is Dequant's one product.
func (b *BlockQ8_0) Codes(w int32) uint32 { return Word32(b.Qs[:], 4*(w&7)) }

// Scale: d.
func (b *BlockQ8_0) Scale(s int32) float32 { return b.D.Float32() }
