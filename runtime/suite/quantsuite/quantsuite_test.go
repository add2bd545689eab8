package quantsuite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/internal/race"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/workloads"
)

var testFormats = []*formats.Format{formats.Q2_K, formats.Q4_K, formats.Q8_0}

// small is a model small enough to quantize in a test many times over.
var small = workloads.Model{Name: "small", Layers: 3, Rows: 37, Cols: 512}

// TestModesSameBytes: streaming and batch sink the same bytes, and those
// are the reference quantizer's over each whole layer, run sequentially.
func TestModesSameBytes(t *testing.T) {
	for _, f := range testFormats {
		s, err := Do(small, f, Streaming, 0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Do(small, f, Batch, 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.Hash != b.Hash || s.SunkBytes != b.SunkBytes {
			t.Errorf("%s: streaming %08x/%d bytes, batch %08x/%d bytes", f.Name, s.Hash, s.SunkBytes, b.Hash, b.SunkBytes)
		}
		want := crc32.New(crc32.MakeTable(crc32.Castagnoli))
		x := make([]float32, small.Rows*small.Cols)
		q := make([]byte, len(x)/f.BlockElems*f.BlockBytes)
		for l := range small.Layers {
			GenerateLayer(x, small.Rows, small.Cols, l, 1)
			if err := f.Quantize(q, x); err != nil {
				t.Fatal(err)
			}
			want.Write(q)
		}
		if s.Hash != want.Sum32() || s.SunkBytes != int64(small.Layers*len(q)) || s.Quantized != s.SunkBytes {
			t.Errorf("%s: modes sank %08x/%d bytes, the sequential reference %08x/%d", f.Name, s.Hash, s.SunkBytes, want.Sum32(), small.Layers*len(q))
		}
		if s.Elements != int64(small.Layers*len(x)) || s.WeightsF32 != 4*s.Elements {
			t.Errorf("%s: %d elements, %d f32 bytes", f.Name, s.Elements, s.WeightsF32)
		}
	}
}

// TestParallelIsSequential: generation and quantization give the same
// bytes on any number of goroutines.
func TestParallelIsSequential(t *testing.T) {
	rows, cols := 53, 1024
	ref := make([]float32, rows*cols)
	GenerateLayer(ref, rows, cols, 5, 1)
	var zeros, distinct int
	seen := map[float32]bool{}
	for _, v := range ref {
		if v == 0 {
			zeros++
		}
		if !seen[v] {
			seen[v] = true
			distinct++
		}
	}
	if zeros > len(ref)/100 || distinct < len(ref)/2 {
		t.Errorf("weights look degenerate: %d zeros, %d distinct of %d", zeros, distinct, len(ref))
	}
	other := make([]float32, rows*cols)
	GenerateLayer(other, rows, cols, 6, 1)
	if slicesEqual(ref, other) {
		t.Error("layers 5 and 6 have the same weights")
	}
	for _, workers := range []int{2, 3, 7, runtime.GOMAXPROCS(0), 100} {
		x := make([]float32, rows*cols)
		GenerateLayer(x, rows, cols, 5, workers)
		if !slicesEqual(x, ref) {
			t.Fatalf("GenerateLayer on %d goroutines differs from one", workers)
		}
	}
	for _, f := range testFormats {
		want := make([]byte, rows*cols/f.BlockElems*f.BlockBytes)
		if err := f.Quantize(want, ref); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2, 3, 7, runtime.GOMAXPROCS(0), 100} {
			got := make([]byte, len(want))
			if err := QuantizeLayer(f, got, ref, cols, workers); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: QuantizeLayer on %d goroutines differs from the sequential reference", f.Name, workers)
			}
		}
	}
	if err := QuantizeLayer(formats.Q4_K, make([]byte, 144*4), make([]float32, 1024), 128, 2); err == nil {
		t.Error("rows of 128 elements accepted for Q4_K (256-element blocks)")
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tforgebench\nVmPeak:\t 1300000 kB\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\n"
	for field, want := range map[string]int64{"VmHWM": 20480 << 10, "VmRSS": 10240 << 10} {
		got, err := ParseStatus(strings.NewReader(status), field)
		if err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", field, got, err, want)
		}
	}
	for _, bad := range []string{"Name:\tx\n", "VmHWM:\t12 MB\n", "VmHWM:\tlots kB\n", "VmHWM:\t-4 kB\n", "VmHWM:\n"} {
		if n, err := ParseStatus(strings.NewReader(bad), "VmHWM"); err == nil {
			t.Errorf("%q: parsed as %d", bad, n)
		}
	}
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	resetPeak(t)
	before, err := ReadPeak()
	if err != nil || before <= 0 {
		t.Fatalf("ReadPeak: %d, %v", before, err)
	}
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = 1
	}
	after, err := ReadPeak()
	if err != nil || after < before+60<<20 {
		t.Errorf("after touching 64 MiB the peak went from %d to %d (%v)", before, after, err)
	}
	runtime.KeepAlive(big)
}

