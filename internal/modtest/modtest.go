// Package modtest copies this module into a temporary directory for tests
// that must change specs or run the generator without touching the real
// tree (a new format, a broken spec).
package modtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/modroot"
)

// Root is the directory holding go.mod, found upward from the working
// directory.
func Root(t testing.TB) string {
	t.Helper()
	d := modroot.FromWorkingDir()
	if d == "" {
		t.Fatal("no go.mod above the working directory")
	}
	return d
}

// Copy copies go.mod, go.sum and the named top-level directories of the
// module (all of it but .git when none are named) into a new temporary
// directory and returns its path.
func Copy(t testing.TB, dirs ...string) string {
	t.Helper()
	root := Root(t)
	dst := t.TempDir()
	if len(dirs) == 0 {
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() && e.Name() != ".git" {
				dirs = append(dirs, e.Name())
			}
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		copyFile(t, filepath.Join(root, f), filepath.Join(dst, f))
	}
	for _, d := range dirs {
		src := filepath.Join(root, d)
		err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			if e.Type().IsRegular() {
				copyFile(t, p, filepath.Join(dst, rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// Edit replaces old with new in the file at dir/rel, failing the test when
// old is not there exactly once.
func Edit(t testing.TB, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%s: %q occurs %d times, want 1", rel, old, n)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// EditRegexp replaces the match of the regular expression re with new in
// the file at dir/rel, failing the test when re does not match exactly
// once. new is literal (no $ expansion).
func EditRegexp(t testing.TB, dir, rel, re, new string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(re).FindAllIndex(b, -1)
	if len(m) != 1 {
		t.Fatalf("%s: %q matches %d times, want 1", rel, re, len(m))
	}
	out := string(b[:m[0][0]]) + new + string(b[m[0][1]:])
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
