package report

import (
	"math"
	"slices"
	"strings"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/profile"
)

// fig is what the report shows of one result: its statistics, recomputed
// from its samples where it has any (bench.Summarize, so that a run written
// by an older forgebench, which took throughputs from the mean, reads the
// same as a new one), and every throughput from one time per iteration, the
// median: the time the table headlines and the comparison tests.
type fig struct {
	x  bench.Result
	st bench.Stats
	// sec is the time per iteration the throughputs use, in seconds: the
	// median of forge's samples, or in a profiled run the profiler's own
	// median kernel duration (0 when it has none: forge's times under a
	// profiler are not performance).
	sec   float64
	tool  string  // the profiler whose duration sec is, in a profiled run
	bytes float64 // read + written per iteration
	gbps  float64 // bytes / sec / 1e9
	pct   float64 // % of the copy roofline (0: no roofline)
	// gflops is FLOPs / sec / 1e9 for a result that counts FLOPs.
	gflops  float64
	elemsPS float64
	// ops is what the roofline counts per iteration: the FLOPs where the
	// family counts them (flop), else one operation per element produced
	// (dequant: the scale applied to each element; see roofOps). 0: the
	// result is not placed on the roofline (copy, no elements).
	ops  float64
	flop bool
}

// intensity is the arithmetic intensity, operations per byte moved.
func (f *fig) intensity() float64 {
	if f.ops <= 0 || f.bytes <= 0 {
		return 0
	}
	return f.ops / f.bytes
}

// opsPS is the attained operations per second (FLOP/s for a result with
// FLOPs).
func (f *fig) opsPS() float64 {
	if f.ops <= 0 || f.sec <= 0 {
		return 0
	}
	return f.ops / f.sec
}

// onRoofline reports whether the result has a point on the roofline chart.
func (f *fig) onRoofline() bool {
	v, i := f.opsPS(), f.intensity()
	return finite(v) && v > 0 && finite(i) && i > 0
}

// roofOps is what a result counts on the roofline per iteration: its
// FLOPs when the family counts them (matvec, matmul, attention, the model
// scenarios), else, for a kernel that produces elements from bytes
// (dequant: each element a code times a scale), one operation per
// element, and nothing for copy, which is the memory ceiling itself.
func roofOps(x bench.Result) (ops float64, flop bool) {
	switch {
	case x.FLOPs > 0:
		return float64(x.FLOPs), true
	case x.Family == "copy" || x.Elements <= 0:
		return 0, false
	}
	return float64(x.Elements), false
}

// buildFigs computes the figures of the results that have times (a
// scenario's case of figures alone has none). roof is the run's copy
// bandwidth (GB/s, 0: none) over buffers of roofBytes; tool is the
// profiler of a profiled run ("" otherwise).
func buildFigs(results []bench.Result, roof float64, roofBytes int64, tool string) []fig {
	var out []fig
	for _, x := range results {
		if x.Stats.N == 0 && len(x.Samples) == 0 && len(x.Metrics) > 0 {
			continue
		}
		f := fig{x: x, st: x.Stats}
		bytes := x.BytesRead + x.BytesWritten
		// A benchmark too small to be judged against the copy roofline
		// gets no % of copy, as in the terminal table.
		pctRoof := 0.0
		if roof > 0 {
			pctRoof = bench.RooflineFor(&bench.Roofline{GBps: roof, Bytes: roofBytes}, bytes)
		}
		if len(x.Samples) > 0 {
			f.st = bench.Summarize(x.Samples, bytes, x.Elements, x.FLOPs, pctRoof)
		}
		f.bytes = float64(bytes)
		switch {
		case tool != "":
			if v, ok := metric(x, tool+"_p50"); ok && finite(v) && v > 0 {
				f.sec, f.tool = v, tool
			}
		case f.st.P50 > 0:
			f.sec = f.st.P50.Seconds()
		case f.st.Mean > 0: // a summary without a median
			f.sec = f.st.Mean.Seconds()
		}
		if f.sec > 0 {
			f.gbps = f.bytes / f.sec / 1e9
			f.elemsPS = float64(x.Elements) / f.sec
			if x.FLOPs > 0 {
				f.gflops = float64(x.FLOPs) / f.sec / 1e9
			}
			if pctRoof > 0 && f.gbps > 0 {
				f.pct = 100 * f.gbps / pctRoof
			}
		}
		f.ops, f.flop = roofOps(x)
		out = append(out, f)
	}
	return out
}

// metric is the value of a result's metric of that name.
func metric(x bench.Result, name string) (float64, bool) {
	for _, m := range x.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// profiledBy is the profiler a run was measured under (forgebench profile
// folds "<tool>_launches" into each benchmark it profiled), and how many
// of its results carry the profiler's figures; "" for a plain run.
func profiledBy(run *bench.Run) (tool string, n int) {
	count := map[string]int{}
	for _, x := range run.Results {
		for _, m := range x.Metrics {
			t, ok := strings.CutSuffix(m.Name, "_launches")
			if ok && slices.Contains(profile.Tools, profile.Tool(t)) {
				count[t]++
				break
			}
		}
	}
	for _, t := range profile.Tools { // the first tool, in a fixed order
		if c := count[string(t)]; c > 0 {
			return string(t), c
		}
	}
	return "", 0
}

// cvPct is the coefficient of variation in percent, NaN without one.
func cvPct(st bench.Stats) float64 {
	if st.N < 2 || st.Mean <= 0 {
		return math.NaN()
	}
	return 100 * st.CV()
}
