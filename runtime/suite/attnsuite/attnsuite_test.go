package attnsuite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/workloads"
)

func TestCases(t *testing.T) {
	full := Cases(workloads.AttentionFlash, false)
	// 6 sequence lengths + 4 head counts + 3 batches, b1_h32_s2048 in all
	// three: 11 sizes, each full and causal; and 2 × 3 decode cases; for
	// each dtype × head dimension.
	if want := (11*2 + 2*3) * 2 * 2; len(full) != want {
		t.Errorf("%d cases, want %d", len(full), want)
	}
	seen := map[string]bool{}
	for _, c := range full {
		if seen[c.Name] {
			t.Errorf("%s twice", c.Name)
		}
		seen[c.Name] = true
	}
	for _, name := range []string{"f16/d128/causal/b1_h32_s2048", "f32/d64/full/b4_h32_s2048", "f16/d64/full/b1_h4_s2048", "f32/d128/causal/b1_h32_s4096",
		"f16/d128/decode/b1_h32_kv8_q1_k32768", "f32/d64/decode/b1_h32_kv8_q4_k512"} {
		if !seen[name] {
			t.Errorf("no case %s", name)
		}
	}
	for _, c := range full {
		if c.Decode != strings.Contains(c.Name, "/decode/") || !strings.HasPrefix(c.Name, c.Variant) ||
			(c.Decode && (c.Shape.SeqQ > 8 || c.Shape.HeadsKV != 8 || !c.Causal)) {
			t.Errorf("case %+v", c)
		}
	}
	quick := Cases(workloads.AttentionFlash, true)
	// One size, full and causal, and 2 decode cases (seq_kv 512), per dtype × head dimension.
	if len(quick) != 16 || quick[0].Name != "f16/d64/full/b1_h4_s128" || quick[2].Name != "f16/d64/decode/b1_h32_kv8_q1_k512" {
		t.Errorf("quick cases: %d, first %+v", len(quick), quick[0])
	}
}

// fakeDevice is a device backend whose "kernels" are the cpu reference,
// perturbed when broken.
type fakeDevice struct {
	*cpu.Backend
	broken   bool
	prepared int
	calls    int
}

func (*fakeDevice) Name() string                                { return "fake" }
func (*fakeDevice) Describe() string                            { return "fake device" }
func (*fakeDevice) L2Bytes() int64                              { return 1 << 20 }
func (*fakeDevice) PrepareCopy(int64) (backend.Resident, error) { return nil, errors.New("no copy") }

func (f *fakeDevice) Attention(dtype string, s cpu.AttentionShape, q, k, v, o []float32) error {
	if err := f.Backend.Attention(dtype, s, q, k, v, o); err != nil {
		return err
	}
	if f.broken && len(o) > 5 {
		o[5] += 0.5
	}
	return nil
}

// fakeResident takes 1 ms per call, plus a 3 ms gap per Run (a launch gap
// that back-to-back calls hide), and counts its calls.
type fakeResident struct{ calls *int }

func (r fakeResident) Run(n int) (time.Duration, error) {
	*r.calls += n
	return 3*time.Millisecond + time.Duration(n)*time.Millisecond, nil
}
func (fakeResident) Close() error { return nil }

func (f *fakeDevice) PrepareAttention(dtype string, s cpu.AttentionShape, q, k, v []float32) (backend.Resident, error) {
	f.prepared++
	if len(q) != s.QElems() || len(k) != s.KVElems() || len(v) != s.KVElems() {
		return nil, errors.New("bad sizes")
	}
	return fakeResident{&f.calls}, nil
}

func runEnv(t *testing.T, b backend.Backend, spec workloads.Attention) ([]suite.Measurement, error) {
	return runEnvN(t, b, spec, 0)
}

func runEnvN(t *testing.T, b backend.Backend, spec workloads.Attention, launches int) ([]suite.Measurement, error) {
	var ms []suite.Measurement
	env := &suite.Env{
		Ctx: context.Background(), Backend: b, Quick: true, LaunchesPerSample: launches,
		Sample: func(once func() (time.Duration, error)) ([]time.Duration, error) {
			var out []time.Duration
			for range 3 {
				d, err := once()
				if err != nil {
					return nil, err
				}
				out = append(out, d)
			}
			return out, nil
		},
		Report: func(m suite.Measurement) { ms = append(ms, m) },
		Logf:   t.Logf,
	}
	err := Attention(spec).Run(env)
	return ms, err
}

