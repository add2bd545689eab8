package main

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
)

// fast are the flags that keep a test run small: 4096 elements, 3
// samples, a 1 MiB copy roofline, the cpu backend.
var fast = []string{"--backend", "cpu", "--elems", "4096", "--count", "3", "--warmup", "1", "--copy-bytes", "1048576"}

func runArgs(extra ...string) []string { return append(append([]string{"run"}, fast...), extra...) }

func readRun(t *testing.T, path string) *bench.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r bench.Run
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if r.Kind != bench.Kind || r.Schema != bench.SchemaVersion {
		t.Errorf("%s: kind %q schema %d", path, r.Kind, r.Schema)
	}
	return &r
}

func TestRunTable(t *testing.T) {
	code, out, errOut := forgebench(t, runArgs("--format", "Q4_0", "--family", "dequant")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "backend cpu on ") || !strings.HasPrefix(lines[1], "copy roofline: ") {
		t.Fatalf("table:\n%s", out)
	}
	if got := strings.Join(strings.Fields(lines[2]), " "); got != strings.Join(bench.TableColumns, " ") {
		t.Errorf("header %q", lines[2])
	}
	for i, name := range []string{"dequant_f32/Q4_0", "dequant_f16/Q4_0"} {
		if f := strings.Fields(lines[3+i]); f[0] != name || f[1] != "3" || f[len(f)-1] != "7.11x" {
			t.Errorf("row %q", lines[3+i])
		}
	}
	// Not a terminal: a plain line per benchmark on stderr.
	for _, want := range []string{"forgebench: backend cpu\n", "[1/2] dequant_f32/Q4_0: p50 ", "[2/2] dequant_f16/Q4_0: p50 "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// These benchmarks move far less than bench.RooflineMinBytes: no % of
	// copy is claimed for them.
	if strings.Contains(errOut, "% of copy") {
		t.Errorf("a %% of copy for a benchmark below bench.RooflineMinBytes:\n%s", errOut)
	}
	if strings.Contains(errOut, "\r") {
		t.Errorf("a progress bar on a non-terminal:\n%q", errOut)
	}
}

// TestRunOutputs writes every format to files and parses each back.
func TestRunOutputs(t *testing.T) {
	dir := t.TempDir()
	j, c, g := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.csv"), filepath.Join(dir, "run.txt")
	code, out, errOut := forgebench(t, runArgs("--suite", "dequant_f32/*", "--format", "/^Q8_0$|^MXFP4$/", "--json", j, "--csv", c, "--gofmt", g, "--quiet")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("--quiet printed:\n%s", out)
	}
	run := readRun(t, j)
	if len(run.Results) != 2 || run.Results[0].Name != "dequant_f32/Q8_0" || run.Results[1].Name != "dequant_f32/MXFP4" || run.Interrupted {
		t.Fatalf("results %+v", run.Results)
	}
	if run.Meta.Backend != "cpu" || run.Roofline == nil || run.Roofline.Bytes != 1<<20 {
		t.Errorf("meta %+v roofline %+v", run.Meta, run.Roofline)
	}
	for _, r := range run.Results {
		if r.Elements != 4096 || len(r.Samples) != 3 || r.Stats.N != 3 || r.Warmup != 1 || r.Stats.P50 <= 0 {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}

	f, err := os.Open(c)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || strings.Join(rows[0], ",") != strings.Join(bench.CSVHeader, ",") || rows[1][0] != "dequant_f32/Q8_0" || rows[2][4] != "MXFP4" {
		t.Errorf("CSV rows %q", rows)
	}

	gf, err := os.Open(g)
	if err != nil {
		t.Fatal(err)
	}
	defer gf.Close()
	rd := benchfmt.NewReader(gf, g)
	n := map[string]int{}
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			n[rec.Name.String()]++
			if rec.GetConfig("backend") != "cpu" || rec.GetConfig("pkg") != bench.GoPkg {
				t.Errorf("config %v", rec.Config)
			}
			unit := "sec/op"
			if strings.HasPrefix(rec.Name.String(), "CopyRoofline") { // the copy roofline: its bandwidth
				unit = "B/s"
			}
			if v, ok := rec.Value(unit); !ok || v <= 0 {
				t.Errorf("%s: no %s", rec.Name, unit)
			}
		case *benchfmt.SyntaxError:
			t.Error(rec)
		}
	}
	if len(n) != 3 || n["DequantF32/Q8_0-2"]+n["DequantF32/Q8_0"] != 3 || n["CopyRoofline-2"]+n["CopyRoofline"] != 1 {
		t.Errorf("Go format benchmarks %v, want 3 lines each of 2 and one roofline", n)
	}
	for _, p := range []string{j, c, g} {
		if !strings.Contains(errOut, "wrote "+p) {
			t.Errorf("stderr does not mention %s", p)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("files left in the output directory: %v", ents)
	}
}

func TestRunStdout(t *testing.T) {
	code, out, errOut := forgebench(t, runArgs("--format", "Q8_0", "--suite", "dequant_f32/*", "--json", "-")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r bench.Run
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Results) != 1 {
		t.Errorf("stdout is not the run's JSON (%v):\n%s", err, out)
	}
	if !strings.Contains(errOut, "benchmark ") || !strings.Contains(errOut, "dequant_f32/Q8_0  ") {
		t.Errorf("the table did not go to stderr:\n%s", errOut)
	}
	code, _, errOut = forgebench(t, runArgs("--json", "-", "--csv", "-")...)
	if code != exitError || !strings.Contains(errOut, "--json - and --csv - both write to stdout") {
		t.Errorf("two outputs on stdout: exit %d: %s", code, errOut)
	}
}

func TestRunFilters(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"--format", "Q9_K"}, `forgebench: format "Q9_K" matches no format; valid: F32, F16, Q4_0, `},
		{[]string{"--suite", "dequant_f8/*"}, `suite "dequant_f8/*" matches no suite; valid: dequant_f32/F32, dequant_f32/F16,`},
		{[]string{"--weights", "flush"}, `--weights: weight mode "flush": want rotate or reuse`},
		{[]string{"--family", "softmax"}, `family "softmax" matches no family; valid: dequant, matmul, matvec, attention`},
		{[]string{"--format", "/Q4_(/"}, `format pattern "/Q4_(/": error parsing regexp`},
		{[]string{"--suite", "dequant_f32/Q4_0", "--format", "Q8_0"}, `no benchmark matches --suite "dequant_f32/Q4_0" --format "Q8_0"`},
		{[]string{"--backend", "tpu"}, `unknown backend "tpu"; available: cpu, cuda, hip, auto`},
		{[]string{"--count", "-1"}, `--count -1`},
		{[]string{"--launches-per-sample", "-2"}, `--launches-per-sample -2: want 0 (one launch per sample) to 1048576`},
		{[]string{"--clock-interval", "10ms"}, `--clock-interval 10ms: want 0 (no readings while measuring) or 50ms to 24h0m0s`},
		{[]string{"--clock-interval", "-1s"}, `--clock-interval -1s: want 0`},
		{[]string{"extra"}, `run: unexpected arguments ["extra"]`},
	} {
		code, out, errOut := forgebench(t, runArgs(tc.args...)...)
		if code != exitError || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s\nwant %q", tc.args, code, out, errOut, tc.want)
		}
		if strings.Contains(errOut, "[1/") {
			t.Errorf("%v: a benchmark ran before the error", tc.args)
		}
	}
	// The valid formats listed are the registered ones.
	_, _, errOut := forgebench(t, runArgs("--format", "Q9_K")...)
	_, listed, _ := strings.Cut(strings.TrimSpace(errOut), "valid: ")
	var got, want []string
	for _, name := range strings.Split(listed, ",") {
		if name = strings.TrimSpace(name); name != "" {
			got = append(got, name)
		}
	}
	for _, f := range formats.All() {
		want = append(want, f.Name)
	}
	if slices.Sort(got); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("--format Q9_K lists the valid formats %q, want the registered %q", got, want)
	}
	// Globs ignore case; lists mix globs and regexps.
	code, out, errOut := forgebench(t, runArgs("--format", "q5_?,/^IQ4/", "--suite", "*f16*", "--copy-bytes", "-1")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"dequant_f16/Q5_0", "dequant_f16/Q5_1", "dequant_f16/Q5_K", "dequant_f16/IQ4_NL", "dequant_f16/IQ4_XS"} {
		if !strings.Contains(out, name+" ") {
			t.Errorf("table lacks %s:\n%s", name, out)
		}
	}
	if strings.Contains(out, "dequant_f32/") || strings.Contains(out, "copy roofline") || strings.Count(out, "\n") != 7 {
		t.Errorf("table:\n%s", out)
	}
}

