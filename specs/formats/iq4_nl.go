package formats

import "fmt"

// IQ4_NL: 32 elements in 18 bytes; 4-bit indices into the non-linear
// kvalues_iq4nl table, one fp16 scale.
var IQ4_NL = register(Meta{Name: "IQ4_NL", GGMLType: 20, BlockElems: 32, BlockBytes: 18, SubBlock: 32, IntExact: true,
	Doc: "4-bit non-linear codebook (kvalues_iq4nl), one fp16 scale per 32"},
	func(dst []float32, src []BlockIQ4NL) { dequantRows(dst, src, (*BlockIQ4NL).Dequant) })

// BlockIQ4NL is ggml's block_iq4_nl.
type BlockIQ4NL struct {
	D  Half      // @0: scale
	Qs [16]uint8 // @2: code of element j<16 in the low nibble of Qs[j], j>=16 in the high nibble of Qs[j-16]
}

// Dequant: d · kvalues_iq4nl[nibble].
func (b *BlockIQ4NL) Dequant(j int32) float32 {
	q := b.Qs[j&15]
	if j >= 16 {
		q >>= 4
	}
	return b.D.Float32() * float32(kvaluesIQ4NL[q&15])
}

// Quantize is quantize_row_iq4_nl_ref: quantize_row_iq4_nl_impl with
// ntry = -1, i.e. one pass from the scale max/-127 and no scale search; d is
// the least-squares scale of those codes. This is not what llama-quantize
// writes; see QuantizeChunk.
//
// Its bytes are ggml's except for an all-zero block that is not the first of
// ggml's call: ggml gives it scale 0 and packs the stale codes of the block
// before (its code buffer lives across the row), where this writes codes 0,
// as ggml does for a first block. The values are zero either way and differ
// only in the sign of zero. Matching ggml would make a block's bytes depend
// on how the caller split the tensor into calls; TestIQ4NLZeroBlocks pins the
// difference and the README states it.
func (b *BlockIQ4NL) Quantize(x []float32) {
	b.D = quantizeIQ4Impl(x[:32], -1, b.Qs[:], nil, nil)
}

// QuantizeChunk is what ggml_quantize_chunk (quantize_iq4_nl without an
// importance matrix, as llama-quantize runs it) writes for one block:
// quantize_row_iq4_nl_impl with ntry = 7, searching 15 scales around max/127
// and recomputing the codes from the chosen unrounded scale.
func (b *BlockIQ4NL) QuantizeChunk(x []float32) {
	b.D = quantizeIQ4Impl(x[:32], 7, b.Qs[:], nil, nil)
}

// QuantizeIQ4NLChunk encodes whole IQ4_NL blocks as ggml_quantize_chunk does
// without an importance matrix: src holds k*32 floats and dst receives k
// blocks (18k bytes). The blocks are independent, so the row length does not
// matter. Format.Quantize gives the quantize_row_iq4_nl_ref bytes instead.
func QuantizeIQ4NLChunk(dst []byte, src []float32) error {
	if err := IQ4_NL.CheckSizes(len(src), len(dst)); err != nil {
		return fmt.Errorf("QuantizeIQ4NLChunk: %w", err)
	}
	bs := view[BlockIQ4NL](dst)
	for i := range bs {
		bs[i].QuantizeChunk(src[32*i : 32*i+32])
	}
	return nil
}

// Codes: kvalues_iq4nl of the nibbles, four at a time (Lut16). Scale d makes
// Scale·code Dequant's one product.
func (b *BlockIQ4NL) Codes(w int32) uint32 {
	return Lut16(&kvaluesIQ4NL, Word32(b.Qs[:], 4*(w&3))>>(4*uint32((w>>2)&1)))
}

// Scale: d.
func (b *BlockIQ4NL) Scale(s int32) float32 { return b.D.Float32() }
