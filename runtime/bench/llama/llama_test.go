package llama

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/bench"
)

// sqlHeader is sql_printer::print_header's output for test_result's
// fields (ggml tests/test-backend-ops.cpp: test_result::get_fields and
// sql_printer, at the commit of ../shared/anchors).
const sqlHeader = `CREATE TABLE IF NOT EXISTS test_backend_ops (
  test_time TEXT,
  build_commit TEXT,
  backend_name TEXT,
  op_name TEXT,
  op_params TEXT,
  test_mode TEXT,
  supported INTEGER,
  passed INTEGER,
  error_message TEXT,
  time_us REAL,
  flops REAL,
  bandwidth_gb_s REAL,
  memory_kb INTEGER,
  n_runs INTEGER,
  device_description TEXT,
  backend_reg_name TEXT
);

`

// insert is one line of sql_printer::print_test_result: every value
// single-quoted, doubles as std::to_string prints them ("%f"), bools as
// "1"/"0". An unsupported case has error_message "not supported" and
// zero times (test_case::eval_perf).
func insert(params string, supported bool, timeUS float64, runs int) string {
	sup, errMsg := "1", ""
	if !supported {
		sup, errMsg, timeUS, runs = "0", "not supported", 0, 0
	}
	return fmt.Sprintf("INSERT INTO test_backend_ops (test_time, build_commit, backend_name, op_name, op_params, test_mode, supported, passed, error_message, time_us, flops, bandwidth_gb_s, memory_kb, n_runs, device_description, backend_reg_name) "+
		"VALUES ('2026-11-24T10:00:00Z', 'd99724f', 'CUDA0', 'MUL_MAT', '%s', 'perf', '%s', '%s', '%s', '%f', '%f', '0.000000', '33040', '%d', 'NVIDIA H100 80GB HBM3', 'CUDA');\n",
		params, sup, sup, errMsg, timeUS, 1e12, runs)
}

// mm is test_mul_mat::vars() of a plain case (VARS_TO_STR11).
func mm(typeA string, m, n, k int) string {
	return fmt.Sprintf("type_a=%s,type_b=f32,m=%d,n=%d,k=%d,bs=[1,1],nr=[1,1],per=[0,1,2,3],k_v=0,o=1,src_overlap=0", typeA, m, n, k)
}

// generic is test_generic_op::vars() of a MUL_MAT read with --test-file:
// the output's type and ne, op_params (none set), and the sources'
// types and ne (var_to_str of input_tensor; no nb when contiguous).
func generic(typeA string, m, n, k int) string {
	return fmt.Sprintf("type=f32,ne=[%d,%d,1,1],op_params=[],sources=%s[%d,%d,1,1],f32[%d,%d,1,1]", m, n, typeA, k, m, k, n)
}

func TestParseSQL(t *testing.T) {
	in := sqlHeader +
		"ggml_cuda_init: found 1 CUDA devices:\n" + // a log line on the same stream is skipped
		insert(mm("q4_K", 4096, 1, 14336), true, 17.6, 5820) +
		insert(mm("f16", 4096, 1, 14336), true, 40.86, 2460) +
		insert(generic("q8_0", 4096, 16, 14336), true, 65.25, 900) +
		insert(mm("iq1_m", 4096, 1, 14336), false, 0, 0) +
		insert(strings.Replace(mm("q4_0", 4096, 2, 14336), "bs=[1,1]", "bs=[2,1]", 1), true, 20, 10)
	cases, err := Parse(strings.NewReader(in), "tbo.sql")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 5 {
		t.Fatalf("got %d cases, want 5: %+v", len(cases), cases)
	}
	c := cases[0]
	want := Case{File: "tbo.sql", Line: 21, Op: "MUL_MAT", Params: mm("q4_K", 4096, 1, 14336), Backend: "CUDA0",
		Device: "NVIDIA H100 80GB HBM3", Commit: "d99724f", Supported: true, TimeUS: 17.6, Runs: 5820,
		TypeA: "q4_K", TypeB: "f32", M: 4096, N: 1, K: 14336}
	if c != want {
		t.Errorf("case 0:\n got %+v\nwant %+v", c, want)
	}
	if g := cases[2]; g.TypeA != "q8_0" || g.TypeB != "f32" || g.M != 4096 || g.N != 16 || g.K != 14336 || g.NotPlain != "" || g.TimeUS != 65.25 {
		t.Errorf("generic case: %+v", g)
	}
	if u := cases[3]; u.Supported || u.Error != "not supported" || u.TypeA != "iq1_m" {
		t.Errorf("unsupported case: %+v", u)
	}
	if b := cases[4]; !strings.Contains(b.NotPlain, "bs=[2,1]") {
		t.Errorf("batched case: NotPlain %q, want it to name bs=[2,1]", b.NotPlain)
	}
}

