package backend

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeGPU is a library backend for the selection tests: it "opens" a
// library whose file name contains "good" and refuses any other.
type fakeGPU struct {
	lib string
}

func (fakeGPU) Name() string { return "fakegpu" }

// fakeCPU stands for the cpu backend, which this package does not link.
type fakeCPU struct{}

func (fakeCPU) Name() string { return "cpu" }

var (
	fakeOpensMu sync.Mutex
	fakeOpens   = map[string]int{}
)

func init() {
	Register("cpu", func() (Backend, error) { return fakeCPU{}, nil })
	RegisterLibrary("fakegpu", func(lib string) (Backend, error) {
		fakeOpensMu.Lock()
		fakeOpens[lib]++
		fakeOpensMu.Unlock()
		if !strings.Contains(filepath.Base(lib), "good") {
			return nil, errors.New("not a fakegpu library: " + lib)
		}
		return fakeGPU{lib}, nil
	})
}

// tempTree makes a directory tree of empty files and directories (names
// ending in /) and changes into it.
func tempTree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

func TestFindLibraries(t *testing.T) {
	dir := tempTree(t, "build/libforge_b_good.so", "build/libforge_a.so", "build/libforge_dir.so/", "build/other.so", "libforge_top.so")
	got := FindLibraries()
	want := []string{filepath.Join(dir, "build/libforge_a.so"), filepath.Join(dir, "build/libforge_b_good.so")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("FindLibraries() = %q, want %q", got, want)
	}
	// From a package directory of a module: <module root>/build too.
	dir = tempTree(t, "go.mod", "build/libforge_root.so", "pkg/sub/build/libforge_local.so")
	t.Chdir(filepath.Join(dir, "pkg/sub"))
	got = FindLibraries()
	want = []string{filepath.Join(dir, "pkg/sub/build/libforge_local.so"), filepath.Join(dir, "build/libforge_root.so")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("FindLibraries() in a module = %q, want %q", got, want)
	}
}

func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		sel   string // backend name, lib
		lib   string
		want  string // selected backend name, or "error"
		why   string // in Why, or in the error
	}{
		{"auto, nothing found", nil, "auto", "", "cpu", "auto: no kernel library found, using cpu (pass -lib="},
		{"auto, found", []string{"build/libforge_good.so"}, "auto", "", "fakegpu", "auto: backend fakegpu with {dir}/build/libforge_good.so (found)"},
		{"auto, found but refused", []string{"build/libforge_x.so"}, "auto", "", "cpu", "auto: no kernel library found could be opened, using cpu: backend fakegpu: not a fakegpu library: {dir}/build/libforge_x.so"},
		{"auto, second found opens", []string{"build/libforge_a.so", "build/libforge_b_good.so"}, "auto", "", "fakegpu", "libforge_b_good.so (found)"},
		{"auto, given", []string{"lib/libforge_good2.so"}, "auto", "lib/libforge_good2.so", "fakegpu", "auto: backend fakegpu with lib/libforge_good2.so (given)"},
		{"auto, given but refused", []string{"build/libforge_good.so", "lib/libforge_y.so"}, "auto", "lib/libforge_y.so", "error", "auto: no backend opens lib/libforge_y.so: backend fakegpu: not a fakegpu library"},
		{"library backend, given", nil, "fakegpu", "/nowhere/libforge_good3.so", "fakegpu", "backend fakegpu with /nowhere/libforge_good3.so"},
		{"library backend, given but refused", nil, "fakegpu", "/nowhere/libforge_z.so", "error", "backend fakegpu: not a fakegpu library: /nowhere/libforge_z.so"},
		{"library backend, found", []string{"build/libforge_good4.so"}, "fakegpu", "", "fakegpu", "backend fakegpu with {dir}/build/libforge_good4.so (found)"},
		{"library backend, none", nil, "fakegpu", "", "error", "backend fakegpu needs a kernel library and none was given or found: pass -lib=/path/to/libforge_<target>.so"},
		{"library backend, none opens", []string{"build/libforge_q.so"}, "fakegpu", "", "error", "backend fakegpu: none of the libraries found opens: backend fakegpu: not a fakegpu library"},
		{"cpu with a library", nil, "cpu", "x.so", "cpu", "backend cpu (it runs no kernel library: x.so ignored)"},
		{"default", nil, "", "", "cpu", "backend cpu"},
		{"unknown", nil, "tpu", "", "error", `unknown backend "tpu"; available: cpu, fakegpu, auto`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tempTree(t, tc.files...)
			s, err := Select(tc.sel, tc.lib)
			why := strings.ReplaceAll(tc.why, "{dir}", dir)
			switch {
			case tc.want == "error":
				if err == nil || !strings.Contains(err.Error(), why) {
					t.Errorf("Select(%q, %q): %v, want an error containing %q", tc.sel, tc.lib, err, why)
				}
			case err != nil:
				t.Errorf("Select(%q, %q): %v", tc.sel, tc.lib, err)
			case s.Name != tc.want || s.Backend.Name() != tc.want || !strings.Contains(s.Why, why):
				t.Errorf("Select(%q, %q) = %s (%s), want %s with %q", tc.sel, tc.lib, s.Name, s.Why, tc.want, why)
			}
		})
	}
}

