package report

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/aclements/go-moremath/stats"

	"github.com/rocmforge/forge/runtime/bench"
)

// The results table's distribution column: a box plot per benchmark, on a
// scale common to every row, each sample's time relative to its median, so
// that a noisy row looks noisy next to a steady one. Whisker: min to max;
// box: the quartiles; dark band: the median's 95% confidence interval;
// line: the median. A whisker past the scale ends in a red tick.

const (
	distW = 120.0
	distH = 14.0
)

// spread is how far a result's samples reach from its median, as a
// fraction of it.
func spread(st bench.Stats) float64 {
	if st.P50 <= 0 || st.Min <= 0 || st.Max <= 0 {
		return 0
	}
	m := float64(st.P50)
	return math.Max(1-float64(st.Min)/m, float64(st.Max)/m-1)
}

// distRange is the distribution column's half-width, a fraction of the
// median: the spread of 90% of the rows, rounded up to 1, 2 or 5 × 10^k
// percent and at least 1%, so that one wild row does not flatten the rest
// (its whisker is cut, with a mark).
func distRange(figs []fig) float64 {
	var sp []float64
	for _, f := range figs {
		if s := spread(f.st); finite(s) && s > 0 {
			sp = append(sp, s)
		}
	}
	if len(sp) == 0 {
		return 0.01
	}
	slices.Sort(sp)
	r := sp[int(0.9*float64(len(sp)-1))]
	for _, nice := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5} {
		if r <= nice+1e-12 {
			return nice
		}
	}
	return 10
}

// distChart is one row's box plot; nil without a median.
func distChart(samples []time.Duration, st bench.Stats, r float64, i int) *svg {
	if st.P50 <= 0 || st.N == 0 {
		return nil
	}
	med := float64(st.P50)
	cx := distW / 2
	half := distW/2 - 3
	clipped := false
	sx := func(v float64) float64 {
		d := (v/med - 1) / r
		if d > 1 || d < -1 {
			clipped = true
			d = math.Max(-1, math.Min(1, d))
		}
		return cx + half*d
	}
	c := &svg{ID: fmt.Sprintf("dist-%d", i+1), W: distW, H: distH, Label: "distribution of the samples around the median"}
	c.rect(0, 0, distW, distH, colBand, "")
	c.line(cx, 0, cx, distH, colGrid, 1, "")
	tip := fmt.Sprintf("n=%d: min %s", st.N, fmtDur(st.Min))
	lo, hi := sx(float64(st.Min)), sx(float64(st.Max))
	c.line(lo, distH/2, hi, distH/2, colAxis, 1, "")
	if len(samples) >= 4 {
		xs := make([]float64, len(samples))
		for k, d := range samples {
			xs[k] = float64(d)
		}
		slices.Sort(xs)
		s := stats.Sample{Xs: xs, Sorted: true}
		q1, q3 := s.Quantile(0.25), s.Quantile(0.75)
		c.rect(sx(q1), 3, sx(q3)-sx(q1), distH-6, "#9ecae1", "")
		tip += fmt.Sprintf(", quartiles %s – %s", fmtDur(durationOf(q1)), fmtDur(durationOf(q3)))
	}
	if st.P50Lo > 0 && st.P50Hi > 0 {
		c.rect(sx(float64(st.P50Lo)), 5, sx(float64(st.P50Hi))-sx(float64(st.P50Lo)), distH-10, "#3182bd", "")
	}
	c.line(cx, 2, cx, distH-2, colText, 1.5, "")
	tip += fmt.Sprintf(", median %s", fmtDur(st.P50))
	if st.P50Lo > 0 && st.P50Hi > 0 {
		tip += fmt.Sprintf(" (95%% CI %s – %s)", fmtDur(st.P50Lo), fmtDur(st.P50Hi))
	}
	tip += fmt.Sprintf(", max %s", fmtDur(st.Max))
	for _, v := range []float64{float64(st.Min), float64(st.Max)} {
		if d := (v/med - 1) / r; d > 1 || d < -1 {
			x := sx(v)
			c.line(x, 1, x, distH-1, colRegression, 2, "")
		}
	}
	if clipped {
		tip += fmt.Sprintf(" (past the scale's ±%s%%)", trimFloat(100*r))
	}
	c.Tip = tip
	return c
}
