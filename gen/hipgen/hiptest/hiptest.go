// Package hiptest is test support for the packages that compile HIP
// (templates/hip, gen/hipgen, gen/build): finding hipcc, deciding whether
// its absence skips or fails a test, running the repository's compile-check
// script, and a synthetic spec to render (Spec).
package hiptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocmforge/forge/internal/modtest"
)

// EnvRequire, when set to 1, turns the skip for a missing hipcc into a
// failure, so that a CI that installs hipcc cannot pass by skipping.
const EnvRequire = "FORGE_REQUIRE_HIPCC"

// HIPCC returns the hipcc to use ($HIPCC, else hipcc on PATH), or skips the
// test (fails it under FORGE_REQUIRE_HIPCC=1) when there is none.
func HIPCC(t testing.TB) string {
	t.Helper()
	name := os.Getenv("HIPCC")
	if name == "" {
		name = "hipcc"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s not found and %s=1 (.ci/install-hipcc installs it)", name, EnvRequire)
		}
		t.Skipf("%s not found: HIP compile checks skipped (.ci/install-hipcc installs it)", name)
	}
	return p
}

// CXX returns a host C++ compiler ($CXX, else c++), or skips the test.
func CXX(t testing.TB) string {
	t.Helper()
	name := os.Getenv("CXX")
	if name == "" {
		name = "c++"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s not found and %s=1", name, EnvRequire)
		}
		t.Skipf("%s not found: host link of HIP objects skipped", name)
	}
	return p
}

// Check runs .ci/hipcc-check on dir and returns its combined output and
// whether it exited 0.
func Check(t testing.TB, dir string) (string, bool) {
	t.Helper()
	HIPCC(t)
	cmd := exec.Command("bash", filepath.Join(modtest.Root(t), ".ci", "hipcc-check"), dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("running hipcc-check: %v", err)
		}
		return string(out), false
	}
	return string(out), true
}

// Run runs a command, failing the test with its output if it fails.
func Run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}
