package bench_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

// historyRun is a synthetic run at commit, started day days after the
// first, with the default benchmarks; factors scale named benchmarks
// (1.3: a 30% slowdown).
func historyRun(seed uint64, commit string, day int, factors map[string]float64) *bench.Run {
	r := benchtest.Run(seed, benchtest.Defaults()...)
	r.Meta.ForgeCommit = commit
	r.Started = time.Date(2026, 11, 20+day, 9, 0, 0, 0, time.UTC)
	r.Finished = r.Started.Add(time.Minute)
	for name, f := range factors {
		benchtest.Scale(r, name, f)
	}
	return r
}

// rawLines reads path's lines, each checked to be one JSON object.
func rawLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var out []map[string]any
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s:%d is not one JSON object (%v): %.200q", path, n, err, sc.Text())
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHistoryAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "h.jsonl")
	if err := bench.CheckHistory(path); err == nil {
		t.Errorf("CheckHistory of a file in a missing directory: no error")
	}
	path = filepath.Join(t.TempDir(), "h.jsonl")
	if err := bench.CheckHistory(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("CheckHistory created the file: %v", err)
	}
	r1, r2 := historyRun(1, "aaaa", 0, nil), historyRun(2, "bbbb", 1, nil)
	r2.Interrupted = true
	for _, r := range []*bench.Run{r1, r2} {
		if err := bench.AppendHistory(path, r, "run"); err != nil {
			t.Fatal(err)
		}
	}
	lines := rawLines(t, path)
	if len(lines) != 2 || lines[0]["kind"] != bench.HistoryKind || lines[1]["source"] != "run" {
		t.Fatalf("%d lines: %v", len(lines), lines)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	h, err := bench.ReadHistory(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Entries) != 2 || h.Entries[0].Line != 1 || h.Entries[1].Line != 2 || h.Entries[1].Meta.ForgeCommit != "bbbb" || !h.Entries[1].Interrupted {
		t.Fatalf("entries %+v", h.Entries)
	}
	got := h.Entries[0].Results[1]
	want, _ := bench.SummarizeMetric(&r1.Results[1], bench.MetricTime, 0)
	if got.Name != "dequant_f32/Q4_0" || got.N != 20 || got.Unit != "ns" || got.Median != want.Center || got.Lo != float64(want.Lo) ||
		len(got.Samples) != 20 || got.Samples[3] != int64(r1.Results[1].Samples[3]) || got.Bytes != 4<<20 {
		t.Errorf("result %+v, want the median %v of %d samples", got, want.Center, 20)
	}

	// Past HistoryMaxSamples only the median is kept.
	big := benchtest.Run(3, benchtest.Bench{Name: "dequant_f32/Q4_0", Center: time.Microsecond, Samples: bench.HistoryMaxSamples + 1})
	if err := bench.AppendHistory(path, big, "run"); err != nil {
		t.Fatal(err)
	}
	h, _ = bench.ReadHistory(path, false)
	if r := h.Entries[2].Results[0]; r.N != bench.HistoryMaxSamples+1 || r.Samples != nil || r.Median <= 0 {
		t.Errorf("a run past the sample limit: %+v", r)
	}
	// An empty run adds nothing.
	if err := bench.AppendHistory(path, &bench.Run{Kind: bench.Kind}, "run"); !errors.Is(err, bench.ErrNoResults) {
		t.Errorf("an empty run: %v", err)
	}
	if n := len(rawLines(t, path)); n != 3 {
		t.Errorf("%d lines after an empty run, want 3", n)
	}
}

// historyChildEnv carries TestHistoryAppendChild's file and index.
const historyChildEnv = "FORGE_HISTORY_APPEND_CHILD"

// wideRun is a run of many benchmarks with many samples: a line of about
// 200 KB, far past PIPE_BUF and a page, so that a split write would show.
func wideRun(seed uint64, writer int) *bench.Run {
	var bs []benchtest.Bench
	for i := range 120 {
		bs = append(bs, benchtest.Bench{Name: fmt.Sprintf("dequant_f32/W%d_%03d", writer, i), Center: time.Duration(1000+i) * time.Microsecond, Samples: 200})
	}
	r := benchtest.Run(seed, bs...)
	r.Meta.Hostname = fmt.Sprintf("writer-%d", writer)
	return r
}