func TestParseConsole(t *testing.T) {
	// console_printer::print_perf_console: "  OP(vars): " padded, then
	// "%8d runs - %8.2f us/run - " and the size or FLOPS.
	in := "Backend 1/2: CUDA0\n  Device description: NVIDIA H100 80GB HBM3\n\n" +
		"  MUL_MAT(" + mm("q4_0", 4096, 1, 14336) + "):                 6438 runs -    15.52 us/run - 117.44 MFLOP/run -   7.57 TFLOPS\n" +
		"  MUL_MAT(" + mm("iq1_m", 4096, 1, 14336) + "): not supported\n" +
		"  Backend CUDA0: OK\n"
	cases, err := Parse(strings.NewReader(in), "tbo.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 {
		t.Fatalf("got %d cases, want 2", len(cases))
	}
	if c := cases[0]; c.Line != 4 || !c.Supported || c.TimeUS != 15.52 || c.Runs != 6438 || c.TypeA != "q4_0" || c.N != 1 {
		t.Errorf("perf line: %+v", c)
	}
	if c := cases[1]; c.Supported || c.TypeA != "iq1_m" {
		t.Errorf("unsupported line: %+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	good := insert(mm("q4_0", 4096, 1, 14336), true, 15.52, 6438)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"csv", `"backend_name","op_name","op_params","test_mode","supported","error_message","backend_reg_name"` + "\n" +
			`"CUDA0","MUL_MAT","type_a=q4_0","perf","1","","CUDA"` + "\n", "in.sql:1: this is test-backend-ops' --output csv, which has no timings"},
		{"empty", "", "in.sql: no test-backend-ops perf case in 0 lines"},
		{"header only", sqlHeader, "no test-backend-ops perf case in 19 lines"},
		{"unquoted value", good + strings.Replace(good, "'perf'", "perf", 1), "in.sql:2: INSERT: value 6 (test_mode) does not start with a quote"},
		{"truncated line", good + good[:len(good)-60] + "\n", "in.sql:2: INSERT: value 12 (bandwidth_gb_s) has no closing quote: the line ends first"},
		{"time not a number", strings.Replace(good, "'15.520000'", "'fast'", 1), `in.sql:1: time_us "fast" is not a non-negative number`},
		{"test mode", strings.Replace(good, "'perf'", "'test'", 1), `in.sql:1: test_mode is "test", want "perf"`},
		{"no time column", strings.Replace(strings.Replace(good, "time_us, ", "", 1), "'15.520000', ", "", 1), "in.sql:1: INSERT: no time_us column"},
		{"bad m", strings.Replace(good, "m=4096", "m=many", 1), "in.sql:1: MUL_MAT op_params"},
		{"missing k", strings.Replace(good, ",k=14336", "", 1), "no k"},
		{"unbalanced", strings.Replace(good, "bs=[1,1]", "bs=[1,1", 1), "unbalanced brackets"},
		{"console runs", "  MUL_MAT(" + mm("q4_0", 4096, 1, 14336) + "): 99999999999999999999 runs - 1.00 us/run\n", "in.sql:1: runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.in), "in.sql")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// result is a forge result with samples (µs) summarised as forgebench does.
func result(family, kernel, format string, shape []int, weights backend.WeightMode, us ...float64) bench.Result {
	r := bench.Result{Name: fmt.Sprintf("%s/%s/%v", kernel, format, shape), Family: family, Kernel: kernel, Format: format, Shape: shape}
	for _, u := range us {
		r.Samples = append(r.Samples, time.Duration(u*1e3))
	}
	if weights != "" {
		r.Weights = &backend.Weights{Mode: weights, Copies: 1}
	}
	r.Stats = bench.Summarize(r.Samples, 1, 1, 0, 0)
	return r
}

func forgeRun(results ...bench.Result) *bench.Run {
	return &bench.Run{Kind: bench.Kind, Schema: bench.SchemaVersion, Results: results,
		Meta: bench.Meta{Backend: "cuda", Device: "NVIDIA H100 80GB HBM3", ForgeCommit: "abc123"}}
}

func TestCompare(t *testing.T) {
	llama := sqlHeader +
		insert(mm("q4_0", 4096, 1, 14336), true, 15.52, 6438) + // line 20
		insert(mm("q4_K", 4096, 1, 14336), true, 17.60, 5820) + // 21
		insert(generic("q8_0", 4096, 16, 14336), true, 80, 900) + // 22
		insert(mm("q5_0", 4096, 1, 14336), true, 18.73, 5000) + // 23: no forge result
		insert(mm("mxfp4", 4096, 1, 14336), false, 0, 0) + // 24: unsupported
		insert(strings.Replace(mm("q4_0", 4096, 2, 14336), "bs=[1,1]", "bs=[2,1]", 1), true, 20, 10) + // 25: batched
		insert(mm("q4_0", 4096, 1, 14336), true, 99, 10) + // 26: duplicate of 20
		insert(strings.Replace(mm("f16", 4096, 1, 14336), "type_b=f32", "type_b=f16", 1), true, 41, 10) // 27: f16 activations
	cases, err := Parse(strings.NewReader(llama), "tbo.sql")
	if err != nil {
		t.Fatal(err)
	}
	run := forgeRun(
		result("matvec", "matvec_f32", "Q4_0", []int{4096, 14336}, backend.WeightsReuse, 29, 30, 31),
		result("matvec", "matvec_x8", "Q4_0", []int{4096, 14336}, backend.WeightsReuse, 12, 12.4, 13),
		result("matvec", "matvec_f32", "Q4_K", []int{4096, 14336}, backend.WeightsRotate, 17.6, 17.6, 17.6),
		result("matmul", "matmul_f32", "Q8_0", []int{4096, 14336, 16}, "", 60, 64, 100),
		result("matvec", "matvec_f32", "MXFP4", []int{4096, 14336}, backend.WeightsReuse, 20),
		result("matvec", "matvec_f32", "F16", []int{4096, 14336}, backend.WeightsReuse, 40),
		result("dequant", "dequant_f32", "Q4_0", nil, "", 10),
	)
	c := Compare([]Run{{"forge.json", run}}, cases)

	type rowKey struct {
		kernel, format string
		forge, llama   float64
		winner, at     string
	}
	var got []rowKey
	for _, r := range c.Rows {
		got = append(got, rowKey{r.Kernel, r.Format, r.ForgeUS, r.LlamaUS, r.Winner, r.LlamaAt})
		if want := r.ForgeUS / r.LlamaUS; math.Abs(r.Ratio-want) > 1e-12 {
			t.Errorf("%s/%s: ratio %v, want %v", r.Kernel, r.Format, r.Ratio, want)
		}
	}
	want := []rowKey{
		{"matvec_f32", "Q4_0", 30, 15.52, "llama.cpp", "tbo.sql:20"},
		{"matvec_x8", "Q4_0", 12.4, 15.52, "forge", "tbo.sql:20"},
		{"matvec_f32", "Q4_K", 17.6, 17.6, "tie", "tbo.sql:21"},
		{"matmul_f32", "Q8_0", 64, 80, "forge", "tbo.sql:22"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}
	if r := c.Rows[0]; math.Abs(r.Ratio-30/15.52) > 1e-12 || r.ForgeSamples != 3 || r.ForgeLaunches != 1 || r.LlamaRuns != 6438 || r.Weights != "reuse" {
		t.Errorf("row 0: %+v", r)
	}

	wantForgeOnly := map[string]string{
		"matvec_f32/MXFP4/[4096 14336]": "test-backend-ops does not support MXFP4 m=4096 n=1 k=14336 (tbo.sql:24)",
		"matvec_f32/F16/[4096 14336]":   "test-backend-ops reported no plain MUL_MAT of F16 m=4096 n=1 k=14336",
		"dequant_f32/Q4_0/[]":           `family "dequant" has no test-backend-ops MUL_MAT counterpart`,
	}
	checkUnmatched(t, "forge", c.ForgeOnly, wantForgeOnly)
	wantLlamaOnly := map[string]string{
		"tbo.sql:23": "no forge matvec or matmul result of Q5_0 m=4096 n=1 k=14336",
		"tbo.sql:24": "not supported by the backend",
		"tbo.sql:25": "not one plain product: bs=[2,1] (a plain product has bs=[1,1])",
		"tbo.sql:26": "the same type and shape as tbo.sql:20, which is compared",
		"tbo.sql:27": "type_b=f16: forge's activations are f32",
	}
	byLine := map[string]string{}
	for _, u := range c.LlamaOnly {
		at, _, _ := strings.Cut(u.What, " ")
		byLine[at] = u.Why
	}
	if fmt.Sprint(byLine) != fmt.Sprint(wantLlamaOnly) {
		t.Errorf("llama.cpp unmatched:\n got %v\nwant %v", byLine, wantLlamaOnly)
	}

	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "1 forge rows read their weights from rotating copies") {
		t.Errorf("notes: %q, want one on the rotated Q4_K row", c.Notes)
	}
	f, l, g := c.Tally()
	wantG := math.Pow(30/15.52*12.4/15.52*1*64/80.0, 0.25)
	if f != 2 || l != 1 || math.Abs(g-wantG) > 1e-12 {
		t.Errorf("tally: forge %d, llama.cpp %d, geomean %v; want 2, 1, %v", f, l, g, wantG)
	}
	if c.Forge.Device != "NVIDIA H100 80GB HBM3" || c.Llama.Commit != "d99724f" || c.Llama.Backend != "CUDA0" {
		t.Errorf("sides: %+v / %+v", c.Forge, c.Llama)
	}

	var text, md strings.Builder
	if err := c.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"FAMILY/KERNEL      FORMAT  SHAPE          FORGE µs  LLAMA.CPP µs  RATIO  WINNER\n" +
			"matvec/matvec_f32  Q4_0    4096x14336        30.00         15.52   1.93  llama.cpp\n",
		"matmul/matmul_f32  Q8_0    4096x14336x16     64.00         80.00   0.80  forge\n",
		"4 rows: forge faster in 2, llama.cpp in 1; geometric mean ratio",
		"forge results without a test-backend-ops case (3):",
		"test-backend-ops cases without a forge result (5):",
		"each time is the median of the benchmark's samples, one launch each (so its µs include the launch gap",
		"each time is the " + LlamaStatistic,
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text output lacks %q:\n%s", s, text.String())
		}
	}
	if err := c.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| FAMILY/KERNEL | FORMAT | SHAPE | FORGE µs | LLAMA.CPP µs | RATIO | WINNER |",
		"| matvec/matvec_x8 | Q4_0 | 4096x14336 | 12.40 | 15.52 | 0.80 | forge |",
		"- tbo.sql:23 MUL_MAT(",
	} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown output lacks %q:\n%s", s, md.String())
		}
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("the comparison does not encode as JSON: %v", err)
	}
}

