package family

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// matrix is what tells the families of the backend.Matrix operation apart
// (matvec: one vector; matmul: a batch): the shapes they are checked at,
// the per-entry tolerance, how inputs are seeded, and what a benchmark
// counts as its elements.
type matrix struct {
	name   string
	vector bool // one vector: shapes are [rows, cols], errors are per row
	// checks are the check shapes: rows, columns in blocks, batch (1 for
	// a vector); scalarCols, if set, counts a scalar format's columns in
	// runs of that many, so that cols is not a multiple of a K step.
	checks     []struct{ rows, blocks, batch int }
	scalarCols int
	// entryTol bounds each entry's error relative to its magnitude
	// Σ_k |W[r][k]·x[b][k]|: it catches one wrong row or vector among
	// many that the NMSE averages away.
	entryTol float64
	seed     func(f *formats.Format, s backend.MatrixShape) uint64
	// elements is what a benchmark counts as its elements.
	elements func(s backend.MatrixShape) int64
}

// newMatrix is the descriptor of a family of the backend.Matrix
// operation: its kernels are checked against suite.MatMulRef (float64
// sums of the spec's dequantized rows) by the normalised mean squared
// error over Y, at most suite.MatMulTolerance (llama.cpp's
// test-backend-ops metric and bound for mul_mat), and each entry within
// m.entryTol of its magnitude; a failure lists the worst entries.
func newMatrix(m matrix) *Descriptor {
	d := &Descriptor{
		Name:       m.name,
		Signatures: []string{m.name},
		Runs:       opRuns(backend.MatrixOp),
		Dims:       []string{"rows", "cols", "batch"},
	}
	if m.vector {
		d.Dims = d.Dims[:2]
		d.Signatures = append(d.Signatures, signatureMatVecX8) // its kernels on a format's integer form
	} else {
		// A matmul launcher that splits K first zeroes Y with <symbol>_kernel_zero;
		// its integer path quantizes X with <symbol>_kernel_qx8 (a format's super
		// form: <symbol>_kernel_qx8k, per block) and multiplies with
		// <symbol>_kernel_mmq (NVIDIA) or <symbol>_kernel_x8 (AMD), or up to the
		// target's MatMulIntF16 batch converts X with <symbol>_kernel_xh and
		// multiplies with <symbol>_kernel_mmh (the f16 fragments); F16's mma.sync
		// path converts X with <symbol>_kernel_xh (with -DFORGE_MM_WGMMA_PDL=2
		// <symbol>_kernel_xh_chunks, a K chunk at a time) and multiplies with
		// <symbol>_kernel_hmma, or on sm_90a <symbol>_kernel_wgmma_tma (with
		// -DFORGE_MM_WGMMA_TMA=0 <symbol>_kernel_wgmma, or with
		// -DFORGE_MM_WGMMA_WS=1 too <symbol>_kernel_wgmma_ws; a quantized format's
		// f16 route launches them through F16's launcher, after its own
		// dequant_f16); with -DFORGE_MM_WGMMA_Q a
		// quantized format converts X with its own _kernel_xh and multiplies
		// with <symbol>_kernel_wgmma_q.
		d.Profile = Profile{Kernels: func(symbol string) []string {
			return []string{symbol + "_kernel", symbol + "_kernel_wmma", symbol + "_kernel_zero", symbol + "_kernel_qx8", symbol + "_kernel_qx8k", symbol + "_kernel_mmq", symbol + "_kernel_mmh",
				symbol + "_kernel_x8", symbol + "_kernel_xh", symbol + "_kernel_xh_chunks", symbol + "_kernel_hmma", symbol + "_kernel_wgmma", symbol + "_kernel_wgmma_ws", symbol + "_kernel_wgmma_tma", symbol + "_kernel_wgmma_q"}
		}}
	}
	d.Check = func(t T, b backend.Backend, s suite.Suite) { m.check(t, d, b, s) }
	d.Measure = func(b backend.Backend, s suite.Suite, shape []int, _ []byte, mode backend.WeightMode) (*Benchmark, error) {
		return m.measure(d, b, s, shape, mode)
	}
	return d
}

// shapeOf is a benchmark shape as a backend.MatrixShape.
func (m matrix) shapeOf(dims []int) backend.MatrixShape {
	s := backend.MatrixShape{Rows: dims[0], Cols: dims[1], Batch: 1}
	if !m.vector {
		s.Batch = dims[2]
	}
	return s
}

