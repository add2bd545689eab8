package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/runtime/bench"
)

// The History section (Options.History): the trend of each benchmark across
// the runs of a history file (forgebench run --history) that measured the
// report's machine, as forgebench history shows it in the terminal — a
// legend of the runs, and per benchmark a sparkline of its medians, the
// change from the first run that has it to the last, the U test's p-value
// and the verdict — drawn as inline SVG like the rest of the page.

// historyView is what the template renders of a trend.
type historyView struct {
	Source  string // the history file
	Machine string // the machine of the report's run (bench.MachineLabel)
	// Missing says why there is nothing to show: the history has no run of
	// this machine (and which machines it has).
	Missing  string
	Headline string // how many runs, how a change is judged
	Runs     []historyRun
	Rows     []historyRow
	Tally    string
	Skipped  []string
}

// historyRun is a line of the legend.
type historyRun struct {
	Num, Date, Commit, Host, Line string
	This                          bool // the run this report shows
}

// historyRow is a benchmark's line of the trend table.
type historyRow struct {
	Name    string
	Spark   *svg
	Last    cell // the last run's median
	Change  cell
	P       cell
	Verdict cell
}

// Sparkline geometry, in SVG user units.
const (
	sparkH    = 30.0
	sparkPadX = 5.0
	sparkPadY = 4.0
	sparkStep = 20.0  // between runs, up to sparkWide runs
	sparkWide = 9     // runs drawn sparkStep apart; more share sparkSpan
	sparkSpan = 160.0 // the width the points span past sparkWide runs
	sparkR    = 2.5
	colSpark  = "#4e79a7"
	colWhisk  = "#a8a8a8"
)

// historyOf is the view of t for run's machine; opt's threshold and alpha
// are the trend's own (the command passes its --threshold to both).
func historyOf(t *bench.Trend, run *bench.Run) *historyView {
	label := bench.MachineLabel(run.Meta)
	v := &historyView{Source: clean(t.Source), Machine: clean(label), Skipped: cleanAll(t.Skipped)}
	var m *bench.MachineTrend
	var others []string
	for i := range t.Machines {
		if t.Machines[i].Machine == label {
			m = &t.Machines[i]
		} else {
			others = append(others, clean(t.Machines[i].Machine))
		}
	}
	if m == nil {
		v.Missing = "No history for this machine (" + v.Machine + ") in " + v.Source
		if len(others) > 0 {
			v.Missing += ": it holds runs of " + strings.Join(others, "; ")
		}
		v.Missing += "."
		return v
	}
	thr := t.Options.ThresholdFor(bench.MetricTime)
	v.Headline = fmt.Sprintf("%d run(s) of this machine", len(m.Runs))
	if m.Omitted > 0 {
		v.Headline += fmt.Sprintf(" (the last %d; %d earlier left out)", len(m.Runs), m.Omitted)
	}
	v.Headline += fmt.Sprintf(", oldest first. Change: a benchmark's median from the first run shown that has it to the last; regression: +%s and p < %s (Mann-Whitney U, where the history kept the samples; a run of more than %d samples kept its median only).",
		trimFloat(100*thr)+"%", trimFloat(t.Options.Alpha), bench.HistoryMaxSamples)
	for j, r := range m.Runs {
		hr := historyRun{Num: "#" + strconv.Itoa(m.Omitted+j+1), Date: "—", Commit: "commit unknown", Host: "—", Line: "line " + strconv.Itoa(r.Line)}
		if !r.Started.IsZero() {
			hr.Date = r.Started.UTC().Format("2006-01-02 15:04")
		}
		if r.Commit != "" {
			hr.Commit = clean(r.Commit)
		}
		if r.Host != "" {
			hr.Host = clean(r.Host)
		}
		if r.Interrupted {
			hr.Line += ", interrupted"
		}
		hr.This = !r.Started.IsZero() && r.Started.Equal(run.Started) && r.Host == run.Meta.Hostname
		v.Runs = append(v.Runs, hr)
	}
	for i := range m.Benchmarks {
		v.Rows = append(v.Rows, historyRowOf(&m.Benchmarks[i], v.Runs, i, t.Options.Alpha))
	}
	v.Tally = fmt.Sprintf("%s, %s, %d unchanged, %d not judged",
		plural(m.Regressions, "regression"), plural(m.Improvements, "improvement"), m.Unchanged, m.Unjudged)
	return v
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return strconv.Itoa(n) + " " + s + "s"
}