func TestCompareDevicesDiffer(t *testing.T) {
	cases, err := Parse(strings.NewReader(insert(mm("q4_0", 64, 1, 256), true, 2, 10)), "a.sql")
	if err != nil {
		t.Fatal(err)
	}
	run := forgeRun(result("matvec", "matvec_f32", "Q4_0", []int{64, 256}, backend.WeightsReuse, 1))
	run.Meta.Device = "NVIDIA H200"
	c := Compare([]Run{{"f.json", run}}, cases)
	if len(c.Rows) != 1 || c.Rows[0].Ratio != 0.5 || c.Rows[0].Winner != "forge" {
		t.Fatalf("rows: %+v", c.Rows)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "different devices") {
		t.Errorf("notes: %q", c.Notes)
	}
}

// TestCompareThrottled: a forge row whose clocks were held down while it
// ran is named in the notes; one at full clock is not.
func TestCompareThrottled(t *testing.T) {
	cases, err := Parse(strings.NewReader(insert(mm("q4_0", 64, 1, 256), true, 2, 10)+insert(mm("q8_0", 64, 1, 256), true, 2, 10)), "a.sql")
	if err != nil {
		t.Fatal(err)
	}
	a := result("matvec", "matvec_f32", "Q4_0", []int{64, 256}, backend.WeightsReuse, 1)
	b := result("matvec", "matvec_f32", "Q8_0", []int{64, 256}, backend.WeightsReuse, 1)
	a.Clocks = &bench.ClockStats{Readings: 4, MinSMMHz: 1400, MedianSMMHz: 1500, MaxSMMHz: 1600, Reasons: map[string]int{"sw_power_cap": 4}}
	b.Clocks = &bench.ClockStats{Readings: 4, MinSMMHz: 1980, MedianSMMHz: 1980, MaxSMMHz: 1980}
	run := forgeRun(a, b)
	run.Meta.Clocks = &bench.Clocks{Tool: "nvidia-smi", MaxSMMHz: 1980}
	c := Compare([]Run{{"f.json", run}}, cases)
	if len(c.Rows) != 2 || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "forge's "+a.Name+": SM clock 1500 MHz") ||
		!strings.Contains(c.Notes[0], "sw_power_cap in 4 of 4 readings") {
		t.Errorf("rows %d, notes %q", len(c.Rows), c.Notes)
	}
}

