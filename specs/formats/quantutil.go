package formats

import "math"

// Host-side helpers for the reference quantizers; each reproduces the libm or
// ggml primitive of the same name exactly.

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// roundf rounds half away from zero (C roundf). Exact through float64.
func roundf(x float32) float32 { return float32(math.Round(float64(x))) }

// nearestInt is ggml's nearest_int: round to nearest, ties to even, by the
// 1.5·2^23 magic add in float32. Valid for |x| <= 4194303, as in ggml.
// The conversion float32(x) stops Go fusing a caller's product into the add
// once this is inlined.
func nearestInt(x float32) int32 {
	v := float32(x) + 12582912
	i := int32(math.Float32bits(v))
	return i&0x007fffff - 0x00400000
}

// absMaxC is the largest |x[i]|, scanned as ggml's MAX(amax, fabsf(v))
// macro does (a NaN element replaces the running maximum).
func absMaxC(x []float32) float32 {
	var amax float32
	for _, v := range x {
		if a := abs32(v); !(amax > a) {
			amax = a
		}
	}
	return amax
}

// recip is ggml's `d ? 1.0f/d : 0.0f`: the unrounded float32 inverse scale
// that the legacy quantizers compute their codes from.
func recip(d float32) float32 {
	if d == 0 {
		return 0
	}
	return 1 / d
}
