package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/bench/tune"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

func TestTuneFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tune"}, `Required flag "target" not set`},
		{[]string{"tune", "--target", "sm_99"}, `unknown target "sm_99"; the targets are: `},
		{[]string{"tune", "--target", "sm_90", "--family", "dequant"}, `family "dequant" cannot be tuned; the tunable families are: matvec, matvec_x8`},
		{[]string{"tune", "--target", "sm_90", "--format", "Q4_0,Q9_9"}, `unknown format "Q9_9"`},
		{[]string{"tune", "--target", "sm_90", "--family", "matvec_x8", "--format", "Q4_0,F16"}, `format F16 has no integer form, so no matvec_x8 kernel to tune`},
		{[]string{"tune", "--target", "sm_90", "--weights", "cold"}, `--weights: weight mode "cold"`},
		{[]string{"tune", "--target", "sm_90", "extra"}, `unexpected arguments`},
		{[]string{"tune", "--target", "sm_90", "--family", "matmul_int", "--space", "tn=16,48"}, `--space "tn=16,48": tn=48 is not in the target's space`},
		{[]string{"tune", "--target", "sm_90", "--family", "matmul_int", "--space", "rows=4"}, `matmul_int has no knob "rows"; its knobs are threads, tm, tn, tk, warp_rows, split_k`},
		{[]string{"tune", "--target", "sm_90", "--family", "matmul_int", "--space", "tn=16 tn=64"}, `knob tn given twice`},
		{[]string{"tune", "--target", "sm_90", "--family", "matmul_int", "--space", "tn"}, `want knob=v1,v2,...`},
		{[]string{"tune", "--target", "sm_90", "--family", "matmul_int", "--space", "tn=1x"}, `"1x" is not an integer`},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"forgebench"}, tc.args...), &out, &errb); code == 0 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

type cmdFakeBuilder struct{}

func (cmdFakeBuilder) Fingerprint(format string) (string, error) { return format, nil }
func (cmdFakeBuilder) Build(_ context.Context, format string, c tune.Candidate) (string, error) {
	if c["chunk"] == 32 {
		return "", &tune.CompileError{Output: "error: static_assert"}
	}
	return fmt.Sprintf("%d %d %d", c["threads"], c["rows"], c["chunk"]), nil
}

type cmdFakeBackend struct{ lib string }

func (cmdFakeBackend) Name() string                                          { return "fake" }
func (cmdFakeBackend) Dequantize(*formats.Format, []float32, []byte) error   { return errors.New("no") }
func (cmdFakeBackend) DequantizeF16(*formats.Format, []uint16, []byte) error { return errors.New("no") }

type cmdFakeRunner struct{}

func (cmdFakeRunner) Check(backend.Backend, *formats.Format) error { return nil }
func (cmdFakeRunner) Time(b backend.Backend, _ *formats.Format, _ *tuned.Class, _ backend.WeightMode, _ int) (float64, error) {
	var th, r, ch int
	fmt.Sscan(b.(cmdFakeBackend).lib, &th, &r, &ch)
	return float64(th)/32 + float64(r) + float64(ch)/8, nil
}

func TestTuneWritesWinners(t *testing.T) {
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
	out := filepath.Join(dir, "sm_90.json")
	js := filepath.Join(dir, "report.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"forgebench", "tune", "--target", "sm_90", "--format", "q4_0,Q4_K", "--cache-dir", filepath.Join(dir, "cache"),
		"--out", out, "--json", js, "--root", dir}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := tuned.Parse(data, "sm_90", []string{"Q4_0", "Q4_K"})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"Q4_0", "Q4_K"} {
		for _, class := range []string{"narrow", "wide"} {
			e := f.Entry("matvec", format, class)
			if e == nil || e.Knobs["threads"] != 64 || e.Knobs["rows"] != 1 || e.Knobs["chunk"] != 8 || e.Candidates != 32 {
				t.Errorf("%s %s: %+v", format, class, e)
			}
		}
	}
	if !strings.Contains(stdout.String(), "winner threads=64 rows=1 chunk=8") || !strings.Contains(stdout.String(), "does not compile") {
		t.Errorf("report:\n%s", stdout.String())
	}
	if _, err := os.Stat(js); err != nil {
		t.Error(err)
	}
}
