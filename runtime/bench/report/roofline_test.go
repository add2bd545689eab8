package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

// expected is what a test computes itself of a result, from its samples:
// the roofline's operations per iteration (FLOPs, or one per element for
// dequant), its intensity and its attained rate at the median time.
type expected struct {
	ops, bytes, medianNs float64
	flop                 bool
}

func (e expected) intensity() float64 { return e.ops / e.bytes }
func (e expected) gflops() float64    { return e.ops / e.medianNs }

func expect(x bench.Result) expected {
	s := slices.Clone(x.Samples)
	slices.Sort(s)
	n := len(s)
	med := float64(s[n/2])
	if n%2 == 0 {
		med = (float64(s[n/2-1]) + float64(s[n/2])) / 2
	}
	e := expected{bytes: float64(x.BytesRead + x.BytesWritten), medianNs: med}
	if x.FLOPs > 0 {
		e.ops, e.flop = float64(x.FLOPs), true
	} else {
		e.ops = float64(x.Elements)
	}
	return e
}

func attrFloat(t *testing.T, n *node, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.Attr[name], 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.Name, name, n.Attr[name], err)
	}
	return v
}

// logScale maps values to coordinates as the chart's decade ticks place
// them: from two ticks (value, coordinate), log-linear.
type logScale struct{ v0, c0, v1, c1 float64 }

func (s logScale) at(v float64) float64 {
	return s.c0 + (s.c1-s.c0)*math.Log10(v/s.v0)/math.Log10(s.v1/s.v0)
}

func (s logScale) inv(c float64) float64 {
	return s.v0 * math.Pow(s.v1/s.v0, (c-s.c0)/(s.c1-s.c0))
}

// tickScale reads the scale off the chart's tick lines of class (xtick:
// their x1, ytick: their y1).
func tickScale(t *testing.T, chart *node, class, coord string) logScale {
	t.Helper()
	var ticks [][2]float64
	for _, l := range chart.all("line") {
		if l.Attr["class"] == class {
			ticks = append(ticks, [2]float64{attrFloat(t, l, "data-v"), attrFloat(t, l, coord)})
		}
	}
	if len(ticks) < 2 {
		t.Fatalf("%d %s lines", len(ticks), class)
	}
	// The ticks are evenly spaced decades.
	for i := 1; i < len(ticks); i++ {
		if r := ticks[i][0] / ticks[i-1][0]; math.Abs(r-10) > 1e-9 {
			t.Errorf("%s ticks %v and %v are not a decade apart", class, ticks[i-1][0], ticks[i][0])
		}
		d0, d := ticks[1][1]-ticks[0][1], ticks[i][1]-ticks[i-1][1]
		if math.Abs(d-d0) > 0.15 {
			t.Errorf("%s ticks unevenly spaced: %v then %v", class, d0, d)
		}
	}
	first, last := ticks[0], ticks[len(ticks)-1]
	return logScale{first[0], first[1], last[0], last[1]}
}

