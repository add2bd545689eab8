// Package benchtest builds forgebench Runs for tests: realistic results with
// deterministic samples, so that the writers, the comparison and the reports
// can be tested without running the engine.
package benchtest

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
)

// Format is one quant format of the fixture: its storage per block and the
// H100 throughputs of its dequant kernels (docs/PERFORMANCE.md).
type Format struct {
	Name       string
	BlockElems int
	BlockBytes int
	GBpsF32    float64 // dequant_f32
	GBpsF16    float64 // dequant_f16
}

// Formats are the 21 formats forge had specs for when the throughputs were
// measured on an NVIDIA H100 (docs/PERFORMANCE.md).
var Formats = []Format{
	{Name: "F32", BlockElems: 1, BlockBytes: 4, GBpsF32: 2967, GBpsF16: 2969},
	{Name: "F16", BlockElems: 1, BlockBytes: 2, GBpsF32: 2865, GBpsF16: 2858},
	{Name: "BF16", BlockElems: 1, BlockBytes: 2, GBpsF32: 2889, GBpsF16: 2856},
	{Name: "Q4_0", BlockElems: 32, BlockBytes: 18, GBpsF32: 2814, GBpsF16: 2479},
	{Name: "Q4_1", BlockElems: 32, BlockBytes: 20, GBpsF32: 2809, GBpsF16: 2268},
	{Name: "Q5_0", BlockElems: 32, BlockBytes: 22, GBpsF32: 2821, GBpsF16: 2404},
	{Name: "Q5_1", BlockElems: 32, BlockBytes: 24, GBpsF32: 2817, GBpsF16: 2199},
	{Name: "Q8_0", BlockElems: 32, BlockBytes: 34, GBpsF32: 2844, GBpsF16: 2749},
	{Name: "Q2_K", BlockElems: 256, BlockBytes: 84, GBpsF32: 2772, GBpsF16: 2159},
	{Name: "Q3_K", BlockElems: 256, BlockBytes: 110, GBpsF32: 2518, GBpsF16: 2049},
	{Name: "Q4_K", BlockElems: 256, BlockBytes: 144, GBpsF32: 2725, GBpsF16: 1995},
	{Name: "Q5_K", BlockElems: 256, BlockBytes: 176, GBpsF32: 2675, GBpsF16: 1845},
	{Name: "Q6_K", BlockElems: 256, BlockBytes: 210, GBpsF32: 2660, GBpsF16: 2494},
	{Name: "Q8_K", BlockElems: 256, BlockBytes: 292, GBpsF32: 2839, GBpsF16: 2597},
	{Name: "MXFP4", BlockElems: 32, BlockBytes: 17, GBpsF32: 2805, GBpsF16: 2429},
	{Name: "MXFP6_E2M3", BlockElems: 32, BlockBytes: 25, GBpsF32: 2821, GBpsF16: 2488},
	{Name: "MXFP6_E3M2", BlockElems: 32, BlockBytes: 25, GBpsF32: 2821, GBpsF16: 2486},
	{Name: "IQ4_NL", BlockElems: 32, BlockBytes: 18, GBpsF32: 2807, GBpsF16: 2378},
	{Name: "IQ4_XS", BlockElems: 256, BlockBytes: 136, GBpsF32: 2488, GBpsF16: 2122},
	{Name: "TQ1_0", BlockElems: 256, BlockBytes: 54, GBpsF32: 2805, GBpsF16: 1195},
	{Name: "TQ2_0", BlockElems: 256, BlockBytes: 66, GBpsF32: 2780, GBpsF16: 2544},
}

// CopyGBps is the fixture's copy roofline (the H100's, docs/PERFORMANCE.md).
const CopyGBps = 2924

// Elements is the shape of every fixture benchmark: 64 Mi elements.
const Elements = 64 << 20

// Samples per benchmark.
const Samples = 40

// GPURun is a run of every format's dequant_f32 and dequant_f16 kernel on an
// H100 (cuda backend, sm_90), plus the copy kernel, with 40 samples each
// scattered by about 1% around the throughputs of docs/PERFORMANCE.md. The
// same seed gives the same Run.
func GPURun(seed uint64) *bench.Run {
	return gpuRun(seed, nil)
}

// Baseline is GPURun measured on an earlier commit and saved as the
// baseline "h100-main": the same numbers but for planted changes, given as
// the factor by which the current run's mean time differs from the
// baseline's (so 1.3 is a 30% slowdown of the current run):
//
//	dequant_f32/Q3_K 1.30, dequant_f16/TQ1_0 1.12 (regressions),
//	dequant_f16/Q5_K 0.85, dequant_f16/Q4_K 0.96 (improvements),
//
// dequant_f32/Q1_X is only in the baseline, and copy only in the current run.
func Baseline(seed uint64) *bench.Run {
	factors := map[string]float64{
		"dequant_f32/Q3_K":  1.30,
		"dequant_f16/TQ1_0": 1.12,
		"dequant_f16/Q5_K":  0.85,
		"dequant_f16/Q4_K":  0.96,
	}
	r := gpuRun(seed+1000, factors)
	r.Name = "h100-main"
	r.Meta.ForgeCommit = "0c72fce5f4d2a1b3c9e8d7f6a5b4c3d2e1f0a9b8"
	r.Started = r.Started.Add(-26 * time.Hour)
	r.Finished = r.Finished.Add(-26 * time.Hour)
	r.Results = slices.DeleteFunc(r.Results, func(x bench.Result) bool { return x.Family == "copy" })
	extra := result(Format{Name: "Q1_X", BlockElems: 256, BlockBytes: 40, GBpsF32: 2700}, "dequant_f32", "f32", 2700, rand.New(rand.NewPCG(seed, 7)))
	extra.Stats = Summarize(extra, CopyGBps)
	r.Results = append(r.Results, extra)
	return r
}

