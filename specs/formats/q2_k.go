package formats

// Q2_K: 256 elements in 84 bytes; 2-bit codes in sixteen 16-element
// sub-blocks, each with a 4-bit scale and a 4-bit min under fp16 d and dmin.
var Q2_K = register(Meta{Name: "Q2_K", GGMLType: 10, BlockElems: 256, BlockBytes: 84, SubBlock: 16, IntExact: true,
	Doc: "2-bit codes, 4-bit scale and min per 16, fp16 d and dmin per 256 (ggml K-quant)"},
	func(dst []float32, src []BlockQ2_K) { dequantRows(dst, src, (*BlockQ2_K).Dequant) })

// BlockQ2_K is ggml's block_q2_K.
type BlockQ2_K struct {
	Scales [16]uint8 // @0: sub-block j/16: scale in the low nibble, min in the high nibble
	Qs     [64]uint8 // @16: per 128 elements, 32 bytes: element 32s+l in bits 2s..2s+1 of byte l
	D      Half      // @80: super-block scale of the sub-block scales
	Dmin   Half      // @82: super-block scale of the sub-block mins
}

// Dequant: q = (Qs[32·(j/128) + j%32] >> 2·((j/32)%4)) & 3, sc = Scales[j/16];
// (d·(sc&15))·q - dmin·(sc>>4).
func (b *BlockQ2_K) Dequant(j int32) float32 {
	q := (b.Qs[(j>>7)<<5+(j&31)] >> (((j >> 5) & 3) << 1)) & 3
	sc := b.Scales[j>>4]
	return b.D.Float32()*float32(sc&15)*float32(q) - b.Dmin.Float32()*float32(sc>>4)
}

// Quantize is quantize_row_q2_K_ref: make_qkx2_quants(16, 3, ..., rmin -0.5,
// rdelta 0.1, nstep 15, absolute error) per sub-block with weights |x|, the
// scales and mins quantized to 4 bits against the largest of each, then the
// codes recomputed from the fp16 d/dmin and clamped to [0, 3].
func (b *BlockQ2_K) Quantize(x []float32) {
	x = x[:256]
	const q4scale = 15
	var L [256]uint8
	var laux [16]uint8
	var weights [16]float32
	var mins, scales [16]float32
	var maxScale, maxMin float32
	for j := range 16 {
		xs := x[16*j : 16*j+16]
		for l, v := range xs {
			weights[l] = abs32(v)
		}
		scales[j], mins[j] = makeQKX2Quants(3, xs, weights[:], L[16*j:16*j+16], laux[:], -0.5, 0.1, 15, true)
		if scales[j] > maxScale {
			maxScale = scales[j]
		}
		if mins[j] > maxMin {
			maxMin = mins[j]
		}
	}
	if maxScale > 0 {
		iscale := q4scale / maxScale
		for j := range 16 {
			b.Scales[j] = uint8(nearestInt(float32(iscale * scales[j])))
		}
		b.D = HalfFromFloat32(maxScale / q4scale)
	} else {
		b.Scales = [16]uint8{}
		b.D = HalfFromFloat32(0)
	}
	if maxMin > 0 {
		iscale := q4scale / maxMin
		for j := range 16 {
			b.Scales[j] |= uint8(nearestInt(float32(iscale*mins[j])) << 4)
		}
		b.Dmin = HalfFromFloat32(maxMin / q4scale)
	} else {
		b.Dmin = HalfFromFloat32(0)
	}
	for j := range 16 {
		d := float32(b.D.Float32() * float32(b.Scales[j]&15))
		if d == 0 {
			continue
		}
		dm := float32(b.Dmin.Float32() * float32(b.Scales[j]>>4))
		for ii := range 16 {
			l := nearestInt((x[16*j+ii] + dm) / d)
			L[16*j+ii] = uint8(clamp32(l, 0, 3))
		}
	}
	for c := range 2 {
		for l := range 32 {
			L := L[128*c+l:]
			b.Qs[32*c+l] = L[0] | L[32]<<2 | L[64]<<4 | L[96]<<6
		}
	}
}

// Codes: the 2-bit codes (0..3) of elements 4w..4w+3, one word of Qs
// shifted to their bit pair. Scale d·sc and Offset -(dmin·m) are Dequant's
// own operations (a - b is a + (-b) in IEEE arithmetic).
func (b *BlockQ2_K) Codes(w int32) uint32 {
	return Word32(b.Qs[:], 32*((w>>5)&1)+4*(w&7)) >> (2 * uint32((w>>3)&3)) & 0x03030303
}

// Scale: d·(scale nibble) of sub-block s (16 elements), through the super form.
func (b *BlockQ2_K) Scale(s int32) float32 { return b.SuperScale() * float32(b.SubScale(s)) }

// Offset: -(dmin·(min nibble)) of sub-block s, as (-dmin)·(min nibble): the same bits.
func (b *BlockQ2_K) Offset(s int32) float32 { return b.SuperOffset() * float32(b.SubOffset(s)) }

// SuperScale: d; SubScale: the scale nibble of sub-block s; SuperOffset:
// -dmin; SubOffset: the min nibble. Scale and Offset are their products.
func (b *BlockQ2_K) SuperScale() float32 { return b.D.Float32() }

func (b *BlockQ2_K) SubScale(s int32) int32 { return int32(b.Scales[s&15] & 15) }

func (b *BlockQ2_K) SuperOffset() float32 { return -b.Dmin.Float32() }

func (b *BlockQ2_K) SubOffset(s int32) int32 { return int32(b.Scales[s&15] >> 4) }
