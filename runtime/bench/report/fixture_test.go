package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/suite"
)

// Fixtures beyond benchtest's dequant run: the matrix families (FLOPs
// counted), a noisy benchmark and a profiled run.

// matrixBench is a matvec or matmul benchmark of the fixture: W rows ×
// cols in the format (blockElems elements in blockBytes), batch columns
// (1: matvec), at a median time of us microseconds on the H100.
type matrixBench struct {
	kernel, format        string
	rows, cols, batch     int
	blockElems, blockByte int
	us                    float64
}

// matrixBenches are shaped after docs/PERFORMANCE.md's H100 figures.
var matrixBenches = []matrixBench{
	{"matvec_f32", "Q4_K", 4096, 4096, 1, 256, 144, 7.9},
	{"matvec_f32", "Q4_K", 4096, 14336, 1, 256, 144, 19.6},
	{"matvec_f32", "Q8_0", 4096, 14336, 1, 32, 34, 30.1},
	{"matvec_x8", "Q4_K", 4096, 14336, 1, 256, 144, 17.2},
	{"matmul_f32", "Q4_K", 4096, 4096, 16, 256, 144, 344},
	{"matmul_f32", "Q4_K", 4096, 4096, 512, 256, 144, 459},
	{"matmul_f32", "Q4_K", 4096, 14336, 512, 256, 144, 1582},
	{"matmul_f32", "Q8_0", 4096, 14336, 512, 32, 34, 1271},
}

// sampled draws n samples around a median of center with a relative
// spread of sd (normal), deterministically from seed.
func sampled(center time.Duration, sd float64, n int, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 0xf17))
	s := make([]time.Duration, n)
	for i := range s {
		s[i] = time.Duration(math.Round(float64(center) * (1 + sd*rng.NormFloat64())))
	}
	return s
}

// matrixResult builds b's result with 40 samples.
func matrixResult(b matrixBench, seed uint64) bench.Result {
	family, _, _ := strings.Cut(b.kernel, "_")
	name := b.kernel + "/" + b.format + "/" + strconv.Itoa(b.rows) + "x" + strconv.Itoa(b.cols)
	shape := []int{b.rows, b.cols}
	if family == "matmul" {
		name += "x" + strconv.Itoa(b.batch)
		shape = append(shape, b.batch)
	}
	x := bench.Result{
		Name: name, Suite: b.kernel + "/" + b.format, Family: family, Kernel: b.kernel, Format: b.format, Output: "f32",
		Shape: shape, Elements: int64(b.rows) * int64(b.batch),
		BytesRead:    int64(b.rows)*int64(b.cols)/int64(b.blockElems)*int64(b.blockByte) + 4*int64(b.cols)*int64(b.batch),
		BytesWritten: 4 * int64(b.rows) * int64(b.batch),
		FLOPs:        2 * int64(b.rows) * int64(b.cols) * int64(b.batch),
		Compression:  4 * float64(b.blockElems) / float64(b.blockByte),
		Warmup:       5,
	}
	x.Samples = sampled(time.Duration(b.us*1000), 0.006, benchtest.Samples, seed)
	x.Stats = bench.Summarize(x.Samples, x.BytesRead+x.BytesWritten, x.Elements, x.FLOPs, benchtest.CopyGBps)
	return x
}

// matrixRun is benchtest.GPURun(seed) with matrixBenches added.
func matrixRun(seed uint64) *bench.Run {
	run := benchtest.GPURun(seed)
	for i, b := range matrixBenches {
		run.Results = append(run.Results, matrixResult(b, seed*100+uint64(i)))
	}
	return run
}

// noisy makes run's result i noisy: its samples scattered by about sd
// (relative) around the same median.
func noisy(run *bench.Run, i int, sd float64) {
	x := &run.Results[i]
	x.Samples = sampled(x.Stats.P50, sd, len(x.Samples), uint64(i)+77)
	x.Stats = bench.Summarize(x.Samples, x.BytesRead+x.BytesWritten, x.Elements, x.FLOPs, benchtest.CopyGBps)
}

