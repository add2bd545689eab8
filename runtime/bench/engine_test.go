package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

func dequantSuite(f *formats.Format, output string) suite.Suite {
	return suite.Suite{Name: "dequant_" + output + "/" + f.Name, Family: "dequant", Kernel: "dequant_" + output, Output: output, Format: f}
}

// quick are options for fast tests: tiny inputs, 3 samples, a 1 MiB copy.
func quick() Options { return Options{Elems: 4096, Count: 3, Warmup: 1, CopyBytes: 1 << 20} }

func TestMeasureCPU(t *testing.T) {
	targets := SuiteTargets([]suite.Suite{
		dequantSuite(formats.Q4_0, "f32"),
		dequantSuite(formats.Q8_0, "f32"),
		dequantSuite(formats.Q4_0, "f16"),
	})
	var progress []string
	var done []string
	opts := quick()
	opts.Progress = func(d, total int, name string) {
		if total != 3 {
			t.Errorf("progress total %d, want 3", total)
		}
		progress = append(progress, name)
	}
	opts.Done = func(r *Result) { done = append(done, r.Name) }
	run, err := Measure(context.Background(), cpu.New(0), targets, opts)
	if err != nil {
		t.Fatal(err)
	}
	// A format's f32 and f16 benchmarks run together (one quantized input).
	wantOrder := []string{"dequant_f32/Q4_0", "dequant_f16/Q4_0", "dequant_f32/Q8_0"}
	if got := strings.Join(progress, ","); got != "copy roofline,"+strings.Join(wantOrder, ",")+"," {
		t.Errorf("progress %q", got)
	}
	if got := strings.Join(done, ","); got != strings.Join(wantOrder, ",") {
		t.Errorf("done %q", got)
	}
	if run.Kind != Kind || run.Schema != SchemaVersion || run.Interrupted || !run.Finished.After(run.Started) {
		t.Errorf("run header %+v", run)
	}
	m := run.Meta
	if m.Backend != "cpu" || m.Device == "" || m.Arch == "" || m.CPUs < 1 || m.GoVersion == "" || m.OS == "" || m.ForgeVersion == "" {
		t.Errorf("meta %+v", m)
	}
	if r := run.Roofline; r == nil || r.Bytes != 1<<20 || r.GBps <= 0 || !strings.HasPrefix(r.Method, "go copy") {
		t.Errorf("roofline %+v", run.Roofline)
	}
	if len(run.Results) != 3 {
		t.Fatalf("%d results", len(run.Results))
	}
	for i, r := range run.Results {
		f := formats.Q4_0
		if i == 2 {
			f = formats.Q8_0
		}
		out := 4
		if r.Output == "f16" {
			out = 2
		}
		if r.Name != wantOrder[i] || r.Suite != r.Name || r.Family != "dequant" || r.Format != f.Name || r.Kernel != "dequant_"+r.Output {
			t.Errorf("result %d identity %+v", i, r)
		}
		if r.Elements != 4096 || len(r.Shape) != 1 || r.Shape[0] != 4096 || r.BytesRead != int64(4096/32*f.BlockBytes) || r.BytesWritten != int64(4096*out) {
			t.Errorf("%s: sizes %v %d %d %d", r.Name, r.Shape, r.Elements, r.BytesRead, r.BytesWritten)
		}
		if want := 4 * 32 / float64(f.BlockBytes); r.Compression != want {
			t.Errorf("%s: compression %v, want %v", r.Name, r.Compression, want)
		}
		s := r.Stats
		if len(r.Samples) != 3 || s.N != 3 || r.Warmup != 1 {
			t.Errorf("%s: %d samples, n %d, warm-up %d", r.Name, len(r.Samples), s.N, r.Warmup)
		}
		if !(s.Min > 0 && s.Min <= s.P50 && s.P50 <= s.P95 && s.P95 <= s.P99 && s.P99 <= s.Max && s.Min <= s.Mean && s.Mean <= s.Max) {
			t.Errorf("%s: stats out of order %+v", r.Name, s)
		}
		// 4096 elements move far less than the 1 MiB roofline's buffer:
		// no %copy (RooflineFor).
		if s.GBps <= 0 || s.ElemsPS <= 0 || s.PctCopy != 0 {
			t.Errorf("%s: throughput %+v", r.Name, s)
		}
		if want := float64(r.BytesRead+r.BytesWritten) / s.P50.Seconds() / 1e9; math.Abs(s.GBps-want) > 1e-3*want {
			t.Errorf("%s: GB/s %v, want %v", r.Name, s.GBps, want)
		}
	}
}

