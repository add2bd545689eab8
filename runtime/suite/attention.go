package suite

import (
	"fmt"
	"math"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

// AttentionDTypes are the element types of the attention kernels.
var AttentionDTypes = []string{"f16", "f32"}

// AttentionElemSize is the bytes per element of dtype ("f16" 2, "f32" 4),
// 0 for another.
func AttentionElemSize(dtype string) int { return backend.AttentionElemSize(dtype) }

// AttentionTolerance is what a kernel's o may differ from the float64
// reference (computed from the same, already rounded, inputs): the
// normalised mean squared error NMSE = Σ(o−ref)²/Σref² and the largest
// absolute error of one element (o's elements are weighted averages of v's,
// of magnitude ≲ 3 for AttentionData's inputs).
//
//   - f32: float32 scores, exp2 and sums: an error of ~1e-7 relative to
//     the scores' size goes into the exponent, so it grows with the score
//     range. The host-executed kernels show NMSE ~1e-13 and max ~3e-6 on
//     AttentionData's inputs, and max 1e-5 on keys scaled up to 16× (scores
//     spread over ±50): NMSE 1e-10 and 1e-4 absolute leave ≥ 10×.
//   - f16: o is rounded to f16 (half an ulp, 2^-12 relative, NMSE ~4e-8)
//     and the tensor-core path rounds P to f16 too (NMSE ~8e-8, max
//     1.7e-3 on the host-executed kernels, where o's elements reach ~3 and
//     an f16 ulp there is 2e-3): NMSE 1e-5 and 8e-3 absolute leave a
//     margin (100× and 4×) while failing a wrong mask, head or tile
//     (errors of order 0.1 to 1).
type AttentionTolerance struct {
	NMSE, MaxAbs float64
}

// AttentionTolerances are the bounds, by dtype.
var AttentionTolerances = map[string]AttentionTolerance{
	"f32": {NMSE: 1e-10, MaxAbs: 1e-4},
	"f16": {NMSE: 1e-5, MaxAbs: 8e-3},
}

// AttentionData returns deterministic q, k and v for shape s: roughly
// normal values (a sum of three uniforms), q with standard deviation 2 and
// k and v 1, so the scores (scale 1/sqrt(d)) have a spread of about 2 and
// the softmax is neither uniform nor one-hot. For dtype "f16" every value
// is rounded to f16 (and stays exact in float32).
func AttentionData(dtype string, s backend.AttentionShape, seed uint64) (q, k, v []float32) {
	r := NewRand(seed)
	gen := func(n int, sd float32) []float32 {
		out := make([]float32, n)
		for i := range out {
			x := sd * (r.Float() + r.Float() + r.Float())
			if dtype == "f16" {
				x = formats.HalfFromFloat32(x).Float32()
			}
			out[i] = x
		}
		return out
	}
	return gen(s.QElems(), 2), gen(s.KVElems(), 1), gen(s.KVElems(), 1)
}

// AttentionError compares o with the reference ref: NMSE and the largest
// absolute error (NaN anywhere gives +Inf).
func AttentionError(o, ref []float32) (nmse, maxAbs float64) {
	var num, den float64
	for i, r := range ref {
		d := float64(o[i]) - float64(r)
		if math.IsNaN(d) {
			return math.Inf(1), math.Inf(1)
		}
		num += d * d
		den += float64(r) * float64(r)
		maxAbs = math.Max(maxAbs, math.Abs(d))
	}
	switch {
	case den > 0:
		nmse = num / den
	case num > 0:
		nmse = math.Inf(1)
	}
	return nmse, maxAbs
}

// CheckAttention checks o against ref for dtype's tolerance, naming the
// case in the error.
func CheckAttention(name, dtype string, o, ref []float32) error {
	tol, ok := AttentionTolerances[dtype]
	if !ok {
		return fmt.Errorf("%s: unknown attention dtype %q (want f16 or f32)", name, dtype)
	}
	if len(o) != len(ref) {
		return fmt.Errorf("%s: %d output values, want %d", name, len(o), len(ref))
	}
	nmse, maxAbs := AttentionError(o, ref)
	if !(nmse <= tol.NMSE) || !(maxAbs <= tol.MaxAbs) {
		return fmt.Errorf("%s: attention output differs from the cpu reference: NMSE %.3g (bound %.0e), max abs error %.3g (bound %.0e)",
			name, nmse, tol.NMSE, maxAbs, tol.MaxAbs)
	}
	return nil
}