// profiledRun is matrixRun as forgebench profile leaves it under ncu: the
// run without a copy roofline (--copy-bytes -1), every sample inflated
// 1000× by the profiler's replays, and ncu's figures folded into each
// benchmark's metrics (profile.Fold): its launches and its median kernel
// duration, the real one, except the last benchmark, which ncu did not
// split out.
func profiledRun(seed uint64) *bench.Run {
	run := matrixRun(seed)
	run.Roofline = nil
	for i := range run.Results {
		x := &run.Results[i]
		p50 := x.Stats.P50
		for k := range x.Samples {
			x.Samples[k] *= 1000
		}
		x.Stats = bench.Summarize(x.Samples, x.BytesRead+x.BytesWritten, x.Elements, x.FLOPs, 0)
		if i == len(run.Results)-1 {
			continue
		}
		x.Metrics = []suite.Metric{
			{Name: "ncu_launches", Value: 5},
			{Name: "ncu_p50", Value: p50.Seconds(), Unit: "s"},
			{Name: "dram_bytes_per_s", Value: float64(x.BytesRead+x.BytesWritten) / p50.Seconds(), Unit: "B/s"},
		}
	}
	return run
}

// trendRuns are four runs of one machine on successive days and commits,
// as forgebench run --history appends them: runs[k] is mk(k). The third
// lacks dequant_f32/Q4_0 (a gap), the fourth has dequant_f32/Q3_K 30%
// slower (a regression) and a benchmark no other run has; the history
// keeps only the fourth run's median of dequant_f16/Q4_0 (as past 256
// samples).
func trendRuns(mk func(seed uint64) *bench.Run) []*bench.Run {
	var runs []*bench.Run
	for k := range 4 {
		r := mk(uint64(k + 1))
		r.Started = time.Date(2026, 11, 18+k, 9, 0, 0, 0, time.UTC)
		r.Finished = r.Started.Add(time.Minute)
		r.Meta.ForgeCommit = strings.Repeat(string(rune('a'+k)), 40)
		r.Meta.Hostname = "gpu-node-" + strconv.Itoa(k%2)
		runs = append(runs, r)
	}
	runs[2].Results = slices.DeleteFunc(runs[2].Results, func(x bench.Result) bool { return x.Name == "dequant_f32/Q4_0" })
	benchtest.Scale(runs[3], "dequant_f32/Q3_K", 1.3)
	extra := runs[3].Results[0]
	extra.Name = "dequant_f32/only_last"
	runs[3].Results = append(runs[3].Results, extra)
	return runs
}

// trendOf is the trend of runs (with, optionally, other machines' runs
// before them), as bench.LoadTrend computes it from their history file.
func trendOf(t testing.TB, runs ...*bench.Run) *bench.Trend {
	t.Helper()
	h := &bench.History{Path: "bench.jsonl"}
	for i, r := range runs {
		e := bench.NewHistoryEntry(r, "run")
		if i == len(runs)-1 {
			for k := range e.Results {
				if e.Results[k].Name == "dequant_f16/Q4_0" {
					e.Results[k].Samples = nil
				}
			}
		}
		// Through the line's JSON, as a history file holds it.
		line, err := bench.MarshalHistoryLine(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bench.DecodeHistory(bytes.NewReader(line), "bench.jsonl", false)
		if err != nil {
			t.Fatal(err)
		}
		got.Entries[0].Line = i + 1
		h.Entries = append(h.Entries, got.Entries[0])
	}
	return bench.ComputeTrend(h, bench.TrendOptions{Compare: bench.DefaultCompareOptions()})
}

// points counts the points of a machine's trend: the benchmarks' runs
// that have them.
func points(m *bench.MachineTrend) int {
	n := 0
	for _, b := range m.Benchmarks {
		for _, p := range b.Points {
			if p != nil {
				n++
			}
		}
	}
	return n
}
