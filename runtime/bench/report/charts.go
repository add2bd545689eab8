package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rocmforge/forge/runtime/bench"
)

// The charts are computed here as plain geometry (rectangles, lines and
// texts in SVG user units) and drawn by one small SVG template, so that the
// layout is testable Go and the template only prints. Colours are fill and
// stroke attributes rather than CSS classes, so that a chart cut out of the
// page keeps them.

// svg is one chart.
type svg struct {
	ID    string
	Label string // aria-label: what the chart shows
	W, H  float64
	Items []item // drawn in order: later items cover earlier ones
}

// item is a rect, a line or a text.
type item struct {
	Kind       string // "rect", "line", "text"
	X, Y, W, H float64
	X2, Y2     float64
	Fill       string
	Stroke     string
	SW         float64 // stroke width
	Dash       string  // stroke-dasharray
	S          string  // text
	Anchor     string  // text-anchor: start (default), middle, end
	Size       float64 // font size (0: the chart's 11)
	Bold       bool
	Rot        float64 // rotation about (X, Y), degrees
	Halo       bool    // a white outline, to stay readable over lines
	Tip        string  // <title>: the browser's tooltip
}

func (c *svg) rect(x, y, w, h float64, fill, tip string) {
	c.Items = append(c.Items, item{Kind: "rect", X: x, Y: y, W: math.Max(0, w), H: math.Max(0, h), Fill: fill, Tip: tip})
}

func (c *svg) line(x1, y1, x2, y2 float64, stroke string, width float64, dash string) {
	c.Items = append(c.Items, item{Kind: "line", X: x1, Y: y1, X2: x2, Y2: y2, Stroke: stroke, SW: width, Dash: dash})
}

func (c *svg) text(x, y float64, s, anchor string, size float64, fill string) *item {
	c.Items = append(c.Items, item{Kind: "text", X: x, Y: y, S: s, Anchor: anchor, Size: size, Fill: fill})
	return &c.Items[len(c.Items)-1]
}

// Colours (Tableau 10 and friends).
const (
	colText   = "#222222"
	colMuted  = "#666666"
	colGrid   = "#e4e4e4"
	colAxis   = "#888888"
	colBand   = "#f4f6f8"
	colRoof   = "#c92a2a"
	colTarget = "#5c6670"

	colAtTarget    = "#59a14f"
	colBelowTarget = "#f28e2b"
	colCopy        = "#9c9c9c"

	colRegression  = "#d62728"
	colImprovement = "#2ca02c"
	colSlower      = "#f2a5a5"
	colFaster      = "#a8dba0"
	colSame        = "#c4c4c4"
)

// kernelColours colour chart 1's panels, one per family/kernel.
var kernelColours = []string{"#4e79a7", "#76b7b2", "#b07aa1", "#edc948", "#9c755f", "#ff9da7", "#59a14f", "#e15759"}

func classColour(class string) string {
	switch class {
	case clsRegression:
		return colRegression
	case clsImprovement:
		return colImprovement
	case clsSlower:
		return colSlower
	case clsFaster:
		return colFaster
	}
	return colSame
}

// textWidth estimates the width of s in a sans-serif font of the given
// size; the layout only needs it to leave room for labels.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.6
}

const maxLabel = 40 // runes; longer labels are cut, with the whole in the tooltip

func shorten(s string) string {
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	r := []rune(s)
	return string(r[:maxLabel-1]) + "…"
}

// niceAxis returns the top of an axis that shows values up to max, and the
// step of its ticks: about n ticks of 1, 2, 2.5 or 5 × 10^k.
func niceAxis(max float64, n int) (top, step float64) {
	if !finite(max) || max <= 0 {
		max = 1
	}
	raw := max / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	top = math.Ceil(max/step-1e-9) * step
	return top, step
}

// ticks are the multiples of step from 0 to top.
func ticks(top, step float64) []float64 {
	var out []float64
	for i := 0; ; i++ {
		v := float64(i) * step
		if v > top+step*1e-6 {
			break
		}
		out = append(out, v)
	}
	return out
}

