package formats

// F32: plain IEEE binary32, one element per 4-byte "block".
var F32 = register(Meta{Name: "F32", GGMLType: 0, BlockElems: 1, BlockBytes: 4,
	Doc:       "IEEE float32, unquantized",
	NoIntForm: "a float format: its values are not integer codes times a per-sub-block scale",
	IEEE:      "binary32"},
	func(dst []float32, src []BlockF32) { dequantRows(dst, src, (*BlockF32).Dequant) })

// BlockF32 is one float32 element (ggml stores F32 tensors as plain floats).
type BlockF32 struct {
	V float32 // @0: the value
}

// Dequant: the value itself (ggml has no F32 to_float; it copies).
func (b *BlockF32) Dequant(j int32) float32 {
	return b.V
}

// Quantize is the identity copy ggml does for F32; NaN payloads are kept.
func (b *BlockF32) Quantize(x []float32) {
	b.V = x[0]
}
