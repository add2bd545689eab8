package report

import (
	"fmt"
	"math"
	"strconv"
)

// The roofline chart (Williams, Waterman and Patterson, 2009): each
// benchmark is a point at its arithmetic intensity (operations per byte
// moved, x) and its attained rate (operations per second, y), both on
// log scales, under the ceilings of the run's device: the memory ceiling,
// the copy bandwidth the run measured times the intensity (a line of slope
// 1), and level compute ceilings, each from the intensity where the memory
// ceiling reaches it (its ridge point). A point's distance under the
// memory ceiling is its share of the copy roofline, the same % of copy as
// the table's: (ops/t) ÷ (ops/bytes × copy) = (bytes/t) ÷ copy.

// logAxis maps values to [0, 1] on a log scale of whole decades.
type logAxis struct{ lo, hi float64 } // log10 of the ends

func decades(min, max float64) logAxis {
	lo := math.Floor(math.Log10(min) + 1e-9)
	hi := math.Ceil(math.Log10(max) - 1e-9)
	if hi <= lo {
		hi = lo + 1
	}
	return logAxis{lo, hi}
}

func (a logAxis) frac(v float64) float64 { return (math.Log10(v) - a.lo) / (a.hi - a.lo) }
func (a logAxis) min() float64           { return math.Pow(10, a.lo) }
func (a logAxis) max() float64           { return math.Pow(10, a.hi) }

// decadeTicks are the decades from the axis' low end to its high end.
func (a logAxis) decadeTicks() []float64 {
	var out []float64
	for e := a.lo; e <= a.hi+1e-9; e++ {
		out = append(out, math.Pow(10, e))
	}
	return out
}

