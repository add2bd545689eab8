package formats

// Q6_K: 256 elements in 210 bytes; 6-bit codes in 16 sub-blocks of 16, each
// with an int8 scale, under one fp16 super-scale.
var Q6_K = register(Meta{Name: "Q6_K", GGMLType: 14, BlockElems: 256, BlockBytes: 210, SubBlock: 16, IntZero: 32,
	Doc: "6-bit codes, int8 scale per 16, fp16 scale per 256 (ggml K-quant)"},
	func(dst []float32, src []BlockQ6_K) { dequantRows(dst, src, (*BlockQ6_K).Dequant) })

// BlockQ6_K is ggml's block_q6_K.
type BlockQ6_K struct {
	Ql     [128]uint8 // @0: low 4 bits; n=j/128, g=(j%128)/32, l=j%32: byte Ql[64n+32(g%2)+l], low nibble for g<2, high for g>=2
	Qh     [64]uint8  // @128: high 2 bits of element j at bits 2g..2g+1 of Qh[32n+l]
	Scales [16]int8   // @192: sub-block scales; element j uses Scales[8n+2g+l/16]
	D      Half       // @208: super-scale
}

// Dequant: q = (low4 | high2<<4) - 32; (d · float(Scales[8n+2g+l/16])) · float(q).
func (b *BlockQ6_K) Dequant(j int32) float32 {
	n := j >> 7
	g := (j >> 5) & 3
	l := j & 31
	lo := b.Ql[64*n+32*(g&1)+l]
	if g >= 2 {
		lo >>= 4
	}
	hi := (b.Qh[32*n+l] >> (2 * uint32(g))) & 3
	q := int32(lo&15|hi<<4) - 32
	sc := b.Scales[8*n+2*g+l>>4]
	return (b.D.Float32() * float32(sc)) * float32(q)
}

// Quantize is quantize_row_q6_K_ref: per 16-element sub-block a scale from
// make_qx_quants (nmax 32, rmse type 1); the scale of largest magnitude maps
// to -128 to give d, the sub-scales are rounded to int8 (at most 127), and
// the codes are recomputed from the fp16 d times each int8 sub-scale
// (sub-blocks whose scale is 0 keep make_qx_quants' codes). A block whose
// scales are all below GROUP_MAX_EPS is all zero.
func (b *BlockQ6_K) Quantize(x []float32) {
	x = x[:256]
	var L [256]int8
	var scales [16]float32
	var maxScale, maxAbsScale float32
	for ib := range 16 {
		scales[ib] = makeQXQuants(16, 32, x[16*ib:16*ib+16], L[16*ib:16*ib+16], 1, nil)
		if s := abs32(scales[ib]); s > maxAbsScale {
			maxAbsScale, maxScale = s, scales[ib]
		}
	}
	if maxAbsScale < qxGroupMaxEps {
		*b = BlockQ6_K{D: HalfFromFloat32(0)}
		return
	}

	iscale := -128 / maxScale
	b.D = HalfFromFloat32(1 / iscale)
	for ib := range 16 {
		b.Scales[ib] = int8(min(127, nearestInt(float32(iscale*scales[ib]))))
	}

	for j := range 16 {
		d := b.D.Float32() * float32(b.Scales[j])
		if d == 0 {
			continue
		}
		for ii := range 16 {
			l := max(-32, min(31, nearestInt(x[16*j+ii]/d)))
			L[16*j+ii] = int8(l + 32)
		}
	}

	for n := 0; n < 256; n += 128 {
		ql := b.Ql[n/2 : n/2+64]
		qh := b.Qh[n/4 : n/4+32]
		for l := range 32 {
			q1 := uint8(L[n+l]) & 15
			q2 := uint8(L[n+l+32]) & 15
			q3 := uint8(L[n+l+64]) & 15
			q4 := uint8(L[n+l+96]) & 15
			ql[l] = q1 | q3<<4
			ql[l+32] = q2 | q4<<4
			qh[l] = uint8(L[n+l])>>4 | uint8(L[n+l+32])>>4<<2 | uint8(L[n+l+64])>>4<<4 | uint8(L[n+l+96])>>4<<6
		}
	}
}

// Codes: q+32 (0..63): the low nibbles from one word of Ql, the high bit
// pairs from one word of Qh. Offset -32·Scale makes them q·Scale: Scale
// (an 11-bit significand times an int8) times a 6-bit code needs at most
// 24 bits (2047·127·63 < 2^24), so it is exact, and so is the sum.
// (Unsigned codes with an offset cost the kernel one multiply-add per
// sub-block; signed ones would cost a byte-wise subtract per word.)
func (b *BlockQ6_K) Codes(w int32) uint32 {
	n := (w >> 5) & 1
	g := (w >> 3) & 3
	l := 4 * (w & 7)
	lo := Word32(b.Ql[:], 64*n+32*(g&1)+l) >> (4 * uint32(g>>1)) & 0x0F0F0F0F
	hi := Word32(b.Qh[:], 32*n+l) >> (2 * uint32(g)) & 0x03030303
	return lo | hi<<4
}

// Scale: d·Scales[i] of sub-block i (16 elements), Dequant's first product,
// through the super form.
func (b *BlockQ6_K) Scale(i int32) float32 { return b.SuperScale() * float32(b.SubScale(i)) }

// Offset: -32·Scale.
func (b *BlockQ6_K) Offset(i int32) float32 { return -32 * b.Scale(i) }

// SuperScale: d; SubScale: Scales[i]. The offset is -32·Scale (IntZero).
func (b *BlockQ6_K) SuperScale() float32 { return b.D.Float32() }

func (b *BlockQ6_K) SubScale(i int32) int32 { return int32(b.Scales[i&15]) }