// TestRunUnwritable: an output that cannot be written is reported before
// anything runs.
func TestRunUnwritable(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ flag, path, want string }{
		{"--json", filepath.Join(dir, "missing", "run.json"), "cannot write there"},
		{"--csv", dir, "is a directory"},
		{"--gofmt", filepath.Join(dir, "file.txt", "x"), "not a directory"},
	} {
		os.WriteFile(filepath.Join(dir, "file.txt"), nil, 0o644)
		code, _, errOut := forgebench(t, runArgs(tc.flag, tc.path)...)
		if code != exitError || !strings.Contains(errOut, "run: "+tc.flag+" "+tc.path+": ") || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s %s: exit %d, stderr:\n%s", tc.flag, tc.path, code, errOut)
		}
		if strings.Contains(errOut, "backend") {
			t.Errorf("%s %s: the run started:\n%s", tc.flag, tc.path, errOut)
		}
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if code, _, errOut := forgebench(t, runArgs("--json", filepath.Join(ro, "run.json"))...); code != exitError || !strings.Contains(errOut, "permission denied") {
			t.Errorf("read-only directory: exit %d: %s", code, errOut)
		}
	}
}

// TestRunInterrupted sends the process a real SIGINT after the first
// benchmark: the run stops, the results so far are written, and the exit
// status is 130.
func TestRunInterrupted(t *testing.T) {
	testHookResult = func(ctx context.Context, r *bench.Result) {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Error(err)
		}
		select { // the signal is delivered asynchronously
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Error("SIGINT did not end the run's context")
		}
	}
	defer func() { testHookResult = nil }()
	dir := t.TempDir()
	j, g := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.txt")
	code, out, errOut := forgebench(t, runArgs("--format", "Q4_*,Q8_0", "--family", "dequant", "--json", j, "--gofmt", g)...)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errOut)
	}
	if !strings.Contains(errOut, "forgebench: run: interrupted (context canceled): 1 of 8 benchmarks ran; the results so far are written") {
		t.Errorf("stderr:\n%s", errOut)
	}
	run := readRun(t, j)
	if !run.Interrupted || len(run.Results) != 1 || run.Results[0].Name != "dequant_f32/Q4_0" {
		t.Errorf("written run: interrupted %v, %d results", run.Interrupted, len(run.Results))
	}
	if b, err := os.ReadFile(g); err != nil || !strings.Contains(string(b), "interrupted: true") || strings.Count(string(b), "BenchmarkDequantF32/Q4_0") != 3 {
		t.Errorf("Go format after the interrupt (%v):\n%s", err, b)
	}
	if !strings.Contains(out, "dequant_f32/Q4_0") || !strings.Contains(out, "interrupted: 1 benchmark(s) finished") {
		t.Errorf("table:\n%s", out)
	}
}

