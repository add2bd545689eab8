package formats

import "math"

// MXFP6 is not a ggml format: forge defines it (see the vectors README,
// "MXFP6"). A block is 32 OCP FP6 elements (E2M3 or E3M2) in 25 bytes: one
// E8M0 scale byte, then 24 bytes read as one 192-bit little-endian integer B
// whose bits 6k..6k+5 are element k's code (LSB first, so codes cross bytes).

// MXFP6_E2M3: 32 FP6 E2M3 elements with one E8M0 scale.
var MXFP6_E2M3 = register(Meta{Name: "MXFP6_E2M3", GGMLType: NoGGMLType, BlockElems: 32, BlockBytes: 25, SubBlock: 32,
	Doc: "OCP MX 6-bit E2M3 codes (max 7.5), one E8M0 power-of-two scale per 32 (forge layout)"},
	func(dst []float32, src []BlockMXFP6_E2M3) { dequantRows(dst, src, (*BlockMXFP6_E2M3).Dequant) })

// MXFP6_E3M2: 32 FP6 E3M2 elements with one E8M0 scale.
var MXFP6_E3M2 = register(Meta{Name: "MXFP6_E3M2", GGMLType: NoGGMLType, BlockElems: 32, BlockBytes: 25,
	Doc:       "OCP MX 6-bit E3M2 codes (max 28), one E8M0 power-of-two scale per 32 (forge layout)",
	NoIntForm: "its values times 16 (the inverse of its smallest step, 1/16) reach 448, beyond int8 codes"},
	func(dst []float32, src []BlockMXFP6_E3M2) { dequantRows(dst, src, (*BlockMXFP6_E3M2).Dequant) })

// BlockMXFP6_E2M3 is an MXFP6 block with E2M3 elements.
type BlockMXFP6_E2M3 struct {
	E  E8M0      // @0: shared scale 2^(e-127); 255 is NaN
	Qs [24]uint8 // @1: 32 six-bit codes, element k at bits 6k..6k+5 of the little-endian Qs
}

// BlockMXFP6_E3M2 is an MXFP6 block with E3M2 elements.
type BlockMXFP6_E3M2 struct {
	E  E8M0      // @0: shared scale 2^(e-127); 255 is NaN
	Qs [24]uint8 // @1: 32 six-bit codes, element k at bits 6k..6k+5 of the little-endian Qs
}

// Dequant: ±fp6E2M3Mag[code(j)&31] · 2^(e-127), where code(j) is bits
// 6·(j%4)..6·(j%4)+5 of the 24-bit little-endian group at Qs[3·(j/4)] and
// code bit 5 is the sign.
//
// The float32 product is exactly the README's "computed in double, rounded
// once" value. IEEE multiplication returns the exact product rounded once,
// and both factors are exact: a table value is ≤ 4 significant bits times a
// power of two and the scale is a power of two (or NaN). The exact product
// is an integer ≤ 15 times 2^k with k ≥ -131 (smallest E2M3 step 2^-3 times
// the smallest scale 2^-127; E3M2's is 2^-4·2^-127), and float32 resolves
// 2^-149, so the product is exact unless it reaches 2^128, where the float32
// multiply and the double-then-float32 rounding both give ±inf. The sign is
// a multiplication by ±1 (exact), so code 32 gives +0·-1 = -0, and -0·scale
// stays -0; a NaN scale gives NaN. (Branch-free: the row loop stays fast.)
func (b *BlockMXFP6_E2M3) Dequant(j int32) float32 {
	g := 3 * (j >> 2) // element j's code is in the 24 bits at byte 3·(j/4)
	c := (uint32(b.Qs[g]) | uint32(b.Qs[g+1])<<8 | uint32(b.Qs[g+2])<<16) >> (6 * uint32(j&3))
	return fp6E2M3Mag[c&31] * fp6Sign[(c>>5)&1] * b.E.Float32()
}

