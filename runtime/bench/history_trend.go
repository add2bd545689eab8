package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// HistoryFilter selects what a trend shows of a history. Suite, Format and
// Family take Filter's patterns (globs ignoring case, or /regexp/,
// comma-separated; a plain suite name also selects the suites below it);
// Machine takes the same patterns, matched against MachineLabel. A pattern
// that matches nothing in the history is an error that lists what there is.
type HistoryFilter struct {
	Suite, Format, Family, Machine string
}

// Apply returns h with only the entries of the machines Machine selects,
// each with only the results the other fields select; entries left without
// results are dropped.
func (f HistoryFilter) Apply(h *History) (*History, error) {
	type dim struct {
		name, list string
		value      func(e *HistoryEntry, r *HistoryResult) string
		paths      bool
		patterns   []pattern
	}
	dims := []*dim{
		{name: "machine", list: f.Machine, value: func(e *HistoryEntry, _ *HistoryResult) string { return MachineLabel(e.Meta) }},
		{name: "suite", list: f.Suite, value: func(_ *HistoryEntry, r *HistoryResult) string { return r.Suite }, paths: true},
		{name: "format", list: f.Format, value: func(_ *HistoryEntry, r *HistoryResult) string { return r.Format }},
		{name: "family", list: f.Family, value: func(_ *HistoryEntry, r *HistoryResult) string { return r.Family }},
	}
	var err error
	for _, d := range dims {
		if d.patterns, err = compilePatterns(d.name, d.list); err != nil {
			return nil, err
		}
	}
	matches := func(d *dim, p pattern, v string) bool {
		if p.match(v) {
			return true
		}
		if d.paths && p.literal {
			for i := range len(v) {
				if v[i] == '/' && p.match(v[:i]) {
					return true
				}
			}
		}
		return false
	}
	selects := func(d *dim, v string) bool {
		return len(d.patterns) == 0 || slices.ContainsFunc(d.patterns, func(p pattern) bool { return matches(d, p, v) })
	}
	// Each pattern must match something, or a typo would show nothing.
	for _, d := range dims {
		var valid []string
		add := func(v string) {
			if v != "" && !slices.Contains(valid, v) {
				valid = append(valid, v)
			}
		}
		for i := range h.Entries {
			e := &h.Entries[i]
			if d.name == "machine" {
				add(d.value(e, nil))
				continue
			}
			for k := range e.Results {
				add(d.value(e, &e.Results[k]))
			}
		}
		for _, p := range d.patterns {
			if !slices.ContainsFunc(valid, func(v string) bool { return matches(d, p, v) }) {
				return nil, fmt.Errorf("%s %q matches no %s in %s; there are: %s", d.name, p.text, d.name, Printable(h.Path), Printable(strings.Join(valid, "; ")))
			}
		}
	}
	out := &History{Path: h.Path, Skipped: h.Skipped}
	for _, e := range h.Entries {
		if !selects(dims[0], dims[0].value(&e, nil)) {
			continue
		}
		var rs []HistoryResult
		for i := range e.Results {
			r := &e.Results[i]
			if selects(dims[1], r.Suite) && selects(dims[2], r.Format) && selects(dims[3], r.Family) {
				rs = append(rs, *r)
			}
		}
		if len(rs) > 0 {
			e.Results = rs
			out.Entries = append(out.Entries, e)
		}
	}
	if len(out.Entries) == 0 {
		return nil, fmt.Errorf("no run of %s has a benchmark that the filters select together", Printable(h.Path))
	}
	return out, nil
}

// LoadTrend is forgebench history in one call, for the HTML report and
// other readers of a history file: ReadHistory (skipCorrupt as there), the
// filter, then ComputeTrend.
func LoadTrend(path string, skipCorrupt bool, f HistoryFilter, opts TrendOptions) (*Trend, error) {
	h, err := ReadHistory(path, skipCorrupt)
	if err != nil {
		return nil, err
	}
	if h, err = f.Apply(h); err != nil {
		return nil, err
	}
	return ComputeTrend(h, opts), nil
}