func TestMeasureShapes(t *testing.T) {
	ctx := context.Background()
	be := cpu.New(1)
	// Elems rounds down to whole blocks, at least one.
	run, err := Measure(ctx, be, SuiteTargets([]suite.Suite{dequantSuite(formats.Q4_K, "f32")}), Options{Elems: 700, Count: 1, CopyBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r := run.Results[0]; r.Elements != 512 || run.Roofline != nil || r.Stats.PctCopy != 0 {
		t.Errorf("700 elements of Q4_K: %d elements, roofline %v", r.Elements, run.Roofline)
	}
	run, err = Measure(ctx, be, SuiteTargets([]suite.Suite{dequantSuite(formats.Q4_K, "f32")}), Options{Elems: 3, Count: 1, CopyBytes: -1})
	if err != nil || run.Results[0].Elements != 256 {
		t.Errorf("3 elements: %v, %v", run, err)
	}
	// A shape of its own, and a bad one refused before anything runs.
	called := false
	bad := []Target{
		{Suite: dequantSuite(formats.Q4_0, "f32"), Shape: []int{64, 2}},
		{Suite: dequantSuite(formats.Q4_0, "f32"), Name: "odd", Shape: []int{48}},
	}
	_, err = Measure(ctx, be, bad, Options{Count: 1, CopyBytes: -1, Progress: func(int, int, string) { called = true }})
	if err == nil || !strings.Contains(err.Error(), "odd: shape [48]: 48 elements is not a whole number of 32-element Q4_0 blocks") || called {
		t.Errorf("bad shape: %v (progress called: %v)", err, called)
	}
	run, err = Measure(ctx, be, bad[:1], Options{Count: 1, CopyBytes: -1})
	if err != nil || run.Results[0].Elements != 128 || len(run.Results[0].Shape) != 2 {
		t.Errorf("shape [64 2]: %+v, %v", run, err)
	}
	// An input of the wrong size is an error naming the benchmark.
	short := Target{Suite: dequantSuite(formats.Q4_0, "f32"), Name: "short", Shape: []int{64}, Input: func() ([]byte, error) { return make([]byte, 18), nil }}
	if _, err := Measure(ctx, be, []Target{short}, Options{Count: 1, CopyBytes: -1}); err == nil || !strings.Contains(err.Error(), "short: input of 18 bytes, want 36") {
		t.Errorf("short input: %v", err)
	}
}

// TestMeasureInterrupted cancels the context between benchmarks and in
// the middle of one: the run keeps the benchmarks that finished, drops the
// one cut short, and says it was interrupted.
func TestMeasureInterrupted(t *testing.T) {
	targets := SuiteTargets([]suite.Suite{dequantSuite(formats.Q4_0, "f32"), dequantSuite(formats.Q8_0, "f32"), dequantSuite(formats.Q5_0, "f32")})
	check := func(run *Run, err error, want int) {
		t.Helper()
		if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want ErrInterrupted and context.Canceled", err)
		}
		if run == nil || !run.Interrupted || len(run.Results) != want || run.Finished.IsZero() {
			t.Fatalf("interrupted run %+v, want %d results", run, want)
		}
		if !strings.Contains(err.Error(), "of 3 benchmarks ran") {
			t.Errorf("error %q", err)
		}
	}
	// Between benchmarks, on the cpu.
	ctx, cancel := context.WithCancel(context.Background())
	opts := quick()
	opts.Done = func(*Result) { cancel() }
	run, err := Measure(ctx, cpu.New(1), targets, opts)
	check(run, err, 1)

	// In the third benchmark's sampling (launch 12 of 5 + 5 + 5).
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	d := &fakeDevice{Backend: cpu.New(1), dur: func(i int) time.Duration {
		if i == 12 {
			cancel()
		}
		return 1000
	}}
	run, err = Measure(ctx, d, targets, Options{Elems: 32, Count: 5, Warmup: -1, CopyBytes: -1})
	check(run, err, 2)
	if run.Results[1].Name != "dequant_f32/Q8_0" || run.Results[1].Stats.N != 5 {
		t.Errorf("second result %+v", run.Results[1])
	}
}

// fakeDevice is a backend.Device whose kernels take the durations
// dur(i) gives, i counting every launch; copies run at 100 GB/s.
type fakeDevice struct {
	*cpu.Backend
	mu       sync.Mutex
	launches int
	dur      func(i int) time.Duration
}

func (d *fakeDevice) Name() string     { return "fakedev" }
func (d *fakeDevice) Describe() string { return "a fake device" }
func (d *fakeDevice) L2Bytes() int64   { return 1 << 20 }

func (d *fakeDevice) PrepareBlocks(k backend.Kernel, ref backend.BlockRef, src []byte) (backend.Resident, error) {
	return &fakeResident{run: func(n int) time.Duration {
		d.mu.Lock()
		defer d.mu.Unlock()
		var t time.Duration
		for range n {
			t += d.dur(d.launches)
			d.launches++
		}
		return t
	}}, nil
}

func (d *fakeDevice) PrepareCopy(bytes int64) (backend.Resident, error) {
	return &fakeResident{run: func(n int) time.Duration {
		return time.Duration(float64(n) * 2 * float64(bytes) / 100e9 * 1e9)
	}}, nil
}

type fakeResident struct{ run func(int) time.Duration }

func (r *fakeResident) Run(n int) (time.Duration, error) { return r.run(n), nil }
func (r *fakeResident) Close() error                     { return nil }

func TestMeasureDevice(t *testing.T) {
	d := &fakeDevice{Backend: cpu.New(1), dur: func(i int) time.Duration { return time.Duration(1000 + i) }}
	targets := SuiteTargets([]suite.Suite{dequantSuite(formats.Q4_0, "f32")})
	// 1 Mi elements: 4.5 MiB moved, past the roofline's 4 MiB buffer, so judged against it (RooflineFor).
	run, err := Measure(context.Background(), d, targets, Options{Elems: 1 << 20, Count: 5, Warmup: 3})
	if err != nil {
		t.Fatal(err)
	}
	// 3 warm-up launches, then one launch per sample, each timed alone.
	r := run.Results[0]
	want := []time.Duration{1003, 1004, 1005, 1006, 1007}
	if len(r.Samples) != 5 || r.Samples[0] != want[0] || r.Samples[4] != want[4] || d.launches != 8 {
		t.Errorf("samples %v after %d launches, want %v after 8", r.Samples, d.launches, want)
	}
	if r.Stats.P50 != 1005 || r.Stats.Min != 1003 || r.Stats.Max != 1007 || r.Stats.Mean != 1005 {
		t.Errorf("stats %+v", r.Stats)
	}
	// The roofline: forge_copy over suite.CopyBytes(1 Mi elements) = 4 × the L2 = 4 × the elements.
	if rf := run.Roofline; rf == nil || rf.Bytes != 4<<20 || math.Abs(rf.GBps-100) > 0.01 || rf.Method != "forge_copy" {
		t.Errorf("roofline %+v", run.Roofline)
	}
	if want := 100 * r.Stats.GBps / run.Roofline.GBps; r.Stats.PctCopy <= 0 || math.Abs(r.Stats.PctCopy-want) > 1e-9*want {
		t.Errorf("%%copy %v, want %v", r.Stats.PctCopy, want)
	}
	if run.Meta.Backend != "fakedev" || run.Meta.Device != "a fake device" {
		t.Errorf("meta %+v", run.Meta)
	}
}

// TestMeasureLaunchesPerSample: each sample (and each warm-up) runs the
// launches back to back, and the sample is their mean.
func TestMeasureLaunchesPerSample(t *testing.T) {
	d := &fakeDevice{Backend: cpu.New(1), dur: func(i int) time.Duration { return time.Duration(1000 + i) }}
	targets := SuiteTargets([]suite.Suite{dequantSuite(formats.Q4_0, "f32")})
	run, err := Measure(context.Background(), d, targets, Options{Elems: 4096, Count: 2, Warmup: 1, LaunchesPerSample: 4, CopyBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	// Launches 0-3 warm up; 4-7 average 1005.5 ns, 8-11 1009.5 ns (Duration truncates).
	if want := []time.Duration{1005, 1009}; fmt.Sprint(r.Samples) != fmt.Sprint(want) || d.launches != 12 || r.LaunchesPerSample != 4 {
		t.Errorf("samples %v after %d launches (launches_per_sample %d), want %v after 12 (4)", r.Samples, d.launches, r.LaunchesPerSample, want)
	}
}

func TestMeasureAuto(t *testing.T) {
	targets := SuiteTargets([]suite.Suite{dequantSuite(formats.Q4_0, "f32")})
	// Constant times: the median's interval is a point once it is finite.
	d := &fakeDevice{Backend: cpu.New(1), dur: func(int) time.Duration { return 5000 }}
	run, err := Measure(context.Background(), d, targets, Options{Elems: 32, Count: 3, Auto: true, CopyBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r := run.Results[0]; r.Stats.N != 6 || r.Stats.P50Lo != 5000 || r.Stats.P50Hi != 5000 {
		t.Errorf("constant times: %d samples (want 6, the fewest with a 95%% interval), CI [%v, %v]", r.Stats.N, r.Stats.P50Lo, r.Stats.P50Hi)
	}
	// Times alternating ±5%: the interval never narrows to ±1%; MaxSamples stops it.
	d = &fakeDevice{Backend: cpu.New(1), dur: func(i int) time.Duration { return time.Duration(1000 + 100*(i%2)) }}
	run, err = Measure(context.Background(), d, targets, Options{Elems: 32, Count: 3, Auto: true, MaxSamples: 200, CopyBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n := run.Results[0].Stats.N; n != 200 {
		t.Errorf("alternating times: %d samples, want MaxSamples (200)", n)
	}
	// A wider precision accepts them: ±10% holds at once.
	d.launches = 0
	run, err = Measure(context.Background(), d, targets, Options{Elems: 32, Count: 3, Auto: true, Precision: 0.1, MaxSamples: 200, CopyBytes: -1})
	if err != nil || run.Results[0].Stats.N > 10 {
		t.Errorf("±10%%: %d samples, %v", run.Results[0].Stats.N, err)
	}
	// MinTime: samples until their sum reaches it.
	d = &fakeDevice{Backend: cpu.New(1), dur: func(int) time.Duration { return time.Millisecond }}
	run, err = Measure(context.Background(), d, targets, Options{Elems: 32, Count: 3, MinTime: 50 * time.Millisecond, CopyBytes: -1})
	if err != nil || run.Results[0].Stats.N != 50 {
		t.Errorf("min-time 50ms of 1ms samples: %d samples, %v", run.Results[0].Stats.N, err)
	}
}

func TestSummarize(t *testing.T) {
	var samples []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		samples = append(samples, time.Duration(i))
	}
	s := Summarize(samples, 1e9, 2e9, 0, 0)
	// R8 quantiles of 1..100: p50 = 50.5, p95 = 95.65, p99 = 99.63.
	if s.N != 100 || s.Min != 1 || s.Max != 100 || s.Mean != 51 || s.P50 != 51 || s.P95 != 96 || s.P99 != 100 {
		t.Errorf("stats of 1..100: %+v", s)
	}
	if s.StdDev != 29 { // sqrt(841.67) = 29.01
		t.Errorf("stddev %v", s.StdDev)
	}
	if !(s.P50Lo > 0 && s.P50Lo < 50 && s.P50Hi > 51 && s.P50Hi < 70) {
		t.Errorf("median interval [%v, %v]", s.P50Lo, s.P50Hi)
	}
	if math.Abs(s.GBps-1e9/50.5e-9/1e9) > 1 || s.PctCopy != 0 || s.GFLOPS != 0 {
		t.Errorf("throughput %+v", s)
	}
	if s := Summarize(samples[:3], 0, 0, 0, 0); s.P50Lo != 0 || s.P50Hi != 0 {
		t.Errorf("3 samples have no 95%% interval: %+v", s)
	}
	if s := Summarize(nil, 1, 1, 1, 1); s != (Stats{}) {
		t.Errorf("no samples: %+v", s)
	}
	if s := Summarize([]time.Duration{10}, 10, 10, 20, 1); s.StdDev != 0 || s.GFLOPS != 2 || s.PctCopy != 100 {
		t.Errorf("one sample: %+v", s)
	}
}

func TestVersionString(t *testing.T) {
	for _, tc := range []struct {
		vendor string
		v      int
		want   string
	}{{"nvidia", 12040, "12.4"}, {"nvidia", 12080, "12.8"}, {"amd", 50221151, "5.2.21151"}, {"amd", 60342134, "6.3.42134"}, {"amd", 0, ""}, {"other", 7, "7"}} {
		if got := versionString(tc.vendor, tc.v); got != tc.want {
			t.Errorf("versionString(%s, %d) = %q, want %q", tc.vendor, tc.v, got, tc.want)
		}
	}
}

// suitesOf is a format's f32 and f16 dequant suites.
func suitesOf(f *formats.Format) []suite.Suite {
	return []suite.Suite{dequantSuite(f, "f32"), dequantSuite(f, "f16")}
}

// dequantOnly hides the cpu backend's MatVec: a backend without matvec.
type dequantOnly struct{ backend.Backend }

func TestMeasureMatVec(t *testing.T) {
	mv := suite.Suite{Name: "matvec_f32/Q4_0", Family: "matvec", Kernel: "matvec_f32", Output: "f32", Format: formats.Q4_0}
	targets := []Target{{Suite: mv, Shape: []int{37, 96}}, {Suite: dequantSuite(formats.Q4_0, "f32")}}
	run, err := Measure(context.Background(), cpu.New(1), targets, quick())
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	if r.Name != mv.Name || r.Elements != 37*96 || r.BytesRead != 37*3*18+4*96 || r.BytesWritten != 4*37 || r.FLOPs != 2*37*96 || r.Stats.N != 3 {
		t.Errorf("matvec result %+v", r)
	}
	if run.Results[1].Name != "dequant_f32/Q4_0" || run.Results[1].Elements != 4096 {
		t.Errorf("dequant result %+v", run.Results[1])
	}
	for _, bad := range []struct {
		b     backend.Backend
		shape []int
		want  string
	}{
		{dequantOnly{cpu.New(1)}, nil, "backend cpu does not run matvec"},
		{cpu.New(1), []int{37, 100}, "100 columns is not a whole number of 32-element Q4_0 blocks"},
		{cpu.New(1), []int{3072}, "want [rows, cols]"},
	} {
		_, err := Measure(context.Background(), bad.b, []Target{{Suite: mv, Shape: bad.shape}}, quick())
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("shape %v: %v, want %q", bad.shape, err, bad.want)
		}
	}
}

func TestMeasureMatMul(t *testing.T) {
	mm := suite.Suite{Name: "matmul_f32/Q4_0", Family: "matmul", Kernel: "matmul_f32", Output: "f32", Format: formats.Q4_0}
	run, err := Measure(context.Background(), cpu.New(1), []Target{{Suite: mm, Shape: []int{37, 96, 5}}}, quick())
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	if r.Name != mm.Name || r.Elements != 37*5 || r.BytesRead != 37*3*18+4*96*5 || r.BytesWritten != 4*37*5 || r.FLOPs != 2*37*96*5 || r.Stats.N != 3 {
		t.Errorf("matmul result %+v", r)
	}
	for _, bad := range []struct {
		b     backend.Backend
		shape []int
		want  string
	}{
		{dequantOnly{cpu.New(1)}, nil, "backend cpu does not run matmul"},
		{cpu.New(1), []int{37, 100, 2}, "100 columns is not a whole number of 32-element Q4_0 blocks"},
		{cpu.New(1), []int{37, 96}, "want [rows, cols, batch]"},
	} {
		_, err := Measure(context.Background(), bad.b, []Target{{Suite: mm, Shape: bad.shape}}, quick())
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("shape %v: %v, want %q", bad.shape, err, bad.want)
		}
	}
}
