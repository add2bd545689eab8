package report

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

// cpuRun is another machine's run, for a history that mixes machines.
func cpuRun() *bench.Run {
	r := benchtest.Run(1, benchtest.Defaults()...)
	r.Meta.ForgeCommit = strings.Repeat("c", 40)
	return r
}

// TestHistorySection: given a trend, the report draws per benchmark of the
// run's machine a sparkline with a point per run that has the benchmark
// (a gap, not a point and no line across it, where a run lacks it), the
// CI as whiskers, a tooltip per point, then the change, the p-value or
// why there is none, and the verdict in the report's colours; the other
// machine's runs are not shown.
func TestHistorySection(t *testing.T) {
	runs := trendRuns(benchtest.GPURun)
	trend := trendOf(t, append([]*bench.Run{cpuRun()}, runs...)...)
	if len(trend.Machines) != 2 {
		t.Fatalf("fixture: %d machines", len(trend.Machines))
	}
	m := &trend.Machines[1]
	if m.Machine != bench.MachineLabel(runs[3].Meta) {
		t.Fatalf("fixture: machine %q", m.Machine)
	}
	page := render(t, runs[3], Options{History: trend})
	doc := parseXML(t, page)
	sec := doc.byID("history")
	if sec == nil {
		t.Fatal("no History section")
	}
	if doc.byID("no-history") != nil {
		t.Error("a no-history note beside the trend")
	}

	if doc.byID("history-runs") == nil || doc.byID("history-trend") == nil {
		t.Fatal("no legend or no trend table")
	}
	// The legend: a row per run of this machine, the report's own marked.
	legend := doc.byID("history-runs").all("tbody")[0].all("tr")
	if len(legend) != 4 {
		t.Fatalf("legend: %d runs, want 4 (the cpu run is another machine's)", len(legend))
	}
	var cells []string
	for _, td := range legend[0].all("td") {
		cells = append(cells, td.Text)
	}
	if strings.Join(cells, "|") != "#1|2026-11-18 09:00|aaaaaaaaaaaa|gpu-node-0|line 2" {
		t.Errorf("legend row 1: %q", cells)
	}
	if legend[3].Attr["class"] != "this" || legend[0].Attr["class"] != "" || !strings.Contains(legend[3].texts(), "this report's run") {
		t.Error("the report's own run is not the one marked")
	}

	// The trend: a row per benchmark, a point per run that has it.
	rows := doc.byID("history-trend").all("tbody")[0].all("tr")
	if len(rows) != len(m.Benchmarks) {
		t.Fatalf("%d trend rows, want %d", len(rows), len(m.Benchmarks))
	}
	total := 0
	byName := map[string]*node{}
	for i, r := range rows {
		b := &m.Benchmarks[i]
		tds := r.all("td")
		if tds[0].Text != b.Name {
			t.Fatalf("row %d is %q, want %q", i, tds[0].Text, b.Name)
		}
		byName[b.Name] = r
		want := 0
		for _, p := range b.Points {
			if p != nil {
				want++
			}
		}
		pts := sparkPoints(r)
		if len(pts) != want {
			t.Errorf("%s: %d sparkline points, want %d", b.Name, len(pts), want)
		}
		total += len(pts)
		for _, c := range pts {
			if len(c.all("title")) != 1 {
				t.Errorf("%s: a point without a tooltip", b.Name)
			}
		}
	}
	if total != points(m) {
		t.Errorf("%d sparkline points, want %d", total, points(m))
	}

	// A gap: Q4_0 is missing from run #3, so it has points 0, 1 and 3 and
	// one segment, 0–1, none across the gap.
	q4 := byName["dequant_f32/Q4_0"]
	var at, segs, whiskers []string
	for _, c := range sparkPoints(q4) {
		at = append(at, c.Attr["data-v"])
	}
	for _, l := range q4.all("line") {
		switch l.Attr["class"] {
		case "spark-seg":
			segs = append(segs, l.Attr["data-v"])
		case "spark-ci":
			whiskers = append(whiskers, l.Attr["data-v"])
		}
	}
	if strings.Join(at, ",") != "0,1,3" || strings.Join(segs, ",") != "0-1" || strings.Join(whiskers, ",") != "0,1,3" {
		t.Errorf("Q4_0 with a gap at run 3: points at %q, segments %q, whiskers %q", at, segs, whiskers)
	}
	tip := sparkPoints(q4)[2].all("title")[0].Text
	for _, s := range []string{"run #4", "2026-11-21 09:00", "dddddddddddd", "median ", "95% CI ", "n=40"} {
		if !strings.Contains(tip, s) {
			t.Errorf("point tooltip %q lacks %q", tip, s)
		}
	}
	// Without a gap: a segment between every two runs.
	if n := countClass(byName["dequant_f32/Q8_0"], "line", "spark-seg"); n != 3 {
		t.Errorf("Q8_0: %d segments, want 3", n)
	}

	// Change, p and verdict.
	cellsOf := func(name string) []*node { return byName[name].all("td") }
	q3 := cellsOf("dequant_f32/Q3_K")
	if !strings.HasPrefix(q3[3].Text, "+") || q3[4].Text != "0.000" || q3[5].Text != "REGRESSION" || q3[5].Attr["class"] != "verdict regression" {
		t.Errorf("Q3_K: change %q, p %q, verdict %q (%q)", q3[3].Text, q3[4].Text, q3[5].Text, q3[5].Attr["class"])
	}
	if c := sparkPoints(byName["dequant_f32/Q3_K"])[3].Attr["fill"]; c != colRegression {
		t.Errorf("Q3_K's last point: fill %s, want the regression colour", c)
	}
	medians := cellsOf("dequant_f16/Q4_0")
	if medians[4].Text != "medians only" || medians[5].Text != "—" || !strings.Contains(medians[4].Attr["title"], "kept only the medians") {
		t.Errorf("a change of medians only: p %q (%q), verdict %q", medians[4].Text, medians[4].Attr["title"], medians[5].Text)
	}
	once := cellsOf("dequant_f32/only_last")
	if once[3].Text != "—" || once[4].Text != "one run" || len(sparkPoints(byName["dequant_f32/only_last"])) != 1 {
		t.Errorf("a benchmark of one run: change %q, p %q", once[3].Text, once[4].Text)
	}
	if tally := doc.byID("history-tally").texts(); !strings.HasPrefix(tally, "1 regression, ") {
		t.Errorf("tally %q", tally)
	}

	// Self-contained still, and the same bytes twice.
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "<link", "<img", "src=", "href=", "url("} {
		if strings.Contains(lower, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if render(t, runs[3], Options{History: trend}) != page {
		t.Error("the same report rendered twice differs")
	}
}

func sparkPoints(n *node) []*node {
	var out []*node
	for _, c := range n.all("circle") {
		if c.Attr["class"] == "spark-pt" {
			out = append(out, c)
		}
	}
	return out
}

func countClass(n *node, elem, class string) int {
	k := 0
	for _, c := range n.all(elem) {
		if c.Attr["class"] == class {
			k++
		}
	}
	return k
}

// TestHistoryOtherMachine: a history of other machines only gets a note
// naming this machine and those of the file, not a trend; no History
// option, no section.
func TestHistoryOtherMachine(t *testing.T) {
	run := benchtest.GPURun(1)
	doc := parseXML(t, render(t, run, Options{History: trendOf(t, cpuRun())}))
	note := doc.byID("no-history")
	if note == nil || doc.byID("history-trend") != nil {
		t.Fatal("no note, or a trend of another machine")
	}
	if txt := note.texts(); !strings.Contains(txt, "No history for this machine (cuda on NVIDIA H100 80GB HBM3 (sm_90)) in bench.jsonl") ||
		!strings.Contains(txt, "it holds runs of cpu on Synthetic CPU @ 3.0GHz (amd64), 8 CPUs") {
		t.Errorf("note %q", txt)
	}
	if doc := parseXML(t, render(t, run, Options{})); doc.byID("history") != nil {
		t.Error("a History section without a history")
	}
}

// TestHistoryHostile: a history's strings (host, commit, names) are user
// data: escaped, and the page stays well-formed.
func TestHistoryHostile(t *testing.T) {
	runs := trendRuns(benchtest.GPURun)
	for _, r := range runs {
		r.Meta.Hostname = hostile[0]
		r.Meta.ForgeCommit = hostile[3]
		r.Results[5].Name = hostile[1]
	}
	page := render(t, runs[3], Options{History: trendOf(t, runs...)})
	doc := parseXML(t, page)
	if strings.Contains(strings.ToLower(page), "<script") || strings.Contains(page, "<img") || strings.Contains(page, "<h1>pwn") {
		t.Error("a hostile string came through unescaped")
	}
	sec := doc.byID("history-trend")
	if sec == nil {
		t.Fatal("no trend")
	}
	if txt := doc.byID("history").texts(); !strings.Contains(txt, hostile[0]) || !strings.Contains(txt, hostile[1]) {
		t.Error("the hostile strings are not shown as text")
	}
}
