// Package sharedtest locates the project's shared known-answer data
// (../shared next to the repository root: ggml's vectors and tiny.gguf) for
// tests, which read it in place and never copy it into the repository.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocmforge/forge/internal/modroot"
)

// EnvDir overrides where the shared folder is.
const EnvDir = "FORGE_SHARED"

// EnvRequire, when set to 1, turns the skip for a missing shared folder into
// a failure; CI sets it so that the known-answer tests cannot pass by skipping.
const EnvRequire = "FORGE_REQUIRE_SHARED"

// Dir returns the shared folder, or "" when it is absent: $FORGE_SHARED, else
// ../shared beside the directory holding go.mod.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	root := modroot.FromWorkingDir()
	if root == "" {
		return ""
	}
	d := filepath.Join(filepath.Dir(root), "shared")
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// Path returns the path of rel inside the shared folder. It skips the test,
// saying why, only when the shared folder itself is absent; a missing file in
// a present folder fails the test.
func Path(t testing.TB, rel string) string {
	t.Helper()
	d := Dir()
	if d == "" && os.Getenv(EnvRequire) == "1" {
		t.Fatalf("known-answer data not found (no ../shared beside the repository root, $%s unset) and $%s=1", EnvDir, EnvRequire)
	}
	if d == "" {
		t.Skipf("known-answer data not found: no ../shared beside the repository root and $%s unset; skipping", EnvDir)
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("known-answer file missing from the shared folder: %v", err)
	}
	return p
}
