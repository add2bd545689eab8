package formats

// BF16: bfloat16 (the top half of a binary32), one element per 2-byte "block".
var BF16 = register(Meta{Name: "BF16", GGMLType: 30, BlockElems: 1, BlockBytes: 2,
	Doc:       "bfloat16, unquantized",
	NoIntForm: "a float format: its values are not integer codes times a per-sub-block scale",
	IEEE:      "bfloat16"},
	func(dst []float32, src []BlockBF16) { dequantRows(dst, src, (*BlockBF16).Dequant) })

// BlockBF16 is one ggml_bf16_t element.
type BlockBF16 struct {
	V BFloat16 // @0: the value, the high 16 bits of a float32
}

// Dequant: the bits shifted into the high half of a float32 (ggml_bf16_to_fp32_row).
func (b *BlockBF16) Dequant(j int32) float32 {
	return b.V.Float32()
}

// Quantize is ggml_fp32_to_bf16_row_ref: round to nearest even without
// flushing subnormals; a NaN keeps its top bits and gains the quiet bit.
func (b *BlockBF16) Quantize(x []float32) {
	b.V = BFloat16FromFloat32(x[0])
}
