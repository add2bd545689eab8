package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/bench/tune"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// mdTableLines returns the lines of the first markdown table in doc,
// checking that it has a header, a delimiter row whose cells are "---" or
// "---:" (right-aligned, want[i] == 'r') and rows with the header's number
// of unescaped '|'.
func mdTableLines(t *testing.T, doc, align string) []string {
	t.Helper()
	var table []string
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "|") {
			table = append(table, l)
		} else if table != nil {
			break
		}
	}
	if len(table) < 3 {
		t.Fatalf("no table with a row in:\n%s", doc)
	}
	pipes := func(l string) int { return strings.Count(l, "|") - strings.Count(l, `\|`) }
	var got strings.Builder
	for _, c := range strings.Split(strings.Trim(table[1], "|"), "|") {
		switch c = strings.TrimSpace(c); {
		case strings.HasSuffix(c, "-:") && strings.Trim(c, "-:") == "":
			got.WriteByte('r')
		case strings.Trim(c, "-") == "":
			got.WriteByte('l')
		default:
			t.Fatalf("delimiter row %q", table[1])
		}
	}
	if got.String() != align {
		t.Errorf("alignment %q, want %q:\n%s", got.String(), align, doc)
	}
	for _, l := range table {
		if pipes(l) != len(align)+1 {
			t.Errorf("row %q: %d cells, want %d", l, pipes(l)-1, len(align))
		}
	}
	return table
}

