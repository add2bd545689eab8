package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/suite"
)

// gateFiles writes the run files of TestGateCannotPassEmpty: a good
// baseline and run (the synthetic defaults), and runs whose results are
// null, [], interrupted before the first, disjoint from the baseline's,
// or scenario figures alone.
func gateFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	write := func(name string, r *bench.Run) {
		p := filepath.Join(dir, name+".json")
		if err := bench.WriteRun(p, r); err != nil {
			t.Fatal(err)
		}
		files[name] = p
	}
	write("base", benchtest.Run(1, benchtest.Defaults()...))
	write("cur", benchtest.Run(2, benchtest.Defaults()...))
	empty := benchtest.Run(3)
	empty.Results = []bench.Result{}
	write("empty", empty)
	interrupted := benchtest.Run(3)
	interrupted.Interrupted = true
	write("interrupted", interrupted)
	disjoint := benchtest.Run(4, benchtest.Defaults()...)
	for i := range disjoint.Results {
		disjoint.Results[i].Name = "other/" + disjoint.Results[i].Name
	}
	write("disjoint", disjoint)
	figures := func(seed uint64) *bench.Run {
		r := benchtest.Run(seed)
		r.Results = []bench.Result{{Name: "memory/kv_cache/grow", Suite: "memory", Family: "memory",
			Metrics: []suite.Metric{{Name: "peak_in_use", Unit: "B", Value: 1 << 20}}}}
		return r
	}
	write("figures1", figures(5))
	write("figures2", figures(6))

	// "results": null, as a hand-edited or foreign tool's file has it.
	data := bytes.Replace(readBytes(t, files["empty"]), []byte(`"results": []`), []byte(`"results": null`), 1)
	if !bytes.Contains(data, []byte(`"results": null`)) {
		t.Fatalf("no empty results to replace in %s", data)
	}
	files["null"] = filepath.Join(dir, "null.json")
	if err := os.WriteFile(files["null"], data, 0o644); err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGateCannotPassEmpty: a comparison that judges nothing — a baseline
// or run with no results (null, [], interrupted before its first), no
// benchmark in common, only figures in common — is an error (exit 2), not a
// pass; it reported "4 new" or "4 missing" and exited 0. report and
// compare-llama refuse the same inputs.
func TestGateCannotPassEmpty(t *testing.T) {
	f := gateFiles(t)
	html := filepath.Join(t.TempDir(), "r.html")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"null baseline", []string{"compare", "--baseline-file", f["null"], "--run", f["cur"]}, []string{"compare: baseline " + f["null"] + " has no results: nothing to compare"}},
		{"[] baseline", []string{"compare", "--baseline-file", f["empty"], "--run", f["cur"]}, []string{"baseline " + f["empty"] + " has no results"}},
		{"null run", []string{"compare", "--baseline-file", f["base"], "--run", f["null"]}, []string{f["null"] + " has no results"}},
		{"[] run", []string{"compare", "--baseline-file", f["base"], "--run", f["empty"]}, []string{f["empty"] + " has no results"}},
		{"interrupted run", []string{"compare", "--baseline-file", f["base"], "--run", f["interrupted"]},
			[]string{f["interrupted"] + " has no results (it was interrupted before its first benchmark finished)"}},
		{"disjoint", []string{"compare", "--baseline-file", f["base"], "--run", f["disjoint"]},
			[]string{"no benchmark in common: baseline " + f["base"] + " has 6 (dequant_f32/F16, dequant_f32/Q4_0, dequant_f32/Q8_0, ...); " +
				f["disjoint"] + " has 6 (other/dequant_f32/F16,"}},
		{"figures only", []string{"compare", "--baseline-file", f["figures1"], "--run", f["figures2"]}, []string{"the 1 benchmark(s) that baseline", "carry no samples", "nothing to compare"}},
		// Refused before the suites run: no backend chosen, no progress.
		{"empty baseline, live run", []string{"compare", "--baseline-file", f["empty"], "--backend", "cpu", "--suite", "dequant_f32/F32", "--elems", "256"},
			[]string{"has no results"}},
		{"report of nothing", []string{"report", "--html", html, f["null"]}, []string{"report: " + f["null"] + " has no results: nothing to report"}},
		{"report, disjoint baseline", []string{"report", "--html", html, "--baseline", f["disjoint"], f["cur"]}, []string{"report: no benchmark in common"}},
		{"compare-llama, empty run", []string{"compare-llama", "--llama", llamaSQL(t), "--run", f["empty"]}, []string{f["empty"] + " has no results"}},
		{"compare-llama, nothing matched", []string{"compare-llama", "--llama", llamaSQL(t), "--run", f["cur"]},
			[]string{"no forge result has a test-backend-ops case of the same format and shape"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := forgebench(t, c.args...)
			t.Log(errOut)
			if code != exitError {
				t.Errorf("exit %d, want %d: %s", code, exitError, errOut)
			}
			contains(t, "stderr", errOut, c.want...)
			if strings.Contains(errOut, "backend cpu") || strings.Contains(errOut, "[1/") {
				t.Errorf("it measured before refusing: %s", errOut)
			}
		})
	}
	if _, err := os.Stat(html); err == nil {
		t.Error("a refused report was written")
	}

	// Saved baselines: show and list say that one is empty, and fail.
	dir := t.TempDir()
	wantExit(t, 0, "baseline", "save", "good", "--from", f["base"], "--dir", dir)
	if err := os.WriteFile(filepath.Join(dir, "hollow.json"), readBytes(t, f["null"]), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut := wantExit(t, exitError, "compare", "hollow", "--dir", dir, "--run", f["cur"])
	contains(t, "compare an empty saved baseline", errOut, "baseline hollow has no results")
	out, errOut := wantExit(t, exitError, "baseline", "show", "hollow", "--dir", dir)
	contains(t, "show", out, "backend:")
	contains(t, "show", errOut, "baseline hollow ("+filepath.Join(dir, "hollow.json")+") has no results", "compare refuses it")
	out, errOut = wantExit(t, exitError, "baseline", "list", "--dir", dir)
	contains(t, "list", out, "EMPTY: no results")
	contains(t, "list", errOut, "1 of 2 baseline files")

	// What still passes: the same benchmarks, and a partial overlap.
	wantExit(t, 0, "compare", "good", "--dir", dir, "--run", f["cur"])
	wantExit(t, 0, "baseline", "show", "good", "--dir", dir)
}

// llamaSQL is a test-backend-ops file with one Q4_0 matvec case.
func llamaSQL(t *testing.T) string {
	sql, _ := llamaInputs(t)
	return sql
}
