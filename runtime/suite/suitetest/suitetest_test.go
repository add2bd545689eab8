package suitetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/specs/formats"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

type fatal struct{}

func (r *recorder) Helper()                   {}
func (r *recorder) Error(a ...any)            { r.errs = append(r.errs, fmt.Sprint(a...)) }
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatal(a ...any)            { r.Error(a...); panic(fatal{}) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); panic(fatal{}) }

func run(t *testing.T, fn func(tb testing.TB)) []string {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != (fatal{}) {
				panic(p)
			}
		}()
		fn(r)
	}()
	return r.errs
}

// broken is the cpu backend with one fault: flip flips the low bit of one
// output element, skip leaves one unwritten.
type broken struct {
	*cpu.Backend
	at         int
	flip, skip bool
}

func (b *broken) RunBlocks(k backend.Kernel, ref backend.BlockRef, dst []float32, src []byte) error {
	keep := float32(0)
	if b.at < len(dst) {
		keep = dst[b.at]
	}
	if err := b.Backend.RunBlocks(k, ref, dst, src); err != nil {
		return err
	}
	if b.at < len(dst) {
		if b.flip {
			dst[b.at] = -dst[b.at] + 1
		}
		if b.skip {
			dst[b.at] = keep
		}
	}
	return nil
}

func (b *broken) RunBlocksF16(k backend.Kernel, ref backend.BlockRef, dst []uint16, src []byte) error {
	if err := b.Backend.RunBlocksF16(k, ref, dst, src); err != nil {
		return err
	}
	if b.at < len(dst) && b.flip {
		dst[b.at] ^= 1
	}
	return nil
}

var current *broken

// testSuite registers (once) and names the suite of kernel for format f,
// as generated/suites registers it, for the tests of Check and Bench.
func testSuite(fam, kernel, output string, f *formats.Format) string {
	name := kernel + "/" + f.Name
	if _, ok := suite.ByName(name); !ok {
		suite.Register(suite.Suite{Name: name, Family: fam, Kernel: kernel, Output: output, Format: f})
	}
	return name
}

func dequantSuite(f *formats.Format, output string) string {
	return testSuite("dequant", "dequant_"+output, output, f)
}

func matVecSuite(f *formats.Format) string { return testSuite("matvec", "matvec_f32", "f32", f) }

func matVecX8Suite(f *formats.Format) string { return testSuite("matvec", "matvec_x8", "f32", f) }

func init() {
	backend.Register("broken-for-test", func() (backend.Backend, error) {
		return backendShim{}, nil
	})
}

// backendShim forwards to current, so that each test can choose the fault
// of the one registered (and cached) backend.
type backendShim struct{}

func (backendShim) Name() string { return "broken-for-test" }
func (backendShim) RunBlocks(k backend.Kernel, ref backend.BlockRef, dst []float32, src []byte) error {
	return current.RunBlocks(k, ref, dst, src)
}
func (backendShim) RunBlocksF16(k backend.Kernel, ref backend.BlockRef, dst []uint16, src []byte) error {
	return current.RunBlocksF16(k, ref, dst, src)
}
func (backendShim) PrepareBlocks(k backend.Kernel, ref backend.BlockRef, src []byte) (backend.Resident, error) {
	return current.PrepareBlocks(k, ref, src)
}

func TestCheckDequantPassesOnCPU(t *testing.T) {
	isolate(t)
	t.Setenv(backend.EnvBackend, "cpu")
	for _, out := range []string{"f32", "f16"} {
		if errs := run(t, func(tb testing.TB) { Check(tb, dequantSuite(formats.Q4_K, out)) }); len(errs) > 0 {
			t.Errorf("%s: %v", out, errs)
		}
	}
}

func TestCheckDequantFindsFaults(t *testing.T) {
	isolate(t)
	t.Setenv(backend.EnvBackend, "broken-for-test")
	f := formats.Q5_0
	at := family.CheckBlocks(f)*32 - 1 - 32*2 // the last element of the third-last block of the large cases
	for _, tc := range []struct {
		b    *broken
		out  string
		want []string
	}{
		{&broken{at: at, flip: true}, "f32", []string{
			fmt.Sprintf("Q5_0 f32 on broken-for-test, %d quantized blocks: 1 of %d elements differ from the dequant reference; first:\n\tblock %d element 31 (index %d): got ", family.CheckBlocks(f), family.CheckBlocks(f)*32, family.CheckBlocks(f)-3, at),
			fmt.Sprintf("Q5_0 f32 on broken-for-test, %d random blocks: 1 of %d elements differ", family.CheckBlocks(f), family.CheckBlocks(f)*32),
		}},
		{&broken{at: at, skip: true}, "f32", []string{
			"quantized blocks: 1 of", "want", "got 0xdeadbeef",
		}},
		{&broken{at: 5, flip: true}, "f16", []string{
			"Q5_0 f16 on broken-for-test, 4099 quantized blocks: 1 of 131168 elements differ",
			"Q5_0 f16 on broken-for-test, 1 quantized block: 1 of 32 elements differ from the dequant reference; first:\n\tblock 0 element 5 (index 5): got 0x",
		}},
	} {
		current = tc.b
		current.Backend = cpu.New(0)
		errs := strings.Join(run(t, func(tb testing.TB) { Check(tb, dequantSuite(f, tc.out)) }), "\n")
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%+v: failures\n%s\nlack %q", tc.b, errs, w)
			}
		}
	}
}

func TestCheckDequantBadBackendAndOutput(t *testing.T) {
	isolate(t)
	t.Setenv(backend.EnvBackend, "hip")
	errs := run(t, func(tb testing.TB) { Check(tb, dequantSuite(formats.Q4_0, "f32")) })
	want := `$FORGE_BACKEND=hip: backend hip needs a kernel library and none was given or found`
	if gpu.Available() != nil {
		want = `$FORGE_BACKEND=hip: backend hip: this binary was built without cgo`
	}
	if len(errs) != 1 || !strings.Contains(errs[0], want) {
		t.Errorf("FORGE_BACKEND=hip: %q, want %q", errs, want)
	}
	t.Setenv(backend.EnvBackend, "")
	errs = run(t, func(tb testing.TB) { Check(tb, "dequant_f8/Q4_0") })
	if len(errs) != 1 || errs[0] != "dequant_f8/Q4_0 is not a registered suite" {
		t.Errorf("an unregistered suite: %q", errs)
	}
}

func TestBenchElems(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		env  string
		n    int
		fail bool
	}{{"", 16 << 20, false}, {"1000", 1000, false}, {"0", 0, true}, {"-5", 0, true}, {"16Mi", 0, true}} {
		t.Setenv(EnvBenchElems, tc.env)
		n, err := BenchElems(cpu.New(1))
		if (err != nil) != tc.fail || n != tc.n {
			t.Errorf("%s=%q: %d, %v", EnvBenchElems, tc.env, n, err)
		}
	}
}

func TestBenchDequantRuns(t *testing.T) {
	isolate(t)
	t.Setenv(EnvBenchElems, "1000") // 31 Q4_0 blocks
	quickBench(t)
	t.Setenv(backend.EnvBackend, "cpu")
	r := testing.Benchmark(func(b *testing.B) { Bench(b, dequantSuite(formats.Q4_0, "f16")) })
	if r.N == 0 {
		t.Fatal("benchmark did not run")
	}
	if want := int64(31*18 + 31*32*2); r.Bytes != want {
		t.Errorf("SetBytes %d, want %d (read + written)", r.Bytes, want)
	}
	if r.Extra["elems/s"] <= 0 {
		t.Errorf("no elems/s metric: %v", r.Extra)
	}
}
