package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/rocmforge/forge/runtime/backend"
	"golang.org/x/perf/benchfmt"
)

// fixture is a Run written by hand, as the writers' tests and the other
// forgebench pieces' tests use: no engine involved.
func fixture() *Run {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	mk := func(name, kernel, format, output string, shape []int, blockElems, blockBytes, out int, samples ...time.Duration) Result {
		elems := 1
		for _, d := range shape {
			elems *= d
		}
		r := Result{
			Name: name, Suite: kernel + "/" + format, Family: "dequant", Kernel: kernel, Format: format, Output: output,
			Shape: shape, Elements: int64(elems), BytesRead: int64(elems / blockElems * blockBytes), BytesWritten: int64(elems * out),
			Compression: 4 * float64(blockElems) / float64(blockBytes), Warmup: 2, Samples: samples,
		}
		r.Stats = Summarize(samples, r.BytesRead+r.BytesWritten, r.Elements, 0, 8)
		return r
	}
	ms := time.Millisecond
	return &Run{
		Kind: Kind, Schema: SchemaVersion, Started: t0, Finished: t0.Add(3 * time.Second),
		Meta: Meta{Backend: "cpu", Device: "Test CPU @ 2.0GHz", Arch: "amd64", CPUs: 2, GoVersion: "go1.26.8", OS: "linux/amd64",
			Hostname: "box", ForgeVersion: "devel", ForgeCommit: "0123456789abcdef", ForgeModified: true},
		Roofline: &Roofline{Bytes: 256 << 20, GBps: 8, Method: "go copy, 2 goroutines"},
		Results: []Result{
			mk("dequant_f32/Q4_0", "dequant_f32", "Q4_0", "f32", []int{16 << 20}, 32, 18, 4,
				10*ms, 11*ms, 12*ms, 10*ms, 10500*time.Microsecond, 13*ms, 10*ms),
			mk("dequant_f16/Q4_K", "dequant_f16", "Q4_K", "f16", []int{16 << 20}, 256, 144, 2, 40*ms, 41*ms, 39*ms),
			mk("gguf/blk.0.attn_q.weight/dequant_f32", "dequant_f32", "Q6_K", "f32", []int{4096, 4096}, 256, 210, 4, 30*ms, 31*ms),
		},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	want := fixture()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, want); err != nil {
		t.Fatal(err)
	}
	var got Run
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, &got); d != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", d)
	}
	for _, key := range []string{`"kind": "forgebench.run"`, `"schema_version": 1`, `"samples_ns": [`, `"p50_ci_lo_ns"`, `"method": "go copy, 2 goroutines"`} {
		if !strings.Contains(buf.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestCSVRoundTrip(t *testing.T) {
	run := fixture()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, run); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(run.Results) {
		t.Fatalf("%d rows", len(rows))
	}
	if d := cmp.Diff(CSVHeader, rows[0]); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for i, r := range run.Results {
		row := rows[i+1]
		get := func(k string) string { return row[col[k]] }
		num := func(k string) float64 {
			v, err := strconv.ParseFloat(get(k), 64)
			if err != nil {
				t.Fatalf("%s: %s: %v", r.Name, k, err)
			}
			return v
		}
		if get("name") != r.Name || get("format") != r.Format || get("kernel") != r.Kernel || get("family") != "dequant" {
			t.Errorf("row %d identity %v", i, row)
		}
		// The run's machine, commit and date on every row: CSVs of several runs concatenate.
		if get("started") != run.Started.UTC().Format(time.RFC3339) || get("backend") != "cpu" || get("device") != "Test CPU @ 2.0GHz" ||
			get("host") != "box" || get("forge_commit") != "0123456789abcdef+dirty" || get("interrupted") != "false" {
			t.Errorf("row %d run columns: started %q backend %q device %q host %q commit %q interrupted %q", i,
				get("started"), get("backend"), get("device"), get("host"), get("forge_commit"), get("interrupted"))
		}
		for k, want := range map[string]float64{
			"n": float64(r.Stats.N), "min_ns": float64(r.Stats.Min), "p50_ns": float64(r.Stats.P50), "p95_ns": float64(r.Stats.P95),
			"p99_ns": float64(r.Stats.P99), "max_ns": float64(r.Stats.Max), "mean_ns": float64(r.Stats.Mean), "stddev_ns": float64(r.Stats.StdDev),
			"gbps": r.Stats.GBps, "elems_per_s": r.Stats.ElemsPS, "pct_copy": r.Stats.PctCopy, "compression": r.Compression,
			"elements": float64(r.Elements), "bytes_read": float64(r.BytesRead), "bytes_written": float64(r.BytesWritten),
		} {
			if got := num(k); got != want {
				t.Errorf("%s: %s = %v, want %v", r.Name, k, got, want)
			}
		}
	}
	if got := rows[3][col["shape"]]; got != "4096x4096" {
		t.Errorf("shape column %q", got)
	}
}

func TestGoBenchRoundTrip(t *testing.T) {
	run := fixture()
	var buf bytes.Buffer
	if err := WriteGoBench(&buf, run); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, line := range []string{"goos: linux\n", "goarch: amd64\n", "pkg: " + GoPkg + "\n", "backend: cpu\n", "device: Test CPU @ 2.0GHz\n", "# forge-version: devel\n", "# roofline-gbps: 8\n", "Unit elems/s better=higher\n"} {
		if !strings.Contains(text, line) {
			t.Errorf("Go format lacks %q:\n%s", line, text)
		}
	}
	// The facts of one run are not configuration lines: benchstat would split two runs on them.
	for _, key := range []string{"forge-version", "forge-commit", "library", "roofline-gbps", "interrupted"} {
		if strings.Contains(text, "\n"+key+":") || strings.HasPrefix(text, key+":") {
			t.Errorf("%s is a configuration line:\n%s", key, text)
		}
	}
	r := benchfmt.NewReader(strings.NewReader(text), "run.txt")
	got := map[string][]*benchfmt.Result{}
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			got[rec.Name.String()] = append(got[rec.Name.String()], rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", rec)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if r.Units().GetBetter(UnitElemsPerSec) != 1 || r.Units().GetBetter(UnitPctCopy) != 1 {
		t.Errorf("unit metadata not read back: %v", r.Units())
	}
	wantNames := map[string]string{
		"dequant_f32/Q4_0":                     "DequantF32/Q4_0-2",
		"dequant_f16/Q4_K":                     "DequantF16/Q4_K-2",
		"gguf/blk.0.attn_q.weight/dequant_f32": "GGUF/blk.0.attn_q.weight/DequantF32-2",
	}
	if len(got) != len(run.Results)+1 {
		t.Errorf("%d benchmarks read back, want %d and the roofline: %v", len(got), len(run.Results), got)
	}
	if rl := got["CopyRoofline-2"]; len(rl) != 1 {
		t.Errorf("roofline lines: %v", rl)
	} else if v, ok := rl[0].Value("B/s"); !ok || v != 8e9 {
		t.Errorf("roofline: %v B/s (%v), want 8e9", v, ok)
	}
	for _, res := range run.Results {
		name := wantNames[res.Name]
		lines := got[name]
		if len(lines) != len(res.Samples) {
			t.Errorf("%s: %d lines, want one per sample (%d)", name, len(lines), len(res.Samples))
			continue
		}
		base, parts := lines[0].Name.Parts()
		if string(base) != strings.SplitN(name, "/", 2)[0] || string(parts[len(parts)-1]) != "-2" {
			t.Errorf("%s: name parts %q %q", name, base, parts)
		}
		for i, l := range lines {
			d := res.Samples[i]
			if l.Iters != 1 || l.GetConfig("backend") != "cpu" || l.GetConfig("pkg") != GoPkg || l.GetConfig("cpu") == "" {
				t.Errorf("%s: line %d: iters %d, config %v", name, i, l.Iters, l.Config)
			}
			check := func(unit string, want float64) {
				v, ok := l.Value(unit)
				if !ok || v < want*(1-1e-12) || v > want*(1+1e-12) {
					t.Errorf("%s sample %d: %s = %v (%v), want %v", name, i, unit, v, ok, want)
				}
			}
			check("sec/op", d.Seconds()) // ns/op, tidied by the reader
			check("B/s", float64(res.BytesRead+res.BytesWritten)/d.Seconds())
			check("elems/s", float64(res.Elements)/d.Seconds())
			check("%copy", 100*float64(res.BytesRead+res.BytesWritten)/d.Seconds()/1e9/8)
		}
	}
}

func TestWriteTable(t *testing.T) {
	run := fixture()
	run.Interrupted = true
	var buf bytes.Buffer
	if err := WriteTable(&buf, run); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "backend cpu on Test CPU @ 2.0GHz (amd64), 2 CPUs, linux/amd64, go1.26.8, forge devel 0123456789ab+dirty") {
		t.Errorf("first line %q", lines[0])
	}
	if lines[1] != "copy roofline: 8.00 GB/s (go copy, 2 goroutines of 256 MiB, bytes read + written)" {
		t.Errorf("roofline line %q", lines[1])
	}
	if got := strings.Fields(lines[2]); strings.Join(got, " ") != strings.Join(TableColumns, " ") {
		t.Errorf("header %q", lines[2])
	}
	// Every row as wide as the header: the numeric columns are right-aligned.
	rows := lines[2 : 3+len(run.Results)]
	for _, l := range rows {
		if utf8.RuneCountInString(l) != utf8.RuneCountInString(rows[0]) {
			t.Errorf("misaligned:\n%s", strings.Join(rows, "\n"))
			break
		}
	}
	q4 := strings.Fields(rows[1])
	want := []string{"dequant_f32/Q4_0", "7", "10.0ms", "10.5ms"}
	if strings.Join(q4[:4], " ") != strings.Join(want, " ") || q4[len(q4)-1] != "7.11x" {
		t.Errorf("Q4_0 row %q", rows[1])
	}
	if !strings.HasPrefix(lines[len(lines)-1], "interrupted: 3 benchmark(s) finished") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", 999: "999ns", 1000: "1.00µs", 12345: "12.3µs", 123456: "123µs",
		1234567: "1.23ms", 999_999_999: "1000ms", 1500 * time.Millisecond: "1.50s", 100 * time.Second: "100s"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%d) = %q, want %q", d, got, want)
		}
	}
}