// Dequant: ±fp6E3M2Mag[code(j)&31] · 2^(e-127), code(j) as for E2M3; see
// the E2M3 Dequant for why the float32 product is exact.
func (b *BlockMXFP6_E3M2) Dequant(j int32) float32 {
	g := 3 * (j >> 2) // element j's code is in the 24 bits at byte 3·(j/4)
	c := (uint32(b.Qs[g]) | uint32(b.Qs[g+1])<<8 | uint32(b.Qs[g+2])<<16) >> (6 * uint32(j&3))
	return fp6E3M2Mag[c&31] * fp6Sign[(c>>5)&1] * b.E.Float32()
}

// The magnitudes of the 32 non-negative codes. With m mantissa bits and
// exponent bias β, exponent field 0 is subnormal (man·2^(1-β-m)) and field
// E > 0 is (2^m+man)·2^(E-β-m). They are constant literals because the
// generator reads tables from source; TestMXFP6Tables pins them, bit for bit,
// to fp6Table (the definition above) and to vectors/mxfp6_tables.bin.

// fp6Sign is the factor of code bit 5: +1 or -1.
var fp6Sign = [2]float32{1, -1}

// fp6E2M3Mag: 2 exponent bits, 3 mantissa bits, bias 1; max 7.5.
var fp6E2M3Mag = [32]float32{
	0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875,
	1, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875,
	2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75,
	4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5,
}

// fp6E3M2Mag: 3 exponent bits, 2 mantissa bits, bias 3; max 28.
var fp6E3M2Mag = [32]float32{
	0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375,
	0.5, 0.625, 0.75, 0.875, 1, 1.25, 1.5, 1.75,
	2, 2.5, 3, 3.5, 4, 5, 6, 7,
	8, 10, 12, 14, 16, 20, 24, 28,
}

// fp6Table is the full signed decode table (64 codes) computed from the
// definition; the quantizer's tests and the table test use it.
func fp6Table(mbits, bias int) (t [64]float32) {
	for c := range 64 {
		exp, man := (c&31)>>mbits, c&(1<<mbits-1)
		var v float64
		if exp == 0 {
			v = math.Ldexp(float64(man), 1-bias-mbits)
		} else {
			v = math.Ldexp(float64(1<<mbits+man), exp-bias-mbits)
		}
		if c&32 != 0 {
			v = -v // a run-time negation, so code 32 is -0
		}
		t[c] = float32(v)
	}
	return t
}

// Quantize is forge's MXFP6 reference quantizer (E2M3), following the OCP MX
// v1.0 conversion; see quantizeMXFP6.
func (b *BlockMXFP6_E2M3) Quantize(x []float32) {
	b.E, b.Qs = quantizeMXFP6(x, 3, 1, &fp6E2M3Mag)
}

// Quantize is forge's MXFP6 reference quantizer (E3M2), following the OCP MX
// v1.0 conversion; see quantizeMXFP6.
func (b *BlockMXFP6_E3M2) Quantize(x []float32) {
	b.E, b.Qs = quantizeMXFP6(x, 2, 3, &fp6E3M2Mag)
}

// quantizeMXFP6 converts one block of 32 floats as the OCP MX v1.0 spec
// (section 6.3) does; ggml has no MXFP6, so there is no upstream to match.
//
//   - Shared scale: X = 2^s with s = floor(log2(amax)) - emax, where emax is
//     the exponent of the element format's largest normal (2 for E2M3, whose
//     max is 1.875·2^2; 4 for E3M2, 1.75·2^4). floor(log2) is exact (from the
//     float's binary exponent, not a rounded log2 as in ggml's MXFP4). s is
//     clamped to the E8M0 range [-127, 127] (for finite float32 input only
//     the lower clamp can act, when amax < 2^-125) and stored as e = s+127.
//   - Elements: x/X (exact: X is a power of two) rounded to the nearest FP6
//     value, ties to even (the even code), saturating to ±max when |x/X|
//     exceeds it (possible when amax/X lies in (max, 2^(emax+1))). The sign
//     is kept, so -0 and negative values that round to zero give code 32
//     (-0).
//   - amax = 0 (all inputs ±0): e = 0 and every code is 0 or 32 (the input's
//     sign); the block decodes to the same signed zeros.
//   - NaN or ±inf anywhere in the block: FP6 has no NaN or inf codes, so the
//     scale byte is 255 (NaN) and every code is 0; the whole block decodes to
//     NaN. (This is what the OCP reference library, microxcaling, does: a
//     NaN or infinite amax gives a NaN shared scale.)
func quantizeMXFP6(x []float32, mbits, bias int, table *[32]float32) (E8M0, [24]uint8) {
	x = x[:32]
	var qs [24]uint8
	var amax float64
	for _, v := range x {
		a := math.Abs(float64(v))
		if !(a <= math.MaxFloat32) { // NaN or inf
			return 255, qs
		}
		amax = max(amax, a)
	}
	// emax is the binary exponent of the largest value, table[31].
	_, maxExp := math.Frexp(float64(table[31]))
	emax := maxExp - 1
	s := -127
	if amax > 0 {
		_, ex := math.Frexp(amax) // amax = f·2^ex with f in [0.5, 1)
		s = min(max(ex-1-emax, -127), 127)
	}
	for k, v := range x {
		c := fp6RoundCode(math.Ldexp(float64(v), -s), mbits, bias, table)
		bit := 6 * k
		w := uint32(c) << (bit % 8)
		for i := bit / 8; w != 0; i++ {
			qs[i] |= uint8(w)
			w >>= 8
		}
	}
	return E8M0(s + 127), qs
}

