package suitetest

import (
	"fmt"
	"math"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// matVecShapes are CheckMatVec's shapes, in blocks per row: row counts that
// are multiples of nothing a kernel tiles by (37, 1003), rows of a few blocks
// and of many, one row, and the empty cases.
var matVecShapes = []struct{ rows, blocks int }{
	{37, 3},
	{1003, 17},
	{1, 5},
	{64, 1},
	{5, 0},
	{0, 4},
}

// CheckMatVec runs format f's matvec (y = W·x, float32 y) on the selected
// backend and compares y with the reference computed in float64 from the
// spec's Dequant (suite.MatVecRef), by the normalised mean squared error
// NMSE = Σ(y−ref)²/Σref², which must be at most suite.MatVecTolerance
// (5e-4, llama.cpp test-backend-ops' metric and bound), and each row must be
// within suite.MatVecRowTolerance of its magnitude Σ|W·x| (which catches one
// wrong row among many that the NMSE averages away). The inputs are
// deterministic per format and shape: W reference-quantized, x random
// (suite.MatVecData). A failure lists the worst rows. A backend without
// matvec (no backend.Matrix operation) skips.
func CheckMatVec(tb testing.TB, f *formats.Format) {
	tb.Helper()
	be := Backend(tb)
	mv, ok := backend.MatrixOp.Of(be)
	if !ok {
		tb.Skipf("backend %s does not run the matrix kernels", be.Name())
	}
	for _, sh := range matVecShapes {
		rows, cols := sh.rows, sh.blocks*f.BlockElems
		w, x, err := suite.MatVecData(f, rows, cols, suite.Seed(f.Name)+uint64(rows)<<20+uint64(cols))
		if err != nil {
			tb.Fatalf("%s matvec %d×%d: inputs: %v", f.Name, rows, cols, err)
		}
		y := make([]float32, rows)
		for i := range y {
			y[i] = math.Float32frombits(sentinelF32)
		}
		if err := mv.RunMatrix(suite.MatVecKernel(f), y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}); err != nil {
			tb.Errorf("%s matvec %d×%d on %s: %v", f.Name, rows, cols, be.Name(), err)
			continue
		}
		ref, mag := suite.MatVecRef(f, w, x, rows, cols)
		nmse, bad := suite.NMSE(y, ref), suite.BadRows(y, ref, mag)
		if !(nmse <= suite.MatVecTolerance) || bad > 0 {
			msg := fmt.Sprintf("%s matvec %d×%d on %s: NMSE %.3g (bound %g), %d rows off by more than %g of their magnitude; worst rows:",
				f.Name, rows, cols, be.Name(), nmse, suite.MatVecTolerance, bad, suite.MatVecRowTolerance)
			for _, e := range suite.WorstRows(y, ref, maxReport) {
				msg += "\n\t" + e.String()
			}
			tb.Error(msg)
		}
	}
	// A partial block is refused.
	if f.BlockElems > 1 {
		if err := mv.RunMatrix(suite.MatVecKernel(f), make([]float32, 1), make([]byte, f.BlockBytes), make([]float32, f.BlockElems+1), backend.MatrixShape{Rows: 1, Cols: f.BlockElems + 1, Batch: 1}); err == nil {
			tb.Errorf("%s matvec on %s: accepted %d columns, not a whole number of blocks", f.Name, be.Name(), f.BlockElems+1)
		}
	}
}

// BenchMatVec measures format f's matvec on the selected backend, one
// sub-benchmark per shape of suite.MatVecShapes, named by the shape
// ("4096x14336", "output"): on a GPU issue 6's four (4096×4096,
// 4096×14336, 14336×4096 and the 128256×4096 output layer), on the cpu
// 1024×1024; $FORGE_BENCH_MATVEC ("ROWSxCOLS") runs that one shape instead.
// Bytes per operation are W's bytes + x's + y's; it also reports
// weight-GB/s (one W's bytes per launch, per second), the figure that
// bounds a matvec. On a device backend the data stays in device memory and
// only the kernels are timed with device events (GB/s, %copy, dev-ns/op as
// for BenchDequant), and W is held as $FORGE_BENCH_WEIGHTS says: "rotate"
// (the default: byte-identical copies of W totalling at least twice the
// L2, each launch reading the next, so W comes from memory) or "reuse"
// (one copy, as llama.cpp's test-backend-ops perf); the log says which,
// with the copies' count and size.
func BenchMatVec(b *testing.B, f *formats.Format) {
	be := Backend(b)
	mv, ok := backend.MatrixOp.Of(be)
	if !ok {
		b.Skipf("backend %s does not run the matrix kernels", be.Name())
	}
	shapes, err := suite.MatVecShapes(be, f)
	if err != nil {
		b.Fatal(err)
	}
	mode, err := backend.WeightModeFromEnv()
	if err != nil {
		b.Fatal(err)
	}
	mode = backend.ResolveWeightMode(be, mode)
	for _, sh := range shapes {
		b.Run(sh.Name, func(b *testing.B) { benchMatVecShape(b, be, mv, f, sh.Dims[0], sh.Dims[1], mode) })
	}
}

func benchMatVecShape(b *testing.B, be backend.Backend, mv backend.Matrix, f *formats.Format, rows, cols int, mode backend.WeightMode) {
	w, x, err := suite.MatVecData(f, rows, cols, suite.Seed(f.Name))
	if err != nil {
		b.Fatalf("%s matvec %d×%d: inputs: %v", f.Name, rows, cols, err)
	}
	bytes := int64(len(w) + 4*len(x) + 4*rows)
	r, weights, err := mv.PrepareMatrix(suite.MatVecKernel(f), w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}, mode)
	if err != nil {
		b.Fatalf("%s matvec %d×%d on %s: %v", f.Name, rows, cols, be.Name(), err)
	}
	defer r.Close()
	if db, ok := backend.DeviceOf(be); ok {
		b.Logf("%s matvec %d×%d weights %s", f.Name, rows, cols, weights)
		s := benchDevice(b, db, r, bytes, rows*cols, rows*cols)
		b.ReportMetric(float64(len(w))*float64(b.N)/s/1e9, "weight-GB/s")
		b.ReportMetric(float64(weights.Copies), "weight-copies")
		return
	}
	b.SetBytes(bytes)
	y := make([]float32, rows)
	for b.Loop() {
		if err := mv.RunMatrix(suite.MatVecKernel(f), y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}); err != nil {
			b.Fatalf("%s matvec on %s: %v", f.Name, be.Name(), err)
		}
	}
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(len(w))*float64(b.N)/s/1e9, "weight-GB/s")
		b.ReportMetric(float64(rows)*float64(cols)*float64(b.N)/s, "elems/s")
	}
}