// what names a product in messages: "Q4_0 matvec 37×96", "Q4_0 matmul 37×96×5".
func (m matrix) what(f *formats.Format, s backend.MatrixShape) string {
	dims := []string{strconv.Itoa(s.Rows), strconv.Itoa(s.Cols)}
	if !m.vector {
		dims = append(dims, strconv.Itoa(s.Batch))
	}
	return f.Name + " " + m.name + " " + strings.Join(dims, "×")
}

func (m matrix) check(t T, d *Descriptor, b backend.Backend, s suite.Suite) {
	t.Helper()
	mo, ok := backend.MatrixOp.Of(b)
	if !ok {
		t.Skipf("backend %s does not run %s", b.Name(), m.name)
	}
	f, k := s.Format, d.Kernel(s)
	x8 := k.Signature == signatureMatVecX8
	if x8 && !f.HasIntForm() {
		t.Fatalf("%s: %s has no integer form for %s to use", s.Name, f.Name, k.Name)
	}
	for _, c := range m.checks {
		cols := c.blocks * f.BlockElems
		if f.BlockElems == 1 && m.scalarCols > 0 {
			cols = c.blocks * m.scalarCols
		}
		sh := backend.MatrixShape{Rows: c.rows, Cols: cols, Batch: c.batch}
		w, x, err := suite.MatMulData(f, sh.Rows, sh.Cols, sh.Batch, m.seed(f, sh))
		if err != nil {
			t.Fatalf("%s: inputs: %v", m.what(f, sh), err)
		}
		y := make([]float32, sh.Batch*sh.Rows)
		for i := range y {
			y[i] = math.Float32frombits(sentinelF32)
		}
		if err := mo.RunMatrix(k, y, w, x, sh); err != nil {
			t.Errorf("%s on %s: %v", m.what(f, sh), b.Name(), err)
			continue
		}
		ref, mag := suite.MatMulRef(f, w, x, sh.Rows, sh.Cols, sh.Batch)
		if x8 {
			m.checkX8(t, b, f, sh, w, x, y, ref)
			continue
		}
		var slack []float64
		if !m.vector && f.HasIntForm() { // the integer tensor-core path quantizes X
			slack = suite.MatMulX8Slack(f, w, x, sh.Rows, sh.Cols, sh.Batch)
		}
		nmse, bad := suite.NMSE(y, ref), badEntries(y, ref, mag, slack, m.entryTol)
		if nmse <= suite.MatMulTolerance && bad == 0 {
			continue
		}
		noun := "entries"
		if m.vector {
			noun = "rows"
		}
		msg := fmt.Sprintf("%s on %s: NMSE %.3g (bound %g), %d %s off by more than %g of their magnitude; worst %s:",
			m.what(f, sh), b.Name(), nmse, suite.MatMulTolerance, bad, noun, m.entryTol, noun)
		if m.vector {
			for _, e := range suite.WorstRows(y, ref, maxReport) {
				msg += "\n\t" + e.String()
			}
		} else {
			for _, e := range suite.WorstEntries(y, ref, sh.Rows, maxReport) {
				msg += "\n\t" + e.String()
			}
		}
		t.Errorf("%s", msg)
	}
	// A partial block is refused.
	if f.BlockElems > 1 {
		sh := backend.MatrixShape{Rows: 1, Cols: f.BlockElems + 1, Batch: 1}
		if !m.vector {
			sh.Batch = 2
		}
		if err := mo.RunMatrix(k, make([]float32, sh.Batch), make([]byte, f.BlockBytes), make([]float32, sh.Batch*sh.Cols), sh); err == nil {
			t.Errorf("%s %s on %s: accepted %d columns, not a whole number of blocks", f.Name, m.name, b.Name(), sh.Cols)
		}
	}
}

// signatureMatVecX8 is the C signature of the matvec kernels on a
// format's integer form (specs/families.MatVec's matvec_x8).
const signatureMatVecX8 = "matvec_x8"

// checkX8 checks a matvec_x8 result: the NMSE within
// suite.MatVecX8Tolerance over shapes of at least suite.MatVecX8MinRows
// rows, and every row within its bound for the activations' quantization
// (suite.MatVecX8Bounds).
func (m matrix) checkX8(t T, b backend.Backend, f *formats.Format, sh backend.MatrixShape, w []byte, x, y []float32, ref []float64) {
	t.Helper()
	nmse, bad := suite.NMSE(y, ref), suite.BadRowsX8(y, ref, suite.MatVecX8Bounds(f, w, x, sh.Rows, sh.Cols))
	if (sh.Rows < suite.MatVecX8MinRows || nmse <= suite.MatVecX8Tolerance) && bad == 0 {
		return
	}
	msg := fmt.Sprintf("%s matvec_x8 %d×%d on %s: NMSE %.3g (bound %g from %d rows), %d rows past their quantization bound; worst rows:",
		f.Name, sh.Rows, sh.Cols, b.Name(), nmse, suite.MatVecX8Tolerance, suite.MatVecX8MinRows, bad)
	for _, e := range suite.WorstRows(y, ref, maxReport) {
		msg += "\n\t" + e.String()
	}
	t.Errorf("%s", msg)
}