// siRate spells a rate given in 1e9 per second with an SI prefix: 1 → "1G",
// 1000 → "1T", 0.01 → "10M".
func siRate(g float64) string {
	v := g * 1e9
	for _, p := range []struct {
		f float64
		s string
	}{{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= p.f*(1-1e-9) {
			return trimFloat(roundSig(v/p.f, 3)) + p.s
		}
	}
	return trimFloat(roundSig(v, 3))
}

func roundSig(v float64, digits int) float64 {
	if v == 0 || !finite(v) {
		return v
	}
	p, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
	return p
}

// fmtRateG spells a rate given in 1e9 per second: "812 GFLOPS", "1.46
// TFLOPS" (unit "FLOPS"), or "Gop/s" for operations that are not FLOPs.
func fmtRateG(g float64, unit string) string {
	if g >= 1000 {
		return fmtRate(g/1000) + " T" + unit
	}
	return fmtRate(g) + " G" + unit
}

// rooflineChart draws the points of the figs that have one (fig.onRoofline)
// under the memory ceiling of the copy roofline roof (GB/s; none when 0)
// and the compute ceilings, highest first. It is nil when no fig has a
// point.
func rooflineChart(figs []fig, pal palette, roof float64, ceilings []Ceiling) *svg {
	var pts []*fig
	for i := range figs {
		if figs[i].onRoofline() {
			pts = append(pts, &figs[i])
		}
	}
	if len(pts) == 0 {
		return nil
	}
	// The axes span the points, the compute ceilings and their ridge
	// points, in whole decades.
	minI, maxI := math.Inf(1), math.Inf(-1)
	minP, maxP := math.Inf(1), math.Inf(-1)
	for _, f := range pts {
		i, p := f.intensity(), f.opsPS()/1e9
		minI, maxI = math.Min(minI, i), math.Max(maxI, i)
		minP, maxP = math.Min(minP, p), math.Max(maxP, p)
	}
	for _, c := range ceilings {
		maxP = math.Max(maxP, c.GFLOPS)
		if roof > 0 {
			r := c.GFLOPS / roof
			minI, maxI = math.Min(minI, r), math.Max(maxI, r)
		}
	}
	ax, ay := decades(minI, maxI), decades(minP, maxP)
	const (
		plotW  = 620.0
		plotH  = 380.0
		padL   = 62.0
		padTop = 20.0
		padBot = 48.0
		padR   = 250.0
	)
	c := &svg{
		ID:    "roofline",
		Label: "roofline: each benchmark's attained operations per second against its arithmetic intensity, under the device's memory and compute ceilings",
		W:     padL + plotW + padR,
		H:     padTop + plotH + padBot,
	}
	x0, y0, yEnd := padL, padTop, padTop+plotH
	sx := func(i float64) float64 { return x0 + plotW*ax.frac(i) }
	sy := func(g float64) float64 { return yEnd - plotH*ay.frac(g) }

	for _, t := range ax.decadeTicks() {
		c.line(sx(t), y0, sx(t), yEnd, colGrid, 1, "")
		c.classed("xtick", trimFloat(t))
		c.text(sx(t), yEnd+14, tickLabel(t), "middle", 10, colMuted)
	}
	for _, t := range ay.decadeTicks() {
		c.line(x0, sy(t), x0+plotW, sy(t), colGrid, 1, "")
		c.classed("ytick", trimFloat(t))
		c.text(x0-6, sy(t)+3.5, siRate(t), "end", 10, colMuted)
	}
	c.line(x0, yEnd, x0+plotW, yEnd, colAxis, 1, "")
	c.line(x0, y0, x0, yEnd, colAxis, 1, "")
	c.text(x0+plotW/2, yEnd+32, "arithmetic intensity (operations per byte read + written)", "middle", 10, colMuted)
	c.text(16, y0+plotH/2, "attained operations per second (FLOP/s; from the median time)", "middle", 10, colMuted).Rot = -90

	// The memory ceiling, up to the highest compute ceiling (or the top).
	if roof > 0 {
		top := ay.max()
		if len(ceilings) > 0 {
			top = ceilings[0].GFLOPS
		}
		iLo := math.Max(ax.min(), ay.min()/roof)
		iHi := math.Min(ax.max(), top/roof)
		if iLo < iHi {
			c.line(sx(iLo), sy(roof*iLo), sx(iHi), sy(roof*iHi), colRoof, 2, "")
			c.classed("ceiling-mem", trimFloat(roof))
			// The label along the line, a fifth of the way up, or lower
			// where the line is too short for it there.
			label := "memory: copy " + fmtRate(roof) + " GB/s (this run)"
			length := math.Hypot(sx(iHi)-sx(iLo), sy(roof*iHi)-sy(roof*iLo))
			at := math.Max(0, math.Min(0.2, 1-(textWidth(label, 10)+12)/length))
			lx := iLo * math.Pow(iHi/iLo, at)
			ang := -math.Atan2(plotH/(ay.hi-ay.lo), plotW/(ax.hi-ax.lo)) * 180 / math.Pi
			t := c.text(sx(lx)+2, sy(roof*lx)-6, label, "start", 10, colRoof)
			t.Rot, t.Bold, t.Halo = ang, true, true
		}
	}
	// The compute ceilings, each from its ridge point.
	for i, cl := range ceilings {
		from := ax.min()
		if roof > 0 {
			from = math.Max(from, cl.GFLOPS/roof)
		}
		dash := ""
		if i > 0 {
			dash = "6 3"
		}
		y := sy(cl.GFLOPS)
		c.line(sx(from), y, x0+plotW, y, colPeak, 2, dash)
		c.classed("ceiling-compute", trimFloat(cl.GFLOPS))
		c.text(x0+plotW+6, y+3.5, cl.Name+" "+fmtRateG(cl.GFLOPS, "FLOPS"), "start", 10, colPeak).Bold = true
	}

	// The points: FLOPs filled, one operation per element hollow.
	for _, f := range pts {
		i, g := f.intensity(), f.opsPS()/1e9
		col := pal.of(f.x)
		unit, kind := "FLOPS", "flop"
		if !f.flop {
			unit, kind = "op/s", "elem"
		}
		attainable, bound := math.Inf(1), ""
		if roof > 0 {
			attainable, bound = roof*i, "memory"
		}
		if len(ceilings) > 0 && ceilings[0].GFLOPS < attainable {
			attainable, bound = ceilings[0].GFLOPS, "compute"
		}
		tip := fmt.Sprintf("%s: intensity %s %s/byte, attained %s", clean(f.x.Name), fmtSig(i), map[bool]string{true: "FLOP", false: "op"}[f.flop], fmtRateG(g, unit))
		if unit == "op/s" {
			tip = fmt.Sprintf("%s: intensity %s op/byte (1 operation per element: no FLOPs counted), attained %s op/s", clean(f.x.Name), fmtSig(i), siRate(g))
		}
		tip += fmt.Sprintf(", %s GB/s", fmtRate(f.gbps))
		if f.pct > 0 {
			tip += fmt.Sprintf(" (%.1f%% of copy)", f.pct)
		}
		if bound != "" {
			tip += fmt.Sprintf("; %s-bound here: %.1f%% of the %s ceiling", bound, 100*g/attainable, bound)
		}
		tip += fmt.Sprintf("; median %s, n=%d", fmtSec(f.sec), f.st.N)
		if f.tool != "" {
			tip += " (" + f.tool + "'s kernel duration)"
		}
		pt := &point{Name: clean(f.x.Name), Kernel: groupTitle(f.x), Intensity: fmtSig(i), GFLOPS: fmtSig(g), Ops: kind, Bound: bound}
		if f.flop {
			c.circle(sx(i), sy(g), 4.5, col, "#333333", 0.8, tip, pt)
		} else {
			c.circle(sx(i), sy(g), 4, "#ffffff", col, 2, tip, pt)
		}
	}
	return c
}

// fmtSig prints v with 4 significant digits, as the data attributes hold it.
func fmtSig(v float64) string {
	if !finite(v) {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fmtSec spells a time in seconds.
func fmtSec(s float64) string { return fmtDur(durationOf(s * 1e9)) }

// fmtCount spells a count with an SI prefix: 2.15e9 → "2.15 G".
func fmtCount(v float64) string {
	s := siRate(v / 1e9)
	if n := len(s); n > 0 && (s[n-1] < '0' || s[n-1] > '9') {
		return s[:n-1] + " " + s[n-1:]
	}
	return s
}
