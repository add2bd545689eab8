package formats

import "math"

// Host-side helpers shared by the legacy quantizers (Q4_1, Q5_0, Q5_1, Q8_0).

// cvtt is C's float-to-integer cast as gcc compiles it on x86-64, where the
// vectors were made: cvttss2si truncates toward zero into an int32, and a
// NaN or out-of-range value gives 0x80000000. Casts to int8_t/uint8_t keep
// the low byte of that int32. Go leaves out-of-range conversions
// implementation-defined (arm64 saturates), so the quantizers go through
// this instead of a bare conversion.
func cvtt(x float32) int32 {
	f := float64(x)
	if f != f || f >= 1<<31 || f <= -(1<<31)-1 {
		return math.MinInt32
	}
	return int32(math.Trunc(f))
}

// cMin is C's MIN(a, b) macro: ((a) < (b) ? (a) : (b)).
func cMin(a, b int32) int32 {
	if a < b {
		return a
	}
	return b
}

// minMax32 is the min/max scan of quantize_row_q4_1_ref and _q5_1_ref:
// min starts at FLT_MAX and max at -FLT_MAX, each replaced by a strictly
// smaller or larger element.
func minMax32(x []float32) (lo, hi float32) {
	lo, hi = math.MaxFloat32, -math.MaxFloat32
	for _, v := range x {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

// signedAbsMax is the scan of quantize_row_q4_0_ref and _q5_0_ref: the
// element of largest magnitude, with its sign; the first one wins a tie.
func signedAbsMax(x []float32) float32 {
	var amax, max float32
	for _, v := range x {
		if amax < abs32(v) {
			amax, max = abs32(v), v
		}
	}
	return max
}
