package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

func writeRun(t *testing.T, dir, name string, r *bench.Run) string {
	t.Helper()
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReportWritesHTML(t *testing.T) {
	dir := t.TempDir()
	run := writeRun(t, dir, "run.json", benchtest.GPURun(1))
	base := writeRun(t, dir, "base.json", benchtest.Baseline(1))
	out := filepath.Join(dir, "report.html")
	// Flags after the argument, as users type them.
	code, stdout, stderr := forgebench(t, "report", run, "--html", out, "--baseline", base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout: %q", stdout)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`id="throughput-1"`, `id="roofline"`, `id="baseline"`, "NVIDIA H100 80GB HBM3", "2 regressions, 1 improvement"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	// No temporary file left beside it.
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("directory holds %d entries, want run, baseline and report", len(ents))
	}

	// Without a baseline: no comparison chart; to stdout with "-".
	code, stdout, stderr = forgebench(t, "report", "--html", "-", run)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "<!DOCTYPE html>") || strings.Contains(stdout, `id="baseline"`) || !strings.Contains(stdout, `id="roofline"`) {
		t.Errorf("stdout report wrong: %.200q", stdout)
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeRun(t, dir, "run.json", benchtest.GPURun(1))
	goodData, _ := os.ReadFile(good)
	base := writeRun(t, dir, "base.json", benchtest.Baseline(1))
	baseData, _ := os.ReadFile(base)
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := benchtest.GPURun(1)
	other.Schema = 2
	future := writeRun(t, dir, "future.json", other)
	other = benchtest.GPURun(1)
	other.Kind = "benchstat.run"
	foreign := writeRun(t, dir, "foreign.json", other)
	truncated := file("truncated.json", string(goodData[:len(goodData)/2]))
	trailing := file("trailing.json", string(goodData)+"\n{}")
	nameless := benchtest.GPURun(1)
	nameless.Results[3].Name = ""
	noname := writeRun(t, dir, "noname.json", nameless)
	empty := file("empty.json", "  \n")
	pkg := file("package.json", `{"name": "left-pad", "version": "1.3.0"}`)
	array := file("array.json", `[1, 2, 3]`)
	badType := file("badtype.json", `{"kind": "forgebench.run", "schema_version": 1, "results": {"a": 1}}`)
	out := filepath.Join(dir, "out.html")

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{"report", good}, "give --html PATH"},
		{"no run", []string{"report", "--html", out}, "want 1 argument(s) RUN.json"},
		{"missing run", []string{"report", "--html", out, filepath.Join(dir, "nope.json")}, "nope.json: no such file"},
		{"empty", []string{"report", "--html", out, empty}, "empty.json is not a forgebench run or baseline: it is empty"},
		{"truncated", []string{"report", "--html", out, truncated}, "truncated.json: truncated JSON: the data ends at line"},
		{"trailing", []string{"report", "--html", out, trailing}, "trailing.json: not one JSON value: more data follows at line"},
		{"foreign kind", []string{"report", "--html", out, foreign}, `foreign.json is not a forgebench run or baseline: its kind is "benchstat.run"`},
		{"foreign JSON", []string{"report", "--html", out, pkg}, `package.json is not a forgebench run or baseline: it has no "kind"`},
		{"array", []string{"report", "--html", out, array}, "array.json is not a forgebench run or baseline: the JSON is an array"},
		{"future schema", []string{"report", "--html", out, future}, "future.json: schema_version 2 is not supported (this forgebench reads version 1)"},
		{"bad type", []string{"report", "--html", out, badType}, "badtype.json: at line 1, column 61: results is a JSON object"},
		{"nameless result", []string{"report", "--html", out, noname}, "noname.json: result 3 has no name"},
		{"corrupt baseline", []string{"report", "--html", out, "--baseline", truncated, good}, "truncated.json: truncated JSON"},
		{"bad threshold", []string{"report", "--html", out, "--threshold", "-5", good}, `--threshold "-5": want a percentage above 0`},
		{"output over the run", []string{"report", "--html", good, good}, "would overwrite the input"},
		{"output over the baseline", []string{"report", "--html", base, "--baseline", base, good}, "would overwrite the input " + base},
		{"unwritable output", []string{"report", "--html", filepath.Join(dir, "no", "such", "dir", "r.html"), good}, "cannot write"},
		{"output is a directory", []string{"report", "--html", dir, good}, dir},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := forgebench(t, c.args...)
			if code == 0 {
				t.Fatal("exit 0")
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q lacks %q", stderr, c.want)
			}
			if !strings.HasPrefix(stderr, "forgebench: ") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("want one line of error, got %q", stderr)
			}
		})
	}
	// Nothing written, nothing overwritten.
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s", out)
	}
	if b, _ := os.ReadFile(good); string(b) != string(goodData) {
		t.Error("the run file was changed")
	}
	if b, _ := os.ReadFile(base); string(b) != string(baseData) {
		t.Error("the baseline file was changed")
	}
	if b, _ := os.ReadFile(truncated); string(b) != string(goodData[:len(goodData)/2]) {
		t.Error("the corrupt file was changed")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// writeReportHistory appends to a new history file three runs of the H100
// fixture on successive days (the third with dequant_f32/Q3_K 30% slower)
// and, when cpu is set, a cpu run before them; it returns the file and
// the third run, written as RUN.json.
func writeReportHistory(t *testing.T, dir string, cpu bool) (hist, runFile string) {
	t.Helper()
	hist = filepath.Join(dir, "h.jsonl")
	var runs []*bench.Run
	if cpu {
		runs = append(runs, benchtest.Run(1, benchtest.Defaults()...))
	}
	var last *bench.Run
	for k := range 3 {
		r := benchtest.GPURun(uint64(k + 1))
		r.Started = time.Date(2026, 11, 18+k, 9, 0, 0, 0, time.UTC)
		r.Meta.ForgeCommit = strings.Repeat(string(rune('a'+k)), 40)
		if k == 2 {
			benchtest.Scale(r, "dequant_f32/Q3_K", 1.3)
		}
		runs, last = append(runs, r), r
	}
	for _, r := range runs {
		if err := bench.AppendHistory(hist, r, "run"); err != nil {
			t.Fatal(err)
		}
	}
	return hist, writeRun(t, dir, "run.json", last)
}

// TestReportHistory: report --history draws the trend of the run's machine
// (a sparkline point per run that has the benchmark), --history-last cuts
// it, and a history of another machine gets a note, not an error.
func TestReportHistory(t *testing.T) {
	dir := t.TempDir()
	hist, runFile := writeReportHistory(t, dir, true)
	out := filepath.Join(dir, "report.html")
	code, _, stderr := forgebench(t, "report", runFile, "--html", out, "--history", hist)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, _ := os.ReadFile(out)
	trend, err := bench.LoadTrend(hist, false, bench.HistoryFilter{}, bench.TrendOptions{Last: 8})
	if err != nil {
		t.Fatal(err)
	}
	gpu := trend.Machines[1]
	if !strings.HasPrefix(gpu.Machine, "cuda on NVIDIA H100") || len(gpu.Runs) != 3 {
		t.Fatalf("fixture: %s, %d runs", gpu.Machine, len(gpu.Runs))
	}
	pts := 0
	for _, b := range gpu.Benchmarks {
		for _, p := range b.Points {
			if p != nil {
				pts++
			}
		}
	}
	if n := strings.Count(string(page), `class="spark-pt"`); n != pts {
		t.Errorf("%d sparkline points, want %d", n, pts)
	}
	for _, s := range []string{`id="history"`, `id="history-trend"`, ">REGRESSION<", "cccccccccccc", "line 4 (this report's run)", "1 regression, "} {
		if !strings.Contains(string(page), s) {
			t.Errorf("report lacks %q", s)
		}
	}
	if strings.Contains(string(page), "Synthetic CPU") {
		t.Error("the cpu machine's runs are in the H100 run's report")
	}

	// --history-last 2: two runs of the three, the first left out.
	code, stdout, stderr := forgebench(t, "report", runFile, "--html", "-", "--history", hist, "--history-last", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, legend, _ := strings.Cut(stdout, `id="history-runs"`)
	legend, _, _ = strings.Cut(legend, "</table>")
	if strings.Count(legend, "<tr") != 3 || strings.Contains(legend, "aaaaaaaaaaaa") || !strings.Contains(stdout, "1 earlier left out") {
		t.Errorf("--history-last 2 legend:\n%s", legend)
	}

	// A history of another machine only: a note, exit 0.
	cpuHist := filepath.Join(dir, "cpu.jsonl")
	if err := bench.AppendHistory(cpuHist, benchtest.Run(1, benchtest.Defaults()...), "run"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = forgebench(t, "report", runFile, "--html", "-", "--history", cpuHist)
	if code != 0 || !strings.Contains(stdout, `id="no-history"`) || !strings.Contains(stdout, "No history for this machine (cuda on NVIDIA H100 80GB HBM3 (sm_90)) in "+cpuHist) ||
		strings.Contains(stdout, `class="spark-pt"`) {
		t.Errorf("another machine's history: exit %d, %s", code, stderr)
	}
}

// TestReportBadHistory: a history line that is not an entry is an error
// naming the file and the line (exit 2), as forgebench history's; so are
// a missing file and --history-last alone; nothing is written.
func TestReportBadHistory(t *testing.T) {
	dir := t.TempDir()
	hist, runFile := writeReportHistory(t, dir, false)
	data, _ := os.ReadFile(hist)
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = lines[1][:len(lines[1])/2] + "\n" // cut short
	if err := os.WriteFile(hist, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	good, _ := writeReportHistory(t, t.TempDir(), false)
	out := filepath.Join(dir, "report.html")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", runFile, "--html", out, "--history", hist}, "report: --history: " + hist + ":2: not valid JSON"},
		{[]string{"report", runFile, "--html", out, "--history", filepath.Join(dir, "none.jsonl")}, "none.jsonl: no such file"},
		{[]string{"report", runFile, "--html", out, "--history", runFile}, "report: --history: " + runFile + ":1: not valid JSON"},
		{[]string{"report", runFile, "--html", out, "--history-last", "3"}, "--history-last 3 without --history FILE"},
		{[]string{"report", runFile, "--html", out, "--history", hist, "--history-last", "-1"}, "--history-last -1: want 0 (all) to "},
		{[]string{"report", runFile, "--html", good, "--history", good}, "would overwrite the input " + good},
	} {
		code, _, stderr := forgebench(t, c.args...)
		if code != exitError || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args[3:], code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s", out)
	}
}
