package bench

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Markdown output: GitHub-flavoured tables to paste into a pull request or
// an issue, as llama-bench's `-o md` and llama.cpp's compare-llama-bench.py
// write them. Each document is a line saying what ran where (device,
// backend, forge commit), a blank line and one table; a run's scenario
// figures follow as tables of their own. Numeric columns are right-aligned
// (`---:`), cells are padded so that the raw text lines up too, and every
// cell and header passes through MarkdownCell.

// MarkdownCell returns s safe as one cell of a GitHub-flavoured table (or
// as text in a line of markdown): control bytes, invalid UTF-8 and other
// invisible characters are escaped as Printable does (a newline would end
// the row), then the characters markdown would act on are backslash-escaped:
// '|' (a cell boundary, also inside code spans), '\' (so that Printable's
// escapes show as written), '`', '*', '<' and '>' (code, emphasis, HTML,
// autolinks), '[' and ']' (links), '&' (entities), '~' where the cell has
// two (strike-through takes a pair; compare's "~" verdict stays as it is),
// and '_' where it could open or close emphasis (not between two letters
// or digits, so "dequant_f32/Q4_0" stays as it is).
func MarkdownCell(s string) string {
	s = Printable(s)
	if !strings.ContainsAny(s, "|\\`*<>[]~&_") {
		return s
	}
	tildes := strings.Count(s, "~") > 1
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '|', '\\', '`', '*', '<', '>', '[', ']', '&':
			b.WriteByte('\\')
		case '~':
			if tildes {
				b.WriteByte('\\')
			}
		case '_':
			if i == 0 || i+1 >= len(s) || !isWordByte(s[i-1]) || !isWordByte(s[i+1]) {
				b.WriteByte('\\')
			}
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// WriteMarkdownTable writes a GitHub-flavoured table: the header row,
// the delimiter row (`---:` for the columns right(col) says are
// right-aligned, `---` for the others) and rows, every cell through
// MarkdownCell and padded to its column's width. A row shorter than the
// header is padded with empty cells; a longer one is cut.
func WriteMarkdownTable(b *strings.Builder, head []string, rows [][]string, right func(col int) bool) {
	if len(head) == 0 {
		return
	}
	cells := make([][]string, 0, len(rows)+1)
	width := make([]int, len(head))
	for i := range width {
		width[i] = 3 // the delimiter's dashes: "---", "---:"
		if right(i) {
			width[i] = 4
		}
	}
	for _, r := range append([][]string{head}, rows...) {
		row := make([]string, len(head))
		for i := range row {
			if i < len(r) {
				row[i] = MarkdownCell(r[i])
			}
			width[i] = max(width[i], utf8.RuneCountInString(row[i]))
		}
		cells = append(cells, row)
	}
	line := func(row []string) {
		b.WriteString("|")
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if right(i) {
				b.WriteString(" " + pad + c + " |")
			} else {
				b.WriteString(" " + c + pad + " |")
			}
		}
		b.WriteByte('\n')
	}
	line(cells[0])
	b.WriteString("|")
	for i, w := range width {
		if right(i) {
			b.WriteString(" " + strings.Repeat("-", w-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", w) + " |")
		}
	}
	b.WriteByte('\n')
	for _, r := range cells[1:] {
		line(r)
	}
}

// MarkdownColumns are WriteMarkdown's table columns.
var MarkdownColumns = []string{"benchmark", "n", "p50", "95% CI of p50", "p95", "p99", "±stddev", "GB/s", "% copy", "Gelem/s", "GFLOPS", "ratio"}

// WriteMarkdown writes run as markdown: a line naming the backend, device,
// forge commit and start of the run (and the copy roofline); the GPU's
// clocks and their warnings (Clocks.Summary, Clocks.Warnings) where the run
// recorded them; then one table with a row per timed benchmark
// (MarkdownColumns: sample count, median time per iteration and its 95%
// confidence interval, p95 and p99 ("-" below QuantileMinN's counts, as in
// the terminal table: with fewer samples they are the maximum), the
// standard deviation as a percentage of the mean ("!" after it past
// NoiseCV: a noisy benchmark), GB/s, % of the copy roofline, G elements/s,
// GFLOPS where the family computes and the compression ratio against f32;
// "-" where a figure does not apply), then a table per group of a scenario
// suite's figures (MetricTables).
func WriteMarkdown(w io.Writer, run *Run) error {
	var b strings.Builder
	b.WriteString(MarkdownCell(markdownRunLine(run)) + "\n\n")
	if c := run.Meta.Clocks; c != nil {
		b.WriteString("gpu clocks: " + MarkdownCell(c.Summary()) + "\n\n")
	}
	if ws := append(run.Meta.Clocks.Warnings(), ResultClockWarnings(run)...); len(ws) > 0 {
		for _, w := range ws {
			b.WriteString("- **warning**: " + MarkdownCell(w) + "\n")
		}
		b.WriteByte('\n')
	}
	var rows [][]string
	for i := range run.Results {
		r := &run.Results[i]
		s := r.Stats
		if s.N == 0 {
			continue // a scenario's figures alone: its metrics table has it
		}
		ci := "-"
		if s.P50Lo > 0 && s.P50Hi > 0 {
			ci = FormatDuration(s.P50Lo) + " – " + FormatDuration(s.P50Hi)
		}
		c := cellsOf(r)
		rows = append(rows, []string{r.Name, fmt.Sprint(s.N), FormatDuration(s.P50), ci, c.p95, c.p99, c.sd, c.gbps, c.pct, c.gelems, c.gflops, c.ratio})
	}
	numeric := func(col int) bool { return col > 0 }
	if len(rows) > 0 {
		WriteMarkdownTable(&b, MarkdownColumns, rows, numeric)
	}
	for _, t := range MetricTables(run) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n\n") {
			b.WriteByte('\n')
		}
		WriteMarkdownTable(&b, t.Head, t.Rows, numeric)
	}
	if run.Interrupted {
		fmt.Fprintf(&b, "\n**interrupted**: %d benchmark(s) finished before the run was stopped\n", len(run.Results))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownRunLine is the line above a run's markdown table: "forgebench
// run: backend cpu on DEVICE (ARCH), N CPUs, forge VERSION COMMIT, started
// DATE UTC; copy roofline X GB/s".
func markdownRunLine(run *Run) string {
	m := run.Meta
	var b strings.Builder
	fmt.Fprintf(&b, "forgebench run: backend %s on %s (%s", m.Backend, m.Device, m.Arch)
	if m.Target != "" && m.Target != m.Arch {
		fmt.Fprintf(&b, ", target %s", m.Target)
	}
	b.WriteString(")")
	if m.Backend == "cpu" && m.CPUs > 0 {
		fmt.Fprintf(&b, ", %d CPUs", m.CPUs)
	}
	fmt.Fprintf(&b, ", forge %s", m.ForgeVersion)
	if c := commitString(m); c != "" {
		b.WriteString(" " + c)
	}
	if !run.Started.IsZero() {
		b.WriteString(", started " + run.Started.UTC().Format("2006-01-02 15:04") + " UTC")
	}
	if r := run.Roofline; r != nil && r.GBps > 0 {
		fmt.Fprintf(&b, "; copy roofline %.2f GB/s", r.GBps)
	}
	if s := WeightsSummary(run); s != "" {
		b.WriteString("; weights " + s)
	}
	return b.String()
}

// commitString is m's forge commit, shortened to 12 characters, with
// "+dirty" when the tree differed; "" when unknown.
func commitString(m Meta) string {
	if m.ForgeCommit == "" {
		return ""
	}
	c := cmpShortCommit(m.ForgeCommit)
	if m.ForgeModified {
		c += "+dirty"
	}
	return c
}

// WriteMarkdown writes the comparison as markdown, as compare-llama-bench.py
// does: two lines describing the baseline and the current run, the
// warnings as a list, then one table with a row per benchmark compared —
// the median time per iteration of each side with its confidence interval,
// the change, the U test's p-value with the sample counts and the verdict
// (a benchmark that regressed or improved in GB/s alone, under its own
// --metric threshold, says so) — then the new and missing benchmarks and
// the tally.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**baseline**: %s  \n", MarkdownCell(cmpDescribeRun(c.Baseline)))
	fmt.Fprintf(&b, "**current**: %s\n", MarkdownCell(cmpDescribeRun(c.Current)))
	if len(c.Warnings) > 0 || len(c.Notes) > 0 {
		b.WriteByte('\n')
	}
	for _, s := range c.Warnings {
		fmt.Fprintf(&b, "- **warning**: %s\n", MarkdownCell(s))
	}
	for _, s := range c.Notes {
		fmt.Fprintf(&b, "- note: %s\n", MarkdownCell(s))
	}
	tm := cmpMetrics[0] // time: the table's figures
	var rows [][]string
	for _, d := range c.Benchmarks {
		md := cmpMetricOf(d, tm.name)
		if md == nil {
			continue
		}
		verdict := cmpVerdictText(md)
		if md.Verdict != Regression && md.Verdict != Improvement && (d.Verdict == Regression || d.Verdict == Improvement) {
			verdict = cmpVerdictText(&MetricDelta{Verdict: d.Verdict}) + " (GB/s)" // judged on throughput only
		}
		if len(d.Warnings) > 0 {
			verdict += " (size differs)"
		}
		rows = append(rows, []string{d.Name,
			tm.format(md.Old.Center) + " ± " + md.Old.PctRange(),
			tm.format(md.New.Center) + " ± " + md.New.PctRange(),
			cmpFormatDelta(md.Delta), cmpPString(md), verdict})
	}
	if len(rows) > 0 {
		b.WriteByte('\n')
		WriteMarkdownTable(&b, []string{"benchmark", "baseline", "current", "delta", "p", "verdict"}, rows,
			func(col int) bool { return col >= 1 && col <= 4 })
		dir := fmt.Sprintf("+%s", cmpPct(c.Options.ThresholdFor(tm.name)))
		fmt.Fprintf(&b, "\n%s: median ± %.0f%% confidence interval; regression: %s and p < %v (Mann-Whitney U)\n",
			tm.label, 100*c.Options.Confidence, dir, c.Options.Alpha)
	}
	if len(c.New) > 0 {
		fmt.Fprintf(&b, "\nnew (in the current run only): %s\n", MarkdownCell(strings.Join(c.New, ", ")))
	}
	if len(c.Missing) > 0 {
		fmt.Fprintf(&b, "\nmissing (in the baseline only): %s\n", MarkdownCell(strings.Join(c.Missing, ", ")))
	}
	fmt.Fprintf(&b, "\n%s, %s, %d unchanged; %d new, %d missing",
		cmpPlural(c.Regressions, "regression"), cmpPlural(c.Improvements, "improvement"), c.Unchanged, len(c.New), len(c.Missing))
	if !c.Comparable {
		b.WriteString(" (runs **not comparable**: see the warnings)")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