// resetPeak brings this process's VmHWM down to its current RSS, so that a
// test can see the peak rise again: the mark is process-wide and only goes
// up, and a second run of a test in the same process (-count, or another
// test touching more memory first) would find it already above anything
// the test touches. The pages of memory freed earlier go back to the
// system first, or a new allocation could reuse them still resident and
// not raise the RSS at all.
func resetPeak(t *testing.T) {
	t.Helper()
	debug.FreeOSMemory()
	// 5 resets the peak RSS (Linux 4.0 and later; proc(5), clear_refs).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS mark: %v", err)
	}
}

// TestChildProtocol: the case and result lines round-trip, and a real
// child (this test binary, re-executed) runs a case.
func TestChildProtocol(t *testing.T) {
	c := Case{Model: small, Format: "Q4_K", Mode: Streaming, Workers: 2}
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Case
	if err := json.Unmarshal(raw, &back); err != nil || back != c {
		t.Fatalf("case round trip: %+v, %v", back, err)
	}
	var out bytes.Buffer
	out.WriteString("some other line\n")
	if code := childMain(Case{Model: small, Format: "Q8_0", Mode: Batch}, &out); code != 0 {
		t.Fatalf("childMain exit %d: %s", code, out.String())
	}
	r, err := ParseResult(out.Bytes())
	// VmHWM is read from the kernel's RSS counters, which it keeps per CPU
	// or per thread and folds in lazily, so two readings of the same
	// process can go backwards a little (CI saw the peak 180 KiB under the
	// baseline read before the work); a real inversion is far larger.
	const counterSlack = 4 << 20
	if err != nil || r.Quantized == 0 || r.PeakRSS < r.BaselineRSS-counterSlack || r.Error != "" {
		t.Fatalf("ParseResult: %+v, %v", r, err)
	}
	if _, err := ParseResult([]byte("no result here\n")); err == nil {
		t.Error("ParseResult found a result in output without one")
	}
	if _, err := ParseResult([]byte(ResultPrefix + "{oops\n")); err == nil {
		t.Error("ParseResult took a broken result line")
	}
	out.Reset()
	if code := childMain(Case{Model: small, Format: "Q9_9", Mode: Batch}, &out); code == 0 || !strings.Contains(out.String(), "Q9_9") {
		t.Errorf("childMain of an unknown format: exit %d, %s", code, out.String())
	}

	if runtime.GOOS != "linux" {
		t.Skip("the peak is read from Linux's /proc")
	}
	ctx := context.Background()
	idle, err := Child(ctx, Case{Mode: Idle})
	if err != nil || idle.PeakRSS <= 0 || idle.BaselineRSS <= 0 || idle.Quantized != 0 {
		t.Fatalf("idle child: %+v, %v", idle, err)
	}
	got, err := Child(ctx, Case{Model: small, Format: "Q4_K", Mode: Streaming})
	want, _ := Do(small, formats.Q4_K, Streaming, 0)
	if err != nil || got.Hash != want.Hash || got.SunkBytes != want.SunkBytes {
		t.Fatalf("child: %+v, %v; in process %08x/%d", got, err, want.Hash, want.SunkBytes)
	}
	if _, err := Child(ctx, Case{Model: small, Format: "Q9_9", Mode: Batch}); err == nil || !strings.Contains(err.Error(), "Q9_9") {
		t.Errorf("child of an unknown format: %v", err)
	}
	// A stray variable without the child's argument changes nothing: the
	// test binary runs as itself.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), EnvCase+`={"mode":"idle"}`)
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), ResultPrefix) {
		t.Errorf("a stray $%s: %v\n%s", EnvCase, err, out)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Child(cancelled, Case{Mode: Idle}); err == nil {
		t.Error("a child ran with a cancelled context")
	}
}

