package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen"
	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/internal/modtest"
)

func forgegen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"forgegen"}, args...), &o, &e)
	return code, o.String(), e.String()
}

// The build command's wiring: targets from the specs, the check before
// building, the dry run. (gen/build tests the builds themselves; each run
// here loads the specs, a few seconds.)
func TestBuildCommand(t *testing.T) {
	root := modtest.Copy(t, "specs", "internal")

	code, _, stderr := forgegen(t, "--root", root, "build", "--target", "gfx1200", "--no-check")
	if want := `forgegen: unknown target "gfx1200"; the targets are: gfx1030, gfx1100, gfx90a, sm_90`; code != 1 || strings.TrimSpace(stderr) != want {
		t.Errorf("unknown target: exit %d, stderr %q", code, stderr)
	}

	// The synthetic spec's HIP in place of the real one.
	files, err := hipgen.Files(hiptest.Spec())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// No compiler: the dry run prints the commands regardless.
	t.Setenv("NVCC", "/nonexistent/nvcc")
	t.Setenv("HIPCC", "/nonexistent/hipcc")
	code, stdout, stderr := forgegen(t, "--root", root, "build", "--target", "sm_90", "--no-check", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, stderr)
	}
	line := " -arch=sm_90a -O3 --fmad=false -Xcompiler -fPIC -x cu -c generated/hip/sm_90/"
	if n := strings.Count(stdout, line); n != 5 {
		t.Errorf("dry run: %d compile lines, want 5:\n%s", n, stdout)
	}
	if !strings.Contains(stdout, "mv -f ") || strings.Contains(stdout, "-arch=sm_90a -arch") {
		t.Errorf("dry run:\n%s", stdout)
	}
	// The default target is the specs' (gfx1100).
	code, stdout, _ = forgegen(t, "--root", root, "build", "--no-check", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "--offload-arch=gfx1100 -O3 -ffp-contract=off -fPIC") {
		t.Errorf("default target: exit %d:\n%s", code, stdout)
	}

	// Checked against the specs, these files are not what they generate (or,
	// until the translator lands, the specs do not generate): either way
	// the error says to run go generate, and nothing is built.
	code, _, stderr = forgegen(t, "--root", root, "build", "--target", "sm_90", "--dry-run")
	if code != 1 || !strings.Contains(stderr, "go generate ./...") {
		t.Errorf("stale: exit %d, stderr %q", code, stderr)
	}
}