// fp6RoundCode is the FP6 code (m mantissa bits, bias) nearest to v, ties to
// even, saturating to ±table[31]. v is exact (a float32 times a power of two).
func fp6RoundCode(v float64, mbits, bias int, table *[32]float32) uint8 {
	var sign uint8
	if math.Signbit(v) {
		sign = 32
	}
	a := math.Abs(v)
	if a >= float64(table[31]) {
		return sign | 31
	}
	if a == 0 {
		return sign // Frexp(0) has no meaningful exponent
	}
	// The step between neighbours around a: 2^(e-m) where e is a's binary
	// exponent, or the minimum normal exponent 1-bias for subnormals.
	_, ex := math.Frexp(a)
	e := max(ex-1, 1-bias)
	n := int(math.RoundToEven(math.Ldexp(a, mbits-e))) // a / step, exact before rounding
	// n is the rounded significand, implicit bit included: 2^m ≤ n ≤ 2^(m+1)
	// for normals, 0 ≤ n ≤ 2^m for subnormals (e = 1-bias). The code is then
	// (e+bias-1)·2^m + n: for normals that is exponent field e+bias with
	// mantissa n-2^m, for subnormals it is n, and n = 2^(m+1) (or 2^m from a
	// subnormal) carries into the next exponent. a < max keeps it ≤ 31.
	return sign | uint8((e+bias-1)<<mbits+n)
}

// Codes: eight times the E2M3 value of each 6-bit code (an integer: the
// smallest step is 1/8, the largest value 7.5), looked up per code in
// fp6E2M3Code. Scale 2^(e-127)/8 is exact (at least 2^-130, a float32
// subnormal), and Scale·code is the exact product mag·2^(e-127) rounded
// once, which is Dequant's one rounding. (Code -0 gives +0, not -0.)
// E3M2 has none: its values times 16, the smallest step's inverse, reach
// 448, beyond int8.
func (b *BlockMXFP6_E2M3) Codes(w int32) uint32 {
	g := 3 * (w & 7)
	c := uint32(b.Qs[g]) | uint32(b.Qs[g+1])<<8 | uint32(b.Qs[g+2])<<16
	return uint32(uint8(fp6E2M3Code[c&63])) | uint32(uint8(fp6E2M3Code[(c>>6)&63]))<<8 |
		uint32(uint8(fp6E2M3Code[(c>>12)&63]))<<16 | uint32(uint8(fp6E2M3Code[(c>>18)&63]))<<24
}

// Scale: 2^(e-127)/8.
func (b *BlockMXFP6_E2M3) Scale(s int32) float32 { return b.E.Float32() * 0.125 }

// fp6E2M3Code is 8·(the E2M3 value) of each signed 6-bit code;
// TestIntForm checks each against Dequant.
var fp6E2M3Code = [64]int8{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 18, 20, 22, 24, 26, 28, 30, 32, 36, 40, 44, 48, 52, 56, 60,
	0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15,
	-16, -18, -20, -22, -24, -26, -28, -30, -32, -36, -40, -44, -48, -52, -56, -60,
}
