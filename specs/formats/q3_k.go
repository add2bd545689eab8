package formats

// Q3_K: 256 elements in 110 bytes; 3-bit codes in 16 sub-blocks of 16, each
// with a 6-bit signed scale, under one fp16 super-scale.
var Q3_K = register(Meta{Name: "Q3_K", GGMLType: 11, BlockElems: 256, BlockBytes: 110, SubBlock: 16, IntZero: 4,
	Doc: "3-bit codes, 6-bit scale per 16, fp16 scale per 256 (ggml K-quant)"},
	func(dst []float32, src []BlockQ3_K) { dequantRows(dst, src, (*BlockQ3_K).Dequant) })

// BlockQ3_K is ggml's block_q3_K.
type BlockQ3_K struct {
	Hmask  [32]uint8 // @0: high bit of element j at bit j/32 of Hmask[j%32]; SET means no -4
	Qs     [64]uint8 // @32: low 2 bits; n=j/128, s=(j%128)/32: bits 2s..2s+1 of Qs[32n+j%32]
	Scales [12]uint8 // @96: 16 6-bit scales biased by 32: low nibbles in [0:8], high 2 bits in [8:12]
	D      Half      // @108: super-scale
}

// Dequant: with n=j/128, s=(j%128)/32, l=j%32, i=8n+2s+l/16:
// q = ((Qs[32n+l]>>2s)&3) - (Hmask[l] bit 4n+s set ? 0 : 4);
// (d · float(scale6(i) - 32)) · float(q).
func (b *BlockQ3_K) Dequant(j int32) float32 {
	n := j >> 7
	s := (j >> 5) & 3
	l := j & 31
	q := int32(b.Qs[32*n+l]>>(2*uint32(s))) & 3
	if b.Hmask[l]&(1<<uint32((4*n+s)&7)) == 0 { // &7: 4n+s < 8; it saves the device a shift guard
		q -= 4
	}
	i := 8*n + 2*s + l>>4
	sc := q3KScale(b.Scales[i&7], b.Scales[8+i&3], i) - 32
	return (b.D.Float32() * float32(sc)) * float32(q)
}

// Quantize is quantize_row_q3_K_ref: per 16-element sub-block a scale from
// make_q3_quants (nmax 4, weighted refinement); the scale of largest
// magnitude maps to -32 to give d, the sub-scales are rounded to 6 bits, and
// the codes are recomputed from the fp16 d times each rounded sub-scale
// (sub-blocks whose scale rounds to 0 keep make_q3_quants' codes).
func (b *BlockQ3_K) Quantize(x []float32) {
	x = x[:256]
	var L [256]int8
	var scales [16]float32
	var maxScale, amax float32
	for j := range 16 {
		scales[j] = makeQ3Quants(16, 4, x[16*j:16*j+16], L[16*j:16*j+16], true)
		if s := abs32(scales[j]); s > amax {
			amax, maxScale = s, scales[j]
		}
	}

	b.Scales = [12]uint8{}
	if maxScale != 0 {
		iscale := -32 / maxScale
		for j := range 16 {
			l := int32(int8(nearestInt(float32(iscale * scales[j]))))
			l = max(-32, min(31, l)) + 32
			if j < 8 {
				b.Scales[j] = uint8(l & 15)
			} else {
				b.Scales[j-8] |= uint8(l&15) << 4
			}
			b.Scales[8+j%4] |= uint8(l>>4) << (2 * (j / 4))
		}
		b.D = HalfFromFloat32(1 / iscale)
	} else {
		b.D = HalfFromFloat32(0)
	}

	for j := range 16 {
		sc := q3KScale(b.Scales[j%8], b.Scales[8+j%4], int32(j)) - 32
		d := b.D.Float32() * float32(sc)
		if d == 0 {
			continue
		}
		for ii := range 16 {
			l := max(-4, min(3, nearestInt(x[16*j+ii]/d)))
			L[16*j+ii] = int8(l + 4)
		}
	}

	// The high bit of element j goes to bit j/32 of Hmask[j%32].
	b.Hmask = [32]uint8{}
	for j := range 256 {
		if L[j] > 3 {
			b.Hmask[j%32] |= 1 << (j / 32)
			L[j] -= 4
		}
	}
	for n := 0; n < 256; n += 128 {
		for l := range 32 {
			b.Qs[n/4+l] = uint8(L[n+l]) | uint8(L[n+l+32])<<2 | uint8(L[n+l+64])<<4 | uint8(L[n+l+96])<<6
		}
	}
}

// Codes: q+4 (0..7): the two low bits from Qs and the Hmask bit as bit 2,
// one word of each. Offset -4·Scale makes them q·Scale: Scale (an 11-bit
// significand times a 6-bit integer) times a 3-bit code is exact, and so
// is the sum.
func (b *BlockQ3_K) Codes(w int32) uint32 {
	n := (w >> 5) & 1
	s := (w >> 3) & 3
	l := 4 * (w & 7)
	lo := Word32(b.Qs[:], 32*n+l) >> (2 * uint32(s)) & 0x03030303
	hi := Word32(b.Hmask[:], l) >> uint32(4*n+s) & 0x01010101
	return lo | hi<<2
}

// Scale: d·(scale6 - 32) of sub-block i (16 elements), Dequant's first
// product, through the super form.
func (b *BlockQ3_K) Scale(i int32) float32 { return b.SuperScale() * float32(b.SubScale(i)) }

// Offset: -4·Scale.
func (b *BlockQ3_K) Offset(i int32) float32 { return -4 * b.Scale(i) }

// SuperScale: d; SubScale: scale6 - 32 of sub-block i (-32..31). The
// offset needs no super form: it is -4·Scale (IntZero).
func (b *BlockQ3_K) SuperScale() float32 { return b.D.Float32() }

func (b *BlockQ3_K) SubScale(i int32) int32 {
	i &= 15
	return q3KScale(b.Scales[i&7], b.Scales[8+i&3], i) - 32
}
