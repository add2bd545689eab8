// Package report renders a forgebench run as one self-contained HTML page:
// the run's metadata, a results table, and charts drawn as inline SVG
// (throughput per format grouped by kernel, each benchmark against the copy
// roofline, and, given a baseline, the change per benchmark). The page loads
// nothing: no scripts, fonts, images or style sheets from anywhere, so it
// reads the same offline, in a mail attachment or in a CI artifact.
//
// Everything taken from the run (benchmark names come from GGUF tensor names,
// which are user data) goes through html/template's escaping, and the page is
// also well-formed XML, so that its SVG can be cut out and used on its own.
// The same run renders to the same bytes: the page holds no clock reading.
package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
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
}

// DefaultThreshold is the regression threshold, in percent, that forgebench
// compare uses by default.
const DefaultThreshold = 10.0

// Target is the share of the copy roofline a dequant kernel should reach.
const Target = 0.85

//go:embed report.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"n": num,
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

	Throughput  []*svg   // one panel per family/kernel
	Roof        *svg     // nil without a roofline
	Delta       *svg     // nil without a baseline
	Legend      []legend // chart 2's colours
	DeltaLegend []legend // chart 3's

	Baseline     bool
	BaseMeta     []kv
	OnlyBaseline []string
	OnlyCurrent  []string
	Threshold    string
	Summary      string // "2 regressions, 1 improvement, …"

	Rows []row
	// Figures are the scenario suites' metrics (memory, quantize,
	// attention), a table per suite.
	Figures []bench.MetricTable
}

type kv struct{ K, V string }

type legend struct{ Fill, Label string }

// row is one line of the results table, formatted.
type row struct {
	Name, Format, Kernel               string
	N                                  int
	P50, P95, P99, StdDev, StdDevAbs   string
	GBps, PctCopy, GElems, Compression string
	BelowTarget                        bool
	Delta, DeltaTip, DeltaClass        string
	HasDelta                           bool
	Mean                               string
}

func build(run *bench.Run, opt Options) *page {
	m := run.Meta
	p := &page{
		Title:       "forgebench report",
		Interrupted: run.Interrupted,
		NResults:    len(run.Results),
		Threshold:   trimFloat(opt.Threshold) + "%",
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

	var deltas map[string]*delta
	if opt.Baseline != nil {
		cmp := compare(opt.Baseline, run, opt.Threshold, opt.Alpha)
		deltas = cmp.byName
		p.Baseline = true
		p.BaseMeta = baseMetaRows(opt.Baseline)
		p.OnlyBaseline = cleanAll(cmp.onlyBase)
		p.OnlyCurrent = cleanAll(cmp.onlyCur)
		p.Notes = append(p.Notes, hardwareNotes(opt.Baseline.Meta, m)...)
		p.Summary = cmp.summary()
		p.Delta = deltaChart(cmp, opt.Threshold)
		p.DeltaLegend = deltaLegend(opt.Threshold)
	}
	var timed []bench.Result // a scenario's figures alone have no bar to draw
	for _, x := range run.Results {
		if x.Stats.N > 0 || len(x.Metrics) == 0 {
			timed = append(timed, x)
		}
	}
	p.Throughput = throughputCharts(timed, roof)
	if roof > 0 {
		p.Roof = rooflineChart(timed, roof)
	}
	p.Legend = rooflineLegend()

	for _, t := range bench.MetricTables(run) {
		t.Suite = clean(t.Suite)
		t.Head = cleanAll(t.Head)
		for i := range t.Rows {
			t.Rows[i] = cleanAll(t.Rows[i])
		}
		p.Figures = append(p.Figures, t)
	}
	for _, x := range run.Results {
		st := x.Stats
		if st.N == 0 && len(x.Metrics) > 0 {
			continue // figures alone: the figures section has them
		}
		r := row{
			Name:        clean(x.Name),
			Format:      clean(x.Format),
			Kernel:      clean(x.Kernel),
			N:           st.N,
			P50:         fmtDur(st.P50),
			P95:         fmtDur(st.P95),
			P99:         fmtDur(st.P99),
			Mean:        fmtDur(st.Mean),
			StdDevAbs:   fmtDur(st.StdDev),
			GBps:        fmtRate(st.GBps),
			GElems:      fmtRate(st.ElemsPS / 1e9),
			Compression: "—",
			PctCopy:     "—",
		}
		if st.Mean > 0 {
			r.StdDev = "±" + strconv.FormatFloat(100*float64(st.StdDev)/float64(st.Mean), 'f', 1, 64) + "%"
		} else {
			r.StdDev = "—"
		}
		if x.Compression > 0 && finite(x.Compression) {
			r.Compression = strconv.FormatFloat(x.Compression, 'f', 2, 64) + "×"
		}
		if pc := pctCopy(x, roof); pc > 0 {
			r.PctCopy = strconv.FormatFloat(pc, 'f', 1, 64)
			r.BelowTarget = x.Family != "copy" && pc < 100*Target
		}
		if d := deltas[x.Name]; d != nil {
			r.HasDelta = true
			r.Delta = d.label()
			r.DeltaClass = d.class
			r.DeltaTip = d.tip()
		}
		p.Rows = append(p.Rows, r)
	}
	return p
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
			v += " (device copy of " + fmtBytes(run.Roofline.Bytes) + ")"
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

// pctCopy is the result's percent of the roofline: the one the engine
// stored, or computed from the run's roofline.
func pctCopy(x bench.Result, roof float64) float64 {
	if finite(x.Stats.PctCopy) && x.Stats.PctCopy > 0 {
		return x.Stats.PctCopy
	}
	if roof > 0 && finite(x.Stats.GBps) && x.Stats.GBps > 0 {
		return 100 * x.Stats.GBps / roof
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