// TestHistoryConcurrentAppends appends from several processes, each with
// several goroutines, at once: every line must be whole (valid JSON, a
// history entry that reads back with all its results) and none lost.
func TestHistoryConcurrentAppends(t *testing.T) {
	const procs, goroutines, each = 3, 4, 3
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var wg sync.WaitGroup
	errs := make(chan error, procs+goroutines*each)
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHistoryAppendChild$")
			cmd.Env = append(os.Environ(), historyChildEnv+"="+path+","+strconv.Itoa(10+p))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child %d: %v\n%s", p, err, out)
			}
		})
	}
	for g := range goroutines {
		wg.Go(func() {
			for k := range each {
				if err := bench.AppendHistory(path, wideRun(uint64(k), g), "run"); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	lines := rawLines(t, path)
	if want := (procs + goroutines) * each; len(lines) != want {
		t.Fatalf("%d lines, want %d", len(lines), want)
	}
	h, err := bench.ReadHistory(path, false)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, e := range h.Entries {
		if len(e.Results) != 120 || len(e.Results[119].Samples) != 200 {
			t.Errorf("line %d: %d results", e.Line, len(e.Results))
		}
		per[e.Meta.Hostname]++
	}
	for w, n := range per {
		if n != each {
			t.Errorf("%s: %d lines, want %d", w, n, each)
		}
	}
}

// TestHistoryAppendChild is TestHistoryConcurrentAppends' other process.
func TestHistoryAppendChild(t *testing.T) {
	env := os.Getenv(historyChildEnv)
	if env == "" {
		t.Skip("the child of TestHistoryConcurrentAppends")
	}
	path, w, _ := strings.Cut(env, ",")
	writer, _ := strconv.Atoi(w)
	for k := range 3 {
		if err := bench.AppendHistory(path, wideRun(uint64(k), writer), "run"); err != nil {
			t.Fatal(err)
		}
	}
}

// mkfifo makes a FIFO where the platform has them (history_unix_test.go).
var mkfifo func(path string) error

func TestHistoryRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	cases := map[string]string{
		"-":      "want a file",
		dir:      "it is a directory, not a regular file",
		dangling: "it is a dangling symbolic link",
	}
	if mkfifo != nil && mkfifo(fifo) == nil {
		cases[fifo] = "it is a FIFO, not a regular file"
	}
	run := historyRun(1, "aaaa", 0, nil)
	for p, want := range cases {
		for what, err := range map[string]error{"check": bench.CheckHistory(p), "append": bench.AppendHistory(p, run, "run")} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v, want %q", what, p, err, want)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Errorf("a file was created through the dangling link")
	}
	if fi, err := os.Lstat(fifo); err == nil && fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced")
	}
	// A link to a regular file is appended through, and stays a link.
	real, link := filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "link.jsonl")
	os.WriteFile(real, nil, 0o600)
	os.Symlink(real, link)
	if err := bench.AppendHistory(link, run, "run"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 || len(rawLines(t, real)) != 1 {
		t.Errorf("link %v, %d lines in its file", fi.Mode(), len(rawLines(t, real)))
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode changed to %v", fi.Mode())
	}
	// Read-only: refused before anything runs.
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro.jsonl")
		os.WriteFile(ro, nil, 0o444)
		if err := bench.CheckHistory(ro); err == nil {
			t.Errorf("a read-only history: no error")
		}
	}
	if err := bench.AppendHistory(os.DevNull, run, "run"); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
}

