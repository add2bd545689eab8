package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClockStats(t *testing.T) {
	if clockStats(nil) != nil {
		t.Error("no readings: want nil")
	}
	st := clockStats([]ClockSample{
		{SMMHz: 1980, MemMHz: 3201},
		{SMMHz: 345, MemMHz: 3201, Reasons: []string{"gpu_idle"}}, // idle: counted, not in the SM figures
		{SMMHz: 1605, MemMHz: 3201, Reasons: []string{"sw_power_cap"}},
		{SMMHz: 1650, MemMHz: 3201, Reasons: []string{"sw_power_cap", "hw_slowdown"}},
		{SMMHz: 1700, MemMHz: 3201},
	})
	if st.Readings != 5 || st.Idle != 1 || st.MinSMMHz != 1605 || st.MaxSMMHz != 1980 || st.MedianSMMHz != 1675 ||
		st.Reasons["sw_power_cap"] != 2 || st.Reasons["hw_slowdown"] != 1 || len(st.Reasons) != 2 {
		t.Errorf("%+v", st)
	}
	w := st.Warning(1980)
	for _, want := range []string{"SM clock 1675 MHz (median of 4 readings, 1605–1980), 85% of its 1980 MHz maximum",
		"clocks held down: hw_slowdown in 1 of 4 readings, sw_power_cap in 2 of 4 readings", "its timing may be slow"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	// At full clock with no reason, or every reading idle: nothing to say;
	// no maximum known: only the reasons.
	if w := clockStats([]ClockSample{{SMMHz: 1980}, {SMMHz: 1800}}).Warning(1980); w != "" {
		t.Errorf("full clock: %q", w)
	}
	if w := clockStats([]ClockSample{{SMMHz: 300, Reasons: []string{"gpu_idle"}}}).Warning(1980); w != "" {
		t.Errorf("idle: %q", w)
	}
	if w := clockStats([]ClockSample{{SMMHz: 900}}).Warning(0); w != "" {
		t.Errorf("no maximum: %q", w)
	}
	if w := (*ClockStats)(nil).Warning(1980); w != "" {
		t.Errorf("nil: %q", w)
	}
}

// syncTool answers nvidia-smi's calls with SM clocks from sm in turn (the
// last one for ever), safely from the sampler's goroutine.
type syncTool struct {
	mu    sync.Mutex
	sm    []int
	calls int
}

func (f *syncTool) install(t *testing.T) {
	old := runTool
	t.Cleanup(func() { runTool = old })
	runTool = func(_ context.Context, name string, _ ...string) ([]byte, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		i := min(f.calls, len(f.sm)-1)
		f.calls++
		reason := "0x0000000000000000"
		if f.sm[i] < 1980 {
			reason = "0x0000000000000004" // sw_power_cap
		}
		return []byte(fmt.Sprintf("%d, 3201, 1980, 3201, 580.159.04, %s\n", f.sm[i], reason)), nil
	}
}

func (f *syncTool) n() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// TestClockSampling: the clocks are read in the background while a run
// measures, a window of them summarised, the readings stop at Finish, and
// the table warns of the benchmark that ran throttled.
func TestClockSampling(t *testing.T) {
	fake := &syncTool{sm: []int{1980, 1980, 1500}}
	fake.install(t)
	w := StartClocks("cuda", 0)
	if w == nil {
		t.Fatal("no clock watch")
	}
	from := time.Now()
	w.Sample(time.Millisecond)
	w.Sample(time.Millisecond) // a second call starts no second reader
	deadline := time.Now().Add(10 * time.Second)
	for fake.n() < 8 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	to := time.Now()
	st := w.Window(from, to)
	if st == nil || st.Readings < 6 || st.MinSMMHz != 1500 || st.MaxSMMHz != 1980 || st.MedianSMMHz != 1500 || st.Reasons["sw_power_cap"] < 5 {
		t.Fatalf("window: %+v", st)
	}
	if w.Window(to.Add(time.Hour), to.Add(2*time.Hour)) != nil {
		t.Error("a window without readings: want nil")
	}
	run := &Run{Results: []Result{{Name: "matmul_f32/F16/4096x14336x512", Clocks: st}, {Name: "copy"}}}
	w.Finish(run)
	calls := fake.n()
	time.Sleep(20 * time.Millisecond)
	if fake.n() != calls {
		t.Errorf("the readings went on after Finish: %d calls, then %d", calls, fake.n())
	}
	if run.Meta.Clocks == nil || run.Meta.Clocks.End == nil || run.Meta.Clocks.End.SMMHz != 1500 {
		t.Fatalf("end reading: %+v", run.Meta.Clocks)
	}
	var b strings.Builder
	writeRunNotes(&b, run)
	if want := "warning: matmul_f32/F16/4096x14336x512: SM clock 1500 MHz (median of"; !strings.Contains(b.String(), want) {
		t.Errorf("notes:\n%s\nwant %q", b.String(), want)
	}
	if strings.Contains(b.String(), "warning: copy") {
		t.Errorf("a benchmark without clocks warned:\n%s", b.String())
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, run); err != nil || !strings.Contains(md.String(), "- **warning**: matmul_f32/F16/4096x14336x512: SM clock 1500 MHz") {
		t.Errorf("markdown (%v):\n%s", err, md.String())
	}
	// A nil watch, and no sampling: nothing read, no window.
	var nw *ClockWatch
	nw.Sample(time.Millisecond)
	nw.Stop()
	if nw.Window(from, to) != nil {
		t.Error("nil watch: a window")
	}
	w2 := StartClocks("cuda", 0)
	w2.Sample(0)
	if w2.Window(from, time.Now()) != nil {
		t.Error("no sampling: a window")
	}
	w2.Stop()
}
