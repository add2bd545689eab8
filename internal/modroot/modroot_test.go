package modroot

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// A directory named go.mod is not a module.
	if err := os.Mkdir(filepath.Join(root, "a", "b", "go.mod"), 0o755); err != nil {
		t.Fatal(err)
	}
	if d, ok := Find(deep); ok && d != "" && len(d) > len(root) {
		t.Fatalf("Find(%s) = %s inside the temporary tree, which has no go.mod file yet", deep, d)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, ok := Find(deep); !ok || d != filepath.Join(root, "a") {
		t.Fatalf("Find(%s) = %q, %v; want %s", deep, d, ok, filepath.Join(root, "a"))
	}
	if d, ok := Find(filepath.Join(root, "a")); !ok || d != filepath.Join(root, "a") {
		t.Fatalf("Find at the module root = %q, %v", d, ok)
	}
}

func TestFromWorkingDir(t *testing.T) {
	d := FromWorkingDir()
	if d == "" {
		t.Fatal("the test runs inside forge's module, but no go.mod was found above it")
	}
	if _, err := os.Stat(filepath.Join(d, "go.mod")); err != nil {
		t.Fatal(err)
	}
}
