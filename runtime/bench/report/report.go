// Package report renders a forgebench run as one self-contained HTML page:
// the run's metadata, a results table (median with its confidence
// interval, tail quantiles where the samples can estimate them, the
// coefficient of variation with a noise flag, the samples' distribution,
// and against a baseline the change with its p-value), and charts drawn as
// inline SVG: a roofline (roofline.go), GB/s per format grouped by kernel,
// GFLOPS/TFLOPS for the benchmarks that count FLOPs, and, given a baseline,
// the change per benchmark; given a history trend (Options.History,
// history.go), a sparkline per benchmark of its median across the runs of
// the run's machine. Every figure uses the median time per iteration. A
// run measured under a profiler (forgebench profile) gets a banner and the
// profiler's durations in its charts; a run whose GPU clocks were held
// down (bench.Clocks.Warnings) gets a banner, and its clocks are in the
// metadata. The page loads
// nothing and runs nothing: no scripts, fonts, images or style sheets from
// anywhere, so it reads the same offline, in a mail attachment or in a CI
// artifact; hover details are SVG <title> elements.
//
// Everything taken from the run (benchmark names come from GGUF tensor names,
// which are user data) goes through html/template's escaping, and the page is
// also well-formed XML, so that its SVG can be cut out and used on its own.
// The same run renders to the same bytes: the page holds no clock reading.
package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rocmforge/forge/runtime/bench"
)

// Options adjust a report.
type Options struct {
	// Baseline, when set, adds the comparison chart and a column of changes.
	Baseline *bench.Run
	// Threshold is the change in percent past which a statistically
	// significant difference counts as a regression or an improvement
	// (0: DefaultThreshold).
	Threshold float64
	// Alpha is the significance level of the comparison (0: 0.05).
	Alpha float64
	// Ceilings, when set, are the roofline's compute ceilings, in place of
	// the vendor peaks the report knows for the run's device (ceilings.go);
	// an empty non-nil slice draws none.
	Ceilings []Ceiling
	// History, when set, adds the History section: the trend of each
	// benchmark across the runs of the trend (bench.LoadTrend, forgebench
	// report --history) that measured the run's machine (bench.MachineLabel);
	// a trend without that machine gets a note saying so.
	History *bench.Trend
}

// DefaultThreshold is the regression threshold, in percent, that forgebench
// compare uses by default.
const DefaultThreshold = 10.0

// Target is the share of the copy roofline a dequant kernel should reach.
const Target = 0.85

//go:embed report.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"n":  num,
	"n2": num2,
}).Parse(pageTemplate))