// TestRooflinePointsPlaced: every benchmark but copy is a point at its own
// arithmetic intensity (FLOPs, or for dequant one operation per element,
// over bytes read + written) and attained rate (from its median time),
// where the chart's own log axes put those values; the memory ceiling is
// the run's copy bandwidth times the intensity; the compute ceilings are
// the H100's peaks, each from its ridge point.
func TestRooflinePointsPlaced(t *testing.T) {
	run := matrixRun(1)
	doc := parseXML(t, render(t, run, Options{}))
	chart := doc.byID("roofline")
	if chart == nil {
		t.Fatal("no roofline chart")
	}
	sx, sy := tickScale(t, chart, "xtick", "x1"), tickScale(t, chart, "ytick", "y1")
	byName := map[string]bench.Result{}
	for _, x := range run.Results {
		byName[x.Name] = x
	}
	pts := chart.all("circle")
	if len(pts) != len(run.Results)-1 {
		t.Fatalf("%d points, want %d (every result but copy)", len(pts), len(run.Results)-1)
	}
	seen := map[string]bool{}
	var flops int
	for _, c := range pts {
		name := c.Attr["data-name"]
		x, ok := byName[name]
		if !ok || seen[name] {
			t.Errorf("point %q: not a result, or twice", name)
			continue
		}
		seen[name] = true
		if x.Family == "copy" {
			t.Errorf("copy is a point")
		}
		e := expect(x)
		if e.flop {
			flops++
		}
		wantOps := map[bool]string{true: "flop", false: "elem"}[e.flop]
		if c.Attr["data-ops"] != wantOps {
			t.Errorf("%s: data-ops %q, want %q", name, c.Attr["data-ops"], wantOps)
		}
		// The data attributes hold 4 significant digits.
		if got := attrFloat(t, c, "data-intensity"); math.Abs(got/e.intensity()-1) > 5e-4 {
			t.Errorf("%s: data-intensity %v, want %v", name, got, e.intensity())
		}
		if got := attrFloat(t, c, "data-gflops"); math.Abs(got/e.gflops()-1) > 5e-4 {
			t.Errorf("%s: data-gflops %v, want %v (from the median)", name, got, e.gflops())
		}
		// The coordinates hold 2 decimals.
		if got, want := attrFloat(t, c, "cx"), sx.at(e.intensity()); math.Abs(got-want) > 0.02 {
			t.Errorf("%s: cx %v, want %v for intensity %v", name, got, want, e.intensity())
		}
		if got, want := attrFloat(t, c, "cy"), sy.at(e.gflops()); math.Abs(got-want) > 0.02 {
			t.Errorf("%s: cy %v, want %v for %v GFLOP/s", name, got, want, e.gflops())
		}
		// Memory-bound left of the f16 ridge point (989.4 TFLOPS ÷ 2924 GB/s).
		wantBound := "memory"
		if e.intensity() > 989400.0/benchtest.CopyGBps {
			wantBound = "compute"
		}
		if c.Attr["data-bound"] != wantBound {
			t.Errorf("%s: data-bound %q, want %q at intensity %v", name, c.Attr["data-bound"], wantBound, e.intensity())
		}
		if tip := c.all("title"); len(tip) != 1 || !strings.HasPrefix(tip[0].Text, name+": intensity ") {
			t.Errorf("%s: no hover details", name)
		}
	}
	if flops != len(matrixBenches) {
		t.Errorf("%d points count FLOPs, want the %d matrix benchmarks", flops, len(matrixBenches))
	}

	// The ceilings, read back through the same axes.
	var mem, comp []*node
	for _, l := range chart.all("line") {
		switch l.Attr["class"] {
		case "ceiling-mem":
			mem = append(mem, l)
		case "ceiling-compute":
			comp = append(comp, l)
		}
	}
	if len(mem) != 1 || len(comp) != 2 {
		t.Fatalf("%d memory and %d compute ceilings", len(mem), len(comp))
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got/want-1) > 3e-3 { // coordinates rounded to 0.1 unit
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	m := mem[0]
	for _, end := range [][2]string{{"x1", "y1"}, {"x2", "y2"}} {
		i, g := sx.inv(attrFloat(t, m, end[0])), sy.inv(attrFloat(t, m, end[1]))
		near("memory ceiling GB/s at "+end[0], g/i, benchtest.CopyGBps)
	}
	near("memory ceiling's top", sy.inv(attrFloat(t, m, "y2")), 989400)
	for i, want := range []float64{989400, 66900} {
		l := comp[i]
		near("compute ceiling", sy.inv(attrFloat(t, l, "y1")), want)
		near("compute ceiling's ridge point", sx.inv(attrFloat(t, l, "x1")), want/benchtest.CopyGBps)
		if attrFloat(t, l, "y1") != attrFloat(t, l, "y2") {
			t.Error("a compute ceiling is not level")
		}
	}
}

// TestComputePanel: the benchmarks that count FLOPs get a GFLOPS/TFLOPS
// panel, and a matmul's GB/s is not set against the copy roofline.
func TestComputePanel(t *testing.T) {
	run := matrixRun(1)
	doc := parseXML(t, render(t, run, Options{}))
	sec := doc.byID("compute-section")
	if sec == nil {
		t.Fatal("no compute section")
	}
	var titles []string
	bars := 0
	for i := 1; ; i++ {
		p := doc.byID("compute-" + strconv.Itoa(i))
		if p == nil {
			break
		}
		titles = append(titles, p.all("text")[0].Text)
		for _, r := range p.all("rect") {
			bars++
			tip := r.all("title")[0].Text
			if !strings.Contains(tip, " TFLOPS (") || !strings.Contains(tip, "of the f16 tensor core (dense) peak") {
				t.Errorf("compute bar tooltip %q", tip)
			}
		}
		if strings.Contains(p.texts(), "copy 2924") {
			t.Errorf("compute panel %d has the copy roofline", i)
		}
	}
	if strings.Join(titles, ",") != "matvec_f32,matvec_x8,matmul_f32" || bars != len(matrixBenches) {
		t.Errorf("compute panels %q with %d bars", titles, bars)
	}
	// The f32 peak (66.9) is within twice the fastest matmul (47 TFLOPS):
	// drawn; the f16 one (989) is not.
	var peaks []string
	for _, l := range doc.byID("compute-3").all("line") {
		if l.Attr["class"] == "ceiling-compute" {
			peaks = append(peaks, l.Attr["data-v"])
		}
	}
	if strings.Join(peaks, ",") != "66.9" {
		t.Errorf("matmul panel's peaks %q, want the f32 one", peaks)
	}
	for i := 1; ; i++ {
		p := doc.byID("throughput-" + strconv.Itoa(i))
		if p == nil {
			break
		}
		if title := p.all("text")[0].Text; title == "matmul_f32" {
			t.Error("matmul has a GB/s panel against the copy roofline")
		}
	}
	if doc.byID("throughput-4") == nil || doc.byID("throughput-4").all("text")[0].Text != "matvec_f32" {
		t.Error("matvec (memory-bound) has no GB/s panel")
	}
}

// TestMedianEverywhere: the table's and the charts' throughputs come from
// the median time, as the table headlines it, however the samples skew the
// mean; stored figures (an older forgebench's, from the mean) are not used.
func TestMedianEverywhere(t *testing.T) {
	run := matrixRun(1)
	i := slices.IndexFunc(run.Results, func(x bench.Result) bool { return x.Name == "matvec_f32/Q4_K/4096x4096" })
	x := &run.Results[i]
	for k := 0; k < 12; k++ { // 12 of 52 samples 3× slower: the mean moves 46%, the median little
		x.Samples = append(x.Samples, 3*x.Stats.P50)
	}
	x.Stats.GBps, x.Stats.GFLOPS = 1, 1 // as if stored from the mean by an older writer
	e := expect(*x)
	gbps := e.bytes / e.medianNs
	doc := parseXML(t, render(t, run, Options{}))
	row := doc.byID("results").all("tbody")[0].all("tr")[i].all("td")
	if row[0].Text != x.Name || row[10].Text != fmtRate(gbps) || row[12].Text != fmtRate(e.ops/e.medianNs) {
		t.Errorf("row %s: GB/s %q GFLOPS %q, want %s and %s from the median", row[0].Text, row[10].Text, row[12].Text, fmtRate(gbps), fmtRate(e.ops/e.medianNs))
	}
	mean := 0.0
	for _, s := range x.Samples {
		mean += float64(s)
	}
	mean /= float64(len(x.Samples))
	if fmtRate(e.bytes/mean) == row[10].Text {
		t.Fatal("the fixture does not tell the mean from the median")
	}
	var tip string
	for _, r := range doc.byID("throughput-4").all("rect") {
		if tt := r.all("title")[0].Text; strings.HasPrefix(tt, x.Name+":") {
			tip = tt
		}
	}
	if !strings.HasPrefix(tip, x.Name+": "+fmtRate(gbps)+" GB/s") || !strings.Contains(tip, "median "+fmtDur(durationOf(e.medianNs))) {
		t.Errorf("bar tooltip %q, want %s GB/s at the median", tip, fmtRate(gbps))
	}
}

// TestNoiseFlag: a benchmark whose coefficient of variation passes
// bench.NoiseCV is flagged in its row and named in a banner; steady ones
// are not.
func TestNoiseFlag(t *testing.T) {
	run := matrixRun(1)
	if doc := parseXML(t, render(t, run, Options{})); doc.byID("noisy") != nil {
		t.Error("a noise banner over a steady run")
	}
	noisy(run, 3, 0.25)
	doc := parseXML(t, render(t, run, Options{}))
	banner := doc.byID("noisy")
	if banner == nil {
		t.Fatal("no noise banner")
	}
	if txt := banner.texts(); !strings.Contains(txt, "1 benchmark varies by more than 5%") || !strings.Contains(txt, "dequant_f32/Q4_0") {
		t.Errorf("banner %q", txt)
	}
	for i, tr := range doc.byID("results").all("tbody")[0].all("tr") {
		cv := tr.all("td")[8]
		flagged := strings.Contains(cv.Attr["class"], "noisy")
		if flagged != (i == 3) {
			t.Errorf("row %d (%s): CV %q class %q", i, tr.all("td")[0].Text, cv.Text, cv.Attr["class"])
		}
		if i == 3 {
			if v, _ := strconv.ParseFloat(strings.TrimSuffix(cv.Text, "%"), 64); v < 15 || !strings.Contains(cv.Attr["title"], "noisy") {
				t.Errorf("noisy CV cell %q (%q)", cv.Text, cv.Attr["title"])
			}
			// Its distribution is cut at the common scale, and marked so.
			if d := tr.all("svg"); len(d) != 1 || !strings.Contains(d[0].all("title")[0].Text, "past the scale") {
				t.Error("the noisy row's distribution is not marked as cut")
			}
		}
	}
}

// TestTailQuantileCells: p95 and p99 are shown only from 20 and 100
// samples; below, a dash with the reason.
func TestTailQuantileCells(t *testing.T) {
	run := benchtest.Run(1,
		benchtest.Bench{Name: "dequant_f32/Q4_0", Center: 50 * time.Microsecond, Samples: 5},
		benchtest.Bench{Name: "dequant_f32/Q8_0", Center: 50 * time.Microsecond, Samples: 40},
		benchtest.Bench{Name: "dequant_f32/Q4_K", Center: 50 * time.Microsecond, Samples: 120})
	doc := parseXML(t, render(t, run, Options{}))
	rows := doc.byID("results").all("tbody")[0].all("tr")
	for i, want := range [][2]bool{{false, false}, {true, false}, {true, true}} {
		td := rows[i].all("td")
		for k, shown := range want {
			c := td[6+k]
			if got := c.Text != "—"; got != shown {
				t.Errorf("%s: p%s cell %q, want shown=%v", td[0].Text, []string{"95", "99"}[k], c.Text, shown)
			}
			if !shown && (!strings.Contains(c.Attr["class"], "na") || !strings.Contains(c.Attr["title"], "too few")) {
				t.Errorf("%s: hidden quantile without its reason: %v", td[0].Text, c.Attr)
			}
		}
	}
}

// TestProfiledRun: a run measured under a profiler says so in a banner,
// strikes forge's inflated times, charts the profiler's durations (and
// nothing for a benchmark it has none for) and compares with no baseline.
func TestProfiledRun(t *testing.T) {
	run := profiledRun(1)
	doc := parseXML(t, render(t, run, Options{Baseline: matrixRun(2)}))
	banner := doc.byID("profiled")
	if banner == nil {
		t.Fatal("no profiled banner")
	}
	if txt := banner.texts(); !strings.Contains(txt, "measured under ncu (50 of 51 results") || !strings.Contains(txt, "inflated") {
		t.Errorf("banner %q", txt)
	}
	rows := doc.byID("results").all("tbody")[0].all("tr")
	for _, tr := range rows {
		if tr.Attr["class"] != "profiled" {
			t.Errorf("%s: row class %q", tr.all("td")[0].Text, tr.Attr["class"])
		}
	}
	// GB/s from ncu's duration, not from the inflated samples.
	x := run.Results[0]
	p50, _ := metric(x, "ncu_p50")
	want := fmtRate(float64(x.BytesRead+x.BytesWritten) / p50 / 1e9)
	if got := rows[0].all("td")[10].Text; got != want {
		t.Errorf("GB/s %q, want %q from ncu_p50", got, want)
	}
	chart := doc.byID("roofline")
	if chart == nil {
		t.Fatal("no roofline chart")
	}
	if n := len(chart.all("circle")); n != len(run.Results)-2 {
		t.Errorf("%d points, want %d (not copy, not the benchmark ncu did not time)", n, len(run.Results)-2)
	}
	for _, c := range chart.all("circle") {
		if !strings.Contains(c.all("title")[0].Text, "(ncu's kernel duration)") {
			t.Errorf("point %s does not say whose time it is", c.Attr["data-name"])
		}
	}
	last := run.Results[len(run.Results)-1].Name
	if !strings.Contains(doc.byID("roofline-section").texts(), "Not placed (no bytes, no operations or no time): "+last) {
		t.Errorf("the untimed benchmark is not named")
	}
	if doc.byID("baseline") != nil || doc.byID("no-comparison") == nil || doc.byID("summary") != nil {
		t.Error("a profiled run compared with a baseline")
	}
	// A plain run against a profiled baseline: no comparison either.
	doc = parseXML(t, render(t, matrixRun(2), Options{Baseline: run}))
	if doc.byID("baseline") != nil || !strings.Contains(doc.byID("no-comparison").texts(), "The baseline was measured under ncu") {
		t.Error("a run compared with a profiled baseline")
	}
	if doc.byID("profiled") != nil {
		t.Error("a plain run has the profiled banner")
	}
}

// TestLabelsConsistent: a family/kernel has one name and one colour in
// every chart, legend and tooltip; a bar or point is named the same way in
// every family (its name less its kernel); the legends list only what is
// drawn.
func TestLabelsConsistent(t *testing.T) {
	run := matrixRun(1)
	doc := parseXML(t, render(t, run, Options{}))
	colour := map[string]string{} // group title → colour
	use := func(where, group, col string) {
		t.Helper()
		if c, ok := colour[group]; ok && c != col {
			t.Errorf("%s: %s is %s here, %s elsewhere", where, group, col, c)
		}
		colour[group] = col
	}
	byName := map[string]bench.Result{}
	for _, x := range run.Results {
		byName[x.Name] = x
	}
	for _, prefix := range []string{"throughput-", "compute-"} {
		for i := 1; ; i++ {
			p := doc.byID(prefix + strconv.Itoa(i))
			if p == nil {
				break
			}
			texts := p.all("text")
			group := texts[0].Text
			labels := map[string]bool{}
			for _, tx := range texts {
				labels[tx.Text] = true
			}
			for _, r := range p.all("rect") {
				name, _, _ := strings.Cut(r.all("title")[0].Text, ": ")
				x := byName[name]
				use(p.Attr["id"], group, r.Attr["fill"])
				if g := groupTitle(x); g != group {
					t.Errorf("%s: %s in panel %q, its group is %q", p.Attr["id"], name, group, g)
				}
				want := strings.TrimPrefix(name, x.Kernel+"/")
				if !labels[want] {
					t.Errorf("%s: %s is not labelled %q", p.Attr["id"], name, want)
				}
			}
		}
	}
	kernels := map[string]bool{}
	for _, c := range doc.byID("roofline").all("circle") {
		col := c.Attr["fill"]
		if c.Attr["data-ops"] == "elem" {
			col = c.Attr["stroke"]
		}
		use("roofline", c.Attr["data-kernel"], col)
		kernels[c.Attr["data-kernel"]] = true
	}
	// The roofline's legend: one swatch per group with a point, its colour.
	var legend []string
	for _, d := range doc.byID("roofline-section").all("div") {
		if d.Attr["class"] != "legend" {
			continue
		}
		for _, c := range d.Children {
			if c.Name == "#text" && strings.TrimSpace(c.Text) != "" {
				legend = append(legend, strings.TrimSpace(c.Text))
			}
		}
		for i, sw := range d.all("span") {
			style := sw.Attr["style"]
			if !strings.HasSuffix(style, colour[legend[i]]) {
				t.Errorf("legend %q swatch %q, its points are %s", legend[i], style, colour[legend[i]])
			}
		}
	}
	if len(legend) != len(kernels) {
		t.Errorf("legend %q for the groups %v", legend, kernels)
	}
	for _, l := range legend {
		if !kernels[l] {
			t.Errorf("legend lists %q, which has no point", l)
		}
	}
}

// TestCeilings: the compute ceilings come from the vendors' peaks for the
// devices the report knows, from Options.Ceilings when given, and are
// left out, with a note, for any other device.
func TestCeilings(t *testing.T) {
	for _, c := range []struct {
		backend, device string
		f16             float64
	}{
		{"cuda", "NVIDIA H100 80GB HBM3", 989.4}, {"cuda", "NVIDIA H100 PCIe", 756.5}, {"cuda", "NVIDIA H100 NVL", 0},
		{"cuda", "NVIDIA H200", 989.4}, {"cuda", "NVIDIA A100-SXM4-80GB", 312}, {"hip", "AMD Instinct MI300X", 1307.4},
		{"hip", "Radeon RX 7900 XTX", 122.8}, {"cuda", "Tesla T4", 0}, {"cpu", "Intel(R) Xeon(R) Processor", 0},
	} {
		cs := deviceCeilings(bench.Meta{Backend: c.backend, Device: c.device})
		switch {
		case c.f16 == 0 && cs != nil:
			t.Errorf("%s: ceilings %v, want none", c.device, cs)
		case c.f16 > 0 && (len(cs) != 2 || cs[0].GFLOPS != 1000*c.f16 || cs[1].GFLOPS >= cs[0].GFLOPS || cs[0].Source == ""):
			t.Errorf("%s: ceilings %v, want f16 %v TFLOPS first", c.device, cs, c.f16)
		}
	}
	count := func(doc *node) int {
		n := 0
		for _, l := range doc.byID("roofline").all("line") {
			if l.Attr["class"] == "ceiling-compute" {
				n++
			}
		}
		return n
	}
	cpuRun := benchtest.Run(1, benchtest.Defaults()...)
	doc := parseXML(t, render(t, cpuRun, Options{}))
	if count(doc) != 0 || !strings.Contains(doc.byID("roofline-section").texts(), "No compute ceiling: the run records no compute peak") {
		t.Error("a cpu run's roofline has compute ceilings, or no note")
	}
	doc = parseXML(t, render(t, cpuRun, Options{Ceilings: []Ceiling{{Name: "f32 AVX2", GFLOPS: 300}}}))
	if count(doc) != 1 || !strings.Contains(doc.byID("roofline").texts(), "f32 AVX2 300 GFLOPS") ||
		!strings.Contains(doc.byID("roofline-section").texts(), "Compute ceilings as given") {
		t.Error("Options.Ceilings not drawn")
	}
	doc = parseXML(t, render(t, matrixRun(1), Options{Ceilings: []Ceiling{}}))
	if count(doc) != 0 {
		t.Error("an empty Options.Ceilings still draws the device's")
	}
}
