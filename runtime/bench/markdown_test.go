package bench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/suite"
)

// mdCells splits a markdown table row into its cells at the '|' that are
// not backslash-escaped, trimming each; ok is false when the line is not
// a row (does not start and end with '|').
func mdCells(line string) (cells []string, ok bool) {
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || strings.HasSuffix(line, `\|`) {
		return nil, false
	}
	var cur strings.Builder
	for i := 1; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(c)
			cur.WriteByte(line[i+1])
			i++
		case c == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return cells, true
}

// mdTable returns the first markdown table of doc starting at or after
// line from: its header, alignments ("l" or "r" per column) and rows, and
// the index of the line after it.
func mdTable(t *testing.T, doc string, from int) (head, align []string, rows [][]string, next int) {
	t.Helper()
	lines := strings.Split(doc, "\n")
	i := from
	for i < len(lines) && !strings.HasPrefix(lines[i], "|") {
		i++
	}
	if i+1 >= len(lines) {
		t.Fatalf("no table after line %d:\n%s", from, doc)
	}
	head, _ = mdCells(lines[i])
	delim, ok := mdCells(lines[i+1])
	if !ok || len(delim) != len(head) {
		t.Fatalf("delimiter row %q under a header of %d cells", lines[i+1], len(head))
	}
	for _, d := range delim {
		switch {
		case strings.Trim(d, "-") == "" && len(d) >= 3:
			align = append(align, "l")
		case strings.HasSuffix(d, ":") && strings.Trim(d, "-:") == "" && !strings.HasPrefix(d, ":"):
			align = append(align, "r")
		default:
			t.Fatalf("delimiter cell %q", d)
		}
	}
	i += 2
	for ; i < len(lines); i++ {
		r, ok := mdCells(lines[i])
		if !ok {
			break
		}
		if len(r) != len(head) {
			t.Errorf("row %q has %d cells, the header %d", lines[i], len(r), len(head))
		}
		rows = append(rows, r)
	}
	return head, align, rows, i
}

