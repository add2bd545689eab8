package formats

// STUB, deleted by the lead when the integer form's real declarations
// (QuantizeX8, X8, X8Bytes, HasIntForm, DotX8, from the integer-form work)
// merge. It holds exactly the API the matvec_x8 plumbing builds against,
// with bodies that are only good enough for that plumbing's tests:
//   - HasIntForm answers true for a fixed list of formats (stubIntForms),
//     not from the spec;
//   - DotX8 dots the row's Dequant values with the dequantized activations
//     (Q[j]·D), not through the integer form.
// QuantizeX8 and X8Bytes follow the layout's definition and may be kept.

import "math"

// X8 is a float32 vector quantized to 8 bits per group of 32 elements:
// Q the int8 codes, D the scale of each 32 (x ≈ Q·D), S per 16 elements
// D·ΣQ over them (the sum an offset multiplies).
type X8 struct {
	Q []int8
	D []float32
	S []float32
}

// X8Bytes is the size of the device layout of n quantized elements (n a
// multiple of 32): n int8 codes, then n/32 float32 scales, then n/16
// float32 sums.
func X8Bytes(n int) int { return n + n/8 + n/4 }

// QuantizeX8 quantizes x (len a multiple of 32): per 32 elements D =
// amax/127, Q = round-half-away-from-zero(x/D) (float32 division), Q 0
// where amax is 0; per 16, S = D·float32(ΣQ).
func QuantizeX8(x []float32) X8 {
	n := len(x)
	q := X8{Q: make([]int8, n), D: make([]float32, n/32), S: make([]float32, n/16)}
	for g := range n / 32 {
		var amax float32
		for _, v := range x[32*g : 32*g+32] {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		d := amax / 127
		q.D[g] = d
		if amax == 0 {
			continue
		}
		for i := 32 * g; i < 32*g+32; i++ {
			q.Q[i] = int8(math.Round(float64(x[i] / d)))
		}
	}
	for h := range n / 16 {
		var s int32
		for _, c := range q.Q[16*h : 16*h+16] {
			s += int32(c)
		}
		q.S[h] = q.D[h/2] * float32(s)
	}
	return q
}

// stubIntForms are the formats the stub says have an integer form.
var stubIntForms = map[string]bool{"Q4_0": true, "Q8_0": true, "Q4_K": true}

// HasIntForm reports whether the format's spec has an integer form (STUB:
// a fixed list).
func (f *Format) HasIntForm() bool { return stubIntForms[f.Name] }

// DotX8 is one row of W in the format (whole blocks, len(x.Q) elements)
// dotted with x (STUB: through Dequant, Σ Dequant(j)·(Q[j]·D)).
func (f *Format) DotX8(row []byte, x X8) float32 {
	w := make([]float32, len(x.Q))
	if err := f.Dequantize(w, row); err != nil {
		panic(err)
	}
	var sum float32
	for j, v := range w {
		sum += v * (float32(x.Q[j]) * x.D[j/32])
	}
	return sum
}