func TestRunGGUF(t *testing.T) {
	p, j := tiny(t)
	out := filepath.Join(t.TempDir(), "gguf.json")
	code, stdout, errOut := forgebench(t, "run", "--gguf", p, "--backend", "cpu", "--count", "2", "--copy-bytes", "-1", "--prompt", "4,2", "--json", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// tiny.gguf's 21 tensors are each of a type and shape of their own: a
	// group each, its dequant on the tensor's bytes at its shape, its
	// matvec and its matmul at both prompt lengths.
	run := readRun(t, out)
	byName := map[string]bench.Result{}
	for _, r := range run.Results {
		byName[r.Name] = r
	}
	for _, tt := range j.Tensors {
		group := fmt.Sprintf("gguf/%s/%dx%d", tt.Type, tt.Shape[1], tt.Shape[0])
		r, ok := byName[group+"/dequant_f32"]
		if !ok || r.Format != tt.Type || r.BytesRead != tt.NBytes || len(r.Shape) != len(tt.Shape) || int64(r.Shape[0]) != tt.Shape[0] || r.Stats.N != 2 || r.Tensors != 1 {
			t.Errorf("tensor %s (%s %v): result %s %s %v, %d bytes, %d tensors", tt.Name, tt.Type, tt.Shape, r.Name, r.Format, r.Shape, r.BytesRead, r.Tensors)
		}
		for _, k := range []string{"matvec_f32", "matmul_f32/batch2", "matmul_f32/batch4"} {
			if r, ok := byName[group+"/"+k]; !ok || r.Tensors != 1 || r.Stats.N != 2 {
				t.Errorf("tensor %s: %s/%s: %+v", tt.Name, group, k, r)
			}
		}
	}
	m := run.Meta.Model
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if m == nil || m.Path != p || m.Size != int64(len(data)) || m.SHA256 != hex.EncodeToString(sum[:]) || m.Name != "forge-tiny" || m.Architecture != "llama" ||
		len(m.Groups) != len(j.Tensors) || !slices.Equal(m.Prompts, []int{2, 4}) {
		t.Errorf("model %+v", m)
	}
	for _, metric := range []string{"decode_per_token", "decode_tokens_per_s", "prefill_2", "prefill_4_tokens_per_s", "dequant_all"} {
		if !slices.ContainsFunc(byName["gguf/model/total"].Metrics, func(x suite.Metric) bool { return x.Name == metric && x.Value > 0 }) {
			t.Errorf("gguf/model/total lacks %s: %+v", metric, byName["gguf/model/total"])
		}
	}
	contains(t, "the table", stdout, "model: forge-tiny (llama), file "+p, "sha256 "+m.SHA256, "21 tensors in 21 groups",
		"gguf/Q4_K/16x512/matvec_x8", "gguf/model  tensors", "decode_per_token (s)")

	// The filters apply to the groups' suites.
	code, stdout, errOut = forgebench(t, "run", "--gguf", p, "--backend", "cpu", "--count", "2", "--format", "Q4_K,MXFP4", "--family", "dequant", "--copy-bytes", "-1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"gguf/Q4_K/16x512/dequant_f32", "gguf/MXFP4/32x256/dequant_f32", "gguf/MXFP4/3x96/dequant_f32"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("table lacks %s:\n%s", name, stdout)
		}
	}
	if strings.Contains(stdout, "gguf/Q4_0") || strings.Contains(stdout, "/matvec_") {
		t.Errorf("table:\n%s", stdout)
	}
	code, _, errOut = forgebench(t, "run", "--gguf", p, "--prompt", "0")
	if code != exitError || !strings.Contains(errOut, `--prompt "0": want prompt lengths of 1 to 65536 tokens`) {
		t.Errorf("--prompt 0: exit %d: %s", code, errOut)
	}
	code, _, errOut = forgebench(t, "run", "--prompt", "128", "--suite", "dequant_f32/F32")
	if code != exitError || !strings.Contains(errOut, "--prompt: only a --gguf run") {
		t.Errorf("--prompt without --gguf: exit %d: %s", code, errOut)
	}
	code, _, errOut = forgebench(t, "run", "--gguf", p, "--format", "Q4_0_4_4")
	if code != exitError || !strings.Contains(errOut, `tiny.gguf: format "Q4_0_4_4" matches no format; valid: F32, F16, BF16, MXFP4, Q4_0`) {
		t.Errorf("unknown format in the file: exit %d: %s", code, errOut)
	}
	code, _, errOut = forgebench(t, "run", "--gguf", filepath.Join(t.TempDir(), "none.gguf"))
	if code != exitError || !strings.Contains(errOut, "none.gguf: no such file") {
		t.Errorf("missing file: exit %d: %s", code, errOut)
	}
}

