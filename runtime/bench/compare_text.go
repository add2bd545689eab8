package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteText prints the comparison as benchstat does: for each metric a
// table of old and new medians with their confidence intervals, the change,
// the p-value and sample counts, and the verdict ("~" for no significant
// change), with footnotes; then new and missing benchmarks, warnings and a
// one-line tally. Names, labels and the runs' metadata come from files:
// they are shown through Printable.
func (c *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "baseline: %s\n", cmpDescribeRun(c.Baseline))
	fmt.Fprintf(&b, "current:  %s\n", cmpDescribeRun(c.Current))
	for _, s := range c.Warnings {
		fmt.Fprintf(&b, "WARNING: %s\n", Printable(s))
	}
	for _, s := range c.Notes {
		fmt.Fprintf(&b, "note: %s\n", Printable(s))
	}

	for _, m := range cmpMetrics {
		rows := 0
		for _, d := range c.Benchmarks {
			if cmpMetricOf(d, m.name) != nil {
				rows++
			}
		}
		if rows == 0 {
			continue
		}
		dir, sign := "lower is better", "+"
		if m.higherIsBetter {
			dir, sign = "higher is better", "-"
		}
		fmt.Fprintf(&b, "\n%s (%s; median ± %.0f%% confidence interval; %s; regression: %s%s and p < %v)\n",
			m.label, m.what, 100*c.Options.Confidence, dir, sign, cmpPct(c.Options.ThresholdFor(m.name)), c.Options.Alpha)
		var notes []string
		footnote := func(s string) string {
			for i, n := range notes {
				if n == s {
					return cmpSuperscript(i + 1)
				}
			}
			notes = append(notes, s)
			return cmpSuperscript(len(notes))
		}
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tBASELINE\tCURRENT\tDELTA\tP\tVERDICT")
		for _, d := range c.Benchmarks {
			md := cmpMetricOf(d, m.name)
			if md == nil {
				continue
			}
			verdict := cmpVerdictText(md)
			var marks []string
			for _, n := range md.Notes {
				marks = append(marks, footnote(n))
			}
			for _, n := range d.Warnings {
				marks = append(marks, footnote(n))
			}
			if len(marks) > 0 {
				verdict += " " + strings.Join(marks, " ")
			}
			fmt.Fprintf(tw, "%s\t%s ± %s\t%s ± %s\t%s\t%s\t%s\n", Printable(d.Name),
				m.format(md.Old.Center), md.Old.PctRange(),
				m.format(md.New.Center), md.New.PctRange(),
				cmpFormatDelta(md.Delta), cmpPString(md), verdict)
		}
		tw.Flush()
		for i, n := range notes {
			fmt.Fprintf(&b, "%s %s\n", cmpSuperscript(i+1), Printable(n))
		}
	}

	if len(c.New) > 0 {
		fmt.Fprintf(&b, "\nnew (in the current run only): %s\n", Printable(strings.Join(c.New, ", ")))
	}
	if len(c.Missing) > 0 {
		fmt.Fprintf(&b, "\nmissing (in the baseline only): %s\n", Printable(strings.Join(c.Missing, ", ")))
	}
	fmt.Fprintf(&b, "\n%s, %s, %d unchanged; %d new, %d missing",
		cmpPlural(c.Regressions, "regression"), cmpPlural(c.Improvements, "improvement"), c.Unchanged, len(c.New), len(c.Missing))
	if !c.Comparable {
		b.WriteString(" (runs NOT comparable: see the warnings)")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func cmpMetricOf(d BenchDelta, name string) *MetricDelta {
	for i := range d.Metrics {
		if d.Metrics[i].Metric == name {
			return &d.Metrics[i]
		}
	}
	return nil
}

func cmpDescribeRun(r ComparedRun) string {
	m := r.Meta
	var parts []string
	for _, s := range []string{m.Backend, m.Device, m.Arch, m.Target} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if m.Backend == "cpu" && m.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", m.CPUs))
	}
	if v := m.ForgeVersion; v != "" {
		if m.ForgeCommit != "" {
			v += " " + cmpShortCommit(m.ForgeCommit)
		}
		parts = append(parts, "forge "+v)
	}
	s := r.Label
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if !r.Started.IsZero() {
		s += ", run " + r.Started.Format("2006-01-02 15:04")
	}
	return Printable(fmt.Sprintf("%s, %d benchmarks", s, r.Results))
}

func cmpShortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func cmpFormatDelta(d Num) string {
	f := float64(d)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", 100*f)
}

func cmpPString(md *MetricDelta) string {
	n := fmt.Sprintf("n=%d", md.Old.N)
	if md.Old.N != md.New.N {
		n = fmt.Sprintf("n=%d+%d", md.Old.N, md.New.N)
	}
	return fmt.Sprintf("p=%.3f %s", md.P, n)
}

func cmpPct(t float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*t), "0"), ".") + "%"
}

func cmpPlural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

func cmpSuperscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	d := []rune(digits)
	var out []rune
	for _, c := range fmt.Sprint(n) {
		out = append(out, d[c-'0'])
	}
	return string(out)
}

// cmpVerdictText is the verdict column of one metric's row: the text table
// and the markdown table say it alike.
func cmpVerdictText(md *MetricDelta) string {
	switch {
	case md.Verdict == Regression:
		return "REGRESSION"
	case md.Verdict == Improvement:
		return "improvement"
	case md.Significant:
		return "~ (within threshold)"
	case md.TooFewSamples:
		return "~ (too few samples)"
	}
	return "~"
}