// TestForgeStatistic: the forge side says how its samples were timed.
func TestForgeStatistic(t *testing.T) {
	cases, err := Parse(strings.NewReader(insert(mm("q4_0", 64, 1, 256), true, 2, 10)+insert(mm("q8_0", 64, 1, 256), true, 2, 10)), "a.sql")
	if err != nil {
		t.Fatal(err)
	}
	a := result("matvec", "matvec_f32", "Q4_0", []int{64, 256}, backend.WeightsReuse, 1)
	b := result("matvec", "matvec_f32", "Q8_0", []int{64, 256}, backend.WeightsReuse, 1)
	a.LaunchesPerSample, b.LaunchesPerSample = 100, 100
	c := Compare([]Run{{"f.json", forgeRun(a, b)}}, cases)
	if want := "median of the benchmark's samples, each the mean of 100 back-to-back launches"; c.Forge.Statistic != want || c.Rows[0].ForgeLaunches != 100 {
		t.Errorf("statistic %q (row launches %d), want %q (100)", c.Forge.Statistic, c.Rows[0].ForgeLaunches, want)
	}
	b.LaunchesPerSample = 0
	c = Compare([]Run{{"f.json", forgeRun(a, b)}}, cases)
	if want := "each the mean of [1 100] back-to-back launches (it differs between rows)"; !strings.Contains(c.Forge.Statistic, want) {
		t.Errorf("statistic %q, want it to contain %q", c.Forge.Statistic, want)
	}
}