// TestRunMarkdown: run --markdown FILE and --markdown - (stdout, the table
// going to stderr) write one GitHub-flavoured table with a row per benchmark.
func TestRunMarkdown(t *testing.T) {
	md := filepath.Join(t.TempDir(), "run.md")
	code, _, errOut := forgebench(t, runArgs("--format", "Q4_0", "--family", "dequant", "--markdown", md, "-q")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	if !strings.HasPrefix(doc, "forgebench run: backend cpu on ") || !strings.Contains(doc, "; copy roofline ") {
		t.Errorf("head:\n%s", doc)
	}
	table := mdTableLines(t, doc, "l"+strings.Repeat("r", len(bench.MarkdownColumns)-1))
	if len(table) != 4 || !strings.HasPrefix(table[2], "| dequant_f32/Q4_0 |") || !strings.HasPrefix(table[3], "| dequant_f16/Q4_0 |") {
		t.Errorf("table:\n%s", strings.Join(table, "\n"))
	}

	code, out, errOut := forgebench(t, runArgs("--suite", "dequant_f32/Q8_0", "--markdown", "-")...)
	if code != 0 || !strings.HasPrefix(out, "forgebench run: ") || !strings.Contains(out, "| dequant_f32/Q8_0 |") || !strings.Contains(errOut, "benchmark  ") {
		t.Errorf("--markdown -: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, _, errOut := forgebench(t, runArgs("--markdown", "-", "--json", "-")...); code != exitError || !strings.Contains(errOut, "both write to stdout") {
		t.Errorf("two outputs on stdout: exit %d: %s", code, errOut)
	}
}

// TestRunHistory: two runs with --history append two lines that
// forgebench history reads back as two columns.
func TestRunHistory(t *testing.T) {
	h := filepath.Join(t.TempDir(), "h.jsonl")
	for range 2 {
		if code, _, errOut := forgebench(t, runArgs("--suite", "dequant_f32/Q8_0,dequant_f32/Q4_0", "--history", h, "-q")...); code != 0 ||
			!strings.Contains(errOut, "forgebench: appended the run to "+h) {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	data, err := os.ReadFile(h)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	for i, l := range lines {
		var e bench.HistoryEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Kind != bench.HistoryKind || e.Source != "run" || len(e.Results) != 2 || len(e.Results[0].Samples) != 3 {
			t.Errorf("line %d: %v %+v", i+1, err, e)
		}
	}

	code, out, errOut := forgebench(t, "history", h)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, errOut)
	}
	var head []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "benchmark" {
			head = f
		}
	}
	if strings.Join(head, " ") != "benchmark #1 #2 change p verdict" || !strings.Contains(out, "\ndequant_f32/Q8_0  ") || !strings.Contains(out, "machine: cpu on ") {
		t.Errorf("history:\n%s", out)
	}
}

// writeCmdHistory writes three cpu runs across two commits (the third
// with dequant_f32/Q4_0 30% slower) and one cuda run.
func writeCmdHistory(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	mk := func(seed uint64, commit string, day int) *bench.Run {
		r := benchtest.Run(seed, benchtest.Defaults()...)
		r.Meta.ForgeCommit, r.Started = commit, time.Date(2026, 11, 20+day, 9, 0, 0, 0, time.UTC)
		return r
	}
	gpu := mk(9, "bbbbbbbb", 1)
	gpu.Meta.Backend, gpu.Meta.Device, gpu.Meta.Arch = "cuda", "NVIDIA H100 80GB HBM3", "sm_90"
	slow := mk(3, "bbbbbbbb", 2)
	benchtest.Scale(slow, "dequant_f32/Q4_0", 1.3)
	for _, r := range []*bench.Run{mk(1, "aaaaaaaa", 0), mk(2, "aaaaaaaa", 1), gpu, slow} {
		if err := bench.AppendHistory(path, r, "run"); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestHistoryCommand(t *testing.T) {
	path := writeCmdHistory(t)
	code, out, errOut := forgebench(t, "history", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"history " + path + ": 4 run(s) on 2 machine(s); ",
		"\nmachine: cpu on Synthetic CPU @ 3.0GHz (amd64), 8 CPUs, 3 run(s)\n#1  2026-11-20 09:00  aaaaaaaa  -  line 1\n",
		"#3  2026-11-22 09:00  bbbbbbbb  -  line 4\n",
		"1 regression, 0 improvements, 5 unchanged, 0 not judged\n",
		"\nmachine: cuda on NVIDIA H100 80GB HBM3 (sm_90), 1 run(s)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	var q4 []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "dequant_f32/Q4_0" {
			q4 = f
			break
		}
	}
	if len(q4) != 8 || q4[7] != "REGRESSION" || !strings.HasPrefix(q4[4], "+29.") && !strings.HasPrefix(q4[4], "+30.") {
		t.Errorf("Q4_0 row %q", q4)
	}

	// Filters, --last, and the JSON and markdown outputs.
	code, out, errOut = forgebench(t, "history", path, "--machine", "cpu*", "--suite", "*/q4_*", "--last", "2", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var tr bench.Trend
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if tr.Kind != bench.TrendKind || len(tr.Machines) != 1 || len(tr.Machines[0].Runs) != 2 || tr.Machines[0].Omitted != 1 || len(tr.Machines[0].Benchmarks) != 2 ||
		tr.Machines[0].Benchmarks[0].Verdict != bench.Regression {
		t.Errorf("trend %+v", tr)
	}
	code, out, errOut = forgebench(t, "history", path, "--machine", "cuda*", "--markdown", "-")
	if code != 0 || !strings.HasPrefix(out, "history ") || strings.Contains(out, "cpu on") {
		t.Fatalf("markdown: exit %d: %s\n%s", code, errOut, out)
	}
	mdTableLines(t, out, "lllll") // the runs
	if !strings.Contains(out, "| benchmark        |      #1 | change | p   | verdict     |") {
		t.Errorf("markdown trend:\n%s", out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history"}, "want 1 argument(s) FILE"},
		{[]string{"history", filepath.Join(t.TempDir(), "none.jsonl")}, "no such file"},
		{[]string{"history", path, "--machine", "*MI300*"}, `machine "*MI300*" matches no machine`},
		{[]string{"history", path, "--suite", "nosuch"}, `suite "nosuch" matches no suite`},
		{[]string{"history", path, "--last", "-1"}, "--last -1: want 0 (all) to "},
		{[]string{"history", path, "--json", "-", "--markdown", "-"}, "both write to stdout"},
	} {
		if code, _, errOut := forgebench(t, c.args...); code != exitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// TestHistoryCorruptLine: a corrupt line is an error naming the file and
// the line (exit 2); --skip-corrupt leaves it out with a warning.
func TestHistoryCorruptLine(t *testing.T) {
	path := writeCmdHistory(t)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[1] = lines[1][:len(lines[1])/2] + "\n" // cut short
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
	code, out, errOut := forgebench(t, "history", path)
	if code != exitError || out != "" || !strings.Contains(errOut, "history: "+path+":2: not valid JSON") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = forgebench(t, "history", path, "--skip-corrupt")
	if code != 0 || !strings.Contains(errOut, "forgebench: skipped "+path+":2: not valid JSON") || !strings.Contains(out, "3 run(s) on 2 machine(s)") {
		t.Errorf("--skip-corrupt: exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestHistoryFlagRefused: a --history that cannot be appended to is refused
// before anything runs; compare --history with --run has nothing to append.
func TestHistoryFlagRefused(t *testing.T) {
	dir := t.TempDir()
	runFile := filepath.Join(dir, "run.json")
	if err := bench.WriteRun(runFile, benchtest.Run(1, benchtest.Defaults()...)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{runArgs("--history", dir), "it is a directory, not a regular file"},
		{runArgs("--history", "-"), "want a file"},
		{runArgs("--history", filepath.Join(dir, "missing", "h.jsonl")), "cannot append to"},
		{[]string{"compare", "--baseline-file", runFile, "--history", dir}, "it is a directory, not a regular file"},
		{[]string{"compare", "--baseline-file", runFile, "--run", runFile, "--history", filepath.Join(dir, "h.jsonl")}, "--history appends a run that compare measures"},
	} {
		code, _, errOut := forgebench(t, c.args...)
		if code != exitError || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "forgebench: backend") {
			t.Errorf("%q: exit %d, stderr %q, want %q before any run", c.args, code, errOut, c.want)
		}
	}
}

// TestCompareMarkdownAndHistory: compare --markdown writes the comparison's
// table; compare --history appends the run it measured.
func TestCompareMarkdownAndHistory(t *testing.T) {
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	bench.WriteRun(base, benchtest.Run(1, benchtest.Defaults()...))
	slow := benchtest.Run(2, benchtest.Defaults()...)
	benchtest.Scale(slow, "dequant_f32/Q8_0", 1.5)
	bench.WriteRun(cur, slow)
	code, out, errOut := forgebench(t, "compare", "--baseline-file", base, "--run", cur, "--markdown", "-")
	if code != exitRegression || !strings.HasPrefix(out, "**baseline**: "+base) {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	table := mdTableLines(t, out, "lrrrrl")
	if !strings.Contains(strings.Join(table, "\n"), "| dequant_f32/Q8_0 |") || !strings.Contains(out, "| REGRESSION |") {
		t.Errorf("compare markdown:\n%s", out)
	}
	md := filepath.Join(dir, "cmp.md")
	if code, out, _ := forgebench(t, "compare", "--baseline-file", base, "--run", cur, "--markdown", md); code != exitRegression || !strings.Contains(out, "REGRESSION") {
		t.Errorf("--markdown FILE: exit %d, the table not on stdout:\n%s", code, out)
	}
	if data, err := os.ReadFile(md); err != nil || !strings.HasPrefix(string(data), "**baseline**") {
		t.Errorf("%s: %v %q", md, err, data)
	}

	// A fresh run, appended to the history, compared with itself as saved.
	h, j := filepath.Join(dir, "h.jsonl"), filepath.Join(dir, "fresh.json")
	if code, _, errOut := forgebench(t, runArgs("--suite", "dequant_f32/Q8_0", "--json", j, "-q")...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	args := append([]string{"compare", "--baseline-file", j, "--history", h}, fast...)
	if code, _, errOut := forgebench(t, append(args, "--suite", "dequant_f32/Q8_0")...); code != 0 && code != exitRegression || !strings.Contains(errOut, "appended the run to "+h) {
		t.Fatalf("compare --history: exit %d: %s", code, errOut)
	}
	hist, err := bench.ReadHistory(h, false)
	if err != nil || len(hist.Entries) != 1 || hist.Entries[0].Source != "compare" || hist.Entries[0].Results[0].Name != "dequant_f32/Q8_0" {
		t.Errorf("history %v %+v", err, hist)
	}
}

func TestTuneMarkdown(t *testing.T) {
	defer func() { tuneDepsInUse = defaultTuneDeps }()
	tuneDepsInUse = tuneDeps{
		builder: func(string, *targets.Target, *tuned.Family, string, int, io.Writer) tune.Builder {
			return cmdFakeBuilder{}
		},
		open: func(*targets.Target) tune.Opener {
			return func(lib string) (backend.Backend, string, error) { return cmdFakeBackend{lib}, "Fake GPU", nil }
		},
		runner: func(*tuned.Family) tune.Runner { return cmdFakeRunner{} },
	}
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"forgebench", "tune", "--target", "sm_90", "--format", "Q4_0", "--cache-dir", filepath.Join(dir, "cache"),
		"--out", filepath.Join(dir, "sm_90.json"), "--root", dir, "--markdown", "-"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "forgebench tune: sm_90 matvec on Fake GPU (weights rotate), ") || !strings.Contains(stderr.String(), "winner threads=64") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, stderr.String())
	}
	table := mdTableLines(t, out, "llllrrrrrr")
	if len(table) != 4 || !strings.Contains(table[2], "| Q4_0   | narrow |") || !strings.Contains(table[2], "threads=64 rows=1 chunk=8") {
		t.Errorf("tune markdown:\n%s", out)
	}
}