func TestSelectOpensOnce(t *testing.T) {
	dir := tempTree(t, "build/libforge_good_once.so")
	lib := filepath.Join(dir, "build/libforge_good_once.so")
	for range 3 {
		if s, err := Select("auto", ""); err != nil || s.Lib != lib {
			t.Fatalf("Select: %v, %v", s, err)
		}
		if _, err := Select("fakegpu", lib); err != nil {
			t.Fatal(err)
		}
	}
	fakeOpensMu.Lock()
	defer fakeOpensMu.Unlock()
	if n := fakeOpens[lib]; n != 1 {
		t.Errorf("the library was opened %d times, want once", n)
	}
	if got := LibraryBackends(); strings.Join(got, ",") != "fakegpu" {
		t.Errorf("LibraryBackends() = %v", got)
	}
	if got := Backends(); strings.Join(got, ",") != "cpu,fakegpu" {
		t.Errorf("Backends() = %v", got)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	for _, name := range []string{"cpu", "fakegpu", "auto", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %q did not panic", name)
				}
			}()
			RegisterLibrary(name, nil)
		}()
	}
}

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env, name, err string
	}{
		{"", "cpu", ""},
		{"cpu", "cpu", ""},
		{"hip", "", `$FORGE_BACKEND=hip: backend "hip" is not linked into this program: import github.com/rocmforge/forge/runtime/backend/gpu (runtime/suite/suitetest does); available: cpu, fakegpu, auto`},
		{"cuda", "", `backend "cuda" is not linked into this program`},
		{"tpu", "", `$FORGE_BACKEND=tpu: unknown backend "tpu"; available: cpu, fakegpu, auto`},
	} {
		t.Setenv(EnvBackend, tc.env)
		t.Setenv(EnvLib, "")
		b, err := FromEnv()
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s=%q: %v", EnvBackend, tc.env, err)
		case tc.err == "" && b.Name() != tc.name:
			t.Errorf("%s=%q: backend %s, want %s", EnvBackend, tc.env, b.Name(), tc.name)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s=%q: error %v, want one containing %q", EnvBackend, tc.env, err, tc.err)
		}
	}
}

// No library found is a *NoLibraryError, for a library backend asked for
// (the error) and for auto (the cpu's Fallback), with a hint in the
// program's own option spelling.
func TestNoLibraryError(t *testing.T) {
	tempTree(t)
	_, err := Select("fakegpu", "")
	var nl *NoLibraryError
	if !errors.As(err, &nl) || nl.Backend != "fakegpu" || len(nl.Dirs) == 0 {
		t.Fatalf("Select(fakegpu) with no library: %v (%#v)", err, nl)
	}
	s, err := Select("auto", "")
	if err != nil || s.Name != "cpu" || !errors.As(s.Fallback, &nl) || nl.Backend != AutoBackend {
		t.Fatalf("Select(auto) with no library: %+v, %v", s, err)
	}
	if h := nl.Hint("--lib"); !strings.HasPrefix(h, "pass --lib=/path/to/libforge_<target>.so or set $FORGE_LIB") || strings.Contains(h, "-args") {
		t.Errorf("Hint(--lib) = %q", h)
	}
	if s, err := Select("auto", ""); err != nil || s.Fallback == nil {
		t.Fatal(s, err)
	}
	dir := tempTree(t, "build/libforge_good_fallback.so")
	if s, err := Select("auto", ""); err != nil || s.Fallback != nil || s.Lib != filepath.Join(dir, "build/libforge_good_fallback.so") {
		t.Errorf("Select(auto) with a library: %+v, %v", s, err)
	}
}
