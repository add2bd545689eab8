package report

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
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
