package formats

// F16: IEEE binary16, one element per 2-byte "block".
var F16 = register(Meta{Name: "F16", GGMLType: 1, BlockElems: 1, BlockBytes: 2,
	Doc:       "IEEE float16 (binary16), unquantized",
	NoIntForm: "a float format: its values are not integer codes times a per-sub-block scale",
	IEEE:      "binary16"},
	func(dst []float32, src []BlockF16) { dequantRows(dst, src, (*BlockF16).Dequant) })

// BlockF16 is one ggml_fp16_t element.
type BlockF16 struct {
	V Half // @0: the value, binary16 bits
}

// Dequant: the exact widening (ggml_fp16_to_fp32_row); a NaN gains the quiet bit.
func (b *BlockF16) Dequant(j int32) float32 {
	return b.V.Float32()
}

// Quantize is ggml_fp32_to_fp16_row: round to nearest even, overflow to
// ±inf, every NaN to 0x7E00 with its sign.
func (b *BlockF16) Quantize(x []float32) {
	b.V = HalfFromFloat32(x[0])
}