// MachineLabel names the hardware a run measured, as a trend groups runs:
// backend, device, architecture and target, and on the cpu backend the
// CPUs it ran on (GOMAXPROCS), which set its times as much as the device:
// "cuda on NVIDIA H100 80GB HBM3 (sm_90)", "cpu on Intel(R) Xeon(R)
// Processor (amd64), 2 CPUs". The host's name is not part of it: a fleet of
// one model of GPU is one machine.
func MachineLabel(m Meta) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s on %s (%s", m.Backend, m.Device, m.Arch)
	if m.Target != "" && m.Target != m.Arch {
		fmt.Fprintf(&b, ", target %s", m.Target)
	}
	b.WriteString(")")
	if m.Backend == "cpu" && m.CPUs > 0 {
		fmt.Fprintf(&b, ", %d CPUs", m.CPUs)
	}
	return b.String()
}

// TrendKind tells the JSON of a Trend apart from runs and comparisons.
const TrendKind = "forgebench.trend"

// TrendOptions set what ComputeTrend shows and how it judges a change.
type TrendOptions struct {
	// Last is how many of each machine's most recent runs are shown; 0
	// shows them all.
	Last int
	// Compare sets the threshold and significance level of the change from
	// a benchmark's first run shown to its last (compare's rules, for the
	// time metric); zero values take DefaultCompareOptions'.
	Compare CompareOptions
}

// Trend is a history as forgebench history shows it: per machine, a row per
// benchmark and a column per run, oldest first, and each benchmark's change
// from the first run that has it to the last, judged as compare judges two
// runs where both kept their samples. It is the JSON of forgebench history
// --json and what the HTML report draws.
type Trend struct {
	Kind     string         `json:"kind"`           // TrendKind
	Schema   int            `json:"schema_version"` // HistorySchema
	Source   string         `json:"source"`         // the history file
	Options  CompareOptions `json:"options"`
	Machines []MachineTrend `json:"machines"`
	// Skipped are the corrupt lines left out (forgebench history
	// --skip-corrupt), as "FILE:LINE: why".
	Skipped []string `json:"skipped,omitempty"`
}

// MachineTrend is the trend of one machine's runs (runs of different
// hardware are never put in one row).
type MachineTrend struct {
	Machine string `json:"machine"` // MachineLabel
	Backend string `json:"backend"`
	Device  string `json:"device"`
	Arch    string `json:"arch"`
	Target  string `json:"target,omitempty"`
	// Runs are the columns, oldest first (by start time, then by line).
	Runs []TrendRun `json:"runs"`
	// Omitted counts this machine's earlier runs left out by
	// TrendOptions.Last.
	Omitted    int          `json:"omitted_runs,omitempty"`
	Benchmarks []TrendBench `json:"benchmarks"`
	// The tally of the benchmarks' verdicts.
	Regressions  int `json:"regressions"`
	Improvements int `json:"improvements"`
	Unchanged    int `json:"unchanged"`
	Unjudged     int `json:"unjudged"`
}

// TrendRun is one run of a trend: a column.
type TrendRun struct {
	Line        int       `json:"line"` // its line in the history file
	Started     time.Time `json:"started"`
	Commit      string    `json:"commit,omitempty"` // forge commit, "+dirty" when the tree differed
	Version     string    `json:"version,omitempty"`
	Host        string    `json:"host,omitempty"`
	Source      string    `json:"source,omitempty"`
	Interrupted bool      `json:"interrupted,omitempty"`
}

// TrendPoint is one benchmark in one run: its median time per iteration in
// ns with the 95% confidence interval (Lo, Hi: 0 when there are too few
// samples for one) and the sample count.
type TrendPoint struct {
	N      int     `json:"n"`
	Median float64 `json:"median_ns"`
	Lo     float64 `json:"lo_ns,omitempty"`
	Hi     float64 `json:"hi_ns,omitempty"`
	// Samples says whether the history kept the samples, which the U
	// test needs.
	Samples bool `json:"samples"`
}