func tickLabel(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// barLabel is how a result is named within its kernel's group: the format
// for generated suites, the whole name otherwise (GGUF tensors).
func barLabel(x bench.Result) string {
	if x.Format != "" && x.Name == x.Kernel+"/"+x.Format {
		return clean(x.Format)
	}
	return clean(x.Name)
}

type group struct {
	title   string
	results []bench.Result
}

// groups splits results by family/kernel, in the order they first appear.
func groups(results []bench.Result) []group {
	var out []group
	idx := map[string]int{}
	for _, x := range results {
		key := x.Family + "\x00" + x.Kernel
		i, ok := idx[key]
		if !ok {
			title := clean(x.Kernel)
			switch {
			case x.Kernel == "":
				title = clean(x.Family)
			case x.Family != "" && !strings.HasPrefix(x.Kernel, x.Family):
				title = clean(x.Family) + " / " + clean(x.Kernel)
			}
			if title == "" {
				title = "(no family)"
			}
			i = len(out)
			idx[key] = i
			out = append(out, group{title: title})
		}
		out[i].results = append(out[i].results, x)
	}
	return out
}

func gbps(x bench.Result) float64 {
	if !finite(x.Stats.GBps) || x.Stats.GBps < 0 {
		return 0
	}
	return x.Stats.GBps
}

// throughputCharts is chart 1: a horizontal bar per benchmark, one panel per
// family/kernel, all on the same GB/s scale, with the roofline and its 85%.
func throughputCharts(results []bench.Result, roof float64) []*svg {
	gs := groups(results)
	maxV := roof
	for _, x := range results {
		maxV = math.Max(maxV, gbps(x))
	}
	top, step := niceAxis(maxV, 6)
	const (
		plotW  = 440.0
		rowH   = 18.0
		barH   = 13.0
		padTop = 36.0
		padBot = 38.0
		padR   = 78.0
	)
	var out []*svg
	for gi, g := range gs {
		labelW := 40.0
		for _, x := range g.results {
			labelW = math.Max(labelW, textWidth(shorten(barLabel(x)), 11)+12)
		}
		labelW = math.Min(labelW, 260)
		n := float64(len(g.results))
		c := &svg{
			ID:    fmt.Sprintf("throughput-%d", gi+1),
			Label: "throughput in GB/s per benchmark: " + g.title,
			W:     math.Ceil(labelW + plotW + padR),
			H:     padTop + n*rowH + padBot,
		}
		x0, y0, yEnd := labelW, padTop, padTop+n*rowH
		sx := func(v float64) float64 { return x0 + plotW*v/top }
		c.text(4, 15, g.title, "start", 13, colText).Bold = true
		for _, t := range ticks(top, step) {
			c.line(sx(t), y0, sx(t), yEnd, colGrid, 1, "")
			c.text(sx(t), yEnd+14, tickLabel(t), "middle", 10, colMuted)
		}
		c.line(x0, y0, x0, yEnd, colAxis, 1, "")
		c.text(x0+plotW/2, yEnd+31, "GB/s (bytes read + written per second)", "middle", 10, colMuted)
		fill := kernelColours[gi%len(kernelColours)]
		for i, x := range g.results {
			y := y0 + float64(i)*rowH + (rowH-barH)/2
			v := gbps(x)
			tip := fmt.Sprintf("%s: %s GB/s, %s G elem/s, mean %s", clean(x.Name), fmtRate(v), fmtRate(x.Stats.ElemsPS/1e9), fmtDur(x.Stats.Mean))
			if pc := pctCopy(x, roof); pc > 0 {
				tip += fmt.Sprintf(", %.1f%% of copy", pc)
			}
			c.rect(x0, y, sx(v)-x0, barH, fill, tip)
			c.text(x0-6, y+barH-3, shorten(barLabel(x)), "end", 11, colText)
		}
		// The lines go over the bars (a kernel may pass the roofline), the
		// values over the lines.
		if roof > 0 {
			c.line(sx(Target*roof), y0-4, sx(Target*roof), yEnd, colTarget, 1, "2 3")
			c.text(sx(Target*roof)-3, y0-7, "85%", "end", 10, colTarget)
			c.line(sx(roof), y0-4, sx(roof), yEnd, colRoof, 1.5, "6 3")
			c.text(sx(roof)+3, y0-7, "copy "+fmtRate(roof), "start", 10, colRoof)
		}
		for i, x := range g.results {
			y := y0 + float64(i)*rowH + (rowH-barH)/2
			v := gbps(x)
			c.text(sx(v)+4, y+barH-3, fmtRate(v), "start", 10, colMuted).Halo = true
		}
		out = append(out, c)
	}
	return out
}

func rooflineLegend() []legend {
	return []legend{
		{colAtTarget, "≥ 85% of the copy roofline"},
		{colBelowTarget, "below 85%"},
		{colCopy, "the copy benchmark itself"},
	}
}

// rooflineChart is chart 2: a column per benchmark, grouped by kernel, under
// the copy roofline and its 85% line.
func rooflineChart(results []bench.Result, roof float64) *svg {
	gs := groups(results)
	maxV := roof
	labelLen := 30.0
	for _, x := range results {
		maxV = math.Max(maxV, gbps(x))
		labelLen = math.Max(labelLen, textWidth(shorten(barLabel(x)), 10))
	}
	labelLen = math.Min(labelLen, 180)
	top, step := niceAxis(maxV, 6)
	const (
		colW   = 14.0
		colGap = 6.0
		plotH  = 300.0
		padL   = 58.0
		padTop = 30.0
		padR   = 170.0
	)
	n := float64(len(results))
	plotW := n*(colW+colGap) + colGap
	c := &svg{
		ID:    "roofline",
		Label: "each benchmark's GB/s against the copy roofline of " + fmtRate(roof) + " GB/s",
		W:     math.Ceil(padL + plotW + padR),
		H:     math.Ceil(padTop + plotH + 10 + labelLen*0.87 + 16),
	}
	x0, y0, yEnd := padL, padTop, padTop+plotH
	sy := func(v float64) float64 { return yEnd - plotH*v/top }
	// Bands behind each group, with its name.
	col := 0
	for gi, g := range gs {
		bx := x0 + float64(col)*(colW+colGap)
		bw := float64(len(g.results))*(colW+colGap) + colGap
		if gi%2 == 0 {
			c.rect(bx, y0, bw, plotH, colBand, "")
		}
		c.text(bx+3, y0-6, g.title, "start", 10, colMuted)
		col += len(g.results)
	}
	for _, t := range ticks(top, step) {
		c.line(x0, sy(t), x0+plotW, sy(t), colGrid, 1, "")
		c.text(x0-6, sy(t)+3.5, tickLabel(t), "end", 10, colMuted)
	}
	c.line(x0, yEnd, x0+plotW, yEnd, colAxis, 1, "")
	c.line(x0, y0, x0, yEnd, colAxis, 1, "")
	c.text(16, y0+plotH/2, "GB/s", "middle", 10, colMuted).Rot = -90
	for i, x := range results {
		cx := x0 + colGap + float64(i)*(colW+colGap)
		v := gbps(x)
		pc := pctCopy(x, roof)
		fill := colAtTarget
		switch {
		case x.Family == "copy":
			fill = colCopy
		case pc < 100*Target:
			fill = colBelowTarget
		}
		tip := fmt.Sprintf("%s: %s GB/s, %.1f%% of the copy roofline", clean(x.Name), fmtRate(v), pc)
		c.rect(cx, sy(v), colW, yEnd-sy(v), fill, tip)
		lx, ly := cx+colW/2+3, yEnd+10
		t := c.text(lx, ly, shorten(barLabel(x)), "end", 10, colText)
		t.Rot = -60
	}
	yr, yt := sy(roof), sy(Target*roof)
	c.line(x0, yt, x0+plotW, yt, colTarget, 1, "2 3")
	c.text(x0+plotW+6, yt+3.5, "85% · "+fmtRate(Target*roof)+" GB/s", "start", 10, colTarget)
	c.line(x0, yr, x0+plotW, yr, colRoof, 1.5, "6 3")
	c.text(x0+plotW+6, yr+3.5, "copy roofline "+fmtRate(roof)+" GB/s", "start", 10, colRoof).Bold = true
	c.text(x0+plotW+6, yr+15.5, "(device copy, this run)", "start", 9, colMuted)
	return c
}

// deltaLegend explains chart 3's colours.
func deltaLegend(threshold float64) []legend {
	t := trimFloat(threshold) + "%"
	return []legend{
		{colRegression, "regression: slower by ≥ " + t + ", significant"},
		{colSlower, "slower, below " + t},
		{colSame, "no significant change (~)"},
		{colFaster, "faster, below " + t},
		{colImprovement, "improvement: faster by ≥ " + t + ", significant"},
	}
}

// deltaChart is chart 3: per benchmark in both runs, the change of its
// median time against the baseline, as a bar right (slower) or left (faster)
// of zero, with the threshold marked on both sides.
func deltaChart(cmp *comparison, threshold float64) *svg {
	const (
		plotW  = 520.0
		rowH   = 16.0
		barH   = 11.0
		padTop = 30.0
		padBot = 38.0
		padR   = 110.0
	)
	labelW := 60.0
	for _, d := range cmp.deltas {
		labelW = math.Min(280, math.Max(labelW, textWidth(shorten(clean(d.name)), 11)+12))
	}
	r, step := niceAxis(math.Max(cmp.maxAbsPct(), 2*threshold), 4)
	n := float64(len(cmp.deltas))
	c := &svg{
		ID:    "baseline",
		Label: "change of each benchmark's median time against the baseline",
		W:     math.Ceil(labelW + plotW + padR),
		H:     padTop + math.Max(n, 1)*rowH + padBot,
	}
	x0, y0, yEnd := labelW, padTop, padTop+math.Max(n, 1)*rowH
	mid := x0 + plotW/2
	sx := func(pct float64) float64 { return mid + (plotW/2)*pct/r }
	c.text(x0, 14, "← faster", "start", 11, colImprovement).Bold = true
	c.text(x0+plotW, 14, "slower →", "end", 11, colRegression).Bold = true
	for _, t := range ticks(r, step) {
		for _, s := range []float64{-1, 1} {
			if t == 0 && s < 0 {
				continue
			}
			v := s * t
			c.line(sx(v), y0, sx(v), yEnd, colGrid, 1, "")
			lbl := tickLabel(v) + "%"
			if v > 0 {
				lbl = "+" + lbl
			}
			c.text(sx(v), yEnd+14, lbl, "middle", 10, colMuted)
		}
	}
	for _, s := range []float64{-1, 1} {
		c.line(sx(s*threshold), y0-4, sx(s*threshold), yEnd, colTarget, 1, "2 3")
	}
	c.text(sx(threshold)+3, y0-6, "+"+trimFloat(threshold)+"%", "start", 10, colTarget)
	c.text(sx(-threshold)-3, y0-6, "−"+trimFloat(threshold)+"%", "end", 10, colTarget)
	c.text(mid, yEnd+31, "change in median time per iteration vs the baseline", "middle", 10, colMuted)
	if n == 0 {
		c.text(mid, y0+12, "no benchmark is in both runs", "middle", 11, colMuted)
	}
	for i, d := range cmp.deltas {
		y := y0 + float64(i)*rowH + (rowH-barH)/2
		p := math.Max(-r, math.Min(r, d.pct))
		x1, x2 := mid, sx(p)
		if x2 < x1 {
			x1, x2 = x2, x1
		}
		c.rect(x1, y, math.Max(1, x2-x1), barH, classColour(d.class), d.tip())
		c.text(x0-6, y+barH-2, shorten(clean(d.name)), "end", 11, colText)
		t := c.text(x0+plotW+8, y+barH-2, d.label(), "start", 10, colText)
		if d.class == clsRegression || d.class == clsImprovement {
			t.Bold = true
			t.Fill = classColour(d.class)
		} else {
			t.Fill = colMuted
		}
	}
	c.line(mid, y0-4, mid, yEnd, colText, 1, "")
	return c
}

func durationOf(ns float64) time.Duration {
	return time.Duration(math.Round(ns))
}
