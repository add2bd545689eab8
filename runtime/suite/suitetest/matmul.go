package suitetest

import (
	"fmt"
	"math"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// matMulShapes are CheckMatMul's shapes: rows that are multiples of nothing
// a kernel tiles by (37, 1003), rows of one to a few blocks (a scalar
// format's blocks are counted 37 elements at a time, so that cols is not a
// multiple of a K step either), batches of 1, 2, 7, 64 and 512 (small W
// for the large batches, to keep the cpu run fast), and the empty cases.
var matMulShapes = []struct{ rows, blocks, batch int }{
	{37, 3, 1},
	{37, 3, 2},
	{1003, 2, 7},
	{1003, 1, 64},
	{37, 2, 512},
	{64, 1, 7},
	{5, 0, 3},
	{0, 4, 2},
	{3, 2, 0},
}

// CheckMatMul runs format f's matmul (Y = W·X, float32 Y) on the selected
// backend and compares Y with the reference computed in float64 from the
// spec's Dequant (suite.MatMulRef), by the normalised mean squared error
// over Y, which must be at most suite.MatMulTolerance (5e-4, llama.cpp
// test-backend-ops' metric and bound for mul_mat), and each entry must be
// within suite.MatMulEntryTolerance of its magnitude Σ|W·x| (which catches
// one wrong row or vector among many). The inputs are deterministic per
// format and shape (suite.MatMulData). A failure lists the worst entries. A
// backend without matmul (no backend.Matrix operation) skips.
func CheckMatMul(tb testing.TB, f *formats.Format) {
	tb.Helper()
	be := Backend(tb)
	mm, ok := backend.MatrixOp.Of(be)
	if !ok {
		tb.Skipf("backend %s does not run the matrix kernels", be.Name())
	}
	for _, sh := range matMulShapes {
		rows, cols, batch := sh.rows, sh.blocks*f.BlockElems, sh.batch
		if f.BlockElems == 1 {
			cols = sh.blocks * 37
		}
		w, x, err := suite.MatMulData(f, rows, cols, batch, suite.Seed(f.Name)+uint64(rows)<<20+uint64(cols)<<8+uint64(batch))
		if err != nil {
			tb.Fatalf("%s matmul %d×%d×%d: inputs: %v", f.Name, rows, cols, batch, err)
		}
		y := make([]float32, batch*rows)
		for i := range y {
			y[i] = math.Float32frombits(sentinelF32)
		}
		if err := mm.RunMatrix(suite.MatMulKernel(f), y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: batch}); err != nil {
			tb.Errorf("%s matmul %d×%d×%d on %s: %v", f.Name, rows, cols, batch, be.Name(), err)
			continue
		}
		ref, mag := suite.MatMulRef(f, w, x, rows, cols, batch)
		nmse, bad := suite.NMSE(y, ref), suite.BadEntries(y, ref, mag)
		if !(nmse <= suite.MatMulTolerance) || bad > 0 {
			msg := fmt.Sprintf("%s matmul %d×%d×%d on %s: NMSE %.3g (bound %g), %d entries off by more than %g of their magnitude; worst entries:",
				f.Name, rows, cols, batch, be.Name(), nmse, suite.MatMulTolerance, bad, suite.MatMulEntryTolerance)
			for _, e := range suite.WorstEntries(y, ref, rows, maxReport) {
				msg += "\n\t" + e.String()
			}
			tb.Error(msg)
		}
	}
	// A partial block is refused.
	if f.BlockElems > 1 {
		c := f.BlockElems + 1
		if err := mm.RunMatrix(suite.MatMulKernel(f), make([]float32, 2), make([]byte, f.BlockBytes), make([]float32, 2*c), backend.MatrixShape{Rows: 1, Cols: c, Batch: 2}); err == nil {
			tb.Errorf("%s matmul on %s: accepted %d columns, not a whole number of blocks", f.Name, be.Name(), c)
		}
	}
}

// BenchMatMul measures format f's matmul on the selected backend over the
// shape suite.MatMulShape gives ($FORGE_BENCH_MATMUL, "ROWSxCOLSxBATCH";
// default 4096x4096x64 on a GPU, 256x1024x16 on the cpu). Bytes per
// operation are W's + X's + Y's; it reports GFLOPS (2·rows·cols·batch
// floating-point operations per run, counted as a product of dense
// matrices). On a device backend the data stays in device memory and only
// the kernels are timed with device events (GB/s, %copy, dev-ns/op as for
// BenchDequant).
func BenchMatMul(b *testing.B, f *formats.Format) {
	be := Backend(b)
	mm, ok := backend.MatrixOp.Of(be)
	if !ok {
		b.Skipf("backend %s does not run the matrix kernels", be.Name())
	}
	shapes, err := suite.MatMulShapes(be, f)
	if err != nil {
		b.Fatal(err)
	}
	mode, err := backend.WeightModeFromEnv()
	if err != nil {
		b.Fatal(err)
	}
	mode = backend.ResolveWeightMode(be, mode)
	for _, sh := range shapes {
		b.Run(sh.Name, func(b *testing.B) { benchMatMulShape(b, be, mm, f, sh.Dims[0], sh.Dims[1], sh.Dims[2], mode) })
	}
}

func benchMatMulShape(b *testing.B, be backend.Backend, mm backend.Matrix, f *formats.Format, rows, cols, batch int, mode backend.WeightMode) {
	w, x, err := suite.MatMulData(f, rows, cols, batch, suite.Seed(f.Name))
	if err != nil {
		b.Fatalf("%s matmul %d×%d×%d: inputs: %v", f.Name, rows, cols, batch, err)
	}
	bytes := int64(len(w) + 4*len(x) + 4*batch*rows)
	flops := 2 * float64(rows) * float64(cols) * float64(batch)
	r, weights, err := mm.PrepareMatrix(suite.MatMulKernel(f), w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: batch}, mode)
	if err != nil {
		b.Fatalf("%s matmul on %s: %v", f.Name, be.Name(), err)
	}
	defer r.Close()
	if db, ok := backend.DeviceOf(be); ok {
		b.Logf("%s matmul %d×%d×%d weights %s", f.Name, rows, cols, batch, weights)
		s := benchDevice(b, db, r, bytes, batch*rows, rows*cols)
		b.ReportMetric(flops*float64(b.N)/s/1e9, "GFLOPS")
		b.ReportMetric(float64(weights.Copies), "weight-copies")
		return
	}
	b.SetBytes(bytes)
	y := make([]float32, batch*rows)
	for b.Loop() {
		if err := mm.RunMatrix(suite.MatMulKernel(f), y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: batch}); err != nil {
			b.Fatalf("%s matmul on %s: %v", f.Name, be.Name(), err)
		}
	}
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(flops*float64(b.N)/s/1e9, "GFLOPS")
	}
}