// TestHistoryCorruptLines: a line that is not an entry is an error naming
// the file and line (or, with skipCorrupt, left out and listed); a line
// cut short does not swallow the next append.
func TestHistoryCorruptLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.jsonl")
	if err := bench.AppendHistory(path, historyRun(1, "aaaa", 0, nil), "run"); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	for _, c := range []struct{ line, want string }{
		{"not json", "not a forgebench history entry: the line is not a JSON object"},
		{`{"kind":"forgebench.run","schema_version":1}`, `its kind is "forgebench.run" (want "forgebench.history")`},
		{`{"kind":"forgebench.history","schema_version":2,"results":[]}`, "schema_version 2 is not supported"},
		{`{"kind":"forgebench.history","schema_version":1,"results":[{"name":"a","n":2,"unit":"ns","median":5,"samples_ns":[1]}]}`, `result "a": 1 samples but n 2`},
		{`{"kind":"forgebench.history","schema_version":1,"results":[{"name":"a","n":"x"}]}`, "results.n is a JSON string"},
		{string(good[:len(good)/2]), "not valid JSON"},
	} {
		data := string(good) + "\n" + c.line + "\n" + string(good)
		os.WriteFile(path, []byte(data), 0o644)
		_, err := bench.ReadHistory(path, false)
		var le *bench.HistoryLineError
		if !errors.As(err, &le) || le.Line != 3 || !strings.HasPrefix(err.Error(), path+":3: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: %v, want %s:3: ...%s", c.line, err, path, c.want)
		}
		h, err := bench.ReadHistory(path, true)
		if err != nil || len(h.Entries) != 2 || len(h.Skipped) != 1 || h.Skipped[0].Line != 3 || h.Entries[1].Line != 4 {
			t.Errorf("%.40q skipped: %v %+v", c.line, err, h)
		}
	}

	// A line cut short (a crash): the next append starts on a line of its own.
	os.WriteFile(path, good[:len(good)/2], 0o644)
	if err := bench.AppendHistory(path, historyRun(2, "bbbb", 1, nil), "run"); err != nil {
		t.Fatal(err)
	}
	h, err := bench.ReadHistory(path, true)
	if err != nil || len(h.Entries) != 1 || h.Entries[0].Line != 2 || len(h.Skipped) != 1 || h.Skipped[0].Line != 1 {
		t.Errorf("after a cut line: %v %+v", err, h)
	}

	os.WriteFile(path, []byte("\n\n"), 0o644)
	if _, err := bench.ReadHistory(path, false); !errors.Is(err, bench.ErrEmptyHistory) {
		t.Errorf("an empty history: %v", err)
	}
}

