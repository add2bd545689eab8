package bench

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// fakeTool answers the vendor tools' calls in turn with outs (and errs),
// recording the calls.
type fakeTool struct {
	outs  []string
	errs  []error
	calls [][]string
}

func (f *fakeTool) install(t *testing.T) {
	old := runTool
	t.Cleanup(func() { runTool = old })
	runTool = func(_ context.Context, name string, args ...string) ([]byte, error) {
		i := len(f.calls)
		f.calls = append(f.calls, append([]string{name}, args...))
		if i < len(f.errs) && f.errs[i] != nil {
			return nil, f.errs[i]
		}
		if i >= len(f.outs) {
			return nil, errors.New("no more answers")
		}
		return []byte(f.outs[i]), nil
	}
}

func TestParseNvidiaSMI(t *testing.T) {
	// An H100's answer, idle (nvidia-smi 580.159.04).
	c, s, err := ParseNvidiaSMI([]byte("345, 2619, 1980, 2619, 580.159.04, 0x0000000000000001\n"))
	if err != nil || c.Tool != "nvidia-smi" || c.MaxSMMHz != 1980 || c.MaxMemMHz != 2619 || c.Driver != "580.159.04" ||
		s.SMMHz != 345 || s.MemMHz != 2619 || !slices.Equal(s.Reasons, []string{"gpu_idle"}) {
		t.Errorf("%+v %+v %v", c, s, err)
	}
	// Power and thermal capping, and a bit NVML has no name for yet.
	_, s, err = ParseNvidiaSMI([]byte("1500, 2619, 1980, 2619, 580.159.04, 0x0000000000001044"))
	if err != nil || !slices.Equal(s.Reasons, []string{"sw_power_cap", "hw_thermal_slowdown", "0x1000"}) {
		t.Errorf("%+v %v", s, err)
	}
	// Fields a GPU does not report.
	c, s, err = ParseNvidiaSMI([]byte("1410, 1215, [N/A], [N/A], [N/A], [Not Supported]"))
	if err != nil || c.MaxSMMHz != 0 || c.Driver != "" || s.SMMHz != 1410 || s.Reasons != nil {
		t.Errorf("%+v %+v %v", c, s, err)
	}
	for _, bad := range []string{"", "No devices were found", "1, 2, 3", "[N/A], [N/A], 1980, 2619, 580, 0x0"} {
		if c, _, err := ParseNvidiaSMI([]byte(bad)); err == nil {
			t.Errorf("%q: %+v", bad, c)
		}
	}
}

func TestParseROCmSMI(t *testing.T) {
	out := `{"card0": {"dcefclk clock speed:": "(357Mhz)", "dcefclk clock level:": "0", "fclk clock speed:": "(1200Mhz)",
		"mclk clock speed:": "(1200Mhz)", "mclk clock level:": "3", "sclk clock speed:": "(2100Mhz)", "sclk clock level:": "1"},
		"system": {"Driver version": "6.8.5"}}`
	c, s, err := ParseROCmSMI([]byte(out))
	if err != nil || c.Tool != "rocm-smi" || c.Driver != "6.8.5" || s.SMMHz != 2100 || s.MemMHz != 1200 || c.MaxSMMHz != 0 {
		t.Errorf("%+v %+v %v", c, s, err)
	}
	for _, bad := range []string{"", "not json", `{"card0": {"temperature": "40"}}`} {
		if c, _, err := ParseROCmSMI([]byte(bad)); err == nil {
			t.Errorf("%q: %+v", bad, c)
		}
	}
}