// Write renders run as HTML to w.
func Write(w io.Writer, run *bench.Run, opt Options) error {
	if run == nil {
		return fmt.Errorf("report: no run")
	}
	if opt.Threshold <= 0 {
		opt.Threshold = DefaultThreshold
	}
	if opt.Alpha <= 0 {
		opt.Alpha = 0.05
	}
	p := build(run, opt)
	// Render into memory first so that a template error never leaves half
	// a page in w.
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// page is what the template renders.
type page struct {
	Title       string
	Subtitle    string
	Meta        []kv
	Interrupted bool
	NResults    int
	Notes       []string // shown under the header (hardware differences, …)
	Roofline    string   // "2924 GB/s", or "" when the run measured none

	// Profiled names the profiler of a profiled run ("" for a plain run):
	// the page says so in a banner, and charts the tool's durations.
	Profiled        string
	ProfiledResults int
	// Noisy are the benchmarks whose coefficient of variation is above
	// bench.NoiseCV.
	Noisy   []string
	NoiseCV string // "5%"

	Roof        *svg     // the roofline chart; nil when no result has a point
	RoofLegend  []legend // its groups' colours
	RoofNotes   []string // its ceilings' sources, what is and is not on it
	Throughput  []*svg   // GB/s, one panel per family/kernel
	Compute     []*svg   // GFLOPS (or TFLOPS), one panel per family/kernel
	ComputeUnit string
	Delta       *svg     // nil without a baseline
	DeltaLegend []legend // its colours
	DeltaNote   string   // why there is no comparison (a profiled run)

	Baseline     bool
	BaseMeta     []kv
	OnlyBaseline []string
	OnlyCurrent  []string
	Threshold    string
	Summary      string // "2 regressions, 1 improvement, …"

	Rows []row
	// Quantile minima: p95 and p99 are shown from these sample counts.
	MinN95, MinN99 int
	DistRange      string // the distribution column's scale: "±5%"
	// Figures are the scenario suites' metrics (memory, quantize,
	// attention), a table per suite.
	Figures []bench.MetricTable
	// ClockWarnings are what the GPU's clocks say about the timings
	// (bench.Clocks.Warnings): a banner.
	ClockWarnings []string
	// History is the History section (Options.History); nil: none.
	History *historyView
}

type kv struct{ K, V string }

type legend struct {
	Fill, Label string
	Hollow      bool // an outlined swatch (the roofline's elementwise points)
}

// cell is a table cell whose value may come with a tooltip and a class.
type cell struct{ V, Tip, Class string }

// row is one line of the results table, formatted.
type row struct {
	Name, Format, Kernel string
	N                    int
	Median               cell // the median time per iteration
	CI                   cell // its 95% confidence interval, ±% (bounds in the tooltip)
	P95, P99             cell // "—" when n is too small to estimate them
	CV                   cell // coefficient of variation; class "noisy" past bench.NoiseCV
	Noisy                bool
	Dist                 *svg // the samples' distribution, a box plot
	GBps, PctCopy        string
	GFLOPS, GElems       string
	Compression          string
	BelowTarget          bool
	Profiled             bool // the times are forge's, under a profiler
	Delta, P             cell
	HasDelta             bool
}

func build(run *bench.Run, opt Options) *page {
	m := run.Meta
	p := &page{
		Title:       "forgebench report",
		Interrupted: run.Interrupted,
		NResults:    len(run.Results),
		Threshold:   trimFloat(opt.Threshold) + "%",
		NoiseCV:     trimFloat(100*bench.NoiseCV) + "%",
		MinN95:      bench.QuantileMinN(0.95),
		MinN99:      bench.QuantileMinN(0.99),
	}
	if run.Name != "" {
		p.Title = "forgebench report: " + clean(run.Name)
	}
	p.Subtitle = joinNonEmpty(" · ", clean(m.Device), clean(m.Backend), clean(m.Arch))
	roof := roofline(run)
	if roof > 0 {
		p.Roofline = fmtRate(roof) + " GB/s"
	}
	p.Meta = metaRows(run, roof)
	p.ClockWarnings = cleanAll(m.Clocks.Warnings())
	if opt.History != nil {
		p.History = historyOf(opt.History, run)
	}
	tool, nProfiled := profiledBy(run)
	p.Profiled, p.ProfiledResults = tool, nProfiled

	var deltas map[string]*delta
	if opt.Baseline != nil {
		p.Baseline = true
		p.BaseMeta = baseMetaRows(opt.Baseline)
		p.Notes = append(p.Notes, hardwareNotes(opt.Baseline.Meta, m)...)
		p.DeltaLegend = deltaLegend(opt.Threshold)
		baseTool, _ := profiledBy(opt.Baseline)
		switch {
		case tool != "":
			p.DeltaNote = "This run was measured under " + tool + ", whose replays inflate forge's times: a comparison with the baseline would measure the profiler, so there is none."
		case baseTool != "":
			p.DeltaNote = "The baseline was measured under " + baseTool + ", whose replays inflate forge's times: a comparison with it would measure the profiler, so there is none."
		default:
			c := compare(opt.Baseline, run, opt.Threshold, opt.Alpha)
			deltas = c.byName
			p.OnlyBaseline = cleanAll(c.onlyBase)
			p.OnlyCurrent = cleanAll(c.onlyCur)
			p.Summary = c.summary()
			p.Delta = deltaChart(c, opt.Threshold)
		}
	}

	var roofBytes int64
	if run.Roofline != nil {
		roofBytes = run.Roofline.Bytes
	}
	figs := buildFigs(run.Results, roof, roofBytes, tool)
	pal := newPalette(figs)
	ceilings := opt.Ceilings
	if ceilings == nil {
		ceilings = deviceCeilings(m)
	}
	ceilings = validCeilings(ceilings)
	p.Roof = rooflineChart(figs, pal, roof, ceilings)
	p.RoofLegend, p.RoofNotes = rooflineNotes(figs, pal, roof, ceilings, m, opt.Ceilings != nil)
	p.Throughput = throughputCharts(figs, pal, roof, ceilings)
	p.Compute, p.ComputeUnit = computeCharts(figs, pal, ceilings)

	for _, t := range bench.MetricTables(run) {
		t.Suite = clean(t.Suite)
		t.Head = cleanAll(t.Head)
		for i := range t.Rows {
			t.Rows[i] = cleanAll(t.Rows[i])
		}
		p.Figures = append(p.Figures, t)
	}
	distR := distRange(figs)
	p.DistRange = "±" + trimFloat(100*distR) + "%"
	for i := range figs {
		f := &figs[i]
		r := tableRow(f, roof, distR, i)
		r.Profiled = tool != ""
		if r.Noisy && tool == "" {
			p.Noisy = append(p.Noisy, clean(f.x.Name))
		}
		if d := deltas[f.x.Name]; d != nil {
			r.HasDelta = true
			r.Delta = cell{V: d.label(), Tip: d.tip(), Class: d.class}
			r.P = cell{V: "—", Tip: "no samples on one side: significance not tested"}
			if d.tested {
				r.P = cell{V: fmt.Sprintf("%.3f", d.p), Tip: fmt.Sprintf("Mann-Whitney U test, n=%d+%d; significant below %s", d.n1, d.n2, trimFloat(opt.Alpha))}
			}
		}
		p.Rows = append(p.Rows, r)
	}
	return p
}

// tableRow formats f's line of the results table; i numbers its
// distribution chart.
func tableRow(f *fig, roof, distR float64, i int) row {
	x, st := f.x, f.st
	r := row{
		Name:        clean(x.Name),
		Format:      clean(x.Format),
		Kernel:      clean(x.Kernel),
		N:           st.N,
		Median:      cell{V: fmtDur(st.P50)},
		CI:          cell{V: "—", Tip: "too few samples for a 95% confidence interval of the median (at least 6)"},
		GBps:        "—",
		PctCopy:     "—",
		GFLOPS:      "—",
		GElems:      "—",
		Compression: "—",
	}
	if f.bytes > 0 && f.gbps > 0 {
		r.GBps = fmtRate(f.gbps)
	}
	if x.Elements > 0 && f.elemsPS > 0 {
		r.GElems = fmtRate(f.elemsPS / 1e9)
	}
	if f.gflops > 0 {
		r.GFLOPS = fmtRate(f.gflops)
	}
	if st.P50 > 0 && st.P50Lo > 0 && st.P50Hi > 0 {
		half := math.Max(float64(st.P50-st.P50Lo), float64(st.P50Hi-st.P50))
		r.CI = cell{V: "±" + fmtPct(100*half/float64(st.P50)),
			Tip: fmt.Sprintf("95%% CI of the median: %s – %s", fmtDur(st.P50Lo), fmtDur(st.P50Hi))}
	}
	r.P95 = quantileCell(st.P95, st.N, st.HasP95(), "p95", bench.QuantileMinN(0.95))
	r.P99 = quantileCell(st.P99, st.N, st.HasP99(), "p99", bench.QuantileMinN(0.99))
	if cv := cvPct(st); finite(cv) {
		r.CV = cell{V: fmtPct(cv), Tip: fmt.Sprintf("sd %s, mean %s", fmtDur(st.StdDev), fmtDur(st.Mean))}
		if st.Noisy() {
			r.Noisy = true
			r.CV.Class = "noisy"
			r.CV.Tip += fmt.Sprintf("; noisy: above %s%%", trimFloat(100*bench.NoiseCV))
		}
	} else {
		r.CV = cell{V: "—", Tip: "fewer than 2 samples"}
	}
	if x.Compression > 0 && finite(x.Compression) {
		r.Compression = strconv.FormatFloat(x.Compression, 'f', 2, 64) + "×"
	}
	if f.pct > 0 {
		r.PctCopy = strconv.FormatFloat(f.pct, 'f', 1, 64)
		r.BelowTarget = x.Family != "copy" && f.pct < 100*Target
	}
	r.Dist = distChart(x.Samples, st, distR, i)
	return r
}

// quantileCell shows a tail quantile, or "—" when n is below minN: with so
// few samples it is the maximum (bench.QuantileMinN).
func quantileCell(v time.Duration, n int, ok bool, name string, minN int) cell {
	if n == 0 {
		return cell{V: "—"}
	}
	if !ok {
		return cell{V: "—", Class: "na", Tip: fmt.Sprintf("n=%d: too few for a %s (%d or more)", n, name, minN)}
	}
	return cell{V: fmtDur(v)}
}

// validCeilings drops ceilings that cannot be drawn and sorts the rest
// highest first.
func validCeilings(cs []Ceiling) []Ceiling {
	var out []Ceiling
	for _, c := range cs {
		if finite(c.GFLOPS) && c.GFLOPS > 0 {
			c.Name, c.Source = clean(c.Name), clean(c.Source)
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b Ceiling) int { return cmp.Compare(b.GFLOPS, a.GFLOPS) })
	return out
}

// rooflineNotes are the roofline chart's legend (a swatch per group with a
// point) and notes: where the ceilings come from, what is placed how, and
// what is left out.
func rooflineNotes(figs []fig, pal palette, roof float64, ceilings []Ceiling, m bench.Meta, given bool) ([]legend, []string) {
	var leg []legend
	var notes []string
	seen := map[string]bool{}
	var hollow bool
	var left []string
	for _, f := range figs {
		if !f.onRoofline() {
			if f.x.Family != "copy" {
				left = append(left, clean(f.x.Name))
			}
			continue
		}
		if !f.flop {
			hollow = true
		}
		if k := groupKey(f.x); !seen[k] {
			seen[k] = true
			leg = append(leg, legend{Fill: pal.of(f.x), Label: groupTitle(f.x), Hollow: !f.flop})
		}
	}
	if roof > 0 {
		notes = append(notes, "Memory ceiling: the copy bandwidth this run measured ("+fmtRate(roof)+" GB/s) times the intensity; a point's distance under it is its % of copy.")
	} else {
		notes = append(notes, "No memory ceiling: this run measured no copy roofline.")
	}
	switch {
	case len(ceilings) > 0 && given:
		notes = append(notes, "Compute ceilings as given to the report.")
	case len(ceilings) > 0:
		var src []string
		for _, c := range ceilings {
			if !slices.Contains(src, c.Source) {
				src = append(src, c.Source)
			}
		}
		notes = append(notes, "Compute ceilings: the vendor's published peaks for this device, not measured in this run (boost clock; a kernel sustains less): "+strings.Join(src, "; ")+".")
	default:
		notes = append(notes, "No compute ceiling: the run records no compute peak and the report knows none for "+quoteOr(clean(m.Device), "this device")+" (its table lists the H100, H200, A100, MI300X and RX 7900 XTX): only the memory ceiling is drawn.")
	}
	if hollow {
		notes = append(notes, "Hollow points count no FLOPs (dequant): they are placed at one operation per element produced (the scale applied to each code), so their intensity is elements per byte and their rate elements per second.")
	}
	notes = append(notes, "The copy benchmark is not a point: it is the memory ceiling itself.")
	if len(left) > 0 {
		notes = append(notes, fmt.Sprintf("Not placed (no bytes, no operations or no time): %s.", strings.Join(left, ", ")))
	}
	return leg, notes
}

func quoteOr(s, alt string) string {
	if s == "" {
		return alt
	}
	return "“" + s + "”"
}

func fmtPct(v float64) string {
	switch {
	case !finite(v):
		return "—"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + "%"
}

func metaRows(run *bench.Run, roof float64) []kv {
	m := run.Meta
	var out []kv
	add := func(k, v string) {
		if v != "" {
			out = append(out, kv{k, clean(v)})
		}
	}
	add("device", m.Device)
	add("backend", m.Backend)
	add("arch", m.Arch)
	add("target", m.Target)
	if m.WaveSize > 0 {
		add("wave size", strconv.Itoa(m.WaveSize))
	}
	if m.ComputeUnits > 0 {
		add("compute units", strconv.Itoa(m.ComputeUnits))
	}
	if m.MemoryBytes > 0 {
		add("device memory", strconv.FormatFloat(float64(m.MemoryBytes)/(1<<30), 'f', 1, 64)+" GiB")
	}
	add("driver", m.Driver)
	add("toolkit", m.Toolkit)
	add("library", m.Library)
	out = append(out, clockRows(m.Clocks)...)
	if m.CPUs > 0 {
		add("CPUs", strconv.Itoa(m.CPUs))
	}
	add("OS", m.OS)
	add("host", m.Hostname)
	add("Go", m.GoVersion)
	add("forge", forgeVersion(m))
	if !run.Started.IsZero() {
		add("date", run.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
		if run.Finished.After(run.Started) {
			add("duration", run.Finished.Sub(run.Started).Round(time.Second).String())
		}
	}
	if roof > 0 {
		v := fmtRate(roof) + " GB/s"
		if run.Roofline != nil && run.Roofline.Bytes > 0 {
			method := "device copy"
			if run.Roofline.Method != "" && run.Roofline.Method != "forge_copy" {
				method = run.Roofline.Method
			}
			v += " (" + method + " of " + fmtBytes(run.Roofline.Bytes) + ")"
		}
		add("copy roofline", v)
	} else {
		add("copy roofline", "not measured in this run")
	}
	if run.Interrupted {
		add("interrupted", "yes: the run was stopped before every benchmark finished")
	} else {
		add("interrupted", "no")
	}
	add("results", strconv.Itoa(len(run.Results)))
	return out
}

// clockRows are the metadata rows of the GPU's clocks at the run's start
// and end (bench.Clocks); none for a run without them.
func clockRows(c *bench.Clocks) []kv {
	if c == nil {
		return nil
	}
	var out []kv
	add := func(k, v string) {
		if v != "" {
			out = append(out, kv{k, clean(v)})
		}
	}
	add("clocks from", joinNonEmpty(", ", c.Tool, prefixed("GPU ", c.GPU)))
	clock := func(get func(*bench.ClockSample) int, maxMHz int) string {
		var at []string
		for _, s := range []struct {
			when string
			s    *bench.ClockSample
		}{{"start", c.Start}, {"end", c.End}} {
			if s.s != nil {
				at = append(at, strconv.Itoa(get(s.s))+" MHz at "+s.when)
			}
		}
		v := strings.Join(at, ", ")
		if maxMHz > 0 {
			v += " (max " + strconv.Itoa(maxMHz) + " MHz)"
		}
		return v
	}
	add("SM clock", clock(func(s *bench.ClockSample) int { return s.SMMHz }, c.MaxSMMHz))
	add("memory clock", clock(func(s *bench.ClockSample) int { return s.MemMHz }, c.MaxMemMHz))
	if c.Driver != "" {
		add("GPU driver", c.Driver+" ("+c.Tool+")")
	}
	var reasons []string
	for _, s := range []struct {
		when string
		s    *bench.ClockSample
	}{{"start", c.Start}, {"end", c.End}} {
		if s.s != nil && len(s.s.Reasons) > 0 {
			reasons = append(reasons, s.when+": "+strings.Join(s.s.Reasons, ", "))
		}
	}
	add("clock events", strings.Join(reasons, "; "))
	return out
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func baseMetaRows(b *bench.Run) []kv {
	var out []kv
	add := func(k, v string) {
		if v != "" {
			out = append(out, kv{k, clean(v)})
		}
	}
	add("name", b.Name)
	add("device", b.Meta.Device)
	add("backend", b.Meta.Backend)
	add("arch", b.Meta.Arch)
	add("forge", forgeVersion(b.Meta))
	if !b.Started.IsZero() {
		add("date", b.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if b.Roofline != nil && b.Roofline.GBps > 0 {
		add("copy roofline", fmtRate(b.Roofline.GBps)+" GB/s")
	}
	add("results", strconv.Itoa(len(b.Results)))
	return out
}

// hardwareNotes names what differs between the machines of the baseline and
// the run: a comparison across them measures the machines too.
func hardwareNotes(base, cur bench.Meta) []string {
	var out []string
	diff := func(what, b, c string) {
		if b != c {
			out = append(out, fmt.Sprintf("%s differs: baseline %q, this run %q", what, clean(b), clean(c)))
		}
	}
	diff("backend", base.Backend, cur.Backend)
	diff("device", base.Device, cur.Device)
	diff("arch", base.Arch, cur.Arch)
	diff("target", base.Target, cur.Target)
	diff("driver", base.Driver, cur.Driver)
	diff("toolkit", base.Toolkit, cur.Toolkit)
	diff("OS", base.OS, cur.OS)
	if base.CPUs != cur.CPUs {
		diff("CPUs", strconv.Itoa(base.CPUs), strconv.Itoa(cur.CPUs))
	}
	return out
}

func forgeVersion(m bench.Meta) string {
	v := m.ForgeVersion
	if m.ForgeCommit != "" {
		c := m.ForgeCommit
		if len(c) > 12 {
			c = c[:12]
		}
		v = joinNonEmpty(" ", v, c)
	}
	if m.ForgeModified {
		v += " (modified)"
	}
	return v
}

// roofline is the run's copy bandwidth in GB/s, or 0.
func roofline(run *bench.Run) float64 {
	if run.Roofline != nil && finite(run.Roofline.GBps) && run.Roofline.GBps > 0 {
		return run.Roofline.GBps
	}
	return 0
}

// --- formatting -------------------------------------------------------------

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// num formats an SVG coordinate: one decimal, no "-0".
func num(v float64) string {
	if !finite(v) {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

// num2 formats a point's coordinate: two decimals, no "-0".
func num2(v float64) string {
	if !finite(v) {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if s == "-0.00" {
		s = "0"
	}
	return s
}

// fmtRate prints a throughput with three significant digits or more.
func fmtRate(v float64) string {
	switch {
	case !finite(v) || v <= 0:
		return "—"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

func fmtDur(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	v, unit := float64(d), "ns"
	switch {
	case d >= time.Second:
		v, unit = v/1e9, "s"
	case d >= time.Millisecond:
		v, unit = v/1e6, "ms"
	case d >= time.Microsecond:
		v, unit = v/1e3, "µs"
	default:
		return strconv.FormatInt(int64(d), 10) + " ns"
	}
	return fmtRate(v) + " " + unit
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// clean makes user data displayable: invalid UTF-8 and control characters
// (which XML forbids and terminals and browsers show badly) become U+FFFD.
// Markup is not its business: the template escapes that.
func clean(s string) string {
	ok := utf8.ValidString(s)
	if ok {
		for _, r := range s {
			if unicode.IsControl(r) || r == '\uFFFE' || r == '\uFFFF' {
				ok = false
				break
			}
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || unicode.IsControl(r) || r == '\uFFFE' || r == '\uFFFF' {
			b.WriteRune('\uFFFD')
		} else {
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

func cleanAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clean(s)
	}
	return out
}
