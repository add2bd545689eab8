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
	Tip   string // <title> of the whole chart (a table cell's box plot)
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
	Class      string  // class attribute (what a test or a style picks out)
	Data       string  // data-v: the value a tick or a ceiling stands for
	R          float64 // a circle's radius
	Pt         *point  // a roofline point's data attributes
}

// point is what a roofline point carries for its reader (and for the DOM
// checks): the benchmark, its intensity and attained rate, as numbers.
type point struct {
	Name, Kernel string
	Intensity    string // operations per byte
	GFLOPS       string // attained 1e9 operations per second
	Ops          string // "flop", or "elem" (one operation per element)
	Bound        string // "memory" or "compute": the ceiling over it
}

func (c *svg) rect(x, y, w, h float64, fill, tip string) {
	c.Items = append(c.Items, item{Kind: "rect", X: x, Y: y, W: math.Max(0, w), H: math.Max(0, h), Fill: fill, Tip: tip})
}

func (c *svg) line(x1, y1, x2, y2 float64, stroke string, width float64, dash string) {
	c.Items = append(c.Items, item{Kind: "line", X: x1, Y: y1, X2: x2, Y2: y2, Stroke: stroke, SW: width, Dash: dash})
}

func (c *svg) circle(x, y, r float64, fill, stroke string, width float64, tip string, pt *point) {
	c.Items = append(c.Items, item{Kind: "circle", X: x, Y: y, R: r, Fill: fill, Stroke: stroke, SW: width, Tip: tip, Pt: pt, Class: "pt"})
}

// classed marks the last item with a class and a data-v value.
func (c *svg) classed(class, data string) {
	c.Items[len(c.Items)-1].Class = class
	c.Items[len(c.Items)-1].Data = data
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

	colCopy = "#9c9c9c"
	colPeak = "#6a3d9a"

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

// barLabel is how a result is named within its kernel's group, the same
// way for every family: its name less the kernel (or suite) it is grouped
// under, so "Q4_0" for dequant_f32/Q4_0 and "Q4_K/4096x4096" for
// matvec_f32/Q4_K/4096x4096; the whole name where there is no such prefix
// (GGUF tensors).
func barLabel(x bench.Result) string {
	for _, p := range []string{x.Kernel, x.Suite} {
		if rest, ok := strings.CutPrefix(x.Name, p+"/"); p != "" && ok && rest != "" {
			return clean(rest)
		}
	}
	return clean(x.Name)
}

type group struct {
	key   string // family and kernel: what colours the group in every chart
	title string
	figs  []fig
}

// groupKey is what groups a result: its family and kernel.
func groupKey(x bench.Result) string { return x.Family + "\x00" + x.Kernel }

// groupTitle names a group the same way in every chart, legend and
// tooltip: the kernel, prefixed by the family where the kernel's name does
// not start with it; the family alone for a suite without a kernel.
func groupTitle(x bench.Result) string {
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
	return title
}

// groups splits figs by family/kernel, in the order they first appear.
func groups(figs []fig) []group {
	var out []group
	idx := map[string]int{}
	for _, f := range figs {
		key := groupKey(f.x)
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, group{key: key, title: groupTitle(f.x)})
		}
		out[i].figs = append(out[i].figs, f)
	}
	return out
}

// palette gives each family/kernel of the run one colour, used by every
// chart and legend of the page.
type palette map[string]string

func newPalette(figs []fig) palette {
	p := palette{}
	for i, g := range groups(figs) {
		p[g.key] = kernelColours[i%len(kernelColours)]
	}
	return p
}

func (p palette) of(x bench.Result) string {
	if c, ok := p[groupKey(x)]; ok {
		return c
	}
	return colCopy
}