// historyRowOf formats b's line; runs are the legend (for the tooltips), i
// numbers the sparkline.
func historyRowOf(b *bench.TrendBench, runs []historyRun, i int, alpha float64) historyRow {
	r := historyRow{Name: clean(b.Name), Spark: sparkline(b, runs, i)}
	r.Last = cell{V: "—"}
	if b.Last >= 0 && b.Last < len(b.Points) && b.Points[b.Last] != nil {
		r.Last = cell{V: fmtNs(b.Points[b.Last].Median), Tip: "the median of run " + runs[b.Last].Num}
	}
	change := float64(b.Change)
	r.Change = cell{V: "—", Tip: b.Note}
	if b.First != b.Last && finite(change) {
		s := strconv.FormatFloat(100*change, 'f', 1, 64) + "%"
		if change >= 0 {
			s = "+" + s
		}
		r.Change = cell{V: s, Tip: "run " + runs[b.First].Num + " to run " + runs[b.Last].Num}
	}
	if p := float64(b.P); finite(p) {
		fp, lp := b.Points[b.First], b.Points[b.Last]
		r.P = cell{V: fmt.Sprintf("%.3f", p), Tip: fmt.Sprintf("Mann-Whitney U test, n=%d+%d; significant below %s", fp.N, lp.N, trimFloat(alpha))}
	} else {
		r.P = cell{V: trendNote(b), Class: "na", Tip: clean(b.Note)}
	}
	switch {
	case b.Verdict == bench.Regression:
		r.Verdict = cell{V: "REGRESSION", Class: clsRegression}
	case b.Verdict == bench.Improvement:
		r.Verdict = cell{V: "improvement", Class: clsImprovement}
	case b.Verdict == bench.Unchanged && b.Significant && change > 0:
		r.Verdict = cell{V: "~ (within threshold)", Class: clsSlower, Tip: "significant, but below the threshold"}
	case b.Verdict == bench.Unchanged && b.Significant && change < 0:
		r.Verdict = cell{V: "~ (within threshold)", Class: clsFaster, Tip: "significant, but below the threshold"}
	case b.Verdict == bench.Unchanged && b.TooFewSamples:
		r.Verdict = cell{V: "~ (too few samples)", Class: clsSame, Tip: clean(b.Note)}
	case b.Verdict == bench.Unchanged:
		r.Verdict = cell{V: "~", Class: clsSame, Tip: "no significant change"}
	default:
		r.Verdict = cell{V: "—", Class: "na", Tip: clean(b.Note)}
	}
	return r
}

// trendNote is the short form of why a change has no p-value, as
// forgebench history's verdict column gives it.
func trendNote(b *bench.TrendBench) string {
	switch {
	case b.First == b.Last:
		return "one run"
	case strings.Contains(b.Note, "size differs"):
		return "size differs"
	}
	return "medians only"
}

// sparkline draws b's medians across the runs, oldest left, slower up: a
// point per run that has the benchmark (none where a run lacks it, and
// the line broken there), its 95% confidence interval as a whisker where
// the history has one, a tooltip per point. nil when no run has it.
func sparkline(b *bench.TrendBench, runs []historyRun, i int) *svg {
	n := len(b.Points)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range b.Points {
		if p == nil {
			continue
		}
		lo, hi = math.Min(lo, p.Median), math.Max(hi, p.Median)
		if p.Lo > 0 && p.Hi > 0 {
			lo, hi = math.Min(lo, p.Lo), math.Max(hi, p.Hi)
		}
	}
	if !finite(lo) || !finite(hi) {
		return nil
	}
	if hi-lo < 1e-9*math.Max(1, hi) { // one value: a level line in the middle
		d := math.Max(0.05*hi, 1)
		lo, hi = lo-d, hi+d
	}
	step := sparkStep
	if n > sparkWide {
		step = sparkSpan / float64(n-1)
	}
	w := 2*sparkPadX + step*float64(max(n-1, 1))
	x := func(j int) float64 {
		if n == 1 {
			return w / 2
		}
		return sparkPadX + step*float64(j)
	}
	y := func(v float64) float64 { return sparkPadY + (hi-v)/(hi-lo)*(sparkH-2*sparkPadY) }
	c := &svg{ID: fmt.Sprintf("spark-%d", i+1), W: w, H: sparkH,
		Label: fmt.Sprintf("the median of %s in each run, oldest left; higher is slower", clean(b.Name))}
	c.Tip = fmt.Sprintf("%s: median per run, %s to %s (higher is slower)", clean(b.Name), fmtNs(lo), fmtNs(hi))
	for j, p := range b.Points { // whiskers under the line
		if p != nil && p.Lo > 0 && p.Hi > 0 {
			c.line(x(j), y(p.Hi), x(j), y(p.Lo), colWhisk, 1, "")
			c.classed("spark-ci", strconv.Itoa(j))
		}
	}
	for j := 0; j+1 < n; j++ { // a segment only between two runs next to each other that both have it
		if b.Points[j] != nil && b.Points[j+1] != nil {
			c.line(x(j), y(b.Points[j].Median), x(j+1), y(b.Points[j+1].Median), colSpark, 1.5, "")
			c.classed("spark-seg", fmt.Sprintf("%d-%d", j, j+1))
		}
	}
	for j, p := range b.Points {
		if p == nil {
			continue
		}
		fill := colSpark
		if j == b.Last && b.First != b.Last {
			switch b.Verdict {
			case bench.Regression:
				fill = colRegression
			case bench.Improvement:
				fill = colImprovement
			}
		}
		run := runs[j]
		tip := fmt.Sprintf("run %s, %s, %s: median %s", run.Num, run.Date, run.Commit, fmtNs(p.Median))
		if p.Lo > 0 && p.Hi > 0 {
			tip += fmt.Sprintf(" (95%% CI %s – %s)", fmtNs(p.Lo), fmtNs(p.Hi))
		} else {
			tip += " (no 95% CI: too few samples)"
		}
		tip += fmt.Sprintf(", n=%d", p.N)
		c.circle(x(j), y(p.Median), sparkR, fill, fill, 0, tip, nil)
		c.classed("spark-pt", strconv.Itoa(j))
	}
	return c
}
