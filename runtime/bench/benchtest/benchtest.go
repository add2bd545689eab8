// Package benchtest builds synthetic forgebench runs for tests: results with
// deterministic pseudo-random samples around chosen centers, so that
// baselines, comparisons and reports can be tested without running the
// engine.
package benchtest

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
)

// Bench describes one synthetic result.
type Bench struct {
	Name    string
	Center  time.Duration // the samples' center
	Samples int           // how many; 0 means 20
	Bytes   int64         // read + written per iteration; 0 means 4 MiB
}

// Defaults is a small set of dequant-like benchmarks.
func Defaults() []Bench {
	return []Bench{
		{Name: "dequant_f32/F16", Center: 40 * time.Microsecond},
		{Name: "dequant_f32/Q4_0", Center: 55 * time.Microsecond},
		{Name: "dequant_f32/Q8_0", Center: 48 * time.Microsecond},
		{Name: "dequant_f16/Q4_K", Center: 61 * time.Microsecond},
		{Name: "dequant_f16/Q6_K", Center: 70 * time.Microsecond},
		{Name: "copy/f32", Center: 30 * time.Microsecond},
	}
}

// Noise is the relative spread of the samples: each is the center times a
// factor drawn uniformly from [1-Noise, 1+Noise].
const Noise = 0.02

// Run builds a cpu-backend run of benches. The samples depend only on seed
// and each benchmark's name, so two runs with different seeds are two
// measurements of the same unchanged build.
func Run(seed uint64, benches ...Bench) *bench.Run {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(seed) * time.Hour)
	r := &bench.Run{
		Kind:    bench.Kind,
		Schema:  bench.SchemaVersion,
		Started: start,
		Meta: bench.Meta{
			Backend: "cpu", Device: "Synthetic CPU @ 3.0GHz", Arch: "amd64", CPUs: 8,
			GoVersion: "go1.26.8", OS: "linux/amd64", ForgeVersion: "devel", ForgeCommit: "0123456789abcdef",
		},
		Roofline: &bench.Roofline{Bytes: 64 << 20, GBps: 20},
	}
	for _, b := range benches {
		n := b.Samples
		if n == 0 {
			n = 20
		}
		bytes := b.Bytes
		if bytes == 0 {
			bytes = 4 << 20
		}
		h := fnv.New64a()
		h.Write([]byte(b.Name))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		s := make([]time.Duration, n)
		for i := range s {
			f := 1 + Noise*(2*rng.Float64()-1)
			s[i] = time.Duration(float64(b.Center) * f)
		}
		res := bench.Result{
			Name: b.Name, Suite: b.Name, Family: "dequant",
			Elements: bytes / 5, BytesRead: bytes / 5, BytesWritten: bytes - bytes/5,
			Warmup: 3, Samples: s,
		}
		Restat(&res)
		r.Results = append(r.Results, res)
	}
	r.Finished = start.Add(time.Minute)
	return r
}

// Scale multiplies the samples of the result named name (every result when
// name is "") by factor: 1.3 plants a 30% slowdown.
func Scale(r *bench.Run, name string, factor float64) {
	for i := range r.Results {
		res := &r.Results[i]
		if name != "" && res.Name != name {
			continue
		}
		for k, s := range res.Samples {
			res.Samples[k] = time.Duration(float64(s) * factor)
		}
		Restat(res)
	}
}

// Restat recomputes res.Stats from its samples (simply: nearest-rank
// percentiles), as a run's writer would.
func Restat(res *bench.Result) {
	s := slices.Clone(res.Samples)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		res.Stats = bench.Stats{}
		return
	}
	var sum time.Duration
	for _, v := range s {
		sum += v
	}
	mean := sum / time.Duration(n)
	pick := func(q float64) time.Duration { return s[min(n-1, int(q*float64(n)))] }
	st := bench.Stats{N: n, Min: s[0], Mean: mean, Max: s[n-1], P50: pick(0.5), P95: pick(0.95), P99: pick(0.99)}
	if mean > 0 {
		st.ElemsPS = float64(res.Elements) / mean.Seconds()
		st.GBps = float64(res.BytesRead+res.BytesWritten) / float64(mean)
	}
	res.Stats = st
}
