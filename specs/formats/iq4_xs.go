package formats

// IQ4_XS: 256 elements in 136 bytes; 4-bit kvalues_iq4nl indices in eight
// groups of 32, each with a 6-bit scale, under one fp16 super-scale.
var IQ4_XS = register(Meta{Name: "IQ4_XS", GGMLType: 23, BlockElems: 256, BlockBytes: 136, SubBlock: 32, IntExact: true,
	Doc: "4-bit non-linear codebook (kvalues_iq4nl), 6-bit scale per 32, fp16 scale per 256"},
	func(dst []float32, src []BlockIQ4XS) { dequantRows(dst, src, (*BlockIQ4XS).Dequant) })

// BlockIQ4XS is ggml's block_iq4_xs.
type BlockIQ4XS struct {
	D       Half       // @0: super-block scale
	ScalesH uint16     // @2: high 2 bits of group ib's 6-bit scale at bits 2ib..2ib+1
	ScalesL [4]uint8   // @4: low 4 bits of group ib's scale, the low nibble of ScalesL[ib/2] for even ib, the high one for odd
	Qs      [128]uint8 // @8: group ib's codes in Qs[16ib:16ib+16], element r<16 in the low nibble, r>=16 in the high nibble of Qs[16ib+r-16]
}

// Dequant: ib = j/32, r = j%32; ls = low4 | high2<<4;
// (d · (ls-32)) · kvalues_iq4nl[nibble].
func (b *BlockIQ4XS) Dequant(j int32) float32 {
	ib := j >> 5
	r := j & 31
	lo := (b.ScalesL[ib>>1] >> (4 * uint32(ib&1))) & 15
	hi := (b.ScalesH >> (2 * uint32(ib))) & 3
	ls := int32(lo) | int32(hi)<<4
	dl := b.D.Float32() * float32(ls-32)
	q := b.Qs[16*ib+(r&15)]
	if r >= 16 {
		q >>= 4
	}
	return dl * float32(kvaluesIQ4NL[q&15])
}

// Quantize is quantize_row_iq4_xs_ref: quantize_row_iq4_nl_impl with
// ntry = 7 over the 256 elements (the same bytes as ggml_quantize_chunk).
func (b *BlockIQ4XS) Quantize(x []float32) {
	b.D = quantizeIQ4Impl(x[:256], 7, b.Qs[:], &b.ScalesH, b.ScalesL[:])
}

// Codes: kvalues_iq4nl of the nibbles of group w/8. Scale is Dequant's dl,
// so Scale·code is its one product.
func (b *BlockIQ4XS) Codes(w int32) uint32 {
	return Lut16(&kvaluesIQ4NL, Word32(b.Qs[:], 16*((w>>3)&7)+4*(w&3))>>(4*uint32((w>>2)&1)))
}

// Scale: d·(ls-32) of group ib (32 elements).
func (b *BlockIQ4XS) Scale(ib int32) float32 {
	ib &= 7
	lo := (b.ScalesL[ib>>1] >> (4 * uint32(ib&1))) & 15
	hi := (b.ScalesH >> (2 * uint32(ib))) & 3
	ls := int32(lo) | int32(hi)<<4
	return b.D.Float32() * float32(ls-32)
}