// barPanels draws a horizontal bar per fig, one panel per family/kernel,
// all on the same linear scale: the value of value(f) (figs for which it
// is not positive are left out), labelled with unit, with optional marks
// (the copy roofline and 85% of it, compute peaks) drawn over the bars
// where they fall within the axis. idPrefix names the panels
// (idPrefix-1, …).
func barPanels(figs []fig, pal palette, idPrefix, what, axisTitle string, value func(*fig) float64,
	tip func(*fig) string, marks []mark) []*svg {
	var kept []fig
	maxV := 0.0
	for _, f := range figs {
		if v := value(&f); finite(v) && v > 0 {
			kept = append(kept, f)
			maxV = math.Max(maxV, v)
		}
	}
	for _, m := range marks {
		if m.always {
			maxV = math.Max(maxV, m.v)
		}
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
	for gi, g := range groups(kept) {
		labelW := 40.0
		for _, f := range g.figs {
			labelW = math.Max(labelW, textWidth(shorten(barLabel(f.x)), 11)+12)
		}
		labelW = math.Min(labelW, 260)
		n := float64(len(g.figs))
		c := &svg{
			ID:    fmt.Sprintf("%s-%d", idPrefix, gi+1),
			Label: what + " per benchmark: " + g.title,
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
		c.text(x0+plotW/2, yEnd+31, axisTitle, "middle", 10, colMuted)
		fill := pal.of(g.figs[0].x)
		for i := range g.figs {
			f := &g.figs[i]
			y := y0 + float64(i)*rowH + (rowH-barH)/2
			c.rect(x0, y, sx(value(f))-x0, barH, fill, tip(f))
			c.text(x0-6, y+barH-3, shorten(barLabel(f.x)), "end", 11, colText)
		}
		// The marks go over the bars (a kernel may pass the roofline), the
		// values over the marks.
		for _, m := range marks {
			if m.v <= 0 || m.v > top*(1+1e-9) {
				continue
			}
			c.line(sx(m.v), y0-4, sx(m.v), yEnd, m.colour, m.width, m.dash)
			c.classed(m.class, trimFloat(m.v))
			if m.left {
				c.text(sx(m.v)-3, y0-7, m.label, "end", 10, m.colour)
			} else {
				c.text(sx(m.v)+3, y0-7, m.label, "start", 10, m.colour)
			}
		}
		for i := range g.figs {
			f := &g.figs[i]
			y := y0 + float64(i)*rowH + (rowH-barH)/2
			c.text(sx(value(f))+4, y+barH-3, fmtRate(value(f)), "start", 10, colMuted).Halo = true
		}
		out = append(out, c)
	}
	return out
}

// mark is a vertical line across a bar panel.
type mark struct {
	v             float64
	label, colour string
	width         float64
	dash, class   string
	left          bool // label to the left of the line
	always        bool // widen the axis to show it
}

// memoryBound reports whether a result belongs on the bandwidth panels,
// where its GB/s is set against the copy roofline: a result that counts
// no FLOPs (dequant, copy), or one whose intensity is below the ridge
// point of the lowest compute ceiling (where the memory ceiling is the
// lower roof). With no compute ceiling known, of the families that count
// FLOPs only matvec: two FLOPs per weight read keep it far below any
// device's ridge point. A matmul's GB/s against a copy line says nothing;
// the compute panel and the roofline have it.
func memoryBound(f *fig, roof float64, ceilings []Ceiling) bool {
	switch {
	case !f.flop:
		return true
	case len(ceilings) == 0 || roof <= 0:
		return f.x.Family == "matvec"
	}
	return f.intensity() < ceilings[len(ceilings)-1].GFLOPS/roof
}

// throughputCharts is the bandwidth view: GB/s per memory-bound benchmark
// (bytes read + written over the median time), a panel per family/kernel,
// with the copy roofline and 85% of it.
func throughputCharts(figs []fig, pal palette, roof float64, ceilings []Ceiling) []*svg {
	var mem []fig
	for i := range figs {
		if memoryBound(&figs[i], roof, ceilings) {
			mem = append(mem, figs[i])
		}
	}
	figs = mem
	var marks []mark
	if roof > 0 {
		marks = []mark{
			{v: Target * roof, label: "85%", colour: colTarget, width: 1, dash: "2 3", class: "target", left: true, always: true},
			{v: roof, label: "copy " + fmtRate(roof), colour: colRoof, width: 1.5, dash: "6 3", class: "ceiling-mem", always: true},
		}
	}
	return barPanels(figs, pal, "throughput", "throughput in GB/s", "GB/s (bytes read + written per second, from the median time)",
		func(f *fig) float64 { return f.gbps },
		func(f *fig) string {
			tip := fmt.Sprintf("%s: %s GB/s, %s G elem/s, median %s", clean(f.x.Name), fmtRate(f.gbps), fmtRate(f.elemsPS/1e9), fmtSec(f.sec))
			if f.pct > 0 {
				tip += fmt.Sprintf(", %.1f%% of copy", f.pct)
			}
			if f.tool != "" {
				tip += " (" + f.tool + "'s kernel duration)"
			}
			return tip
		}, marks)
}

// computeCharts is the GFLOPS/TFLOPS panel: the attained rate of each
// benchmark that counts FLOPs (matvec, matmul, attention, model), from the
// median time, in TFLOPS when the fastest passes 1000 GFLOPS, with the
// device's compute peaks where they fall within the axis.
func computeCharts(figs []fig, pal palette, ceilings []Ceiling) ([]*svg, string) {
	maxV := 0.0
	for _, f := range figs {
		if f.flop && finite(f.gflops) {
			maxV = math.Max(maxV, f.gflops)
		}
	}
	if maxV <= 0 {
		return nil, ""
	}
	unit, div := "GFLOPS", 1.0
	if maxV >= 1000 {
		unit, div = "TFLOPS", 1000
	}
	var marks []mark
	for i, c := range ceilings {
		dash := "6 3"
		if i > 0 {
			dash = "2 3"
		}
		// A peak up to twice the fastest widens the axis; a higher one is
		// left to the tooltips (989 TFLOPS would flatten 40 into a sliver).
		marks = append(marks, mark{v: c.GFLOPS / div, label: c.Name + " " + fmtRate(c.GFLOPS/div), colour: colPeak, width: 1.5, dash: dash,
			class: "ceiling-compute", always: c.GFLOPS <= 2*maxV})
	}
	charts := barPanels(figs, pal, "compute", "attained "+unit, unit+" (FLOPs per second, from the median time)",
		func(f *fig) float64 {
			if !f.flop {
				return 0
			}
			return f.gflops / div
		},
		func(f *fig) string {
			tip := fmt.Sprintf("%s: %s %s (%s FLOP per iteration, median %s)", clean(f.x.Name), fmtRate(f.gflops/div), unit, fmtCount(float64(f.x.FLOPs)), fmtSec(f.sec))
			for _, c := range ceilings {
				tip += fmt.Sprintf(", %.2g%% of the %s peak", 100*f.gflops/c.GFLOPS, c.Name)
			}
			if f.tool != "" {
				tip += " (" + f.tool + "'s kernel duration)"
			}
			return tip
		}, marks)
	return charts, unit
}

// deltaLegend explains chart 3's colours.
func deltaLegend(threshold float64) []legend {
	t := trimFloat(threshold) + "%"
	return []legend{
		{Fill: colRegression, Label: "regression: slower by ≥ " + t + ", significant"},
		{Fill: colSlower, Label: "slower, below " + t},
		{Fill: colSame, Label: "no significant change (~)"},
		{Fill: colFaster, Label: "faster, below " + t},
		{Fill: colImprovement, Label: "improvement: faster by ≥ " + t + ", significant"},
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
