package formats

// Q5_K: 256 elements in 176 bytes; 5-bit codes in eight 32-element
// sub-blocks, each with a 6-bit scale and a 6-bit min under fp16 d and dmin.
var Q5_K = register(Meta{Name: "Q5_K", GGMLType: 13, BlockElems: 256, BlockBytes: 176, SubBlock: 32, IntExact: true,
	Doc: "5-bit codes, 6-bit scale and min per 32, fp16 d and dmin per 256 (ggml K-quant)"},
	func(dst []float32, src []BlockQ5_K) { dequantRows(dst, src, (*BlockQ5_K).Dequant) })

// BlockQ5_K is ggml's block_q5_K.
type BlockQ5_K struct {
	D      Half       // @0: super-block scale of the sub-block scales
	Dmin   Half       // @2: super-block scale of the sub-block mins
	Scales [12]uint8  // @4: eight 6-bit scales and eight 6-bit mins, packed (see scaleK4, minK4)
	Qh     [32]uint8  // @16: bit i of Qh[l] is the high (16s) bit of element 32i+l
	Qs     [128]uint8 // @48: low 4 bits, laid out as Q4_K's Qs
}

// Dequant: as Q4_K, with code q = nibble + 16·bit (j/32) of Qh[j%32];
// (d·scale_i)·q - dmin·min_i.
func (b *BlockQ5_K) Dequant(j int32) float32 {
	i := j >> 5
	l := j & 31
	q := b.Qs[(j>>6)<<5+l]
	if i&1 != 0 {
		q >>= 4
	}
	q = q&15 | ((b.Qh[l]>>i)&1)<<4
	k := i & 3
	sc := scaleK4(i, b.Scales[k], b.Scales[k+8])
	m := minK4(i, b.Scales[k+4], b.Scales[k+8])
	return b.D.Float32()*float32(sc)*float32(q) - b.Dmin.Float32()*float32(m)
}

// Quantize is quantize_row_q5_K_ref: make_qkx2_quants(32, 31, ..., rmin -0.5,
// rdelta 0.1, nstep 15, squared error) per sub-block, 6-bit scales and mins,
// codes recomputed from the fp16 d/dmin and clamped to [0, 31].
func (b *BlockQ5_K) Quantize(x []float32) {
	var L [256]uint8
	quantizeK4(x, 31, -0.5, 0.1, 15, &b.D, &b.Dmin, &b.Scales, &L)
	b.Qh = [32]uint8{}
	for c := range 4 {
		for l := range 32 {
			lo, hi := L[64*c+l], L[64*c+l+32]
			if lo > 15 {
				lo -= 16
				b.Qh[l] |= 1 << (2 * c)
			}
			if hi > 15 {
				hi -= 16
				b.Qh[l] |= 2 << (2 * c)
			}
			b.Qs[32*c+l] = lo | hi<<4
		}
	}
}

// Codes: the 5-bit codes: Q4_K's nibbles with bit w/8 of each Qh byte as
// bit 4. Scale and Offset are Q4_K's, Dequant's own operations.
func (b *BlockQ5_K) Codes(w int32) uint32 {
	lo := Word32(b.Qs[:], 32*((w>>4)&3)+4*(w&7)) >> (4 * uint32((w>>3)&1)) & 0x0F0F0F0F
	hi := Word32(b.Qh[:], 4*(w&7)) >> uint32((w>>3)&7) & 0x01010101
	return lo | hi<<4
}

// Scale: d·scale of sub-block i (32 elements), through the super form.
func (b *BlockQ5_K) Scale(i int32) float32 { return b.SuperScale() * float32(b.SubScale(i)) }

// Offset: -(dmin·min) of sub-block i, as (-dmin)·min: the same bits.
func (b *BlockQ5_K) Offset(i int32) float32 { return b.SuperOffset() * float32(b.SubOffset(i)) }

// SuperScale, SubScale, SuperOffset, SubOffset: Q4_K's super form.
func (b *BlockQ5_K) SuperScale() float32 { return b.D.Float32() }

func (b *BlockQ5_K) SubScale(i int32) int32 {
	i &= 7
	k := i & 3
	return int32(scaleK4(i, b.Scales[k], b.Scales[k+8]))
}

func (b *BlockQ5_K) SuperOffset() float32 { return -b.Dmin.Float32() }

func (b *BlockQ5_K) SubOffset(i int32) int32 {
	i &= 7
	k := i & 3
	return int32(minK4(i, b.Scales[k+4], b.Scales[k+8]))
}