// TestStreamingPeakBelowBatch measures a small model in real children:
// batch holds every layer (its peak above the idle process covers the
// weights), streaming one.
func TestStreamingPeakBelowBatch(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peak is read from Linux's /proc")
	}
	m := workloads.Model{Name: "8x1024x4096", Layers: 8, Rows: 1024, Cols: 4096}
	layer := int64(m.Rows * m.Cols * 4)
	ctx := context.Background()
	b, err := Child(ctx, Case{Model: m, Format: "Q8_0", Mode: Batch})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Child(ctx, Case{Model: m, Format: "Q8_0", Mode: Streaming})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("batch peak %d MiB (%d above baseline), streaming %d MiB (%d above baseline); f32 weights %d MiB",
		b.PeakRSS>>20, (b.PeakRSS-b.BaselineRSS)>>20, s.PeakRSS>>20, (s.PeakRSS-s.BaselineRSS)>>20, b.WeightsF32>>20)
	if s.Hash != b.Hash {
		t.Errorf("streaming and batch children sank different bytes")
	}
	if b.PeakRSS-b.BaselineRSS < b.WeightsF32+b.Quantized {
		t.Errorf("batch peak above baseline %d is below the weights it held (%d)", b.PeakRSS-b.BaselineRSS, b.WeightsF32+b.Quantized)
	}
	// About one layer: its f32 weights, its output and some slack. The race
	// detector keeps 2 bytes of shadow for each byte the child writes, so
	// there the same work is resident three times over (62 MiB above the
	// baseline under -race on the 2-core machine, against a bound of 48).
	touched := int64(1)
	if race.Enabled {
		touched = 3
	}
	if above := s.PeakRSS - s.BaselineRSS; above < layer || above > touched*2*layer+16<<20 {
		t.Errorf("streaming peak above baseline %d, want about one layer (%d f32 bytes and its output)", above, layer)
	}
	if 2*s.PeakRSS >= b.PeakRSS {
		t.Errorf("streaming peak %d is not below half the batch peak %d", s.PeakRSS, b.PeakRSS)
	}
}

// fakeChild answers cases from arithmetic: batch holds every layer,
// streaming one, over a 10 MiB baseline.
func fakeChild(calls *[]Case, hashOf func(Case) uint32) func(context.Context, Case) (Result, error) {
	return func(ctx context.Context, c Case) (Result, error) {
		*calls = append(*calls, c)
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		r := Result{BaselineRSS: 10 << 20}
		r.PeakRSS = r.BaselineRSS
		if c.Mode == Idle {
			return r, nil
		}
		f, _ := formats.ByName(c.Format)
		layer := int64(c.Model.Rows * c.Model.Cols)
		q := layer / int64(f.BlockElems) * int64(f.BlockBytes)
		r.Elements = layer * int64(c.Model.Layers)
		r.WeightsF32, r.Quantized, r.SunkBytes = 4*r.Elements, q*int64(c.Model.Layers), q*int64(c.Model.Layers)
		r.Hash = hashOf(c)
		r.Seconds, r.QuantizeSeconds = 1, 0.5
		if c.Mode == Batch {
			r.PeakRSS += r.WeightsF32 + r.Quantized
		} else {
			r.PeakRSS += 4*layer + q
		}
		return r, nil
	}
}

func testEnv(quick bool, ms *[]suite.Measurement) *suite.Env {
	return &suite.Env{
		Ctx:    context.Background(),
		Quick:  quick,
		Sample: func(func() (time.Duration, error)) ([]time.Duration, error) { return nil, errors.New("not used") },
		Report: func(m suite.Measurement) { *ms = append(*ms, m) },
		Logf:   func(string, ...any) {},
	}
}

