package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// ClockStats are a GPU's clocks while one benchmark ran (Result.Clocks):
// the vendor tool asked every few hundred milliseconds in the background
// (ClockWatch.Sample), the readings between the benchmark's start and its
// result summarised. A reading taken while the GPU idled (NVML's gpu_idle)
// is counted but left out of the SM clock's figures: an idle GPU lowers
// its clocks by design.
type ClockStats struct {
	Readings int `json:"readings"`       // readings in the benchmark's window
	Idle     int `json:"idle,omitempty"` // of them, taken while the GPU idled
	// The SM (sclk) clock over the busy readings; 0 where there were none.
	MinSMMHz    int `json:"min_sm_mhz,omitempty"`
	MedianSMMHz int `json:"median_sm_mhz,omitempty"`
	MaxSMMHz    int `json:"max_sm_mhz,omitempty"`
	// Reasons counts the busy readings in which each clock event reason
	// other than gpu_idle was active (sw_power_cap, hw_slowdown, ...).
	Reasons map[string]int `json:"reasons,omitempty"`
}

// DefaultClockInterval is how often forgebench run asks the vendor tool
// for the clocks while it measures (--clock-interval).
const DefaultClockInterval = 250 * time.Millisecond

type clockReading struct {
	at time.Time
	s  ClockSample
}

// clockSampler is a ClockWatch's background reader.
type clockSampler struct {
	mu       sync.Mutex
	readings []clockReading
	stop     context.CancelFunc
	done     chan struct{}
}

// clockNow is the sampler's clock; tests replace it.
var clockNow = time.Now

// Sample asks the vendor tool for the clocks every interval until Finish
// (or Stop), in the background, so that each benchmark's result can say
// what the clocks were while it ran (Window). A reading the tool fails to
// give is skipped. No-op on a nil ClockWatch or a non-positive interval.
func (w *ClockWatch) Sample(interval time.Duration) {
	if w == nil || interval <= 0 || w.sampler != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &clockSampler{stop: cancel, done: make(chan struct{})}
	w.sampler = s
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if _, r := readClocks(ctx, w.backend, w.gpu); r != nil {
				at := clockNow()
				s.mu.Lock()
				s.readings = append(s.readings, clockReading{at, *r})
				s.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Stop ends the background readings (Finish calls it) and waits for the
// reader to return.
func (w *ClockWatch) Stop() {
	if w == nil || w.sampler == nil {
		return
	}
	w.sampler.stop()
	<-w.sampler.done
}

// Window summarises the readings taken from from to to; nil when none
// was (no sampling, or a benchmark shorter than the interval).
func (w *ClockWatch) Window(from, to time.Time) *ClockStats {
	if w == nil || w.sampler == nil {
		return nil
	}
	w.sampler.mu.Lock()
	var in []ClockSample
	for _, r := range w.sampler.readings {
		if !r.at.Before(from) && !r.at.After(to) {
			in = append(in, r.s)
		}
	}
	w.sampler.mu.Unlock()
	return clockStats(in)
}

// clockStats summarises readings; nil when there are none.
func clockStats(readings []ClockSample) *ClockStats {
	if len(readings) == 0 {
		return nil
	}
	st := &ClockStats{Readings: len(readings)}
	var sm []int
	for _, r := range readings {
		if r.idle() {
			st.Idle++
			continue
		}
		if r.SMMHz > 0 {
			sm = append(sm, r.SMMHz)
		}
		for _, why := range r.Reasons {
			if st.Reasons == nil {
				st.Reasons = map[string]int{}
			}
			st.Reasons[why]++
		}
	}
	if len(sm) > 0 {
		slices.Sort(sm)
		st.MinSMMHz, st.MaxSMMHz = sm[0], sm[len(sm)-1]
		st.MedianSMMHz = sm[len(sm)/2]
		if len(sm)%2 == 0 {
			st.MedianSMMHz = (sm[len(sm)/2-1] + sm[len(sm)/2]) / 2
		}
	}
	return st
}

// Warning says what the clocks while a benchmark ran mean for its timing:
// a clock event reason active in any busy reading, or a median SM clock
// below ClockWarnFraction of maxMHz (the run's maximum; 0: unknown, no
// such check). Empty when there is nothing to say.
func (st *ClockStats) Warning(maxMHz int) string {
	if st == nil {
		return ""
	}
	busy := st.Readings - st.Idle
	var parts []string
	if maxMHz > 0 && st.MedianSMMHz > 0 && float64(st.MedianSMMHz) < ClockWarnFraction*float64(maxMHz) {
		parts = append(parts, fmt.Sprintf("SM clock %d MHz (median of %d readings, %d–%d), %.0f%% of its %d MHz maximum",
			st.MedianSMMHz, busy, st.MinSMMHz, st.MaxSMMHz, 100*float64(st.MedianSMMHz)/float64(maxMHz), maxMHz))
	}
	if len(st.Reasons) > 0 {
		names := make([]string, 0, len(st.Reasons))
		for why := range st.Reasons {
			names = append(names, why)
		}
		slices.Sort(names)
		for i, why := range names {
			names[i] = fmt.Sprintf("%s in %d of %d readings", why, st.Reasons[why], busy)
		}
		parts = append(parts, "clocks held down: "+strings.Join(names, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ": its timing may be slow"
}