func TestScenarioCPU(t *testing.T) {
	ms, err := runEnv(t, cpu.New(0), workloads.AttentionFlash)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 16 {
		t.Fatalf("%d measurements, want 16", len(ms))
	}
	m := ms[0]
	if m.Case != "f16/d64/full/b1_h4_s128" || len(m.Samples) != 3 || m.FLOPs != 4*4*128*128*64 ||
		m.BytesRead != 2*3*4*128*64 || m.BytesWritten != 2*4*128*64 {
		t.Errorf("first measurement %+v", m)
	}
	if _, ok := m.Metric("tflops"); !ok {
		t.Error("no tflops")
	}
	if _, ok := m.Metric("gpu_cpu_speedup"); ok {
		t.Error("a speedup on the cpu backend")
	}
	if ms[1].FLOPs != 4*4*64*(128*129/2) {
		t.Errorf("causal FLOPs %d", ms[1].FLOPs)
	}
	// A decode step: 32 heads, one row each, over 512 keys of 8 kv heads.
	d := ms[2]
	if d.Case != "f16/d64/decode/b1_h32_kv8_q1_k512" || d.FLOPs != 4*32*512*64 || d.BytesRead != 2*(32*64+2*8*512*64) {
		t.Errorf("decode measurement %+v", d)
	}
	if x, ok := d.Metric("kv_gb_per_s"); !ok || x.Value != 2*2*8*512*64/median(d.Samples).Seconds()/1e9 {
		t.Errorf("kv_gb_per_s %+v %v", x, ok)
	}
	if _, ok := ms[0].Metric("kv_gb_per_s"); ok {
		t.Error("kv_gb_per_s on a prefill case")
	}
}

func TestScenarioDevice(t *testing.T) {
	spec := workloads.AttentionFlash
	spec.DTypes, spec.HeadDims = []string{"f16"}, []int{64}
	dev := &fakeDevice{Backend: cpu.New(0)}
	ms, err := runEnv(t, dev, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 4 || dev.prepared != 4 {
		t.Fatalf("%d measurements, %d prepared", len(ms), dev.prepared)
	}
	if x, ok := ms[0].Metric("gpu_cpu_speedup"); !ok || !(x.Value > 0) {
		t.Errorf("speedup %+v %v", x, ok)
	}
	// One call per sample: 1 ms of kernel and the 3 ms gap.
	if x, _ := ms[0].Metric("tflops"); x.Value != float64(ms[0].FLOPs)/4e-3/1e12 || ms[0].LaunchesPerSample != 0 {
		t.Errorf("tflops %v for %d FLOPs in 4 ms (launches per sample %d)", x.Value, ms[0].FLOPs, ms[0].LaunchesPerSample)
	}
	// 8 calls per sample: 11 ms / 8 each, 3 samples of each of 4 cases.
	dev.calls = 0
	ms, err = runEnvN(t, dev, spec, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := 11 * time.Millisecond / 8
	if len(ms) != 4 || ms[0].Samples[0] != want || ms[0].LaunchesPerSample != 8 || dev.calls != 4*3*8 {
		t.Errorf("launches per sample 8: %d measurements, sample %v (want %v), launches per sample %d, %d calls",
			len(ms), ms[0].Samples, want, ms[0].LaunchesPerSample, dev.calls)
	}
	dev.broken = true
	if _, err := runEnv(t, dev, spec); err == nil || !strings.Contains(err.Error(), "differs from the cpu reference") {
		t.Errorf("a wrong device result: %v", err)
	}
}

func TestScenarioNoAttention(t *testing.T) {
	type plain struct{ backend.Backend }
	if _, err := runEnv(t, plain{cpu.New(0)}, workloads.AttentionFlash); err == nil {
		t.Error("a backend without attention ran")
	}
}
