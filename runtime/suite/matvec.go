package suite

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

// MatVecTolerance is the largest normalised mean squared error,
// NMSE = Σ(y−ref)² / Σref², that a matvec result may have against the
// float64 reference: llama.cpp's test-backend-ops metric and threshold for
// its mul_mat tests. Float32 accumulation in another order than the
// reference stays orders of magnitude below it; a wrong element, block or
// row does not.
const MatVecTolerance = 5e-4

// MatVecX8Tolerance is the largest NMSE against the float64 reference that
// a matvec_x8 result (W on the format's integer form, x quantized to 8 bits
// per 32 elements) may have: llama.cpp's bound for mul_mat, which its
// q8_1-activation path meets. The activations' rounding, up to half a step
// of amax/127 per element, makes the per-row bound of matvec_f32
// (MatVecRowTolerance) inapplicable; the NMSE is the check.
const MatVecX8Tolerance = 5e-4

// MatVecX8MinRows is the fewest rows over which a matvec_x8 result's NMSE
// is checked: over one row it is that row's relative error squared, which
// the activations' rounding pushes past MatVecX8Tolerance whenever the
// row's sum happens to be small (about one in seven single rows of 160
// elements). MatVecX8Bounds checks every row, whatever the shape.
const MatVecX8MinRows = 32

// MatVecX8Bounds are per-row bounds on a matvec_x8 result's error against
// MatVecRef's: rounding x to codes of step D = amax/127 per 32 elements
// moves each element by at most D/2, so row r may err by Σ_k |W[r][k]|·D/2,
// plus MatVecRowTolerance of the magnitude Σ_k |W[r][k]|·(|x[k]| + D) for
// the float32 arithmetic. A wrong row, block or scale exceeds it.
func MatVecX8Bounds(f *formats.Format, w []byte, x []float32, rows, cols int) []float64 {
	xq := formats.QuantizeX8(x)
	deq := make([]float32, cols)
	rowBytes := cols / f.BlockElems * f.BlockBytes
	bound := make([]float64, rows)
	for r := range rows {
		_ = f.Dequantize(deq, w[r*rowBytes:(r+1)*rowBytes])
		var q, mag float64
		for k, v := range deq {
			d := float64(xq.D[k/32])
			a := math.Abs(float64(v))
			q += a * d / 2
			mag += a * (math.Abs(float64(x[k])) + d)
		}
		bound[r] = q + MatVecRowTolerance*mag
	}
	return bound
}

// X8Layout is q in the device layout that glue_quantize_x8 writes and the
// matvec_x8 launchers read: the int8 codes, then the float32 scales, then
// the float32 sums, little-endian.
func X8Layout(q formats.X8) []byte {
	out := make([]byte, 0, len(q.Q)+4*len(q.D)+4*len(q.S))
	for _, c := range q.Q {
		out = append(out, byte(c))
	}
	for _, v := range append(slices.Clone(q.D), q.S...) {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
	}
	return out
}

// BadRowsX8 counts the rows whose error exceeds their MatVecX8Bounds (a
// NaN always does).
func BadRowsX8(got []float32, ref, bound []float64) int {
	n := 0
	for i, r := range ref {
		if d := math.Abs(float64(got[i]) - r); !(d <= bound[i]) {
			n++
		}
	}
	return n
}

// MatVecData returns a deterministic rows × cols matvec input of f: W the
// spec's reference quantization of values uniform in [-1, 1), each row
// scaled by its own factor in [1/16, 16) (so rows differ in magnitude but
// no block overflows a format's scale), and x uniform in [-1, 1).
func MatVecData(f *formats.Format, rows, cols int, seed uint64) (w []byte, x []float32, err error) {
	shape := backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}
	if err := shape.Check("matvec", f, rows, shape.WBytes(f), cols); err != nil {
		return nil, nil, err
	}
	r := NewRand(seed)
	vals := make([]float32, rows*cols)
	for i := range rows {
		scale := float32(math.Ldexp(1+float64(r.Intn(1024))/1024, r.Intn(8)-4))
		for k := range cols {
			vals[i*cols+k] = scale * r.Float()
		}
	}
	w = make([]byte, rows*(cols/f.BlockElems)*f.BlockBytes)
	if err := Quantize(f, w, vals); err != nil {
		return nil, nil, err
	}
	x = make([]float32, cols)
	for k := range x {
		x[k] = r.Float()
	}
	return w, x, nil
}

// MatVecRef is the reference y = W·x: each row dequantized by the spec and
// dotted with x in float64. mag[i] is Σ_k |W[i][k]·x[k]|, the scale of row
// i's rounding error: a float32 sum of the row's products is within
// cols·2^-24·mag[i] of y[i].
func MatVecRef(f *formats.Format, w []byte, x []float32, rows, cols int) (y, mag []float64) {
	rowBytes := cols / f.BlockElems * f.BlockBytes
	row := make([]float32, cols)
	y, mag = make([]float64, rows), make([]float64, rows)
	for i := range rows {
		_ = f.Dequantize(row, w[i*rowBytes:(i+1)*rowBytes])
		var s, m float64
		for k, v := range row {
			p := float64(v) * float64(x[k])
			s += p
			m += math.Abs(p)
		}
		y[i], mag[i] = s, m
	}
	return y, mag
}

// MatVecRowTolerance bounds each row's error relative to its magnitude
// (MatVecRef's mag): |y−ref| ≤ MatVecRowTolerance·mag. Float32 summation of
// n products errs by at most about n·2^-24·mag (4e-4 for 6656 columns,
// far less in practice with tree-shaped sums); the bound catches the one
// wrong row among many that the NMSE, a whole-result measure, can miss.
const MatVecRowTolerance = 1e-3

// BadRows counts the rows whose error exceeds MatVecRowTolerance·mag (a NaN
// always does).
func BadRows(got []float32, ref, mag []float64) int {
	n := 0
	for i, r := range ref {
		if d := math.Abs(float64(got[i]) - r); !(d <= MatVecRowTolerance*mag[i]) {
			n++
		}
	}
	return n
}

// NMSE is the normalised mean squared error Σ(got−ref)² / Σref² (0 when
// both are all zero; +Inf when only ref is, NaN when got holds a NaN).
func NMSE(got []float32, ref []float64) float64 {
	var num, den float64
	for i, r := range ref {
		d := float64(got[i]) - r
		num += d * d
		den += r * r
	}
	if den == 0 {
		if num == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return num / den
}

// RowError is one row of a matvec result and its reference.
type RowError struct {
	Row      int
	Got      float32
	Want     float64
	Abs, Rel float64 // |got−want|, and that over |want| (Inf for want 0)
}

func (e RowError) String() string {
	return fmt.Sprintf("row %d: got %g, want %g (abs err %.3g, rel err %.3g)", e.Row, e.Got, e.Want, e.Abs, e.Rel)
}

// WorstRows returns up to n rows with the largest absolute error, worst
// first (a NaN first of all).
func WorstRows(got []float32, ref []float64, n int) []RowError {
	var out []RowError
	for i, r := range ref {
		d := math.Abs(float64(got[i]) - r)
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		e := RowError{Row: i, Got: got[i], Want: r, Abs: d, Rel: d / math.Abs(r)}
		// Insertion into a short sorted list: n is small.
		j := len(out)
		for j > 0 && out[j-1].Abs < d {
			j--
		}
		if j < n {
			out = append(out, RowError{})
			copy(out[j+1:], out[j:])
			out[j] = e
			if len(out) > n {
				out = out[:n]
			}
		}
	}
	return out
}
