package formats

// Q4_K: 256 elements in 144 bytes; 4-bit codes in eight 32-element
// sub-blocks, each with a 6-bit scale and a 6-bit min under fp16 d and dmin.
var Q4_K = register(Meta{Name: "Q4_K", GGMLType: 12, BlockElems: 256, BlockBytes: 144, SubBlock: 32, IntExact: true,
	Doc: "4-bit codes, 6-bit scale and min per 32, fp16 d and dmin per 256 (ggml K-quant)"},
	func(dst []float32, src []BlockQ4_K) { dequantRows(dst, src, (*BlockQ4_K).Dequant) })

// BlockQ4_K is ggml's block_q4_K.
type BlockQ4_K struct {
	D      Half       // @0: super-block scale of the sub-block scales
	Dmin   Half       // @2: super-block scale of the sub-block mins
	Scales [12]uint8  // @4: eight 6-bit scales and eight 6-bit mins, packed (see scaleK4, minK4)
	Qs     [128]uint8 // @16: per 64 elements, 32 bytes: element l (<32) in the low nibble of byte l, element l+32 in its high nibble
}

// Dequant: sub-block i = j/32, code q = nibble of Qs[32·(j/64) + j%32] (low
// for even i, high for odd i); (d·scale_i)·q - dmin·min_i.
func (b *BlockQ4_K) Dequant(j int32) float32 {
	i := j >> 5
	q := b.Qs[(j>>6)<<5+(j&31)]
	if i&1 != 0 {
		q >>= 4
	}
	k := i & 3
	sc := scaleK4(i, b.Scales[k], b.Scales[k+8])
	m := minK4(i, b.Scales[k+4], b.Scales[k+8])
	return b.D.Float32()*float32(sc)*float32(q&15) - b.Dmin.Float32()*float32(m)
}

// Quantize is quantize_row_q4_K_ref: make_qkx2_quants(32, 15, ..., rmin -1,
// rdelta 0.1, nstep 20, squared error) per sub-block, 6-bit scales and mins,
// codes recomputed from the fp16 d/dmin and clamped to [0, 15].
func (b *BlockQ4_K) Quantize(x []float32) {
	var L [256]uint8
	quantizeK4(x, 15, -1, 0.1, 20, &b.D, &b.Dmin, &b.Scales, &L)
	for c := range 4 {
		for l := range 32 {
			b.Qs[32*c+l] = L[64*c+l] | L[64*c+l+32]<<4
		}
	}
}

// Codes: the nibbles of sub-block w/8, one word of Qs. Scale d·scale and
// Offset -(dmin·min) are Dequant's own operations.
func (b *BlockQ4_K) Codes(w int32) uint32 {
	return Word32(b.Qs[:], 32*((w>>4)&3)+4*(w&7)) >> (4 * uint32((w>>3)&1)) & 0x0F0F0F0F
}

// Scale: d·scale of sub-block i (32 elements), through the super form.
func (b *BlockQ4_K) Scale(i int32) float32 { return b.SuperScale() * float32(b.SubScale(i)) }

// Offset: -(dmin·min) of sub-block i, as (-dmin)·min: the same bits.
func (b *BlockQ4_K) Offset(i int32) float32 { return b.SuperOffset() * float32(b.SubOffset(i)) }

// SuperScale: d. Scale(i) is d·SubScale(i), the same product (the super
// form: kernels accumulate codes times SubScale in integers over a block).
func (b *BlockQ4_K) SuperScale() float32 { return b.D.Float32() }

// SubScale: the 6-bit scale of sub-block i.
func (b *BlockQ4_K) SubScale(i int32) int32 {
	i &= 7
	k := i & 3
	return int32(scaleK4(i, b.Scales[k], b.Scales[k+8]))
}

// SuperOffset: -dmin. Offset(i) is -(dmin·min) = (-dmin)·min exactly.
func (b *BlockQ4_K) SuperOffset() float32 { return -b.Dmin.Float32() }

// SubOffset: the 6-bit min of sub-block i.
func (b *BlockQ4_K) SubOffset(i int32) int32 {
	i &= 7
	k := i & 3
	return int32(minK4(i, b.Scales[k+4], b.Scales[k+8]))
}
