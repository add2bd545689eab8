package bench

import (
	"math"
	"time"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Confidence is the confidence level of the median's interval (Stats.P50Lo,
// P50Hi) and of Options.Auto's stopping rule.
const Confidence = 0.95

// NoiseCV is the coefficient of variation (sample standard deviation over
// the mean) above which a benchmark is flagged as noisy, in the terminal
// table and in the HTML report. GPU kernels timed with device events
// scatter by well under 1%; past 5% something else (clock changes,
// another process, a shared host) moves the time, and the median, though
// robust, is worth re-measuring.
const NoiseCV = 0.05

// CV is the coefficient of variation of the samples: the standard
// deviation over the mean, 0 when there is no spread to speak of (fewer
// than 2 samples, or no mean).
func (s Stats) CV() float64 {
	if s.N < 2 || s.Mean <= 0 || s.StdDev < 0 {
		return 0
	}
	return float64(s.StdDev) / float64(s.Mean)
}

// Noisy reports whether the coefficient of variation is above NoiseCV.
func (s Stats) Noisy() bool { return s.CV() > NoiseCV }

// QuantileMinN is the fewest samples that estimate the p-quantile (p in
// (0, 1)): 1/(1−p), rounded, so that on average at least one sample lies
// above it (p95: 20, p99: 100). With fewer the estimate is the largest
// sample or an interpolation towards it, the maximum under another name:
// the table and the report hide p95 and p99 below these counts (the JSON
// and CSV keep the values, for those who know what they hold).
func QuantileMinN(p float64) int {
	if p <= 0 || p >= 1 {
		return 0
	}
	return int(math.Round(1 / (1 - p)))
}

// HasP95 and HasP99 report whether there are enough samples
// (QuantileMinN) for P95 and P99 to be more than the maximum.
func (s Stats) HasP95() bool { return s.N >= QuantileMinN(0.95) }

// HasP99: see HasP95.
func (s Stats) HasP99() bool { return s.N >= QuantileMinN(0.99) }

// Summarize computes the statistics of samples, each the time of one
// iteration that moves bytes bytes, produces elems elements and does flops
// floating-point operations; roofGBps is the run's copy bandwidth (0: no
// %copy).
//
// The median and its 95% confidence interval are benchmath's
// (AssumeNothing: the sample median, and a distribution-free interval
// between two order statistics, as benchstat reports them); p95 and p99
// use the same quantile definition as that median (go-moremath's
// stats.Sample.Quantile, Hyndman and Fan's type 8), so that p50 ≤ p95 ≤
// p99 always hold together. The standard deviation is the sample one
// (n−1). Throughputs (GB/s, elements/s, GFLOPS, % of copy) use the median
// time per iteration (P50, before its rounding to a whole nanosecond): the
// centre the table headlines and compare tests, so that a figure and its
// time agree, and a slow outlier moves neither.
func Summarize(samples []time.Duration, bytes, elems, flops int64, roofGBps float64) Stats {
	n := len(samples)
	if n == 0 {
		return Stats{}
	}
	xs := make([]float64, n)
	var sum float64
	for i, d := range samples {
		xs[i] = float64(d)
		sum += xs[i]
	}
	mean := sum / float64(n)
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := 0.0
	if n > 1 {
		sd = math.Sqrt(ss / float64(n-1))
	}
	s := benchmath.NewSample(xs, &benchmath.DefaultThresholds) // sorts xs
	sum50 := benchmath.AssumeNothing.Summary(s, Confidence)
	sorted := stats.Sample{Xs: s.Values, Sorted: true}
	st := Stats{
		N:      n,
		Min:    time.Duration(s.Values[0]),
		Mean:   dur(mean),
		Max:    time.Duration(s.Values[n-1]),
		P50:    dur(sum50.Center),
		P95:    dur(sorted.Quantile(0.95)),
		P99:    dur(sorted.Quantile(0.99)),
		StdDev: dur(sd),
	}
	if !math.IsInf(sum50.Lo, 0) && !math.IsInf(sum50.Hi, 0) {
		st.P50Lo, st.P50Hi = dur(sum50.Lo), dur(sum50.Hi)
	}
	if sec := sum50.Center / 1e9; sec > 0 {
		st.ElemsPS = float64(elems) / sec
		st.GBps = float64(bytes) / sec / 1e9
		if flops > 0 {
			st.GFLOPS = float64(flops) / sec / 1e9
		}
		if roofGBps > 0 {
			st.PctCopy = 100 * st.GBps / roofGBps
		}
	}
	return st
}

// dur rounds nanoseconds to a Duration.
func dur(ns float64) time.Duration { return time.Duration(math.Round(ns)) }

// medianPrecise reports whether the 95% confidence interval of the median
// of samples lies within ±precision (a fraction, 0.01 for ±1%) of the
// median: Options.Auto's stopping rule. It is false while there are too
// few samples for a finite interval.
func medianPrecise(samples []time.Duration, precision float64) bool {
	xs := make([]float64, len(samples))
	for i, d := range samples {
		xs[i] = float64(d)
	}
	s := benchmath.NewSample(xs, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	if math.IsInf(sum.Lo, 0) || math.IsInf(sum.Hi, 0) || sum.Center <= 0 {
		return false
	}
	return max(sum.Center-sum.Lo, sum.Hi-sum.Center) <= precision*sum.Center
}