func TestRunAuto(t *testing.T) {
	t.Chdir(t.TempDir()) // no build/ with kernel libraries here
	t.Setenv("FORGE_LIB", "")
	code, _, errOut := forgebench(t, "run", "--elems", "256", "--count", "1", "--format", "F16", "--suite", "*f32*", "--copy-bytes", "-1", "-q")
	if code != 0 || !strings.Contains(errOut, "forgebench: auto: ") || !strings.Contains(errOut, "using cpu") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestRunLaunchesPerSample: the flag reaches the engine and the JSON.
func TestRunLaunchesPerSample(t *testing.T) {
	code, out, errOut := forgebench(t, "run", "--backend", "cpu", "--elems", "256", "--count", "2", "--format", "F16", "--suite", "dequant_f32/*",
		"--copy-bytes", "-1", "--launches-per-sample", "3", "-q", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var run struct {
		Results []struct {
			Launches int   `json:"launches_per_sample"`
			Samples  []int `json:"samples_ns"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil || len(run.Results) != 1 || run.Results[0].Launches != 3 || len(run.Results[0].Samples) != 2 {
		t.Errorf("err %v, run %+v; want one result of 2 samples with launches_per_sample 3", err, run)
	}
}

func TestList(t *testing.T) {
	code, out, errOut := forgebench(t, "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// A suite per kernel and format, for every registered format, plus the
	// scenario suites of specs/workloads (and any suite of no format).
	kernelFormat := map[string]map[string]bool{}
	for _, s := range suite.All() {
		if s.IsScenario() || s.Format == nil {
			continue
		}
		if kernelFormat[s.Kernel] == nil {
			kernelFormat[s.Kernel] = map[string]bool{}
		}
		kernelFormat[s.Kernel][s.Format.Name] = true
	}
	for _, k := range []string{"dequant_f32", "dequant_f16", "matvec_f32", "matmul_f32"} {
		if kernelFormat[k] == nil {
			t.Errorf("no %s suites registered", k)
		}
	}
	// Every format gets every kernel, but the integer path's (matvec_x8)
	// only the formats with an integer form.
	intOnly := map[string]bool{}
	for _, fam := range families.All() {
		for _, k := range fam.Kernels {
			intOnly[k.Name] = k.IntForm
		}
	}
	for k, fs := range kernelFormat {
		for _, f := range formats.All() {
			if want := !intOnly[k] || f.HasIntForm(); fs[f.Name] != want {
				t.Errorf("%s suite for format %s: %v, want %v", k, f.Name, fs[f.Name], want)
			}
		}
	}
	if kernelFormat["matvec_x8"] == nil {
		t.Error("no matvec_x8 suites registered")
	}
	for _, want := range []string{fmt.Sprintf("%d suites", len(suite.All())), "gfx1100  amd     32    yes", "sm_90", "backends: cpu, cuda, hip"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "dequant_f32/Q4_0 dequant dequant_f32 Q4_0 f32 32 18 4.5 7.11x 16777216 67108864") {
		t.Errorf("list lacks the Q4_0 row:\n%s", out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "matvec_f32/Q4_K matvec matvec_f32 Q4_K f32 256 144 4.5 7.11x 1024x1024 4096x4096 4096x14336 14336x4096 output=128256x4096") {
		t.Errorf("list lacks the matvec Q4_K row:\n%s", out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "matmul_f32/Q4_K matmul matmul_f32 Q4_K f32 256 144 4.5 7.11x 256x1024x16 4096x4096x16 4096x4096x64 4096x4096x512 4096x14336x16 4096x14336x64 4096x14336x512") {
		t.Errorf("list lacks the matmul Q4_K row:\n%s", out)
	}
	code, out, errOut = forgebench(t, "list", "--json", "-", "--format", "Q6_K")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var l struct {
		Suites  []listSuite  `json:"suites"`
		Targets []listTarget `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Suites) != len(kernelFormat) || len(l.Targets) != 4 {
		t.Fatalf("list --json: %+v", l)
	}
	s := l.Suites[0]
	if s.Name != "dequant_f32/Q6_K" || s.BlockElems != 256 || s.BlockBytes != 210 || len(s.ShapesCPU) != 1 || s.ShapesCPU[0].Dims[0] != 16<<20 || len(s.ShapesGPU) != 1 || s.ShapesGPU[0].Dims[0] != 64<<20 || s.Output != "f32" {
		t.Errorf("Q6_K suite %+v", s)
	}
	if code, _, errOut := forgebench(t, "list", "--format", "nope"); code != exitError || !strings.Contains(errOut, `format "nope" matches no format; valid: F32`) {
		t.Errorf("list --format nope: exit %d: %s", code, errOut)
	}
}

// TestRunMatVec runs the matvec suites through the engine on the cpu, at
// the shape $FORGE_BENCH_MATVEC names (the result named by it): bytes are
// W's, x's and y's, FLOPs 2·rows·cols; the weights are one reused copy.
func TestRunMatVec(t *testing.T) {
	t.Setenv("FORGE_BENCH_MATVEC", "37x512")
	dir := t.TempDir()
	j := filepath.Join(dir, "run.json")
	code, _, errOut := forgebench(t, runArgs("--family", "matvec", "--format", "Q4_0,Q4_K", "--json", j)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	run := readRun(t, j)
	if len(run.Results) != 4 {
		t.Fatalf("%d results, want matvec_f32 and matvec_x8 of Q4_0 and Q4_K", len(run.Results))
	}
	byName := map[string]int{}
	for i, r := range run.Results {
		byName[r.Name] = i
	}
	for _, want := range []struct {
		name       string
		blockBytes int64
		blockElems int64
	}{{"matvec_f32/Q4_0/37x512", 18, 32}, {"matvec_f32/Q4_K/37x512", 144, 256}, {"matvec_x8/Q4_0/37x512", 18, 32}, {"matvec_x8/Q4_K/37x512", 144, 256}} {
		i, ok := byName[want.name]
		if !ok {
			t.Errorf("no result %s", want.name)
			continue
		}
		r := run.Results[i]
		wBytes := 37 * 512 / want.blockElems * want.blockBytes
		if w := r.Weights; w == nil || w.Mode != backend.WeightsReuse || w.Copies != 1 || w.CopyBytes != wBytes || w.TotalBytes != wBytes {
			t.Errorf("result %d: weights %+v, want one reused copy of %d bytes (the cpu)", i, w, wBytes)
		}
		if r.Name != want.name || r.Family != "matvec" || len(r.Shape) != 2 || r.Shape[0] != 37 || r.Shape[1] != 512 ||
			r.BytesRead != 37*512/want.blockElems*want.blockBytes+4*512 || r.BytesWritten != 4*37 || r.FLOPs != 2*37*512 || r.Stats.N != 3 {
			t.Errorf("result %d: %+v", i, r)
		}
	}
}

// TestRunMatMul runs the matmul suites through the engine on the cpu, at
// the shape $FORGE_BENCH_MATMUL names: bytes are W's, X's and Y's, FLOPs
// 2·rows·cols·batch.
func TestRunMatMul(t *testing.T) {
	t.Setenv("FORGE_BENCH_MATMUL", "37x512x3")
	dir := t.TempDir()
	j := filepath.Join(dir, "run.json")
	code, out, errOut := forgebench(t, runArgs("--family", "matmul", "--format", "Q4_0,Q4_K", "--json", j)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "GFLOPS") {
		t.Errorf("no GFLOPS column:\n%s", out)
	}
	run := readRun(t, j)
	if len(run.Results) != 2 {
		t.Fatalf("%d results", len(run.Results))
	}
	for i, want := range []struct {
		name       string
		blockBytes int64
		blockElems int64
	}{{"matmul_f32/Q4_0/37x512x3", 18, 32}, {"matmul_f32/Q4_K/37x512x3", 144, 256}} {
		r := run.Results[i]
		if r.Name != want.name || r.Family != "matmul" || len(r.Shape) != 3 || r.Shape[0] != 37 || r.Shape[1] != 512 || r.Shape[2] != 3 ||
			r.BytesRead != 37*512/want.blockElems*want.blockBytes+4*512*3 || r.BytesWritten != 4*37*3 || r.FLOPs != 2*37*512*3 || r.Stats.N != 3 ||
			r.Stats.GFLOPS <= 0 {
			t.Errorf("result %d: %+v", i, r)
		}
	}
}

// TestShapeFlag: --shape replaces the matrix families' default shapes, one
// benchmark per shape and family of its dimensions (a sweep), columns
// rounded down to whole blocks; a malformed shape or one no selected
// family takes is an error (exit 2) before anything runs.
func TestShapeFlag(t *testing.T) {
	js := filepath.Join(t.TempDir(), "run.json")
	code, _, errOut := forgebench(t, "run", "--backend", "cpu", "--count", "2", "--warmup", "0", "--copy-bytes", "-1",
		"--suite", "matvec_f32/Q4_0,matmul_f32/Q4_0", "--shape", "8x64", "--shape", "4x100x3,16x32", "--json", js, "-q")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var names []string
	for _, r := range readRun(t, js).Results {
		names = append(names, r.Name)
	}
	want := []string{"matmul_f32/Q4_0/4x96x3", "matvec_f32/Q4_0/16x32", "matvec_f32/Q4_0/8x64"}
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Errorf("benchmarks %q, want %q", names, want)
	}
	for _, c := range []struct{ shape, want string }{
		{"8x0", `--shape "8x0": want ROWSxCOLS (matvec) or ROWSxCOLSxBATCH (matmul)`},
		{"8", `--shape "8": want ROWSxCOLS`},
		{"2x3x4x5", `--shape "2x3x4x5": want ROWSxCOLS`},
	} {
		code, _, errOut := forgebench(t, "run", "--backend", "cpu", "--suite", "matvec_f32/Q4_0", "--shape", c.shape)
		if code != exitError || !strings.Contains(errOut, c.want) {
			t.Errorf("--shape %s: exit %d, %q", c.shape, code, errOut)
		}
	}
	code, _, errOut = forgebench(t, "run", "--backend", "cpu", "--suite", "dequant_f32/Q4_0", "--shape", "8x64")
	if code != exitError || !strings.Contains(errOut, "shape 8x64: no selected benchmark takes a shape of 2 dimensions") {
		t.Errorf("an unused shape: exit %d, %q", code, errOut)
	}
}

// TestRunRefusesOutOfRangeValues: values that are typos rather than
// benchmarks exit 2 with the flag named, before anything is allocated
// (they panicked in makeslice, or reported a 70064% roofline).
func TestRunRefusesOutOfRangeValues(t *testing.T) {
	for _, c := range []struct{ flag, value, want string }{
		{"--warmup", "-3", "--warmup -3: want 0 (none) to 1048576"},
		{"--elems", "4611686018427387904", "--elems 4611686018427387904: want 0 (the default) to 4294967296"},
		{"--elems", "100000000000", "--elems 100000000000: want 0"},
		{"--copy-bytes", "-2", "--copy-bytes -2: want -1 (no roofline), 0 (the default) or 1048576 to"},
		{"--copy-bytes", "1", "--copy-bytes 1: want -1"},
		{"--copy-bytes", "1152921504606846976", "--copy-bytes 1152921504606846976: want -1"},
	} {
		code, _, errOut := forgebench(t, "run", "--backend", "cpu", "--suite", "dequant_f32/Q4_0", c.flag, c.value)
		if code != exitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%s %s: exit %d, %q", c.flag, c.value, code, errOut)
		}
	}
}

// TestFlagBounds: numeric flags past their bounds exit 2 naming the flag
// and the range, before anything runs, on every command that takes them;
// each was taken (a gate turned off by a 1e99% threshold, unbounded
// compilers or launches, a run that does not end or a 17 GB matrix).
func TestFlagBounds(t *testing.T) {
	_, base, cur := runFiles(t, nil)
	gg := writeTestGGUF(t, nil, []testTensor{{"t", []uint64{32}, 2, q4Block()}})
	dir := t.TempDir()
	withProfileFinder(t, map[string]string{"ncu": "/usr/local/cuda/bin/ncu"})
	runArgs := []string{"run", "--backend", "cpu", "--suite", "dequant_f32/F32", "--elems", "256", "-q"}
	cmpArgs := []string{"compare", "--baseline-file", base, "--run", cur}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(runArgs, "--count", "4611686018427387904"), "--count 4611686018427387904: want 0 (the default) to 1048576"},
		{append(runArgs, "--warmup", "9223372036854775807"), "--warmup 9223372036854775807: want 0 (none) to 1048576"},
		{append(runArgs, "--launches-per-sample", "4611686018427387904"), "--launches-per-sample 4611686018427387904: want 0 (one launch per sample) to 1048576"},
		{append(runArgs, "--min-time", "2562047h"), "--min-time 2562047h0m0s: want 0 (none) to 24h0m0s"},
		{append(runArgs, "--max-time", "-1s"), "--max-time -1s: want 0 (the default) to 24h0m0s"},
		{append(runArgs, "--shape", "65536x65537"), `--shape "65536x65537": a matrix of more than 4294967296 elements`},
		{append(runArgs, "--shape", "8x1048577x4097"), `--shape "8x1048577x4097": a matrix of more than`},
		// compare checks them though --run measures nothing.
		{append(cmpArgs, "--count", "-1"), "--count -1: want 0 (the default) to 1048576"},
		{append(cmpArgs, "--threshold", "1e99%"), `--threshold: threshold "1e99%" is above 1000%`},
		{append(cmpArgs, "--metric", "gbps=1001"), `--metric: metric gbps: threshold "1001" is above 1000%`},
		{[]string{"report", "--html", filepath.Join(dir, "r.html"), "--threshold", "1e99", cur}, `--threshold "1e99": want a percentage above 0 and below 1000`},
		{[]string{"gguf", "dequant", gg, "t", "-o", filepath.Join(dir, "t.f32"), "--threads", "-1"}, "gguf dequant: --threads -1: want 0 (all cores) to 4096"},
		{[]string{"gguf", "dequant", gg, "t", "-o", filepath.Join(dir, "t.f32"), "-j", "1000000"}, "--threads 1000000: want 0 (all cores) to 4096"},
		{[]string{"tune", "--target", "sm_90", "--jobs", "4611686018427387904"}, "tune: --jobs 4611686018427387904: want 0 (the CPU count) to 4096"},
		{[]string{"tune", "--target", "sm_90", "--reps", "0"}, "tune: --reps 0: want 1 to 1000"},
		{[]string{"profile", "--tool", "ncu", "--dry-run", "--out", dir, "--launches", "4611686018427387904", "--", "--backend", "cpu"}, "profile: --launches 4611686018427387904: want 1 to 1048576"},
	} {
		code, out, errOut := forgebench(t, c.args...)
		if code != exitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stdout %.200q, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, out, errOut, c.want)
		}
	}
}

// TestRunHelpStatistics: run --help says what the table's figures are
// computed from and when they are hidden or flagged, with the numbers the
// code uses.
func TestRunHelpStatistics(t *testing.T) {
	code, out, errOut := forgebench(t, "run", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	text := strings.Join(strings.Fields(out), " ") // the description wraps
	for _, want := range []string{
		"GB/s, % of copy, G elements/s and GFLOPS come from the median time per iteration (p50)",
		fmt.Sprintf(`p95 and p99 show "-" below %d and %d samples`, bench.QuantileMinN(0.95), bench.QuantileMinN(0.99)),
		fmt.Sprintf(`"!" after the standard deviation marks a coefficient of variation above %g%%`, 100*bench.NoiseCV),
		fmt.Sprintf("less than %d MiB per iteration", bench.RooflineMinBytes>>20),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("run --help lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(text, "below 20 and 100 samples") || !strings.Contains(text, "above 5%") {
		t.Errorf("run --help's numbers:\n%s", out)
	}
}