// TestClocksRecorded: on cuda, nvidia-smi is asked about the run's GPU at
// its start and end and both readings are recorded, with the maxima and
// the driver; the table prints them, and warns of a throttled end.
func TestClocksRecorded(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "GPU-1111,GPU-2222")
	fake := &fakeTool{outs: []string{
		"345, 2619, 1980, 2619, 580.159.04, 0x0000000000000001",
		"1500, 2619, 1980, 2619, 580.159.04, 0x0000000000000004",
	}}
	fake.install(t)
	w := StartClocks("cuda", 1)
	run := &Run{Meta: Meta{Backend: "cuda", Device: "NVIDIA H100"}}
	w.Finish(run)
	c := run.Meta.Clocks
	if c == nil || c.GPU != "GPU-2222" || c.Driver != "580.159.04" || c.MaxSMMHz != 1980 || c.Start.SMMHz != 345 || c.End.SMMHz != 1500 ||
		!slices.Equal(c.End.Reasons, []string{"sw_power_cap"}) {
		t.Fatalf("clocks %+v", c)
	}
	want := []string{"nvidia-smi", "--query-gpu=" + nvidiaQuery, "--format=csv,noheader,nounits", "-i", "GPU-2222"}
	if len(fake.calls) != 2 || !slices.Equal(fake.calls[0], want) || !slices.Equal(fake.calls[1], want) {
		t.Errorf("calls %q", fake.calls)
	}
	ws := c.Warnings()
	if len(ws) != 2 || !strings.Contains(ws[0], "at the run's end the GPU's clocks were held down (sw_power_cap)") ||
		!strings.Contains(ws[1], "SM clock was 1500 MHz, 76% of its 1980 MHz maximum") {
		t.Errorf("warnings %q", ws)
	}
	var b strings.Builder
	if err := WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"gpu clocks: nvidia-smi, GPU GPU-2222, driver 580.159.04: SM 345 -> 1500 MHz (max 1980), memory 2619 -> 2619 MHz (max 2619) (start -> end)",
		"warning: at the run's end the SM clock was 1500 MHz"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, b.String())
		}
	}
}

func TestClockWarnings(t *testing.T) {
	for _, c := range []struct {
		name string
		c    *Clocks
		want int
	}{
		{"boosting", &Clocks{MaxSMMHz: 1980, Start: &ClockSample{SMMHz: 345, Reasons: []string{"gpu_idle"}}, End: &ClockSample{SMMHz: 1980}}, 0},
		{"at 90%", &Clocks{MaxSMMHz: 2000, End: &ClockSample{SMMHz: 1800}}, 0},
		{"below 90%", &Clocks{MaxSMMHz: 2000, End: &ClockSample{SMMHz: 1799}}, 1},
		// An idle GPU lowers its clocks: that says nothing of the run.
		{"idle at the end", &Clocks{MaxSMMHz: 1980, End: &ClockSample{SMMHz: 345, Reasons: []string{"gpu_idle"}}}, 0},
		{"capped at the start", &Clocks{Start: &ClockSample{SMMHz: 1980, Reasons: []string{"gpu_idle", "hw_slowdown"}}}, 1},
		{"no maximum (rocm-smi)", &Clocks{End: &ClockSample{SMMHz: 100}}, 0},
		{"none", nil, 0},
	} {
		if got := c.c.Warnings(); len(got) != c.want {
			t.Errorf("%s: %q", c.name, got)
		}
	}
}

// TestClocksAbsent: no tool, a failing one, an answer it cannot read, or
// the cpu backend: no clocks, no error, and Finish on nothing is fine.
func TestClocksAbsent(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // the real runner, and no nvidia-smi or rocm-smi to find
	for _, b := range []string{"cuda", "hip"} {
		if w := StartClocks(b, 0); w != nil {
			t.Errorf("%s without its tool: %+v", b, w)
		}
	}
	run := &Run{}
	(*ClockWatch)(nil).Finish(run)
	if run.Meta.Clocks != nil {
		t.Error("clocks from nothing")
	}

	fake := &fakeTool{errs: []error{exec.ErrNotFound, errors.New("exit status 6")}, outs: []string{"", "", "garbage"}}
	fake.install(t)
	for range 3 {
		if w := StartClocks("cuda", 0); w != nil {
			t.Errorf("%+v", w)
		}
	}
	if w := StartClocks("cpu", 0); w != nil || len(fake.calls) != 3 {
		t.Errorf("cpu: %+v after %d calls", w, len(fake.calls))
	}
	// A tool that answers at the start and not at the end: the start is kept.
	fake = &fakeTool{outs: []string{"1980, 2619, 1980, 2619, 580.159.04, 0x0"}}
	fake.install(t)
	w := StartClocks("cuda", 0)
	w.Finish(run)
	if c := run.Meta.Clocks; c == nil || c.Start == nil || c.End != nil || c.GPU != "0" {
		t.Errorf("clocks %+v", c)
	}
}
