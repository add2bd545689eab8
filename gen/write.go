package gen

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/internal/atomicfile"
)

// OutDir is where generated files live, relative to the module root.
const OutDir = "generated"

// Change is one difference between the rendered files and the tree.
type Change struct {
	Path string // relative to the module root
	Kind string // "create", "update" or "delete"
}

func (c Change) String() string { return c.Kind + " " + c.Path }

// Diff compares rendered files with the tree under root: files to create or
// update, and generated files (those whose first line is
// model.GeneratedHeader) under OutDir that nothing rendered any more, to
// delete. Hand-written files are never touched.
func Diff(root string, files []ir.File) ([]Change, error) {
	want := map[string]bool{}
	var out []Change
	for _, f := range files {
		if !strings.HasPrefix(f.Path, OutDir+"/") {
			return nil, fmt.Errorf("renderer produced %s, outside %s/", f.Path, OutDir)
		}
		if want[f.Path] {
			return nil, fmt.Errorf("two renderers produced %s", f.Path)
		}
		want[f.Path] = true
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		switch {
		case os.IsNotExist(err):
			out = append(out, Change{f.Path, "create"})
		case err != nil:
			return nil, err
		case !bytes.Equal(old, f.Data):
			out = append(out, Change{f.Path, "update"})
		}
	}
	dir := filepath.Join(root, OutDir)
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if os.IsNotExist(err) && p == dir {
			return filepath.SkipDir
		}
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if !want[rel] && isGenerated(p) {
			out = append(out, Change{rel, "delete"})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// isGenerated reports whether the file at p starts with forge's generated
// header.
func isGenerated(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimRight(line, "\r\n") == ir.GeneratedHeader
}

// Apply carries out changes, each file written atomically, and removes
// directories under OutDir that deleting left empty.
func Apply(root string, files []ir.File, changes []Change) error {
	data := map[string][]byte{}
	for _, f := range files {
		data[f.Path] = f.Data
	}
	for _, c := range changes {
		p := filepath.Join(root, filepath.FromSlash(c.Path))
		switch c.Kind {
		case "delete":
			if err := os.Remove(p); err != nil {
				return err
			}
			pruneEmpty(filepath.Dir(p), filepath.Join(root, OutDir))
		default:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := atomicfile.WriteFile(p, data[c.Path], 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func pruneEmpty(dir, stop string) {
	for dir != stop && strings.HasPrefix(dir, stop) {
		if os.Remove(dir) != nil { // not empty, or gone
			return
		}
		dir = filepath.Dir(dir)
	}
}
