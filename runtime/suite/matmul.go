package suite

import (
	"fmt"
	"math"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

// MatMulTolerance is the largest normalised mean squared error,
// NMSE = Σ(y−ref)² / Σref² over the whole of Y, that a matmul result may
// have against the float64 reference: llama.cpp's test-backend-ops metric
// and bound for mul_mat. Float32 accumulation in any order, and the NVIDIA
// tensor-core path's rounding of W and X to f16 (an NMSE near 1e-7), stay
// far below it.
const MatMulTolerance = 5e-4

// MatMulEntryTolerance bounds each entry's error relative to its magnitude
// Σ_k |W[r][k]·x[b][k]|: it catches one wrong row or column among many that
// the NMSE averages away. It allows the f16 rounding of the tensor-core path
// (2^-11 per factor, so about 1e-3 of the magnitude at worst) with a margin.
const MatMulEntryTolerance = 4e-3

// MatMulX8Slack is what a matmul on a format's integer form may add to
// each entry's error by quantizing X to 8 bits, as the integer tensor-core
// path does: rounding x to codes of step D = amax/127 per group of
// X8Group(f) elements moves each element by at most D/2, so entry (b, r),
// at index b·rows + r, may err by Σ_k |W[r][k]|·D_b(k)/2 more. A wrong row,
// column, block or scale exceeds it.
func MatMulX8Slack(f *formats.Format, w []byte, x []float32, rows, cols, batch int) []float64 {
	slack := make([]float64, rows*batch)
	if rows == 0 || cols == 0 {
		return slack
	}
	rowBytes := cols / f.BlockElems * f.BlockBytes
	absW := make([][]float64, rows)
	deq := make([]float32, cols)
	for r := range rows {
		_ = f.Dequantize(deq, w[r*rowBytes:(r+1)*rowBytes])
		absW[r] = make([]float64, cols)
		for k, v := range deq {
			absW[r][k] = math.Abs(float64(v))
		}
	}
	group := X8Group(f)
	for b := range batch {
		xb := x[b*cols : (b+1)*cols]
		d := make([]float64, cols/group)
		for g := range d {
			var amax float32
			for _, v := range xb[g*group : (g+1)*group] {
				amax = max(amax, float32(math.Abs(float64(v))))
			}
			d[g] = float64(amax / 127)
		}
		for r := range rows {
			var q float64
			for k, a := range absW[r] {
				q += a * d[k/group] / 2
			}
			slack[b*rows+r] = q
		}
	}
	return slack
}

// X8Group is the number of elements that share one scale of X's 8-bit
// quantization on the integer matmul path: a whole block for a format
// with the super form (formats' superForm: the NVIDIA kernel then sums a
// block's products in integers), else 32 (llama.cpp's q8_1). The slack
// of the larger group bounds both.
func X8Group(f *formats.Format) int {
	if f.HasSuperForm() {
		return f.BlockElems
	}
	return 32
}

// MatMulData returns a deterministic rows × cols × batch matmul input of f:
// W as MatVecData's, and X batch vectors uniform in [-1, 1) times 2^e, e
// from -3 to 2 by the element's group of 32 and block of 256.
func MatMulData(f *formats.Format, rows, cols, batch int, seed uint64) (w []byte, x []float32, err error) {
	shape := backend.MatrixShape{Rows: rows, Cols: cols, Batch: batch}
	if err := shape.Check("matmul", f, batch*rows, shape.WBytes(f), batch*cols); err != nil {
		return nil, nil, err
	}
	w, x0, err := MatVecData(f, rows, cols, seed)
	if err != nil {
		return nil, nil, err
	}
	x = make([]float32, batch*cols)
	if batch > 0 {
		copy(x, x0)
	}
	r := NewRand(seed ^ 0x9e3779b97f4a7c15)
	for k := min(len(x), cols); k < len(x); k++ {
		x[k] = r.Float()
	}
	// Magnitudes that differ from one group of 32 to the next and from one
	// block of 256 to the next (powers of two, exact): a kernel that takes
	// X's scale of the wrong group or block errs well past the tolerance.
	for k := range x {
		c := k % cols
		x[k] = float32(math.Ldexp(float64(x[k]), (c/32)%4+(c/256)%3-3))
	}
	return w, x, nil
}

// MatMulRef is the reference Y = W·X: each row dequantized by the spec and
// dotted with each vector in float64. mag[b·rows+r] is Σ_k |W[r][k]·x[b][k]|,
// the scale of that entry's rounding error.
func MatMulRef(f *formats.Format, w []byte, x []float32, rows, cols, batch int) (y, mag []float64) {
	rowBytes := cols / f.BlockElems * f.BlockBytes
	row := make([]float32, cols)
	y, mag = make([]float64, batch*rows), make([]float64, batch*rows)
	for i := range rows {
		_ = f.Dequantize(row, w[i*rowBytes:(i+1)*rowBytes])
		for b := range batch {
			xb := x[b*cols : (b+1)*cols]
			var s, m float64
			for k, v := range row {
				p := float64(v) * float64(xb[k])
				s += p
				m += math.Abs(p)
			}
			y[b*rows+i], mag[b*rows+i] = s, m
		}
	}
	return y, mag
}

// BadEntries counts the entries of Y whose error exceeds
// MatMulEntryTolerance·mag (a NaN always does).
func BadEntries(got []float32, ref, mag []float64) int {
	n := 0
	for i, r := range ref {
		if d := math.Abs(float64(got[i]) - r); !(d <= MatMulEntryTolerance*mag[i]) {
			n++
		}
	}
	return n
}

// BadEntriesX8 is BadEntries for a matmul on a format's integer form: each
// entry's bound is widened by its slack (MatMulX8Slack), what quantizing X
// to 8 bits may add.
func BadEntriesX8(got []float32, ref, mag, slack []float64) int {
	n := 0
	for i, r := range ref {
		if d := math.Abs(float64(got[i]) - r); !(d <= MatMulEntryTolerance*mag[i]+slack[i]) {
			n++
		}
	}
	return n
}

// EntryError is one entry of a matmul result and its reference.
type EntryError struct {
	Row, Col int // Col: the batch vector
	Got      float32
	Want     float64
	Abs, Rel float64 // |got−want|, and that over |want| (Inf for want 0)
}

func (e EntryError) String() string {
	return fmt.Sprintf("row %d, vector %d: got %g, want %g (abs err %.3g, rel err %.3g)", e.Row, e.Col, e.Got, e.Want, e.Abs, e.Rel)
}

// WorstEntries returns up to n entries of Y (rows entries per vector) with
// the largest absolute error, worst first (a NaN first of all).
func WorstEntries(got []float32, ref []float64, rows, n int) []EntryError {
	var out []EntryError
	for _, e := range WorstRows(got, ref, n) {
		out = append(out, EntryError{Row: e.Row % max(1, rows), Col: e.Row / max(1, rows), Got: e.Got, Want: e.Want, Abs: e.Abs, Rel: e.Rel})
	}
	return out
}