// TrendBench is one benchmark's row.
type TrendBench struct {
	Name string `json:"name"`
	// Points has one entry per run of MachineTrend.Runs: nil (null) where
	// the run does not have the benchmark.
	Points []*TrendPoint `json:"points"`
	// First and Last index Points: the first and the last run that have
	// the benchmark.
	First int `json:"first"`
	Last  int `json:"last"`
	// Change is the median's relative change from First to Last, new/old −
	// 1 (null when the benchmark is in one run only, or its first median is
	// 0).
	Change Num `json:"change"`
	// P is the Mann-Whitney U test's p-value of First's samples against
	// Last's; null where either run kept only the median (no p-value is
	// made up from medians).
	P             Num  `json:"p"`
	Significant   bool `json:"significant"`
	TooFewSamples bool `json:"too_few_samples,omitempty"`
	// Verdict is compare's (regression, improvement, unchanged) where the
	// change could be judged, "" where it could not (Note says why).
	Verdict Verdict `json:"verdict,omitempty"`
	Note    string  `json:"note,omitempty"`
}

// ComputeTrend builds the trend of h: its entries grouped by machine
// (MachineLabel, in order of first appearance), each group's runs sorted by
// start time (then by line) and cut to the last opts.Last, its benchmarks
// in order of first appearance, and for each the change from the first run
// shown that has it to the last. The change is judged by compare's rules
// (the time metric: the threshold and the U test at opts.Compare's alpha)
// when both runs kept their samples and measured the benchmark at one size;
// otherwise it is given with no p-value and no verdict, and Note says why.
func ComputeTrend(h *History, opts TrendOptions) *Trend {
	co := opts.Compare
	if co.Threshold == 0 && co.Thresholds == nil {
		co.Threshold = DefaultThreshold
	}
	co = co.withDefaults()
	t := &Trend{Kind: TrendKind, Schema: HistorySchema, Source: h.Path, Options: co, Machines: []MachineTrend{}}
	for _, s := range h.Skipped {
		t.Skipped = append(t.Skipped, s.Error())
	}
	var order []string
	groups := map[string][]*HistoryEntry{}
	for i := range h.Entries {
		e := &h.Entries[i]
		k := MachineLabel(e.Meta)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	for _, k := range order {
		es := groups[k]
		slices.SortStableFunc(es, func(a, b *HistoryEntry) int {
			if c := a.Started.Compare(b.Started); c != 0 {
				return c
			}
			return a.Line - b.Line
		})
		m := MachineTrend{Machine: k, Backend: es[0].Meta.Backend, Device: es[0].Meta.Device, Arch: es[0].Meta.Arch, Target: es[0].Meta.Target}
		if opts.Last > 0 && len(es) > opts.Last {
			m.Omitted = len(es) - opts.Last
			es = es[m.Omitted:]
		}
		index := map[string]int{}
		var results [][]*HistoryResult // per benchmark, per run
		for j, e := range es {
			m.Runs = append(m.Runs, TrendRun{Line: e.Line, Started: e.Started, Commit: commitString(e.Meta), Version: e.Meta.ForgeVersion,
				Host: e.Meta.Hostname, Source: e.Source, Interrupted: e.Interrupted})
			for i := range e.Results {
				r := &e.Results[i]
				if r.N == 0 {
					continue // a scenario's figures alone: no time to trend
				}
				b, ok := index[r.Name]
				if !ok {
					b = len(m.Benchmarks)
					index[r.Name] = b
					m.Benchmarks = append(m.Benchmarks, TrendBench{Name: r.Name, Points: make([]*TrendPoint, len(es)), First: -1, Last: -1})
					results = append(results, make([]*HistoryResult, len(es)))
				}
				tb := &m.Benchmarks[b]
				tb.Points[j] = &TrendPoint{N: r.N, Median: r.Median, Lo: r.Lo, Hi: r.Hi, Samples: len(r.Samples) > 0}
				results[b][j] = r
				if tb.First < 0 {
					tb.First = j
				}
				tb.Last = j
			}
		}
		for b := range m.Benchmarks {
			tb := &m.Benchmarks[b]
			judgeTrend(tb, results[b][tb.First], results[b][tb.Last], co)
			switch tb.Verdict {
			case Regression:
				m.Regressions++
			case Improvement:
				m.Improvements++
			case Unchanged:
				m.Unchanged++
			default:
				m.Unjudged++
			}
		}
		if m.Benchmarks == nil {
			m.Benchmarks = []TrendBench{}
		}
		t.Machines = append(t.Machines, m)
	}
	return t
}

// judgeTrend fills tb's change, p-value and verdict from its first and last
// runs.
func judgeTrend(tb *TrendBench, first, last *HistoryResult, co CompareOptions) {
	tb.Change, tb.P = Num(math.NaN()), Num(math.NaN())
	if tb.First == tb.Last {
		tb.Note = "in one run only"
		return
	}
	if first.Median > 0 {
		tb.Change = Num(last.Median/first.Median - 1)
	}
	if first.Elements != last.Elements || first.Bytes != last.Bytes || !slices.Equal(first.Shape, last.Shape) {
		tb.Note = "the benchmark's size differs between the two runs: not judged"
		return
	}
	if len(first.Samples) == 0 || len(last.Samples) == 0 {
		tb.Note = "the history kept only the medians (more samples than it stores): no p-value"
		return
	}
	ns := func(s []int64) []float64 {
		v := make([]float64, len(s))
		for i, x := range s {
			v[i] = float64(x)
		}
		return v
	}
	md := cmpMetricDelta(cmpMetrics[0], ns(first.Samples), ns(last.Samples), co)
	tb.Change, tb.P, tb.Significant, tb.TooFewSamples, tb.Verdict = md.Delta, Num(md.P), md.Significant, md.TooFewSamples, md.Verdict
	if md.TooFewSamples {
		tb.Note = fmt.Sprintf("with %d and %d samples no difference can be significant at alpha %v", len(first.Samples), len(last.Samples), co.Alpha)
	}
}

// trendTables are the legend and the table of m, as strings, for the
// terminal and markdown writers alike.
func trendTables(m *MachineTrend) (legend, table [][]string) {
	for j, r := range m.Runs {
		commit := r.Commit
		if commit == "" {
			commit = "commit unknown"
		}
		date := "-"
		if !r.Started.IsZero() {
			date = r.Started.UTC().Format("2006-01-02 15:04")
		}
		host := r.Host
		if host == "" {
			host = "-"
		}
		row := []string{fmt.Sprintf("#%d", m.Omitted+j+1), date, commit, host, fmt.Sprintf("line %d", r.Line)}
		if r.Interrupted {
			row[4] += ", interrupted"
		}
		legend = append(legend, row)
	}
	head := []string{"benchmark"}
	for j := range m.Runs {
		head = append(head, fmt.Sprintf("#%d", m.Omitted+j+1)) // a run keeps its number when earlier ones are left out
	}
	head = append(head, "change", "p", "verdict")
	table = [][]string{head}
	for _, b := range m.Benchmarks {
		row := []string{b.Name}
		for _, p := range b.Points {
			if p == nil {
				row = append(row, "-")
			} else {
				row = append(row, cmpFormatNs(p.Median))
			}
		}
		change, p, verdict := cmpFormatDelta(b.Change), "-", "-"
		if b.First == b.Last {
			change = "-"
		}
		if f := float64(b.P); finite(f) {
			fp, lp := b.Points[b.First], b.Points[b.Last]
			n := fmt.Sprintf("n=%d", fp.N)
			if fp.N != lp.N {
				n = fmt.Sprintf("n=%d+%d", fp.N, lp.N)
			}
			p = fmt.Sprintf("p=%.3f %s", f, n)
		}
		switch {
		case b.Verdict == Regression:
			verdict = "REGRESSION"
		case b.Verdict == Improvement:
			verdict = "improvement"
		case b.Verdict == Unchanged && b.Significant:
			verdict = "~ (within threshold)"
		case b.Verdict == Unchanged && b.TooFewSamples:
			verdict = "~ (too few samples)"
		case b.Verdict == Unchanged:
			verdict = "~"
		case b.First == b.Last:
			verdict = "- (one run)"
		case strings.Contains(b.Note, "size differs"):
			verdict = "- (size differs)"
		default:
			verdict = "- (medians only)"
		}
		table = append(table, append(row, change, p, verdict))
	}
	return legend, table
}

// trendHeadline is the line above a trend's tables.
func (t *Trend) trendHeadline() string {
	runs := 0
	for _, m := range t.Machines {
		runs += len(m.Runs)
	}
	return fmt.Sprintf("history %s: %d run(s) on %d machine(s); change: the first run shown that has a benchmark to the last; regression: +%s and p < %v (Mann-Whitney U, where the history kept the samples)",
		t.Source, runs, len(t.Machines), cmpPct(t.Options.ThresholdFor(MetricTime)), t.Options.Alpha)
}

// machineHeadline names m and says how many of its runs are shown.
func (m *MachineTrend) machineHeadline() string {
	s := fmt.Sprintf("machine: %s, %d run(s)", m.Machine, len(m.Runs))
	if m.Omitted > 0 {
		s += fmt.Sprintf(" shown, %d earlier left out", m.Omitted)
	}
	return s
}

func (m *MachineTrend) tally() string {
	return fmt.Sprintf("%s, %s, %d unchanged, %d not judged",
		cmpPlural(m.Regressions, "regression"), cmpPlural(m.Improvements, "improvement"), m.Unchanged, m.Unjudged)
}

// WriteText writes the trend for a terminal: a headline, then per machine
// its name, a legend line per run (#k, its place among the machine's runs
// in the history; start, forge commit, host, line in the file), and a table with a row per benchmark — its median time in
// each run ("-" where the run lacks it), the change from its first run to
// its last, the p-value with the sample counts where both kept their
// samples, and the verdict — then the tally. Every string from the file
// passes through Printable.
func (t *Trend) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(Printable(t.trendHeadline()) + "\n")
	for _, s := range t.Skipped {
		fmt.Fprintf(&b, "skipped: %s\n", Printable(s))
	}
	for i := range t.Machines {
		m := &t.Machines[i]
		legend, table := trendTables(m)
		fmt.Fprintf(&b, "\n%s\n", Printable(m.machineHeadline()))
		WriteColumns(&b, legend, func(int) bool { return false })
		b.WriteByte('\n')
		WriteColumns(&b, table, func(col int) bool { return col > 0 && col < len(table[0])-2 })
		b.WriteString(m.tally() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the trend as markdown: the headline, then per
// machine its name, a table of its runs (#k, start, commit, host, line) and
// the trend table of WriteText.
func (t *Trend) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString(MarkdownCell(t.trendHeadline()) + "\n")
	for _, s := range t.Skipped {
		fmt.Fprintf(&b, "\n- skipped: %s", MarkdownCell(s))
	}
	if len(t.Skipped) > 0 {
		b.WriteByte('\n')
	}
	for i := range t.Machines {
		m := &t.Machines[i]
		legend, table := trendTables(m)
		fmt.Fprintf(&b, "\n**%s**\n\n", MarkdownCell(m.machineHeadline()))
		WriteMarkdownTable(&b, []string{"run", "started (UTC)", "forge commit", "host", "history"}, legend, func(int) bool { return false })
		b.WriteByte('\n')
		WriteMarkdownTable(&b, table[0], table[1:], func(col int) bool { return col > 0 && col < len(table[0])-2 })
		b.WriteString("\n" + m.tally() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