func checkUnmatched(t *testing.T, side string, got []Unmatched, want map[string]string) {
	t.Helper()
	m := map[string]string{}
	for _, u := range got {
		m[u.What] = u.Why
	}
	if fmt.Sprint(m) != fmt.Sprint(want) {
		t.Errorf("%s unmatched:\n got %v\nwant %v", side, m, want)
	}
}

// TestVendorColumn: scripts/cublas_f16.py's output is read, its times put
// beside the matmul rows of their shapes (not the matvec rows), the table
// gains the two columns, and a malformed line is an error naming it.
func TestVendorColumn(t *testing.T) {
	out := "# NVIDIA H100 80GB HBM3, torch 2.9, CUDA 13.0\nshape                  us/op    TFLOPS\n4096x14336x512          86.90     692.0\n4096x4096x16            10.00      53.7\n"
	dev, stat, us, err := parseCublas(strings.NewReader(out), "cublas.txt")
	if err != nil || dev != "NVIDIA H100 80GB HBM3" || stat != VendorStatistic || us["4096x14336x512"] != 86.9 || len(us) != 2 {
		t.Fatalf("parse: %q %q %v %v", dev, stat, us, err)
	}
	// The script's current output: its statistic line, and each shape's
	// samples on a comment line.
	sampled := "# NVIDIA H200, torch 2.11, CUDA 13.0\n# statistic: median of 5 samples, each the mean µs of 100 back-to-back launches\n" +
		"shape                  us/op    TFLOPS\n4096x14336x512          90.00     668.1\n# 4096x14336x512 samples: 85.09 85.18 90.00 90.18 90.24\n"
	if dev2, stat2, us2, err := parseCublas(strings.NewReader(sampled), "cublas.txt"); err != nil || dev2 != "NVIDIA H200" ||
		stat2 != "median of 5 samples, each the mean µs of 100 back-to-back launches" || us2["4096x14336x512"] != 90 || len(us2) != 1 {
		t.Errorf("sampled output: %q %q %v %v", dev2, stat2, us2, err)
	}
	c := &Comparison{Rows: []Row{
		{Family: "matmul", Kernel: "matmul_f32", Format: "Q4_0", Shape: []int{4096, 14336, 512}, ForgeUS: 173.8, LlamaUS: 324, Ratio: 0.54, Winner: "forge"},
		{Family: "matvec", Kernel: "matvec_x8", Format: "Q4_0", Shape: []int{4096, 14336}, ForgeUS: 12, LlamaUS: 15, Ratio: 0.8, Winner: "forge"},
	}}
	c.AddVendor(Vendor{Name: "cuBLAS f16", Source: "cublas.txt", Device: dev, Statistic: VendorStatistic}, us)
	if r := c.Rows[0]; r.VendorUS != 86.9 || math.Abs(r.VendorRatio-2) > 1e-12 {
		t.Errorf("matmul row: %+v", r)
	}
	if r := c.Rows[1]; r.VendorUS != 0 {
		t.Errorf("matvec row got a vendor time: %+v", r)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "4096x4096x16, which no matmul row has") {
		t.Errorf("notes: %q", c.Notes)
	}
	var b strings.Builder
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| CUBLAS F16 µs | FORGE ÷ CUBLAS F16 |", "| 86.90 | 2.00 |", "| - | - |", "cuBLAS f16: cublas.txt [NVIDIA H100 80GB HBM3]"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
	if _, _, _, err := parseCublas(strings.NewReader("4096x14336 86.9 1\n"), "bad.txt"); err == nil || !strings.Contains(err.Error(), "bad.txt:1:") {
		t.Errorf("a two-dimensional shape: %v", err)
	}
}