// gpuRun builds the run; a baseline divides the mean time of the results
// named in slower by their factor (the current run is the slower one).
func gpuRun(seed uint64, slower map[string]float64) *bench.Run {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	start := time.Date(2026, 11, 21, 14, 3, 7, 0, time.UTC)
	r := &bench.Run{
		Kind:   bench.Kind,
		Schema: bench.SchemaVersion,
		Meta: bench.Meta{
			Backend:      "cuda",
			Library:      "/work/forge/build/libforge_sm_90.so",
			Device:       "NVIDIA H100 80GB HBM3",
			Arch:         "sm_90",
			Target:       "sm_90",
			WaveSize:     32,
			ComputeUnits: 132,
			MemoryBytes:  85520809984,
			Driver:       "580.159.04",
			Toolkit:      "CUDA 13.0",
			CPUs:         16,
			GoVersion:    "go1.26.8",
			OS:           "linux/amd64",
			Hostname:     "gpu-h100-07",
			ForgeVersion: "devel",
			ForgeCommit:  "7464704c0ffee1234567890abcdef0123456789a",
		},
		Roofline: &bench.Roofline{Bytes: 256 << 20, GBps: CopyGBps},
	}
	for _, k := range []struct{ kernel, output string }{{"dequant_f32", "f32"}, {"dequant_f16", "f16"}} {
		for _, f := range Formats {
			gbps := f.GBpsF32
			if k.output == "f16" {
				gbps = f.GBpsF16
			}
			if s, ok := slower[k.kernel+"/"+f.Name]; ok {
				gbps *= s
			}
			r.Results = append(r.Results, result(f, k.kernel, k.output, gbps, rng))
		}
	}
	cp := bench.Result{
		Name: "copy", Suite: "copy", Family: "copy",
		Elements: 256 << 20 / 4, BytesRead: 256 << 20, BytesWritten: 256 << 20,
		Warmup: 3,
	}
	cp.Samples = samples(float64(cp.BytesRead+cp.BytesWritten)/CopyGBps, rng)
	r.Results = append(r.Results, cp)
	var total time.Duration
	for i := range r.Results {
		x := &r.Results[i]
		x.Stats = Summarize(*x, CopyGBps)
		total += time.Duration(x.Warmup+len(x.Samples)) * x.Stats.Mean
	}
	r.Started = start
	r.Finished = start.Add(total + 2*time.Second)
	return r
}

func result(f Format, kernel, output string, gbps float64, rng *rand.Rand) bench.Result {
	outSize := 4
	if output == "f16" {
		outSize = 2
	}
	blocks := int64(Elements / f.BlockElems)
	x := bench.Result{
		Name:         kernel + "/" + f.Name,
		Suite:        kernel + "/" + f.Name,
		Family:       "dequant",
		Kernel:       kernel,
		Format:       f.Name,
		Output:       output,
		Shape:        []int{Elements},
		Elements:     Elements,
		BytesRead:    blocks * int64(f.BlockBytes),
		BytesWritten: Elements * int64(outSize),
		Compression:  4 / (float64(f.BlockBytes) / float64(f.BlockElems)),
		Warmup:       5,
	}
	x.Samples = samples(float64(x.BytesRead+x.BytesWritten)/gbps, rng)
	return x
}

// samples scatters Samples times around meanNs: a normal spread of 0.6%
// plus, now and then, a slow outlier, as GPU timings look.
func samples(meanNs float64, rng *rand.Rand) []time.Duration {
	s := make([]time.Duration, Samples)
	for i := range s {
		v := meanNs * (1 + 0.006*rng.NormFloat64())
		if rng.IntN(20) == 0 {
			v *= 1.03 + 0.02*rng.Float64()
		}
		s[i] = time.Duration(math.Round(v))
	}
	return s
}

// Summarize computes a Result's Stats from its Samples the plain way
// (nearest-rank percentiles), with the percent of the copy roofline.
func Summarize(x bench.Result, copyGBps float64) bench.Stats {
	n := len(x.Samples)
	if n == 0 {
		return bench.Stats{}
	}
	s := slices.Clone(x.Samples)
	slices.Sort(s)
	var sum float64
	for _, d := range s {
		sum += float64(d)
	}
	mean := sum / float64(n)
	var ss float64
	for _, d := range s {
		ss += (float64(d) - mean) * (float64(d) - mean)
	}
	sd := 0.0
	if n > 1 {
		sd = math.Sqrt(ss / float64(n-1))
	}
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(n))) - 1
		return s[max(0, min(n-1, i))]
	}
	st := bench.Stats{
		N: n, Min: s[0], Max: s[n-1],
		Mean: time.Duration(math.Round(mean)),
		P50:  rank(0.50), P95: rank(0.95), P99: rank(0.99),
		StdDev:  time.Duration(math.Round(sd)),
		ElemsPS: float64(x.Elements) / (mean / 1e9),
		GBps:    float64(x.BytesRead+x.BytesWritten) / mean,
	}
	if copyGBps > 0 {
		st.PctCopy = 100 * st.GBps / copyGBps
	}
	return st
}
