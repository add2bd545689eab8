package bench_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestStoreSaveLoadListDelete(t *testing.T) {
	s := bench.BaselineStore{Dir: filepath.Join(t.TempDir(), "nested", "baselines")} // created on save
	if l, err := s.List(); err != nil || len(l) != 0 {
		t.Fatalf("empty store: %v, %v", l, err)
	}
	r := benchtest.Run(1, benchtest.Defaults()...)
	p, err := s.Save("main", r, false)
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(s.Dir, "main.json") || r.Name != "" {
		t.Errorf("saved to %s; argument's name %q", p, r.Name)
	}
	got, err := s.Load("main")
	if err != nil || got.Name != "main" || len(got.Results) != len(r.Results) {
		t.Fatalf("load: %+v, %v", got, err)
	}
	if _, err := s.Save("v1.2_rc-3", r, false); err != nil {
		t.Fatal(err)
	}
	l, err := s.List()
	if err != nil || len(l) != 2 || l[0].Name != "main" || l[1].Name != "v1.2_rc-3" || l[0].Err != nil {
		t.Fatalf("list: %+v, %v", l, err)
	}
	if err := s.Delete("main"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("main"); !errors.Is(err, bench.ErrNoBaseline) {
		t.Errorf("load after delete: %v", err)
	}
	if err := s.Delete("main"); !errors.Is(err, bench.ErrNoBaseline) {
		t.Errorf("delete twice: %v", err)
	}
}

func TestSaveRefusesOverwrite(t *testing.T) {
	s := bench.BaselineStore{Dir: t.TempDir()}
	if _, err := s.Save("main", benchtest.Run(1, benchtest.Defaults()...), false); err != nil {
		t.Fatal(err)
	}
	before := mustRead(t, s.Path("main"))
	newer := benchtest.Run(2, benchtest.Defaults()...)
	_, err := s.Save("main", newer, false)
	if err == nil || !strings.Contains(err.Error(), "already exists") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("overwrite without force: %v", err)
	}
	if !bytes.Equal(before, mustRead(t, s.Path("main"))) {
		t.Fatal("refused save changed the baseline")
	}
	if _, err := s.Save("main", newer, true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("main"); !got.Started.Equal(newer.Started) {
		t.Error("--force did not replace the baseline")
	}
}

// A file that does not read as a baseline is reported and never replaced,
// even with force.
func TestSaveNeverOverwritesCorrupt(t *testing.T) {
	s := bench.BaselineStore{Dir: t.TempDir()}
	for name, data := range map[string]string{
		"truncated": `{"kind": "forgebench.run", "schema_version": 1, "results": [`,
		"foreign":   `{"compilerOptions": {}}`,
	} {
		p := s.Path(name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := s.Save(name, benchtest.Run(1, benchtest.Defaults()...), true)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not replaced") {
			t.Errorf("%s: %v", name, err)
		}
		if string(mustRead(t, p)) != data {
			t.Errorf("%s: the file was changed", name)
		}
		l, _ := s.List()
		var found bool
		for _, e := range l {
			found = found || e.Name == name && e.Err != nil
		}
		if !found {
			t.Errorf("%s: list does not report it: %+v", name, l)
		}
	}
}

func TestSaveUnwritableDir(t *testing.T) {
	// A regular file where a directory should be: fails even for root.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := bench.BaselineStore{Dir: filepath.Join(file, "baselines")}
	_, err := s.Save("main", benchtest.Run(1, benchtest.Defaults()...), false)
	if err == nil || !strings.Contains(err.Error(), s.Dir) {
		t.Errorf("err = %v, want it to name %s", err, s.Dir)
	}
}

func TestBaselineNames(t *testing.T) {
	for _, ok := range []string{"main", "v1.2", "gpu_h100-2025.06", "A"} {
		if err := bench.ValidName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", ".hidden", "a/b", `a\b`, "a b", "ü", strings.Repeat("x", 101)} {
		if err := bench.ValidName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	s := bench.BaselineStore{Dir: t.TempDir()}
	if _, err := s.Save("../escape", benchtest.Run(1, benchtest.Defaults()...), false); err == nil {
		t.Error("saved ../escape")
	}
}

func TestSaveEmptyRun(t *testing.T) {
	s := bench.BaselineStore{Dir: t.TempDir()}
	if _, err := s.Save("main", benchtest.Run(1), false); err == nil || !strings.Contains(err.Error(), "no results") {
		t.Errorf("err = %v", err)
	}
}

// TestSaveReadOnlyDir: a directory that cannot be written is an error
// naming the file, and the baseline already there is untouched. (Root
// writes anyway, so this needs an ordinary user.)
func TestSaveReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	s := bench.BaselineStore{Dir: t.TempDir()}
	if _, err := s.Save("main", benchtest.Run(1, benchtest.Defaults()...), false); err != nil {
		t.Fatal(err)
	}
	before := mustRead(t, s.Path("main"))
	if err := os.Chmod(s.Dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(s.Dir, 0o755)
	_, err := s.Save("main", benchtest.Run(2, benchtest.Defaults()...), true)
	if err == nil || !strings.Contains(err.Error(), s.Path("main")) {
		t.Errorf("err = %v, want it to name %s", err, s.Path("main"))
	}
	if !bytes.Equal(before, mustRead(t, s.Path("main"))) {
		t.Error("the baseline was changed")
	}
}
