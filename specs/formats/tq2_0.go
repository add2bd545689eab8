package formats

// TQ2_0: 256 ternary elements in 66 bytes; 2 bits per element, one fp16
// scale at the end.
var TQ2_0 = register(Meta{Name: "TQ2_0", GGMLType: 35, BlockElems: 256, BlockBytes: 66, SubBlock: 32, IntZero: 1,
	Doc: "ternary {-1,0,1} in 2-bit codes, one fp16 scale per 256"},
	func(dst []float32, src []BlockTQ2_0) { dequantRows(dst, src, (*BlockTQ2_0).Dequant) })

// BlockTQ2_0 is ggml's block_tq2_0.
type BlockTQ2_0 struct {
	Qs [64]uint8 // @0: element j: h=j/128, l=(j%128)/32, m=j%32; bits 2l..2l+1 of Qs[32h+m]
	D  Half      // @64: scale
}

// Dequant: q = (Qs[32h+m] >> 2l) & 3; (q - 1) · d (code 3 gives 2·d).
func (b *BlockTQ2_0) Dequant(j int32) float32 {
	h := j >> 7
	l := (j >> 5) & 3
	q := (b.Qs[32*h+(j&31)] >> (2 * uint32(l))) & 3
	return float32(int32(q)-1) * b.D.Float32()
}

// Quantize is quantize_row_tq2_0_ref: d = max|x|, code lroundf(x/d)+1 from
// the unrounded 1/d.
func (b *BlockTQ2_0) Quantize(x []float32) {
	x = x[:256]
	d := absMaxC(x)
	id := recip(d)
	b.D = HalfFromFloat32(d)
	for h := range 2 {
		for m := range 32 {
			var q uint8
			for n := range 4 {
				xi := lroundf(x[128*h+m+32*n]*id) + 1
				q += uint8(xi&3) << (2 * n)
			}
			b.Qs[32*h+m] = q
		}
	}
}

// Codes: the 2-bit codes (0..2, or 3), one word of Qs shifted to their bit
// pair. Offset -d makes them (q-1)·d, exactly (an 11-bit significand
// times at most 2 bits).
func (b *BlockTQ2_0) Codes(w int32) uint32 {
	return Word32(b.Qs[:], 32*((w>>5)&1)+4*(w&7)) >> (2 * uint32((w>>3)&3)) & 0x03030303
}

// Scale: d.
func (b *BlockTQ2_0) Scale(s int32) float32 { return b.D.Float32() }

// Offset: -d.
func (b *BlockTQ2_0) Offset(s int32) float32 { return -b.D.Float32() }
