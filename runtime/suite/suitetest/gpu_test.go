package suitetest

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/suite/suiteflags"
	"github.com/rocmforge/forge/specs/formats"
)

// isolate makes a test's backend choice its own: no flags, no $FORGE_LIB,
// and a working directory without libraries, whatever the run was given.
func isolate(t *testing.T) {
	t.Helper()
	t.Cleanup(suiteflags.Set("", ""))
	t.Setenv(backend.EnvBackend, "")
	t.Setenv(backend.EnvLib, "")
	t.Chdir(t.TempDir())
}

// quickBench shortens testing.Benchmark's runs for a test.
func quickBench(t *testing.T) {
	t.Helper()
	f := flag.Lookup("test.benchtime")
	old := f.Value.String()
	if err := f.Value.Set("20ms"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Value.Set(old) })
}

func TestChoiceFlagsWin(t *testing.T) {
	isolate(t)
	t.Setenv(backend.EnvBackend, "tpu")
	t.Setenv(backend.EnvLib, "/env/libforge_x.so")
	if c := Chosen(); c != (Choice{Backend: "tpu", BackendBy: "$FORGE_BACKEND", Lib: "/env/libforge_x.so", LibBy: "$FORGE_LIB"}) {
		t.Errorf("from the environment: %+v", c)
	}
	suiteflags.Set("cpu", "/flag/libforge_y.so")
	if c := Chosen(); c != (Choice{Backend: "cpu", BackendBy: "-backend", Lib: "/flag/libforge_y.so", LibBy: "-lib"}) {
		t.Errorf("from the flags: %+v", c)
	}
	if errs := run(t, func(tb testing.TB) { Backend(tb) }); len(errs) > 0 {
		t.Errorf("-backend=cpu over $FORGE_BACKEND=tpu: %v", errs)
	}
	suiteflags.Set("tpu", suiteflags.Lib())
	errs := run(t, func(tb testing.TB) { Backend(tb) })
	if len(errs) != 1 || !strings.Contains(errs[0], `-backend=tpu, -lib=/flag/libforge_y.so: unknown backend "tpu"`) {
		t.Errorf("-backend=tpu: %v", errs)
	}
	suiteflags.Set("", "")
	t.Setenv(backend.EnvBackend, "")
	t.Setenv(backend.EnvLib, "")
	if c := Chosen(); c.Backend != "cpu" || c.BackendBy != "default" || c.Lib != "" {
		t.Errorf("nothing chosen: %+v", c)
	}
}

// TestGPUBackend runs the harness on the cuda backend over a fake library
// (host memory, a real Q4_0 decoder), chosen by the flags.
func TestGPUBackend(t *testing.T) {
	isolate(t)
	lib := gputest.Build(t, gputest.Options{})
	suiteflags.Set("cuda", lib)
	for _, out := range []string{"f32", "f16"} {
		if errs := run(t, func(tb testing.TB) { Check(tb, dequantSuite(formats.Q4_0, out)) }); len(errs) > 0 {
			t.Errorf("%s: %v", out, errs)
		}
	}
	// Another format's launcher is not implemented by the fake: an error, not a crash.
	errs := strings.Join(run(t, func(tb testing.TB) { Check(tb, dequantSuite(formats.Q8_0, "f32")) }), "\n")
	if !strings.Contains(errs, "Q8_0 f32 on cuda") || !strings.Contains(errs, "fake: launcher not implemented") {
		t.Errorf("Q8_0 on the fake: %s", errs)
	}

	t.Setenv(EnvBenchElems, "4096")
	quickBench(t)
	r := testing.Benchmark(func(b *testing.B) { Bench(b, dequantSuite(formats.Q4_0, "f32")) })
	if r.N == 0 {
		t.Fatal("the device benchmark did not run")
	}
	for _, m := range []string{"GB/s", "elems/s", "dev-ns/op", "%copy"} {
		if r.Extra[m] <= 0 {
			t.Errorf("no %s metric: %v", m, r.Extra)
		}
	}
	if r.Bytes != 0 {
		t.Errorf("the device benchmark set bytes (host-timed MB/s): %d", r.Bytes)
	}
	be, err := backend.Open("cuda")
	if err == nil {
		t.Errorf("cuda without a library found: %v", be)
	}
	s, err := Select()
	if err != nil {
		t.Fatal(err)
	}
	roof, err := CopyBandwidth(s.Backend.(backend.Device), 4096)
	if err != nil || roof.Bytes != 4<<20 || roof.GBps <= 0 {
		t.Errorf("copy roofline: %+v, %v; want 4 MiB (4 × the fake's 1 MiB L2)", roof, err)
	}
	r = testing.Benchmark(BenchCopy)
	if r.N == 0 || r.Extra["GB/s"] <= 0 || r.Extra["%copy"] <= 0 {
		t.Errorf("BenchCopy on the device: %+v", r)
	}
}

func TestAuto(t *testing.T) {
	isolate(t)
	suiteflags.Set("auto", suiteflags.Lib())
	if be := run(t, func(tb testing.TB) {
		if b := Backend(tb); b.Name() != "cpu" {
			tb.Errorf("auto without a library chose %s", b.Name())
		}
	}); len(be) > 0 {
		t.Error(be)
	}
	gputest.BuildAt(t, filepath.Join("build", "libforge_sm_90.so"), gputest.Options{})
	if be := run(t, func(tb testing.TB) {
		if b := Backend(tb); b.Name() != "cuda" {
			tb.Errorf("auto with build/libforge_sm_90.so chose %s", b.Name())
		}
	}); len(be) > 0 {
		t.Error(be)
	}
}

func TestBenchCopyOnCPU(t *testing.T) {
	isolate(t)
	t.Setenv(EnvBenchElems, "1000")
	quickBench(t)
	r := testing.Benchmark(BenchCopy)
	if r.N == 0 || r.Bytes != 8000 || r.Extra["GB/s"] <= 0 {
		t.Errorf("BenchCopy on the cpu: %+v", r)
	}
}