// writeHistoryFixture writes three runs of one machine across two commits
// (aaaa twice, then bbbb, where dequant_f32/Q4_0 is 30% slower and
// dequant_f16/Q6_K 25% faster), plus one run of another machine.
func writeHistoryFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	other := historyRun(9, "bbbb", 1, nil)
	other.Meta.Backend, other.Meta.Device, other.Meta.Arch, other.Meta.Target = "cuda", "NVIDIA H100 80GB HBM3", "sm_90", "sm_90"
	for _, r := range []*bench.Run{
		historyRun(1, "aaaa", 0, nil),
		historyRun(2, "aaaa", 1, nil),
		other,
		historyRun(3, "bbbb", 2, map[string]float64{"dequant_f32/Q4_0": 1.3, "dequant_f16/Q6_K": 0.75}),
	} {
		if err := bench.AppendHistory(path, r, "run"); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func TestHistoryTrend(t *testing.T) {
	path := writeHistoryFixture(t)
	h, err := bench.ReadHistory(path, false)
	if err != nil {
		t.Fatal(err)
	}
	tr := bench.ComputeTrend(h, bench.TrendOptions{})
	if len(tr.Machines) != 2 || tr.Machines[1].Backend != "cuda" || len(tr.Machines[1].Runs) != 1 {
		t.Fatalf("machines %+v", tr.Machines)
	}
	m := tr.Machines[0]
	if m.Machine != "cpu on Synthetic CPU @ 3.0GHz (amd64), 8 CPUs" || len(m.Runs) != 3 || m.Runs[0].Commit != "aaaa" || m.Runs[2].Commit != "bbbb" || m.Runs[2].Line != 4 {
		t.Fatalf("machine %q runs %+v", m.Machine, m.Runs)
	}
	byName := map[string]bench.TrendBench{}
	for _, b := range m.Benchmarks {
		byName[b.Name] = b
	}
	q4 := byName["dequant_f32/Q4_0"]
	if q4.Verdict != bench.Regression || math.Abs(float64(q4.Change)-0.3) > 0.03 || float64(q4.P) >= 0.05 || q4.First != 0 || q4.Last != 2 || len(q4.Points) != 3 {
		t.Errorf("Q4_0 %+v", q4)
	}
	if q6 := byName["dequant_f16/Q6_K"]; q6.Verdict != bench.Improvement {
		t.Errorf("Q6_K %+v", q6)
	}
	if f16 := byName["dequant_f32/F16"]; f16.Verdict != bench.Unchanged || math.Abs(float64(f16.Change)) > 0.02 {
		t.Errorf("F16 %+v", f16)
	}
	if m.Regressions != 1 || m.Improvements != 1 || m.Unchanged != 4 || m.Unjudged != 0 {
		t.Errorf("tally %d %d %d %d", m.Regressions, m.Improvements, m.Unchanged, m.Unjudged)
	}

	var b strings.Builder
	if err := tr.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "history "+path+": 4 run(s) on 2 machine(s); ") {
		t.Errorf("headline %q", lines[0])
	}
	for _, want := range []string{
		"\nmachine: cpu on Synthetic CPU @ 3.0GHz (amd64), 8 CPUs, 3 run(s)\n#1  2026-11-20 09:00  aaaa  -  line 1\n#2  2026-11-21 09:00  aaaa  -  line 2\n#3  2026-11-22 09:00  bbbb  -  line 4\n",
		"1 regression, 1 improvement, 4 unchanged, 0 not judged\n",
		"\nmachine: cuda on NVIDIA H100 80GB HBM3 (sm_90), 1 run(s)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
	var head, q4row []string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "benchmark" && head == nil {
			head = f
		}
		if len(f) > 0 && f[0] == "dequant_f32/Q4_0" && q4row == nil {
			q4row = f
		}
	}
	if strings.Join(head, " ") != "benchmark #1 #2 #3 change p verdict" {
		t.Errorf("header %q:\n%s", head, text)
	}
	if len(q4row) != 8 || !strings.HasPrefix(q4row[4], "+") || q4row[5] != "p=0.000" || q4row[6] != "n=20" || q4row[7] != "REGRESSION" {
		t.Errorf("Q4_0 row %q", q4row)
	}

	// JSON: the HTML report's input.
	js, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	json.Unmarshal(js, &back)
	if back["kind"] != bench.TrendKind || len(back["machines"].([]any)) != 2 {
		t.Errorf("JSON %s", js)
	}

	// --last 2: the first run is left out, and the change is from #1 (aaaa) to #2 (bbbb).
	tr = bench.ComputeTrend(h, bench.TrendOptions{Last: 2})
	if m := tr.Machines[0]; len(m.Runs) != 2 || m.Omitted != 1 || m.Runs[0].Line != 2 {
		t.Errorf("last 2: %+v", m.Runs)
	}
	b.Reset()
	tr.WriteText(&b)
	if !strings.Contains(b.String(), "2 run(s) shown, 1 earlier left out\n#2  2026-11-21 09:00  aaaa  -  line 2\n#3  ") {
		t.Errorf("last 2: the runs keep their numbers:\n%s", b.String())
	}
}

func TestHistoryTrendMarkdown(t *testing.T) {
	h, err := bench.ReadHistory(writeHistoryFixture(t), false)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := bench.ComputeTrend(h, bench.TrendOptions{}).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	if !strings.Contains(doc, "\n**machine: cpu on Synthetic CPU @ 3.0GHz (amd64), 8 CPUs, 3 run(s)**\n") {
		t.Errorf("no machine line:\n%s", doc)
	}
	lhead, _, legend, next := mdTable(t, doc, 0)
	if strings.Join(lhead, ",") != "run,started (UTC),forge commit,host,history" || len(legend) != 3 || legend[2][2] != "bbbb" {
		t.Errorf("legend %q %q", lhead, legend)
	}
	head, align, rows, _ := mdTable(t, doc, next)
	if strings.Join(head, ",") != "benchmark,#1,#2,#3,change,p,verdict" || strings.Join(align, "") != "lrrrrll" || len(rows) != 6 {
		t.Errorf("table %q %q %d rows", head, align, len(rows))
	}
}

