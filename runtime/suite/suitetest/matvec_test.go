package suitetest

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/runtime/suite/suiteflags"
	"github.com/rocmforge/forge/specs/formats"
)

// RunMatrix makes the shim a backend.Matrix: the cpu's result, with row
// current.at wrong when current.flip is set.
func (backendShim) RunMatrix(k backend.Kernel, y []float32, w []byte, x []float32, s backend.MatrixShape) error {
	if err := current.Backend.RunMatrix(k, y, w, x, s); err != nil {
		return err
	}
	if current.flip && current.at < len(y) {
		y[current.at] = -10*y[current.at] + 10
	}
	return nil
}

func (backendShim) PrepareMatrix(k backend.Kernel, w []byte, x []float32, s backend.MatrixShape, mode backend.WeightMode) (backend.Resident, backend.Weights, error) {
	return current.Backend.PrepareMatrix(k, w, x, s, mode)
}

func TestCheckMatVecPassesOnCPU(t *testing.T) {
	isolate(t)
	t.Setenv(backend.EnvBackend, "cpu")
	for _, f := range []*formats.Format{formats.Q4_0, formats.Q4_K, formats.F16, formats.MXFP6_E2M3} {
		if errs := run(t, func(tb testing.TB) { Check(tb, matVecSuite(f)) }); len(errs) > 0 {
			t.Errorf("%s: %v", f.Name, errs)
		}
	}
}

// A single wrong row among 1003 is caught by the NMSE bound, and reported
// first among the worst rows.
func TestCheckMatVecFindsFaults(t *testing.T) {
	isolate(t)
	t.Setenv(backend.EnvBackend, "broken-for-test")
	current = &broken{Backend: cpu.New(0), at: 500, flip: true}
	errs := run(t, func(tb testing.TB) { Check(tb, matVecSuite(formats.Q4_0)) })
	if len(errs) != 1 || !strings.Contains(errs[0], "Q4_0 matvec 1003×544 on broken-for-test: NMSE ") ||
		!strings.Contains(errs[0], ", 1 rows off by more than 0.001 of their magnitude") ||
		!strings.Contains(errs[0], "worst rows:\n\trow 500: got ") {
		t.Errorf("errors: %q", errs)
	}
}

// matvec_x8 on the cpu (the spec's integer form, x quantized by
// formats.QuantizeX8) passes the family's check on every shape, and one
// wrong row among 1003 fails it: past its quantization bound and the NMSE.
func TestCheckMatVecX8(t *testing.T) {
	isolate(t)
	t.Setenv(backend.EnvBackend, "cpu")
	for _, f := range []*formats.Format{formats.Q4_0, formats.Q8_0, formats.Q4_K} {
		if !f.HasIntForm() {
			t.Fatalf("%s has no integer form", f.Name)
		}
		if errs := run(t, func(tb testing.TB) { Check(tb, matVecX8Suite(f)) }); len(errs) > 0 {
			t.Errorf("%s: %v", f.Name, errs)
		}
	}
	t.Setenv(backend.EnvBackend, "broken-for-test")
	current = &broken{Backend: cpu.New(0), at: 500, flip: true}
	errs := run(t, func(tb testing.TB) { Check(tb, matVecX8Suite(formats.Q4_0)) })
	if len(errs) != 1 || !strings.Contains(errs[0], "Q4_0 matvec_x8 1003×544 on broken-for-test: NMSE ") ||
		!strings.Contains(errs[0], ", 1 rows past their quantization bound") || !strings.Contains(errs[0], "worst rows:\n\trow 500: got ") {
		t.Errorf("errors: %q", errs)
	}
}

// TestBenchMatVecFakeGPU measures matvec on the fake library (a real Q4_0
// matvec): the weight modes show in the weight-copies metric, and
// weight-GB/s counts one W per launch.
func TestBenchMatVecFakeGPU(t *testing.T) {
	isolate(t)
	lib := gputest.Build(t, gputest.Options{})
	suiteflags.Set("cuda", lib)
	t.Setenv(EnvBenchElems, "4096") // a small copy roofline
	t.Setenv(family.MatVec.EnvShape(), "64x256")
	quickBench(t)
	s, err := Select()
	if err != nil {
		t.Fatal(err)
	}
	be := s.Backend
	for _, tc := range []struct {
		mode   backend.WeightMode
		copies float64 // at least
	}{{backend.WeightsRotate, 2}, {backend.WeightsReuse, 1}} {
		r := testing.Benchmark(func(b *testing.B) {
			s, _ := suite.ByName(matVecSuite(formats.Q4_0))
			benchShape(b, be, family.MatVec, s, []int{64, 256}, tc.mode)
		})
		c := r.Extra["weight-copies"]
		if r.N == 0 || c < tc.copies || (tc.mode == backend.WeightsReuse && c != 1) {
			t.Errorf("%s: %d runs, %v copies: %v", tc.mode, r.N, c, r.Extra)
		}
		// 2 MiB of copies of a 9 KiB W (the fake's L2 is 1 MiB).
		if tc.mode == backend.WeightsRotate && c*64*8*18 < 2<<20 {
			t.Errorf("rotate: %v copies of 9216 bytes are less than 2 × the 1 MiB L2", c)
		}
		if w, g, d := r.Extra["weight-GB/s"], r.Extra["GB/s"], r.Extra["dev-ns/op"]; w <= 0 || w >= g || d <= 0 {
			t.Errorf("%s: weight-GB/s %v, GB/s %v, dev-ns/op %v", tc.mode, w, g, d)
		}
	}
	// The whole benchmark, by $FORGE_BENCH_WEIGHTS: one sub-benchmark.
	for _, env := range []string{"", "reuse", "rotate"} {
		t.Setenv(backend.EnvBenchWeights, env)
		if r := testing.Benchmark(func(b *testing.B) { Bench(b, matVecSuite(formats.Q4_0)) }); r.N == 0 {
			t.Errorf("$FORGE_BENCH_WEIGHTS=%q: Bench did not run", env)
		}
	}
	t.Setenv(backend.EnvBenchWeights, "both")
	if r := testing.Benchmark(func(b *testing.B) { Bench(b, matVecSuite(formats.Q4_0)) }); r.N != 0 {
		t.Errorf("$FORGE_BENCH_WEIGHTS=both: Bench ran")
	}
}