func TestMarkdownCell(t *testing.T) {
	for in, want := range map[string]string{
		"dequant_f32/Q4_0":           "dequant_f32/Q4_0",
		"NVIDIA H100 80GB HBM3":      "NVIDIA H100 80GB HBM3",
		"a|b":                        `a\|b`,
		"line\nbreak\x1b[31m":        `line\\nbreak\\x1b\[31m`,
		"`code` *em* <b>&amp; ~s~":   "\\`code\\` \\*em\\* \\<b\\>\\&amp; \\~s\\~",
		"_lead and trail_":           `\_lead and trail\_`,
		"bad\xffutf8":                `bad\\xffutf8`,
		"[link](http://x)":           `\[link\](http://x)`,
		"µs ± 1%":                    "µs ± 1%",
		"blk.0.attn_q.weight|Q4_K\t": `blk.0.attn_q.weight\|Q4_K\\t`,
	} {
		if got := bench.MarkdownCell(in); got != want {
			t.Errorf("MarkdownCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// evilName is a benchmark name (a GGUF tensor's, say) with a cell
// separator, an escape sequence, a newline and markdown in it.
const evilName = "gguf/evil|name\x1b[31m\n*bold* <script>/dequant_f32"

func TestWriteMarkdownRun(t *testing.T) {
	run := benchtest.Run(1, append(benchtest.Defaults(), benchtest.Bench{Name: evilName, Center: time.Millisecond, Samples: 3})...)
	for i := range run.Results { // the engine's statistics, with the median's confidence interval
		r := &run.Results[i]
		r.Stats = bench.Summarize(r.Samples, r.BytesRead+r.BytesWritten, r.Elements, 0, run.Roofline.GBps)
	}
	run.Meta.ForgeModified = true
	run.Meta.Device = "Synthetic | CPU"
	run.Results = append(run.Results, bench.Result{Name: "memory/kv_cache/grow", Suite: "memory/kv_cache", Family: "memory",
		Metrics: []suite.Metric{{Name: "bytes_per_token", Value: 4096, Unit: "B"}, {Name: "hit_rate", Value: 97.5, Unit: "%"}}})
	var b strings.Builder
	if err := bench.WriteMarkdown(&b, run); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	lines := strings.Split(doc, "\n")
	want := `forgebench run: backend cpu on Synthetic \| CPU (amd64), 8 CPUs, forge devel 0123456789ab+dirty, started 2025-06-01 13:00 UTC; copy roofline 20.00 GB/s`
	if lines[0] != want || lines[1] != "" {
		t.Fatalf("head:\n%q\nwant\n%q", lines[0], want)
	}
	head, align, rows, next := mdTable(t, doc, 2)
	if strings.Join(head, ",") != strings.Join(bench.MarkdownColumns, ",") {
		t.Errorf("header %q", head)
	}
	if strings.Join(align, "") != "l"+strings.Repeat("r", len(head)-1) {
		t.Errorf("alignment %q: want the name left and every number right", align)
	}
	if len(rows) != len(benchtest.Defaults())+1 {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(benchtest.Defaults())+1, doc)
	}
	if rows[0][0] != "dequant_f32/F16" || rows[0][1] != "20" || !strings.HasSuffix(rows[0][2], "µs") || rows[0][3] == "-" {
		t.Errorf("first row %q: want the name, 20 samples, the median and its CI", rows[0])
	}
	evil := rows[len(rows)-1]
	if want := `gguf/evil\|name\\x1b\[31m\\n\*bold\* \<script\>/dequant_f32`; evil[0] != want {
		t.Errorf("escaped name %q, want %q", evil[0], want)
	}
	if evil[3] != "-" { // 3 samples: no CI of the median
		t.Errorf("CI with 3 samples: %q", evil[3])
	}
	if strings.ContainsAny(doc, "\x1b\r") {
		t.Errorf("raw control bytes in the markdown:\n%q", doc)
	}
	// The scenario's figures: a table of their own.
	mhead, malign, mrows, _ := mdTable(t, doc, next)
	if strings.Join(mhead, ",") != "memory/kv_cache,bytes_per_token (B),hit_rate (%)" || len(mrows) != 1 || mrows[0][0] != "grow" || mrows[0][1] != "4 KiB" ||
		strings.Join(malign, "") != "lrr" {
		t.Errorf("metrics table %q %q %q", mhead, malign, mrows)
	}

	run.Interrupted = true
	b.Reset()
	bench.WriteMarkdown(&b, run)
	if !strings.Contains(b.String(), "\n**interrupted**: ") {
		t.Errorf("an interrupted run does not say so:\n%s", b.String())
	}
}

func TestCompareMarkdown(t *testing.T) {
	base := benchtest.Run(1, benchtest.Defaults()...)
	cur := benchtest.Run(2, benchtest.Defaults()...)
	benchtest.Scale(cur, "dequant_f32/Q4_0", 1.3)
	benchtest.Scale(cur, "dequant_f16/Q6_K", 0.7)
	cur.Results = append(cur.Results, benchtest.Run(2, benchtest.Bench{Name: "new|one", Center: time.Millisecond}).Results...)
	cur.Meta.Device = "Other CPU"
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	c.Baseline.Label, c.Current.Label = "main", "this run"
	var b strings.Builder
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	if !strings.HasPrefix(doc, "**baseline**: main (cpu, Synthetic CPU @ 3.0GHz, amd64, 8 CPUs, forge devel 0123456789ab), run 2025-06-01 13:00, 6 benchmarks  \n**current**: this run (cpu, Other CPU,") {
		t.Errorf("head:\n%s", doc)
	}
	if !strings.Contains(doc, "\n- **warning**: device differs: baseline \"Synthetic CPU @ 3.0GHz\", current \"Other CPU\"\n") {
		t.Errorf("no warning item:\n%s", doc)
	}
	head, align, rows, _ := mdTable(t, doc, 0)
	if strings.Join(head, ",") != "benchmark,baseline,current,delta,p,verdict" || strings.Join(align, "") != "lrrrrl" {
		t.Errorf("header %q, alignment %q", head, align)
	}
	verdicts := map[string]string{}
	for _, r := range rows {
		verdicts[r[0]] = r[5]
		if !strings.Contains(r[1], " ± ") || !strings.HasPrefix(r[4], "p=") {
			t.Errorf("row %q: want median ± CI and p=", r)
		}
	}
	if len(rows) != 6 || verdicts["dequant_f32/Q4_0"] != "REGRESSION" || verdicts["dequant_f16/Q6_K"] != "improvement" || verdicts["copy/f32"] != "~" {
		t.Errorf("rows %q", rows)
	}
	for _, want := range []string{
		"\ntime/op: median ± 95% confidence interval; regression: +10% and p < 0.05 (Mann-Whitney U)\n",
		"\nnew (in the current run only): new\\|one\n",
		"\n1 regression, 1 improvement, 4 unchanged; 1 new, 0 missing (runs **not comparable**: see the warnings)\n",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("lacks %q:\n%s", want, doc)
		}
	}
}

// TestWriteMarkdownQuantilesNoiseClocks: the markdown table hides p95 and
// p99 below their minimum sample counts and marks a noisy benchmark's
// ±stddev with "!", as the terminal table does; a run's GPU clocks and
// their warnings are printed under its first line, and a run without
// clocks prints none.
func TestWriteMarkdownQuantilesNoiseClocks(t *testing.T) {
	run := benchtest.Run(1,
		benchtest.Bench{Name: "few", Center: 50 * time.Microsecond, Samples: 19},
		benchtest.Bench{Name: "p95", Center: 50 * time.Microsecond, Samples: 20},
		benchtest.Bench{Name: "p99", Center: 50 * time.Microsecond, Samples: 100},
		benchtest.Bench{Name: "noisy", Center: 50 * time.Microsecond, Samples: 20})
	noisy := &run.Results[3]
	for i := range noisy.Samples {
		if i%2 == 0 {
			noisy.Samples[i] = noisy.Samples[i] * 13 / 10
		}
	}
	for i := range run.Results {
		r := &run.Results[i]
		r.Stats = bench.Summarize(r.Samples, r.BytesRead+r.BytesWritten, r.Elements, 0, run.Roofline.GBps)
	}
	if !run.Results[3].Stats.Noisy() || run.Results[1].Stats.Noisy() {
		t.Fatalf("fixture: CVs %v %v", run.Results[3].Stats.CV(), run.Results[1].Stats.CV())
	}
	md := func() string {
		var b strings.Builder
		if err := bench.WriteMarkdown(&b, run); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	doc := md()
	if strings.Contains(doc, "gpu clocks") || strings.Contains(doc, "warning") {
		t.Errorf("a run without clocks shows clocks:\n%s", doc)
	}
	head, _, rows, _ := mdTable(t, doc, 0)
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, h := range []string{"p95", "p99", "±stddev"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("no %s column: %q", h, head)
		}
	}
	byName := map[string][]string{}
	for _, r := range rows {
		byName[r[0]] = r
	}
	for _, c := range []struct {
		name     string
		p95, p99 bool
		noisy    bool
	}{{"few", false, false, false}, {"p95", true, false, false}, {"p99", true, true, false}, {"noisy", true, false, true}} {
		r := byName[c.name]
		if r == nil {
			t.Fatalf("no row %q:\n%s", c.name, doc)
		}
		if got := r[col["p95"]] != "-"; got != c.p95 {
			t.Errorf("%s (n=%s): p95 %q, want shown %v", c.name, r[1], r[col["p95"]], c.p95)
		}
		if got := r[col["p99"]] != "-"; got != c.p99 {
			t.Errorf("%s (n=%s): p99 %q, want shown %v", c.name, r[1], r[col["p99"]], c.p99)
		}
		if got := strings.HasSuffix(r[col["±stddev"]], "!"); got != c.noisy {
			t.Errorf("%s: ±stddev %q, want the noise mark %v", c.name, r[col["±stddev"]], c.noisy)
		}
	}

	// Clocks: the summary and each warning under the first line.
	run.Meta.Clocks = &bench.Clocks{Tool: "nvidia-smi", GPU: "0", Driver: "580.159.04", MaxSMMHz: 1980, MaxMemMHz: 2619,
		Start: &bench.ClockSample{SMMHz: 1980, MemMHz: 2619},
		End:   &bench.ClockSample{SMMHz: 1410, MemMHz: 2619, Reasons: []string{"sw_thermal_slowdown"}}}
	doc = md()
	lines := strings.Split(doc, "\n")
	if !strings.HasPrefix(lines[0], "forgebench run: ") || lines[1] != "" ||
		lines[2] != `gpu clocks: nvidia-smi, GPU 0, driver 580.159.04: SM 1980 -\> 1410 MHz (max 1980), memory 2619 -\> 2619 MHz (max 2619) (start -\> end)` {
		t.Errorf("clock lines:\n%s", doc)
	}
	var warnings int
	for _, l := range lines {
		if strings.HasPrefix(l, "- **warning**: at the run's end ") {
			warnings++
		}
	}
	if warnings != 2 { // a throttle reason, and the SM clock at 71% of its maximum
		t.Errorf("%d warnings, want 2:\n%s", warnings, doc)
	}
	if _, _, rows, _ := mdTable(t, doc, 0); len(rows) != 4 {
		t.Errorf("the table after the clocks: %d rows", len(rows))
	}
	// Steady clocks: the summary, no warning.
	run.Meta.Clocks.End = &bench.ClockSample{SMMHz: 1980, MemMHz: 2619}
	if doc = md(); !strings.Contains(doc, "gpu clocks: nvidia-smi") || strings.Contains(doc, "warning") {
		t.Errorf("steady clocks:\n%s", doc)
	}
}
