package suite

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

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

// EnvBenchMatVec sets the matvec benchmarks' shape, one instead of the
// default set (MatVecShapes): "ROWSxCOLS", cols rounded down to whole
// blocks (at least one).
const EnvBenchMatVec = "FORGE_BENCH_MATVEC"

// BenchShape is a named benchmark shape: Dims are the family's dimensions
// (matvec: [rows, cols]). The name is what the benchmark is called by
// (go test's sub-benchmark, forgebench's result name after the suite's).
type BenchShape struct {
	Name string
	Dims []int
}

// ShapeName is the default name of a shape: its dimensions joined by "x",
// "4096x14336".
func ShapeName(dims ...int) string {
	s := ""
	for i, d := range dims {
		if i > 0 {
			s += "x"
		}
		s += strconv.Itoa(d)
	}
	return s
}

// The default matvec benchmark shapes ([rows, cols], W rows × cols, y =
// W·x). On a device backend, issue 6's: a 7B/8B model's square projection
// (4096×4096), the FFN's up/gate (14336 rows of 4096: 14336×4096) and down
// (4096 rows of 14336: 4096×14336) projections, and the output layer of a
// 128256-token vocabulary ("output": 128256 rows of 4096). On the cpu, one
// small shape.
var (
	DeviceMatVecShapes = []BenchShape{
		{"4096x4096", []int{4096, 4096}},
		{"4096x14336", []int{4096, 14336}},
		{"14336x4096", []int{14336, 4096}},
		{"output", []int{128256, 4096}},
	}
	CPUMatVecShapes = []BenchShape{
		{"1024x1024", []int{1024, 1024}},
	}
)

// MatVecShapes are the matvec benchmark shapes on backend b: the one
// $FORGE_BENCH_MATVEC names ("ROWSxCOLS", named so), else
// DeviceMatVecShapes on a device backend and CPUMatVecShapes elsewhere.
// Each shape's cols is rounded down to a whole number of f's blocks, at
// least one (a rounded shape's default name says its rounded size).
func MatVecShapes(b backend.Backend, f *formats.Format) ([]BenchShape, error) {
	shapes := CPUMatVecShapes
	if _, ok := backend.DeviceOf(b); ok {
		shapes = DeviceMatVecShapes
	}
	if s := os.Getenv(EnvBenchMatVec); s != "" {
		rows, cols, err := ParseShape(s)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", EnvBenchMatVec, err)
		}
		shapes = []BenchShape{{ShapeName(rows, cols), []int{rows, cols}}}
	}
	return WholeBlockShapes(f, shapes), nil
}

// WholeBlockShapes is shapes ([rows, cols, ...]) with each cols rounded
// down to a whole number of f's blocks, at least one; a shape named by its
// dimensions is renamed by its rounded ones. Further dimensions (matmul's
// batch) are kept.
func WholeBlockShapes(f *formats.Format, shapes []BenchShape) []BenchShape {
	out := make([]BenchShape, len(shapes))
	for i, sh := range shapes {
		dims := slices.Clone(sh.Dims)
		dims[1] = max(1, dims[1]/f.BlockElems) * f.BlockElems
		name := sh.Name
		if dims[1] != sh.Dims[1] && name == ShapeName(sh.Dims...) {
			name = ShapeName(dims...)
		}
		out[i] = BenchShape{name, dims}
	}
	return out
}

// ParseShape parses "ROWSxCOLS", both positive.
func ParseShape(s string) (rows, cols int, err error) {
	r, c, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if ok {
		rows, err = strconv.Atoi(r)
		if err == nil {
			cols, err = strconv.Atoi(c)
		}
	}
	if !ok || err != nil || rows <= 0 || cols <= 0 {
		return 0, 0, fmt.Errorf("shape %q: want ROWSxCOLS, both positive, e.g. 4096x4096", s)
	}
	return rows, cols, nil
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
