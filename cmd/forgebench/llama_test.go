package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/bench"
)

// tboLine is one line of test-backend-ops perf --output sql
// (sql_printer::print_test_result in ggml's tests/test-backend-ops.cpp).
func tboLine(typeA string, m, n, k int, us float64) string {
	return fmt.Sprintf("INSERT INTO test_backend_ops (test_time, build_commit, backend_name, op_name, op_params, test_mode, supported, passed, error_message, time_us, flops, bandwidth_gb_s, memory_kb, n_runs, device_description, backend_reg_name) "+
		"VALUES ('2026-11-24T10:00:00Z', 'd99724f', 'CUDA0', 'MUL_MAT', 'type_a=%s,type_b=f32,m=%d,n=%d,k=%d,bs=[1,1],nr=[1,1],per=[0,1,2,3],k_v=0,o=1,src_overlap=0', 'perf', '1', '1', '', '%f', '0.000000', '0.000000', '1000', '5000', 'NVIDIA H100 80GB HBM3', 'CUDA');\n",
		typeA, m, n, k, us)
}

// llamaInputs writes a test-backend-ops SQL file and a forge run with
// one matched matvec (Q4_0: forge 31 µs, llama.cpp 15.5 µs), one forge
// result without a case (Q6_K) and one case without a result (q5_K).
func llamaInputs(t *testing.T) (sql, runPath string) {
	dir := t.TempDir()
	sql = filepath.Join(dir, "tbo.sql")
	if err := os.WriteFile(sql, []byte(tboLine("q4_0", 4096, 1, 14336, 15.5)+tboLine("q5_K", 4096, 1, 14336, 19.78)), 0o644); err != nil {
		t.Fatal(err)
	}
	var results []bench.Result
	for _, f := range []string{"Q4_0", "Q6_K"} {
		r := bench.Result{Name: "matvec_f32/" + f + "/4096x14336", Family: "matvec", Kernel: "matvec_f32", Format: f,
			Shape: []int{4096, 14336}, Weights: &backend.Weights{Mode: backend.WeightsReuse, Copies: 1},
			Samples: []time.Duration{30 * time.Microsecond, 31 * time.Microsecond, 32 * time.Microsecond}}
		r.Stats = bench.Summarize(r.Samples, 1, 1, 0, 0)
		results = append(results, r)
	}
	runPath = filepath.Join(dir, "forge.json")
	run := &bench.Run{Meta: bench.Meta{Backend: "cuda", Device: "NVIDIA H100 80GB HBM3"}, Results: results}
	if err := bench.WriteRun(runPath, run); err != nil {
		t.Fatal(err)
	}
	return sql, runPath
}

func TestCompareLlama(t *testing.T) {
	sql, runPath := llamaInputs(t)
	code, out, stderr := forgebench(t, "compare-llama", "--llama", sql, "--run", runPath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, s := range []string{
		"matvec/matvec_f32  Q4_0    4096x14336     31.00         15.50   2.00  llama.cpp",
		"1 rows: forge faster in 0, llama.cpp in 1; geometric mean ratio 2.00",
		"matvec_f32/Q6_K/4096x14336: test-backend-ops reported no plain MUL_MAT of Q6_K m=4096 n=1 k=14336",
		sql + ":2 MUL_MAT(type_a=q5_K,",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}

	code, out, stderr = forgebench(t, "compare-llama", "--md", "--llama", sql, "--run", runPath)
	if code != 0 || !strings.Contains(out, "| matvec/matvec_f32 | Q4_0 | 4096x14336 | 31.00 | 15.50 | 2.00 | llama.cpp |") {
		t.Errorf("--md: exit %d, stderr %s, output:\n%s", code, stderr, out)
	}

	code, out, stderr = forgebench(t, "compare-llama", "--json", "-", "--llama", sql, "--run", runPath)
	var j struct {
		Rows []struct {
			Format string  `json:"format"`
			Ratio  float64 `json:"ratio"`
		} `json:"rows"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &j) != nil || len(j.Rows) != 1 || j.Rows[0].Format != "Q4_0" || j.Rows[0].Ratio != 2 {
		t.Errorf("--json -: exit %d, stderr %s, output:\n%s", code, stderr, out)
	}
}

func TestCompareLlamaBadInput(t *testing.T) {
	sql, runPath := llamaInputs(t)
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.sql")
	line := tboLine("q4_0", 4096, 1, 14336, 15.5)
	if err := os.WriteFile(broken, []byte(line+strings.Replace(line, "'15.500000'", "'n/a'", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "tbo.csv")
	if err := os.WriteFile(csv, []byte(`"backend_name","op_name","op_params","test_mode","supported","error_message","backend_reg_name"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"malformed sql", []string{"--llama", broken, "--run", runPath}, broken + `:2: time_us "n/a" is not a non-negative number`},
		{"csv", []string{"--llama", csv, "--run", runPath}, csv + ":1: this is test-backend-ops' --output csv, which has no timings"},
		{"missing llama file", []string{"--llama", filepath.Join(dir, "none.sql"), "--run", runPath}, "none.sql: no such file"},
		{"run is not a run", []string{"--llama", sql, "--run", sql}, sql + ": not valid JSON"},
		{"no run", []string{"--llama", sql}, "want both sides"},
		{"argument", []string{"--llama", sql, "--run", runPath, "extra"}, `unexpected arguments ["extra"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := forgebench(t, append([]string{"compare-llama"}, tc.args...)...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitBadInput, tc.want)
			}
			if out != "" {
				t.Errorf("printed on bad input:\n%s", out)
			}
		})
	}
}
