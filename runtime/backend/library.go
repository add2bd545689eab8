package backend

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// NoLibraryError is what selecting a GPU backend says when it was given no
// kernel library and found none (and why AutoBackend fell back to the
// cpu: Selection.Fallback). Programs that name the library option in
// their own way (forgebench's --lib) take it apart with errors.As and
// Hint.
type NoLibraryError struct {
	Backend string   // the backend asked for: "cuda", "hip", or AutoBackend
	Dirs    []string // where FindLibraries looked, in order (LibraryDirs)
}

func (e *NoLibraryError) Error() string {
	return fmt.Sprintf("backend %s needs a kernel library and none was given or found: %s", e.Backend, e.Hint("-lib"))
}

// Hint says how to give a library, flag being the program's option for
// it: "-lib" (go test's, passed after -args) or forgebench's "--lib"; where
// a library is looked for; and how to build one.
func (e *NoLibraryError) Hint(flag string) string {
	how := flag + "=/path/to/libforge_<target>.so"
	if flag == "-lib" {
		how = "pass " + how + " (go test ... -args -lib=...)"
	} else {
		how = "pass " + how
	}
	return how + " or set $" + EnvLib + ", or put the library beside the executable or in ./build or <module root>/build" +
		"; build one: go run ./cmd/forgegen build --target <target>"
}

// LibraryDirs are the directories FindLibraries looks in: beside the
// running executable, ./build, and the build directory at the root of the
// Go module containing the working directory (where `go test` runs a
// package's tests, so that <module>/build serves every package), in that
// order.
func LibraryDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	dirs = append(dirs, "build")
	if root := moduleRoot(); root != "" {
		dirs = append(dirs, filepath.Join(root, "build"))
	}
	return dirs
}

// FindLibraries lists the kernel libraries (libforge_*.so) in LibraryDirs,
// in order, each directory sorted, without duplicates.
func FindLibraries() []string {
	var libs []string
	for _, d := range LibraryDirs() {
		matches, _ := filepath.Glob(filepath.Join(d, "libforge_*.so"))
		slices.Sort(matches)
		for _, m := range matches {
			if abs, err := filepath.Abs(m); err == nil {
				m = abs
			}
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() && !slices.Contains(libs, m) {
				libs = append(libs, m)
			}
		}
	}
	return libs
}

// moduleRoot is the nearest directory at or above the working directory
// that holds a go.mod, "" if none.
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
