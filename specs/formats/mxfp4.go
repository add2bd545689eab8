package formats

import "math"

// MXFP4: 32 E2M1 elements in 17 bytes, one E8M0 scale (ggml's block_mxfp4).
var MXFP4 = register(Meta{Name: "MXFP4", GGMLType: 39, BlockElems: 32, BlockBytes: 17, SubBlock: 32, IntExact: true,
	Doc: "OCP MX 4-bit E2M1 codes, one E8M0 power-of-two scale per 32 (ggml layout)"},
	func(dst []float32, src []BlockMXFP4) { dequantRows(dst, src, (*BlockMXFP4).Dequant) })

// BlockMXFP4 is ggml's block_mxfp4. Unlike many OCP packings, the scale comes
// first and the nibbles are split halves, not adjacent pairs.
type BlockMXFP4 struct {
	E  E8M0      // @0: shared scale, read by ggml as 2^(e-128) against doubled E2M1 values
	Qs [16]uint8 // @1: element j<16 in the low nibble of Qs[j], j>=16 in the high nibble of Qs[j-16]
}

// kvaluesMXFP4 is ggml's kvalues_mxfp4: the E2M1 values doubled, indexed by
// the 4-bit code (bit 3 is the sign; code 8 is -0 and decodes as 0).
var kvaluesMXFP4 = [16]int8{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}

// Dequant: kvalues_mxfp4[nibble] · 2^(e-128), which is E2M1 · 2^(e-127).
// e = 255 is 2^127 (not NaN), as in ggml, so codes with |k| ≥ 2 give ±inf.
func (b *BlockMXFP4) Dequant(j int32) float32 {
	q := b.Qs[j&15]
	if j >= 16 {
		q >>= 4
	}
	return float32(kvaluesMXFP4[q&15]) * b.E.HalfScale()
}

// Quantize is quantize_row_mxfp4_ref: e = floor(log2f(amax)) - 2 + 127 (0 when
// amax is 0), with the floor of a float32 log2 — just below a power of two
// log2f rounds up, so e can be one more than exact math gives — and each
// element takes the nearest kvalues_mxfp4[i]·d by a scan with a strict <, so
// ties go to the lower index (the smaller magnitude). NaN inputs never become
// amax and get code 0.
func (b *BlockMXFP4) Quantize(x []float32) {
	x = x[:32]
	var amax float32
	for _, v := range x {
		if amax < abs32(v) {
			amax = abs32(v)
		}
	}
	var e uint8
	if amax > 0 {
		// floorf(log2f(amax)): this recipe equals glibc's for every positive
		// finite float32 (checked exhaustively; see the vectors README).
		fl := float32(math.Floor(float64(float32(math.Log2(float64(amax))))))
		e = cvtFloat32ToUint8(fl - 2 + 127)
	}
	b.E = E8M0(e)
	d := b.E.HalfScale()
	for j := range 16 {
		b.Qs[j] = bestIndexMXFP4(x[j], d) | bestIndexMXFP4(x[j+16], d)<<4
	}
}

// bestIndexMXFP4 is ggml's best_index_mxfp4: the first i in 0..15 with the
// smallest |kvalues_mxfp4[i]·d - x|, all in float32 (the product is rounded
// before the subtraction; NaN errors never win, so a NaN x gets 0).
func bestIndexMXFP4(x, d float32) uint8 {
	best := uint8(0)
	bestErr := abs32(float32(float32(kvaluesMXFP4[0])*d) - x)
	for i := uint8(1); i < 16; i++ {
		err := abs32(float32(float32(kvaluesMXFP4[i])*d) - x)
		if err < bestErr {
			best, bestErr = i, err
		}
	}
	return best
}

// cvtFloat32ToUint8 is C's (uint8_t)f as gcc compiles it for x86-64: a
// truncating conversion to int32 (cvttss2si, which gives 0x80000000 for NaN,
// ±inf and out-of-range values) keeping the low byte. The C cast is undefined
// outside [0, 255]; in quantize_row_mxfp4_ref that happens only for amax <
// 2^-125 (e wraps, e.g. amax = 1e-40 gives 248) and amax = +inf (e = 0), and
// this reproduces what ggml's x86-64 build does there. The vectors use neither.
func cvtFloat32ToUint8(f float32) uint8 {
	if !(f > -2147483648 && f < 2147483648) {
		return 0 // the low byte of 0x80000000
	}
	return uint8(int32(f))
}

// Codes: kvalues_mxfp4 of the nibbles (the doubled E2M1 values, int8),
// looked up four at a time (Lut16). Scale is HalfScale, so Scale·code is
// Dequant's one product.
func (b *BlockMXFP4) Codes(w int32) uint32 {
	return Lut16(&kvaluesMXFP4, Word32(b.Qs[:], 4*(w&3))>>(4*uint32((w>>2)&1)))
}

// Scale: 2^(e-128), against the doubled values.
func (b *BlockMXFP4) Scale(s int32) float32 { return b.E.HalfScale() }
