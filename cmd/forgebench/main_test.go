package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/sharedtest"
)

func forgebench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"forgebench"}, args...), &o, &e)
	return code, o.String(), e.String()
}

type tinyJSON struct {
	Tensors []struct {
		Name       string  `json:"name"`
		Type       string  `json:"type"`
		Shape      []int64 `json:"shape"`
		NBytes     int64   `json:"n_bytes"`
		DequantSHA string  `json:"dequant_f32_sha256"`
	} `json:"tensors"`
}

func tiny(t *testing.T) (string, tinyJSON) {
	p := sharedtest.Path(t, "testdata/tiny.gguf")
	b, err := os.ReadFile(p + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var j tinyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	return p, j
}

// TestDequantEveryTinyTensor is the acceptance check: the command as
// a user types it (flags after the arguments) writes ggml's float32 values
// for every tensor in tiny.gguf.
func TestDequantEveryTinyTensor(t *testing.T) {
	p, j := tiny(t)
	dir := t.TempDir()
	for _, tt := range j.Tensors {
		t.Run(tt.Name, func(t *testing.T) {
			out := filepath.Join(dir, tt.Name+".f32")
			code, _, stderr := forgebench(t, "gguf", "dequant", p, tt.Name, "-o", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if got := hex.EncodeToString(sum[:]); got != tt.DequantSHA {
				t.Errorf("sha256 of output %s, ggml's %s", got, tt.DequantSHA)
			}
		})
	}
}

func TestLs(t *testing.T) {
	p, j := tiny(t)
	code, out, stderr := forgebench(t, "gguf", "ls", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, tt := range j.Tensors {
		if !strings.Contains(out, tt.Name) || !strings.Contains(out, tt.Type) {
			t.Errorf("ls output lacks %s (%s):\n%s", tt.Name, tt.Type, out)
		}
	}
	code, out, _ = forgebench(t, "gguf", "ls", "--json", "-", "--kv", p)
	var parsed struct {
		Tensors []lsTensor     `json:"tensors"`
		KV      map[string]any `json:"kv"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &parsed) != nil {
		t.Fatalf("ls --json: exit %d, output %q", code, out)
	}
	if len(parsed.Tensors) != len(j.Tensors) || parsed.KV["general.name"] != "forge-tiny" {
		t.Errorf("ls --json: %d tensors (want %d), general.name %v", len(parsed.Tensors), len(j.Tensors), parsed.KV["general.name"])
	}
	// Metadata arrays are JSON arrays, numbers JSON numbers (they were Go-formatted strings).
	if got := fmt.Sprint(parsed.KV["forge.test.u32s"], parsed.KV["forge.test.strings"], parsed.KV["forge.test.f32"], parsed.KV["forge.test.bool"]); got != "[1 2 3 4.294967295e+09] [alpha beta  gamma δ] 0.15625 true" {
		t.Errorf("ls --json --kv: arrays, numbers and booleans as %s", got)
	}
	for i, tt := range j.Tensors {
		got := parsed.Tensors[i]
		if got.Name != tt.Name || got.Type != tt.Type || got.Bytes != tt.NBytes || !slicesEqual(got.Shape, tt.Shape) {
			t.Errorf("tensor %d: got %+v, want %s %s %v %d bytes", i, got, tt.Name, tt.Type, tt.Shape, tt.NBytes)
		}
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBadInput: each mistake exits non-zero with a message naming what and
// where, and writes nothing.
func TestBadInput(t *testing.T) {
	p, _ := tiny(t)
	dir := t.TempDir()
	truncated := filepath.Join(dir, "truncated.gguf")
	full, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truncated, full[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.f32")
	cases := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"unknown tensor", []string{"gguf", "dequant", p, "no.such.tensor", "-o", out}, []string{"no.such.tensor", "gguf ls"}},
		{"truncated file", []string{"gguf", "dequant", truncated, "forge.q4_0.weight", "-o", out}, []string{"truncated.gguf"}},
		{"truncated file ls", []string{"gguf", "ls", truncated}, []string{"truncated.gguf"}},
		{"missing file", []string{"gguf", "ls", filepath.Join(dir, "missing.gguf")}, []string{"missing.gguf"}},
		{"not gguf", []string{"gguf", "ls", p + ".json"}, []string{"tiny.gguf.json"}},
		{"unwritable output", []string{"gguf", "dequant", p, "forge.q4_0.weight", "-o", filepath.Join(dir, "no", "dir", "out.f32")}, []string{"out.f32"}},
		{"missing -o", []string{"gguf", "dequant", p, "forge.q4_0.weight"}, []string{"output"}},
		{"missing argument", []string{"gguf", "dequant", p, "-o", out}, []string{"TENSOR"}},
		{"unknown flag after args", []string{"gguf", "ls", p, "--bogus"}, []string{"bogus"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := forgebench(t, c.args...)
			if code == 0 {
				t.Fatalf("exit 0; stderr %q", stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not mention %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

func TestPermuteArgs(t *testing.T) {
	app := newApp(nil, nil)
	for _, c := range []struct{ in, want string }{
		{"fb gguf dequant F T -o OUT", "fb gguf dequant -o OUT F T"},
		{"fb gguf dequant -o OUT F T", "fb gguf dequant -o OUT F T"},
		{"fb gguf dequant F --output=OUT T", "fb gguf dequant --output=OUT F T"},
		{"fb gguf ls F --json --kv", "fb gguf ls --json --kv F"},
		{"fb gguf ls F -- --json", "fb gguf ls F -- --json"},
		{"fb gguf dequant F T -o -", "fb gguf dequant -o - F T"},
		{"fb gguf", "fb gguf"},
	} {
		if got := strings.Join(permuteArgs(app, strings.Fields(c.in)), " "); got != c.want {
			t.Errorf("permuteArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCommandLineErrors: an unknown command says so and exits 2 (not
// urfave/cli's "No help topic" and 3); --version prints the version and
// commit; report takes compare's threshold syntax; a filter's error lists
// the valid values without an empty one.
func TestCommandLineErrors(t *testing.T) {
	code, _, stderr := forgebench(t, "nosuch")
	if code != exitError || !strings.Contains(stderr, `unknown command "nosuch"; the commands are list, run,`) {
		t.Errorf("unknown command: exit %d, %q", code, stderr)
	}
	if code, _, stderr = forgebench(t, "help", "run"); code != 0 {
		t.Errorf("help run: exit %d, %q", code, stderr)
	}
	code, stdout, _ := forgebench(t, "--version")
	if code != 0 || !strings.HasPrefix(stdout, "forgebench version ") {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
	missing := filepath.Join(t.TempDir(), "run.json")
	for _, th := range []string{"5%", "5"} {
		code, _, stderr = forgebench(t, "report", "--html", "-", "--threshold", th, missing)
		if code == 0 || strings.Contains(stderr, "threshold") || !strings.Contains(stderr, "run.json") {
			t.Errorf("report --threshold %s: exit %d, %q (want the missing run named, not the threshold)", th, code, stderr)
		}
	}
	code, _, stderr = forgebench(t, "report", "--html", "-", "--threshold", "0", missing)
	if code == 0 || !strings.Contains(stderr, `--threshold "0": want a percentage above 0`) {
		t.Errorf("report --threshold 0: exit %d, %q", code, stderr)
	}
	code, _, stderr = forgebench(t, "run", "--backend", "cpu", "--format", "NOSUCH", "--family", "dequant")
	if code == 0 || !strings.Contains(stderr, `format "NOSUCH" matches no format; valid: F32,`) || strings.Contains(stderr, ", \n") || strings.HasSuffix(strings.TrimSpace(stderr), ",") {
		t.Errorf("an unknown format: exit %d, %q", code, stderr)
	}
}

// TestExitContract: --help states the exit statuses, and a missing
// baseline (an input error) exits 2, not compare's 1 for a regression.
func TestExitContract(t *testing.T) {
	code, stdout, _ := forgebench(t, "--help")
	if code != exitOK || !strings.Contains(stdout, "0 ok; 1 a regression (compare); 2 an error") {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
	dir := t.TempDir()
	code, _, stderr := forgebench(t, "compare", "nosuch", "--dir", dir, "--run", filepath.Join(dir, "run.json"))
	if code != exitError || !strings.Contains(stderr, `no such baseline "nosuch"`) {
		t.Errorf("a missing baseline: exit %d, %q", code, stderr)
	}
}

// TestJSONFlagEverywhere: list, gguf ls and baseline show take --json as
// run does: a FILE written (and named on stderr), or - for stdout.
func TestJSONFlagEverywhere(t *testing.T) {
	out := filepath.Join(t.TempDir(), "list.json")
	code, stdout, stderr := forgebench(t, "list", "--json", out, "--format", "Q4_0")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "wrote "+out) {
		t.Fatalf("list --json FILE: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	var v struct {
		Suites []struct{ Name string } `json:"suites"`
	}
	if err := json.Unmarshal(readBytes(t, out), &v); err != nil || len(v.Suites) == 0 {
		t.Errorf("list --json FILE: %v, %d suites", err, len(v.Suites))
	}
	code, stdout, _ = forgebench(t, "list", "--json", "-", "--format", "Q4_0")
	if code != 0 || !strings.HasPrefix(stdout, "{") {
		t.Errorf("list --json -: exit %d, %.60q", code, stdout)
	}
}

// TestCompletion: the completion scripts, and the words forgebench gives
// them (urfave/cli's --generate-bash-completion): the commands, and a
// command's flags. The words come from a fresh process (this test binary
// run as forgebench): urfave/cli keeps state between apps of one process
// and prints flag words to the process's stdout.
func TestCompletion(t *testing.T) {
	if args := os.Getenv("FORGEBENCH_TEST_ARGS"); args != "" {
		os.Args = append([]string{"forgebench"}, strings.Fields(args)...) // urfave/cli reads the flag being completed there
		os.Exit(run(os.Args, os.Stdout, os.Stderr))
	}
	words := func(args string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCompletion$")
		cmd.Env = append(os.Environ(), "FORGEBENCH_TEST_ARGS="+args)
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("forgebench %s: %v", args, err)
		}
		return string(out)
	}
	if out := words("--generate-bash-completion"); !strings.Contains(out, "run\n") || !strings.Contains(out, "compare-llama\n") {
		t.Errorf("commands: %q", out)
	}
	if out := words("run --fo --generate-bash-completion"); !strings.Contains(out, "--format") {
		t.Errorf("run's flags: %q", out)
	}
	code, stdout, _ := forgebench(t, "completion", "bash")
	if code != 0 || !strings.Contains(stdout, "complete -o bashdefault -o default -F _forgebench_complete forgebench") {
		t.Errorf("bash: exit %d, %q", code, stdout)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command(bash, "-n")
		cmd.Stdin = strings.NewReader(stdout)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("bash -n on the bash script: %v\n%s", err, out)
		}
	}
	if code, stdout, _ = forgebench(t, "completion", "fish"); code != 0 || !strings.Contains(stdout, "complete -c forgebench") {
		t.Errorf("fish: exit %d, %.200q", code, stdout)
	}
	if code, _, stderr := forgebench(t, "completion", "tcsh"); code != exitError || !strings.Contains(stderr, `shell "tcsh": want bash, zsh or fish`) {
		t.Errorf("tcsh: exit %d, %q", code, stderr)
	}
}
