package formats

import "math"

// The scalar types below are the vocabulary of the specs. Their conversion
// methods are the "named helpers" of the Dequant subset: the translator maps
// each to a device intrinsic instead of translating its Go body.

// Half is an IEEE 754 binary16 value stored as its bits (ggml_half).
type Half uint16

// Float32 widens h exactly. A NaN keeps its payload and gains the quiet bit,
// as ggml's conversion through the FPU does (0x7C01 → 0x7FC02000).
func (h Half) Float32() float32 { return halfTable[h] }

var halfTable = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = halfBitsToFloat32(uint16(i))
	}
	return &t
}()

func halfBitsToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f && man == 0:
		return math.Float32frombits(sign | 0x7f800000)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7fc00000 | man<<13)
	case exp == 0:
		// Zero or subnormal: man·2^-24, exact in float32.
		v := float32(man) * (1.0 / (1 << 24))
		return math.Float32frombits(sign | math.Float32bits(v))
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// HalfFromFloat32 rounds f to the nearest binary16, ties to even, with
// overflow to ±inf and gradual underflow; every NaN becomes 0x7E00 with f's
// sign. This is ggml's GGML_FP32_TO_FP16 bit for bit.
func HalfFromFloat32(f float32) Half {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	abs := bits & 0x7fffffff
	switch {
	case abs > 0x7f800000: // NaN
		return Half(sign | 0x7e00)
	case abs >= 0x477ff000: // ≥ 65520 rounds to inf
		return Half(sign | 0x7c00)
	case abs >= 0x38800000: // normal in binary16 (≥ 2^-14)
		r := abs - 0x38000000 // rebias the exponent from 127 to 15
		r += 0xfff + (r>>13)&1
		return Half(sign | uint16(r>>13))
	case abs < 0x33000000: // ≤ 2^-25 (the tie at 2^-25 goes to even, 0)
		return Half(sign)
	}
	// Subnormal: the value in units of 2^-24, rounded to nearest even.
	e := abs >> 23
	m := abs&0x7fffff | 0x800000
	shift := 126 - e // in [14, 24]
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return Half(sign | uint16(q))
}

// BFloat16 is a bfloat16 value stored as its bits (ggml_bf16_t).
type BFloat16 uint16

// Float32 widens b exactly: the bits shifted into the high half.
func (b BFloat16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }

// BFloat16FromFloat32 rounds to nearest even without flushing subnormals; a NaN
// keeps its top bits and gains the quiet bit (ggml_compute_fp32_to_bf16).
func BFloat16FromFloat32(f float32) BFloat16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return BFloat16(u>>16 | 64)
	}
	return BFloat16((u + 0x7fff + (u>>16)&1) >> 16)
}

// E8M0 is an OCP Microscaling shared scale: a biased power of two.
type E8M0 uint8

// Float32 is the OCP value 2^(e-127); e = 255 is NaN. e = 0 gives the
// float32 subnormal 2^-127.
func (e E8M0) Float32() float32 {
	if e == 255 {
		return float32(math.NaN())
	}
	return e8m0Table[e]
}

// HalfScale is ggml's ggml_e8m0_to_fp32_half: 2^(e-128), with e = 255 read
// as 2^127 rather than NaN. MXFP4 multiplies it by doubled E2M1 values.
func (e E8M0) HalfScale() float32 {
	if e < 2 {
		return e8m0Table[0] / float32(2-e) // 2^-128 or 2^-127, both subnormal
	}
	return e8m0Table[e-1]
}

// e8m0Table[e] = 2^(e-127) for e in [0, 254]; entry 255 is unused.
var e8m0Table = func() (t [256]float32) {
	for e := range 255 {
		t[e] = float32(math.Ldexp(1, e-127))
	}
	return
}()