func TestRunReports(t *testing.T) {
	spec := workloads.QuantizeModels
	sameHash := func(Case) uint32 { return 7 }
	for _, quick := range []bool{true, false} {
		var calls []Case
		var ms []suite.Measurement
		if err := run(testEnv(quick, &ms), spec, fakeChild(&calls, sameHash)); err != nil {
			t.Fatal(err)
		}
		byCase := map[string]suite.Measurement{}
		for _, m := range ms {
			byCase[m.Case] = m
		}
		models, sweeps := spec.Models, spec.SweepModels
		if quick {
			models, sweeps = models[:0:0], spec.QuickSweepModels
			for _, m := range spec.Models {
				if m.Name == "100M" {
					models = append(models, m)
				}
			}
		}
		for _, m := range models {
			for _, f := range spec.Formats {
				for _, mode := range []string{"batch", "streaming"} {
					if _, ok := byCase[m.Name+"/"+f+"/"+mode]; !ok {
						t.Errorf("quick %v: no row %s/%s/%s", quick, m.Name, f, mode)
					}
				}
				s := byCase[m.Name+"/"+f+"/streaming"]
				ratio, ok := s.Metric("streaming_over_batch")
				if !ok || ratio.Value <= 0 || ratio.Value >= 100 {
					t.Errorf("%s %s: streaming_over_batch %v", m.Name, f, ratio)
				}
				met, ok := s.Metric("target_met")
				if isTarget := m.Name == "600M" || m.Name == "7B"; ok != isTarget || ok && met.Value != 1 {
					t.Errorf("%s %s: target_met %v (%v)", m.Name, f, met, ok)
				}
			}
		}
		for _, name := range sweeps {
			sum, ok := byCase["sweep_"+name+"/"+spec.SweepFormat]
			if !ok {
				t.Fatalf("quick %v: no sweep summary for %s", quick, name)
			}
			spread, _ := sum.Metric("streaming_spread")
			growth, _ := sum.Metric("batch_growth")
			met, _ := sum.Metric("target_met")
			if spread.Value != 0 || growth.Value < 4 || met.Value != 1 {
				t.Errorf("sweep %s: spread %v, growth %v, met %v", name, spread, growth, met)
			}
		}
		if _, ok := byCase["idle"]; !ok {
			t.Error("no idle row")
		}
		// The 7B model's own run is the sweep's 32-layer point: not run twice.
		n := 0
		for _, c := range calls {
			if c.Model.Layers == 32 && c.Model.Rows == 4096 {
				n++
			}
		}
		if want := map[bool]int{true: 0, false: 2 * len(spec.Formats)}[quick]; n != want {
			t.Errorf("quick %v: %d cases at 32×4096×11008, want %d", quick, n, want)
		}
	}

	// Modes that sink different bytes fail the run.
	var calls []Case
	var ms []suite.Measurement
	byMode := func(c Case) uint32 { return map[Mode]uint32{Batch: 1, Streaming: 2}[c.Mode] }
	if err := run(testEnv(true, &ms), spec, fakeChild(&calls, byMode)); err == nil || !strings.Contains(err.Error(), "same bytes") {
		t.Errorf("different bytes: %v", err)
	}

	// A stopped run is not a failure.
	env := testEnv(true, &ms)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env.Ctx = ctx
	if err := run(env, spec, fakeChild(&calls, sameHash)); err != nil {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestPlan(t *testing.T) {
	for _, quick := range []bool{true, false} {
		p, err := makePlan(workloads.QuantizeModels, quick, false)
		if err != nil {
			t.Fatal(err)
		}
		if quick && (len(p.models) != 1 || p.models[0].Name != "100M" || len(p.sweeps) != 1) {
			t.Errorf("quick plan: %s", p)
		}
		if !quick && (len(p.models) != 3 || len(p.sweeps) != 2) {
			t.Errorf("full plan: %s", p)
		}
	}
	// A smoke run (the race detector's) has one small model, swept too,
	// under a name that no real model has.
	p, err := makePlan(workloads.QuantizeModels, true, true)
	if err != nil || len(p.models) != 1 || p.models[0] != smokeModel || len(p.sweeps) != 1 || p.sweeps[0] != smokeModel {
		t.Errorf("smoke plan: %v, %v", p, err)
	}
	var calls []Case
	var ms []suite.Measurement
	env := testEnv(true, &ms)
	env.Smoke = true
	if err := run(env, workloads.QuantizeModels, fakeChild(&calls, func(Case) uint32 { return 7 })); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c.Mode != Idle && c.Model.Rows != smokeModel.Rows {
			t.Errorf("a smoke run ran %s", c)
		}
	}
	for _, m := range ms {
		if m.Case != "idle" && !strings.HasPrefix(m.Case, "smoke/") && !strings.HasPrefix(m.Case, "sweep_smoke/") {
			t.Errorf("a smoke run reported %s", m.Case)
		}
	}
	if n := len(ms); n != 1+2*len(workloads.QuantizeModels.Formats)+2*len(workloads.QuantizeModels.SweepLayers)+1 {
		t.Errorf("a smoke run reported %d rows", n)
	}
	for what, edit := range map[string]func(*workloads.Quantize){
		"unknown format": func(s *workloads.Quantize) { s.Formats = []string{"Q9_9"} },
		"not whole blocks": func(s *workloads.Quantize) {
			s.Models = []workloads.Model{{Name: "100M", Layers: 1, Rows: 2, Cols: 100}}
		},
		"unknown target":   func(s *workloads.Quantize) { s.TargetModels = []string{"70B"} },
		"unknown sweep":    func(s *workloads.Quantize) { s.SweepModels = []string{"70B"} },
		"zero ratio":       func(s *workloads.Quantize) { s.TargetStreamingRatio = 0 },
		"bad sweep format": func(s *workloads.Quantize) { s.SweepFormat = "Q9_9" },
	} {
		spec := workloads.QuantizeModels
		spec.Models = append([]workloads.Model(nil), spec.Models...)
		edit(&spec)
		if _, err := makePlan(spec, false, false); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
}
