package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/bench/profile"
)

func withProfileFinder(t *testing.T, found map[string]string) {
	t.Helper()
	old := profileFinder
	profileFinder = profile.Finder{
		LookPath: func(n string) (string, error) {
			if p, ok := found[n]; ok {
				return p, nil
			}
			return "", errors.New("not found")
		},
		IsExec: func(string) bool { return false },
	}
	t.Cleanup(func() { profileFinder = old })
}

func TestProfileDryRun(t *testing.T) {
	withProfileFinder(t, map[string]string{"ncu": "/usr/local/cuda/bin/ncu"})
	out := t.TempDir()
	code, stdout, stderr := forgebench(t, "profile", "--tool", "ncu", "--dry-run", "--launches", "7", "--out", out, "--forgebench", "/opt/forge/forgebench",
		"--", "--backend", "cuda", "--family", "dequant,matvec", "--format", "Q4_0,Q4_K")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "/usr/local/cuda/bin/ncu --csv --page raw --print-units base --print-kernel-base demangled --clock-control none --target-processes all --metrics " +
		strings.Join(profile.DefaultNCUMetrics, ",") + " --log-file " + out + "/ncu.csv /opt/forge/forgebench run --backend cuda --family dequant,matvec --format Q4_0,Q4_K --count 7 --warmup 0 --copy-bytes -1 --quiet --json " + out + "/run.json\n"
	if stdout != want {
		t.Errorf("dry run printed\n%s\nwant\n%s", stdout, want)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--dry-run wrote %v", entries)
	}
	// Absent tool: the commands are still shown, with a note.
	withProfileFinder(t, nil)
	code, stdout, stderr = forgebench(t, "profile", "--tool", "nsys", "--dry-run", "--out", out, "--forgebench", "/fb", "--", "--backend", "cuda")
	if code != 0 || !strings.HasPrefix(stdout, "nsys profile -o "+out+"/nsys ") || !strings.Contains(stdout, "\nnsys stats --report cuda_gpu_kern_sum") ||
		!strings.Contains(stderr, "Nsight Systems") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestProfileMissingTool(t *testing.T) {
	withProfileFinder(t, nil)
	for tool, provider := range map[string]string{"ncu": "Nsight Compute", "nsys": "Nsight Systems", "rocprof": "rocprofiler-sdk", "omniperf": "rocprofiler-compute"} {
		code, _, stderr := forgebench(t, "profile", "--tool", tool, "--out", t.TempDir(), "--", "--backend", "cpu")
		if code == 0 || !strings.Contains(stderr, tool+" not found") || !strings.Contains(stderr, provider) {
			t.Errorf("%s: exit %d, stderr %s", tool, code, stderr)
		}
	}
	code, _, stderr := forgebench(t, "profile", "--tool", "vtune", "--", "--backend", "cpu")
	if code == 0 || !strings.Contains(stderr, "unknown tool") {
		t.Errorf("vtune: exit %d, %s", code, stderr)
	}
	withProfileFinder(t, map[string]string{"ncu": "/x/ncu"})
	code, _, stderr = forgebench(t, "profile", "--tool", "ncu", "--dry-run", "--", "--count", "3")
	if code == 0 || !strings.Contains(stderr, "--count is set by profile") {
		t.Errorf("--count after --: exit %d, %s", code, stderr)
	}
}

// TestProfileRunsAndParses runs the command with the tool replaced: the
// fake "ncu" leaves the synthetic CSV where ncu's --log-file points.
func TestProfileRunsAndParses(t *testing.T) {
	withProfileFinder(t, map[string]string{"ncu": "/x/ncu"})
	fixture, err := os.ReadFile(filepath.Join("..", "..", "runtime", "bench", "profile", "testdata", "synthetic_ncu_raw.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var ran [][]string
	old := profileExec
	profileExec = func(s profile.Step, _ io.Writer) error {
		ran = append(ran, s.Argv)
		for i, a := range s.Argv {
			if a == "--log-file" {
				return os.WriteFile(s.Argv[i+1], fixture, 0o644)
			}
		}
		return errors.New("no --log-file")
	}
	t.Cleanup(func() { profileExec = old })
	out := t.TempDir()
	js := filepath.Join(out, "report.json")
	code, stdout, stderr := forgebench(t, "profile", "--tool", "ncu", "--out", out, "--json", js, "--", "--backend", "cuda", "--family", "dequant")
	if code != 0 || len(ran) != 1 {
		t.Fatalf("exit %d, ran %v: %s", code, ran, stderr)
	}
	for _, want := range []string{"forge_dequant_f32_q4_0", "forge_matvec_f32_q4_k", "forge_attention_f16_d128", "fill_kernel", "dequant", "Q4_K", "88.1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil || !strings.Contains(string(b), `"symbol": "forge_dequant_f32_q4_0"`) {
		t.Errorf("report JSON: %v\n%s", err, b)
	}
}

// TestProfileParseOnlyRecorded parses the real H100 ncu recording with its
// run (--parse-only): a row per benchmark, the requested counters only.
func TestProfileParseOnlyRecorded(t *testing.T) {
	withProfileFinder(t, nil)
	out := t.TempDir()
	for from, to := range map[string]string{"ncu_h100_dequant_matvec.csv": "ncu.csv", "ncu_h100_dequant_matvec.run.json": "run.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "runtime", "bench", "profile", "testdata", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := forgebench(t, "profile", "--tool", "ncu", "--parse-only", "--out", out, "--", "--backend", "cuda")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"one row per benchmark", "matvec_f32/Q4_0/4096x14336", "4096x14336", "matvec_f32/Q4_K/output", "128256x4096", "dequant_f16/Q8_0", "sm__throughput.avg.pct_of_peak_sustained_elapsed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "device__attribute") || strings.Contains(stdout, "note:") {
		t.Errorf("table:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "run-profiled.json")); err != nil {
		t.Error(err)
	}
}