// TestWeightsReported: the table and the Go benchmark format say how the
// weights were held; the JSON keeps each result's Weights.
func TestWeightsReported(t *testing.T) {
	run := fixture()
	if s := WeightsSummary(run); s != "" {
		t.Errorf("no matvec: %q", s)
	}
	mv := func(name string, w backend.Weights) Result {
		r := run.Results[0]
		r.Name, r.Family, r.Weights = name, "matvec", &w
		return r
	}
	run.Results = append(run.Results,
		mv("matvec_f32/Q4_0/4096x4096", backend.WeightPlan(backend.WeightsRotate, 9<<20, 50<<20, 0)),
		mv("matvec_f32/Q4_0/output", backend.WeightPlan(backend.WeightsRotate, 280<<20, 50<<20, 0)))
	want := "rotate: each launch reads the next of 2 to 12 byte-identical copies of W, together at least 2.2 × the 50 MiB L2; GB/s counts one copy per launch"
	if s := WeightsSummary(run); s != want {
		t.Errorf("summary %q, want %q", s, want)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, run); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(buf.String(), "\n"); lines[2] != "weights: "+want {
		t.Errorf("table's third line %q", lines[2])
	}
	buf.Reset()
	if err := WriteGoBench(&buf, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\nweights: rotate\n") {
		t.Errorf("no weights config line:\n%s", buf.String())
	}
	buf.Reset()
	if err := WriteJSON(&buf, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"weights": {
        "mode": "rotate",
        "copies": 12,
        "copy_bytes": 9437184,
        "total_bytes": 113246208,
        "l2_bytes": 52428800
      }`) {
		t.Errorf("JSON lacks the weights:\n%s", buf.String())
	}
	for i := range run.Results[3:] {
		run.Results[3+i].Weights = &backend.Weights{Mode: backend.WeightsReuse, Copies: 1, CopyBytes: 9 << 20, TotalBytes: 9 << 20}
	}
	if s := WeightsSummary(run); s != "reuse: one copy of W, read by every launch (what the L2 holds of it is served from there)" {
		t.Errorf("reuse: %q", s)
	}
}

// TestBenchstatPairsTwoRuns runs the real benchstat on two runs of
// different commits and copy rooflines: it must print one table per unit,
// each with both runs as columns and a delta per benchmark, not one table
// per run.
func TestBenchstatPairsTwoRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	dir := t.TempDir()
	write := func(name string, commit string, gbps float64, scale float64) string {
		run := fixture()
		run.Meta.ForgeCommit = commit
		run.Roofline.GBps = gbps
		for i := range run.Results {
			for j := range run.Results[i].Samples {
				run.Results[i].Samples[j] = time.Duration(float64(run.Results[i].Samples[j]) * scale)
			}
		}
		var buf bytes.Buffer
		if err := WriteGoBench(&buf, run); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old, new := write("old.txt", "1111111", 8, 1), write("new.txt", "2222222", 8.5, 0.5)
	cmd := exec.Command("go", "run", "golang.org/x/perf/cmd/benchstat", old, new)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	text := string(out)
	if n := strings.Count(text, "old.txt"); n == 0 || strings.Count(text, "new.txt") != n {
		t.Errorf("the runs are not columns of the same tables:\n%s", text)
	}
	for _, bad := range []string{"roofline-gbps:", "forge-commit:", "forge-version:"} {
		if strings.Contains(text, bad) {
			t.Errorf("benchstat grouped the runs by %s:\n%s", bad, text)
		}
	}
	for _, want := range []string{"vs base", "DequantF32/Q4_0-2", "CopyRoofline-2"} {
		if !strings.Contains(text, want) {
			t.Errorf("benchstat's output lacks %q:\n%s", want, text)
		}
	}
	// One sec/op table: its header names both files once.
	if n := strings.Count(text, "sec/op"); n < 2 {
		t.Errorf("no paired sec/op columns:\n%s", text)
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"dequant_f32/Q4_0":      "dequant_f32/Q4_0",
		"blk.0.ffn_δ µs 日本":     "blk.0.ffn_δ µs 日本", // printable Unicode stays
		"red\x1b[31mX\x1b[0m":   `red\x1b[31mX\x1b[0m`,
		"a\nb\tc\rd\x00e\x7f":   `a\nb\tc\rd\x00e\x7f`,
		"bell\a":                `bell\a`,
		"bad\xffutf8\xc3":       `bad\xffutf8\xc3`,
		"c1\u0085\u009b":        `c1\u0085\u009b`,
		"bidi\u202eexe.txt":     `bidi\u202eexe.txt`,
		"zero\u200bwidth":       `zero\u200bwidth`,
		"nbsp\u00a0here":        `nbsp\u00a0here`,
		"replacement \ufffd ok": "replacement \ufffd ok",
		`back\slash`:            `back\slash`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// hostileRun is fixture() with names and metadata as a crafted run file
// (or a crafted GGUF's tensor names) may have them.
func hostileRun() *Run {
	run := fixture()
	run.Meta.Device = "GPU\x1b]0;pwned\x07"
	run.Meta.Hostname = "host\nname"
	run.Results[0].Name = "dequant_f32/\x1b[31mred"
	run.Results[1].Name = "bad\xff name\nline"
	run.Results[2].Format = "Q6\u202eK"
	return run
}

// noRawControls fails on a control byte other than newline, a C1 control,
// a bidi override or invalid UTF-8 in s.
func noRawControls(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not UTF-8: %q", what, s)
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u202e' {
			t.Errorf("%s holds %U: %q", what, r, s)
			return
		}
	}
}

// TestWritersEscape: the table, the CSV and the Go benchmark format show
// names and metadata through Printable (they wrote them raw: escape
// sequences to the terminal, invalid UTF-8 into the CSV, a newline that
// split a Go benchmark line).
func TestWritersEscape(t *testing.T) {
	run := hostileRun()
	var table, csvOut, goOut bytes.Buffer
	if err := WriteTable(&table, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csvOut, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteGoBench(&goOut, run); err != nil {
		t.Fatal(err)
	}
	noRawControls(t, "table", table.String())
	noRawControls(t, "CSV", csvOut.String())
	noRawControls(t, "Go format", goOut.String())
	if s := table.String(); !strings.Contains(s, `GPU\x1b]0;pwned\a`) || !strings.Contains(s, `dequant_f32/\x1b[31mred`) || !strings.Contains(s, `bad\xff name\nline`) {
		t.Errorf("table:\n%s", s)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("CSV: %v, %v", rows, err)
	}
	col := func(name string) int { return slices.Index(CSVHeader, name) }
	if rows[1][0] != `dequant_f32/\x1b[31mred` || rows[2][0] != `bad\xff name\nline` || rows[3][col("format")] != `Q6\u202eK` || rows[1][col("host")] != `host\nname` {
		t.Errorf("CSV rows %q", rows)
	}
	r := benchfmt.NewReader(&goOut, "run.txt")
	var names []string
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			names = append(names, rec.Name.String())
			if d := rec.GetConfig("device"); d != `GPU\x1b]0;pwned\a` && len(names) == 1 {
				t.Errorf("device config %q", d)
			}
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", rec)
		}
	}
	if !slices.Contains(names, `DequantF32/\x1b[31mred-2`) || !slices.Contains(names, `bad\xff_name_line-2`) {
		t.Errorf("Go benchmark names %q", names)
	}
}

// TestCompareTextEscapes: compare's table shows a run file's names and
// metadata through Printable.
func TestCompareTextEscapes(t *testing.T) {
	base, cur := hostileRun(), hostileRun()
	cur.Meta.GoVersion = "go\x1b[2J"
	cur.Results = append(cur.Results, Result{Name: "new\x1b[5m", Samples: []time.Duration{1}})
	c := Compare(base, cur, DefaultCompareOptions())
	c.Baseline.Label = "base\x1b[1m"
	var b bytes.Buffer
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	noRawControls(t, "compare's text", b.String())
	for _, want := range []string{`base\x1b[1m`, `dequant_f32/\x1b[31mred`, `new (in the current run only): new\x1b[5m`, `go\x1b[2J`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %s:\n%s", want, b.String())
		}
	}
}
