package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/rocmforge/forge/runtime/bench"
)

// The report's comparison follows benchstat: the centre of each benchmark is
// its median time per iteration, the change is the ratio of the medians, and
// a Mann-Whitney U test (benchmath.AssumeNothing) says whether the two
// sample sets differ at all. A change counts as a regression or an
// improvement only when it is significant and at least the threshold, as in
// forgebench compare; the chart still shows the smaller and the
// insignificant changes, in paler colours.

// Classes of a change, used as CSS classes and to pick colours.
const (
	clsRegression  = "regression"  // significant, slower by ≥ threshold
	clsImprovement = "improvement" // significant, faster by ≥ threshold
	clsSlower      = "slower"      // significant, below the threshold
	clsFaster      = "faster"
	clsSame        = "same" // not significant
)

type delta struct {
	name              string
	base, cur         float64 // median ns per iteration
	pct               float64 // (cur/base - 1) × 100: positive is slower
	p                 float64
	n1, n2            int
	tested            bool // both sides had samples
	significant       bool
	class             string
	baseGBps, curGBps string // GB/s of each side, for the tooltip
}

type comparison struct {
	deltas            []*delta // in the current run's order
	byName            map[string]*delta
	onlyBase, onlyCur []string
	threshold         float64
}

func compare(base, cur *bench.Run, threshold, alpha float64) *comparison {
	c := &comparison{byName: map[string]*delta{}, threshold: threshold}
	thr := &benchmath.Thresholds{CompareAlpha: alpha}
	baseBy := map[string]*bench.Result{}
	for i := range base.Results {
		x := &base.Results[i]
		if _, dup := baseBy[x.Name]; !dup {
			baseBy[x.Name] = x
		}
	}
	seen := map[string]bool{}
	for i := range cur.Results {
		x := &cur.Results[i]
		if seen[x.Name] {
			continue
		}
		seen[x.Name] = true
		b, ok := baseBy[x.Name]
		if !ok {
			c.onlyCur = append(c.onlyCur, x.Name)
			continue
		}
		d := &delta{name: x.Name, base: center(b, thr), cur: center(x, thr)}
		d.baseGBps, d.curGBps = medianGBps(b, d.base), medianGBps(x, d.cur)
		if d.base <= 0 || d.cur <= 0 {
			continue // nothing measured on one side: no change to show
		}
		d.pct = (d.cur/d.base - 1) * 100
		if len(b.Samples) > 0 && len(x.Samples) > 0 {
			cmp := benchmath.AssumeNothing.Compare(sample(b, thr), sample(x, thr))
			d.tested, d.p, d.n1, d.n2 = true, cmp.P, cmp.N1, cmp.N2
			d.significant = cmp.P < cmp.Alpha
		} else {
			// Only summaries: no test is possible; judge by the size alone.
			d.significant = true
		}
		switch {
		case !d.significant:
			d.class = clsSame
		case d.pct >= threshold:
			d.class = clsRegression
		case d.pct <= -threshold:
			d.class = clsImprovement
		case d.pct > 0:
			d.class = clsSlower
		case d.pct < 0:
			d.class = clsFaster
		default:
			d.class = clsSame
		}
		c.deltas = append(c.deltas, d)
		c.byName[x.Name] = d
	}
	for _, b := range base.Results {
		if !seen[b.Name] {
			seen[b.Name] = true
			c.onlyBase = append(c.onlyBase, b.Name)
		}
	}
	return c
}

func sample(x *bench.Result, thr *benchmath.Thresholds) *benchmath.Sample {
	v := make([]float64, 0, len(x.Samples))
	for _, s := range x.Samples {
		v = append(v, float64(s))
	}
	return benchmath.NewSample(v, thr)
}

// center is the median time per iteration in ns: of the samples when there
// are any, else the stored p50, else the mean.
func center(x *bench.Result, thr *benchmath.Thresholds) float64 {
	if len(x.Samples) > 0 {
		return benchmath.AssumeNothing.Summary(sample(x, thr), 0.95).Center
	}
	if x.Stats.P50 > 0 {
		return float64(x.Stats.P50)
	}
	return float64(x.Stats.Mean)
}

// medianGBps is x's GB/s at its median time of ns nanoseconds, as the
// rest of the page computes it.
func medianGBps(x *bench.Result, ns float64) string {
	if b := x.BytesRead + x.BytesWritten; b > 0 && ns > 0 {
		return fmtRate(float64(b) / ns)
	}
	return "—"
}

func (d *delta) label() string {
	s := strconv.FormatFloat(d.pct, 'f', 1, 64)
	if d.pct >= 0 {
		s = "+" + s
	}
	s += "%"
	if !d.significant {
		s = "~ (" + s + ")"
	}
	return s
}

func (d *delta) tip() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: median %s → %s per iteration (%s), GB/s %s → %s",
		clean(d.name), fmtNs(d.base), fmtNs(d.cur), d.label(), d.baseGBps, d.curGBps)
	if d.tested {
		fmt.Fprintf(&b, "; U test p=%.3g, n=%d+%d", d.p, d.n1, d.n2)
	} else {
		b.WriteString("; no samples on one side: significance not tested")
	}
	fmt.Fprintf(&b, "; %s", d.class)
	return b.String()
}

func fmtNs(ns float64) string {
	if !finite(ns) {
		return "—"
	}
	return fmtDur(durationOf(ns))
}

func (c *comparison) summary() string {
	count := map[string]int{}
	for _, d := range c.deltas {
		count[d.class]++
	}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	}
	parts := []string{
		plural(count[clsRegression], "regression", "regressions"),
		plural(count[clsImprovement], "improvement", "improvements"),
		fmt.Sprintf("%d within ±%s%%", count[clsSlower]+count[clsFaster], trimFloat(c.threshold)),
		fmt.Sprintf("%d unchanged (not significant)", count[clsSame]),
	}
	s := strings.Join(parts, ", ") + " of " + plural(len(c.deltas), "benchmark in both runs", "benchmarks in both runs")
	return s
}

// maxAbsPct is the largest change, for the chart's scale.
func (c *comparison) maxAbsPct() float64 {
	m := 0.0
	for _, d := range c.deltas {
		if finite(d.pct) {
			m = math.Max(m, math.Abs(d.pct))
		}
	}
	return m
}