// badEntries counts the entries whose error exceeds tol·mag (a NaN always
// does).
func badEntries(got []float32, ref, mag, slack []float64, tol float64) int {
	n := 0
	for i, r := range ref {
		bound := tol * mag[i]
		if slack != nil {
			bound += slack[i]
		}
		if d := math.Abs(float64(got[i]) - r); !(d <= bound) {
			n++
		}
	}
	return n
}

// checkTimedMatMul checks a device matmul at the shape it is about to be
// timed at, which the float64 reference (suite.MatMulRef) is too slow for:
// against the F32 format's matmul on the same backend of W as the spec
// dequantizes it, by the NMSE within suite.MatMulTolerance. (F32's own
// matmul is that reference: its check is the suites'.) A result past the
// bound is an error, and the shape is not timed.
func checkTimedMatMul(mo backend.Matrix, k backend.Kernel, w []byte, x []float32, sh backend.MatrixShape) error {
	if k.Format == nil || k.Format == formats.F32 {
		return nil
	}
	y := make([]float32, sh.Batch*sh.Rows)
	if err := mo.RunMatrix(k, y, w, x, sh); err != nil {
		return err
	}
	deq := make([]float32, sh.Rows*sh.Cols)
	if err := k.Format.Dequantize(deq, w); err != nil {
		return fmt.Errorf("check before timing: %w", err)
	}
	wf := make([]byte, 4*len(deq))
	for i, v := range deq {
		binary.LittleEndian.PutUint32(wf[4*i:], math.Float32bits(v))
	}
	kf := k
	kf.Format = formats.F32
	yf := make([]float32, len(y))
	if err := mo.RunMatrix(kf, yf, wf, x, sh); err != nil {
		return fmt.Errorf("check before timing: the F32 reference: %w", err)
	}
	ref := make([]float64, len(yf))
	for i, v := range yf {
		ref[i] = float64(v)
	}
	if nmse := suite.NMSE(y, ref); !(nmse <= suite.MatMulTolerance) {
		return fmt.Errorf("%s on %s at %d×%d×%d: NMSE %.3g against F32's matmul of W dequantized (bound %g): not timed",
			k.Name, k.Format.Name, sh.Rows, sh.Cols, sh.Batch, nmse, suite.MatMulTolerance)
	}
	return nil
}

// measure prepares a benchmark on data of suite.MatMulData: bytes read
// are W's (one copy: what one launch reads, whatever the weight mode) and
// X's, bytes written Y's; FLOPs 2·rows·cols·batch. W is held as mode says
// (backend.ResolveWeightMode).
func (m matrix) measure(d *Descriptor, b backend.Backend, s suite.Suite, shape []int, mode backend.WeightMode) (*Benchmark, error) {
	mo, ok := backend.MatrixOp.Of(b)
	if !ok {
		return nil, fmt.Errorf("backend %s does not run %s", b.Name(), m.name)
	}
	f, sh := s.Format, m.shapeOf(shape)
	w, x, err := suite.MatMulData(f, sh.Rows, sh.Cols, sh.Batch, suite.Seed(f.Name))
	if err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	if !m.vector && b.Name() != "cpu" {
		if err := checkTimedMatMul(mo, d.Kernel(s), w, x, sh); err != nil {
			return nil, err
		}
	}
	r, weights, err := mo.PrepareMatrix(d.Kernel(s), w, x, sh, backend.ResolveWeightMode(b, mode))
	if err != nil {
		return nil, err
	}
	return &Benchmark{
		Resident:     r,
		Shape:        slices.Clone(shape),
		Elements:     m.elements(sh),
		BytesRead:    int64(len(w)) + 4*int64(len(x)),
		BytesWritten: 4 * int64(sh.Rows) * int64(sh.Batch),
		FLOPs:        2 * int64(sh.Rows) * int64(sh.Cols) * int64(sh.Batch),
		Weights:      &weights,
		WeightBytes:  int64(len(w)),
		CopyElems:    sh.Rows * sh.Cols,
	}, nil
}
