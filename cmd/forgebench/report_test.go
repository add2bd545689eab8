package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