// TestHistoryTrendMediansOnly: where a run kept only medians, the change is
// shown without a p-value or a verdict.
func TestHistoryTrendMediansOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	for i, f := range []float64{1, 1.5} {
		r := benchtest.Run(uint64(i), benchtest.Bench{Name: "dequant_f32/Q4_0", Center: time.Microsecond, Samples: bench.HistoryMaxSamples + 10},
			benchtest.Bench{Name: "dequant_f32/Q8_0", Center: time.Microsecond})
		r.Started = r.Started.Add(time.Duration(i) * time.Hour)
		benchtest.Scale(r, "", f)
		if i == 1 {
			r.Results = append(r.Results, benchtest.Run(1, benchtest.Bench{Name: "only/once", Center: time.Microsecond}).Results...)
		}
		if err := bench.AppendHistory(path, r, "run"); err != nil {
			t.Fatal(err)
		}
	}
	h, _ := bench.ReadHistory(path, false)
	m := bench.ComputeTrend(h, bench.TrendOptions{}).Machines[0]
	q4, q8, once := m.Benchmarks[0], m.Benchmarks[1], m.Benchmarks[2]
	if q4.Verdict != "" || !math.IsNaN(float64(q4.P)) || math.Abs(float64(q4.Change)-0.5) > 0.05 || !strings.Contains(q4.Note, "only the medians") {
		t.Errorf("medians only: %+v", q4)
	}
	if q8.Verdict != bench.Regression {
		t.Errorf("Q8_0 (samples kept): %+v", q8)
	}
	if once.Verdict != "" || once.First != 1 || once.Last != 1 || once.Points[0] != nil {
		t.Errorf("in one run: %+v", once)
	}
	if m.Unjudged != 2 {
		t.Errorf("unjudged %d", m.Unjudged)
	}
	js, _ := json.Marshal(q4)
	if !strings.Contains(string(js), `"p":null`) {
		t.Errorf("p of medians: %s", js)
	}
	var b strings.Builder
	bench.ComputeTrend(h, bench.TrendOptions{}).WriteText(&b)
	for _, want := range []string{"- (medians only)", "- (one run)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}

func TestHistoryFilter(t *testing.T) {
	h, err := bench.ReadHistory(writeHistoryFixture(t), false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := bench.HistoryFilter{Suite: "*/q4_*", Machine: "cpu*"}.Apply(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 3 {
		t.Fatalf("%d entries", len(f.Entries))
	}
	for _, e := range f.Entries {
		if len(e.Results) != 2 || e.Meta.Backend != "cpu" {
			t.Errorf("line %d: %+v", e.Line, e.Results)
		}
	}
	if _, err := (bench.HistoryFilter{Machine: "*MI300*"}).Apply(h); err == nil || !strings.Contains(err.Error(), `machine "*MI300*" matches no machine`) ||
		!strings.Contains(err.Error(), "cuda on NVIDIA H100") {
		t.Errorf("a machine typo: %v", err)
	}
	if _, err := (bench.HistoryFilter{Suite: "dequant_f32"}).Apply(h); err != nil {
		t.Errorf("a suite path: %v", err)
	}
}

// TestLoadTrend: the report's one call, and a run no reader would take
// (a name twice) is not appended.
func TestLoadTrend(t *testing.T) {
	path := writeHistoryFixture(t)
	tr, err := bench.LoadTrend(path, false, bench.HistoryFilter{Machine: "cuda*"}, bench.TrendOptions{})
	if err != nil || len(tr.Machines) != 1 || tr.Machines[0].Backend != "cuda" {
		t.Fatalf("%v %+v", err, tr)
	}
	dup := historyRun(1, "cccc", 3, nil)
	dup.Results = append(dup.Results, dup.Results[0])
	if err := bench.AppendHistory(path, dup, "run"); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("a name twice: %v", err)
	}
	if _, err := bench.ReadHistory(path, false); err != nil {
		t.Errorf("after the refused append: %v", err)
	}
}
