package translate_test

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/internal/modtest"
)

const rejectDir = "gen/translate/testdata/reject"

// errorComment is // ERROR "regexp"; as in Go's test/ directory the
// regexp is the raw text between the quotes (backslashes are regexp
// escapes, not Go string escapes).
var errorComment = regexp.MustCompile(`^//\s*ERROR\s+"(.*)"\s*$`)

// rejectErrors translates every block type of testdata/reject and returns
// the errors, deduplicated (blocks that share a helper report it once).
func rejectErrors(t *testing.T, pkg *translate.Package) []*translate.Error {
	t.Helper()
	seen := map[string]bool{}
	var all []*translate.Error
	for _, bt := range blockTypes(pkg) {
		dev, err := translate.Block(pkg, bt.name)
		if err == nil {
			t.Errorf("%s translated without errors:\n%s", bt.name, dev.Code)
			continue
		}
		var list translate.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("%s: error %T, want translate.ErrorList", bt.name, err)
		}
		for i, e := range list {
			if i > 0 && !lessPos(list[i-1], e) && list[i-1].Error() != e.Error() && !samePos(list[i-1], e) {
				t.Errorf("%s: errors not sorted: %v before %v", bt.name, list[i-1], e)
			}
			if !seen[e.Error()] {
				seen[e.Error()] = true
				all = append(all, e)
			}
		}
	}
	return all
}

func samePos(a, b *translate.Error) bool {
	return a.Pos.Filename == b.Pos.Filename && a.Pos.Line == b.Pos.Line && a.Pos.Column == b.Pos.Column
}

func lessPos(a, b *translate.Error) bool {
	if a.Pos.Filename != b.Pos.Filename {
		return a.Pos.Filename < b.Pos.Filename
	}
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	return a.Pos.Column < b.Pos.Column
}

// TestReject checks the errors against the // ERROR "regexp" comments: every
// marked line gets at least one error, every error on it matches, and no
// unmarked line gets one.
func TestReject(t *testing.T) {
	pkg, _ := load(t, rejectDir)
	type want struct {
		re  *regexp.Regexp
		hit bool
	}
	wants := map[string]*want{} // "file:line"
	for _, f := range pkg.Files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				m := errorComment.FindStringSubmatch(c.Text)
				if m == nil {
					if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")), "ERROR") {
						t.Errorf("%s: malformed ERROR comment %s", pkg.Fset.Position(c.Pos()), c.Text)
					}
					continue
				}
				pat := m[1]
				p := pkg.Fset.Position(c.Pos())
				key := fmt.Sprintf("%s:%d", relToRoot(t, p.Filename), p.Line)
				wants[key] = &want{re: regexp.MustCompile(pat)}
			}
		}
	}
	if len(wants) < 40 {
		t.Fatalf("only %d ERROR comments found", len(wants))
	}
	for _, e := range rejectErrors(t, pkg) {
		if testing.Verbose() {
			t.Log(e)
		}
		key := fmt.Sprintf("%s:%d", e.Pos.Filename, e.Pos.Line)
		w, ok := wants[key]
		switch {
		case !ok:
			t.Errorf("unexpected error %v", e)
		case !w.re.MatchString(e.Msg):
			t.Errorf("%v\n\tdoes not match %q", e, w.re)
		default:
			w.hit = true
		}
	}
	var missed []string
	for k, w := range wants {
		if !w.hit {
			missed = append(missed, fmt.Sprintf("%s: no error matching %q", k, w.re))
		}
	}
	sort.Strings(missed)
	for _, m := range missed {
		t.Error(m)
	}
}

// TestRejectColumns pins the full position and text of a few errors: the
// column is the offending node's.
func TestRejectColumns(t *testing.T) {
	pkg, _ := load(t, rejectDir)
	got := map[string]bool{}
	for _, e := range rejectErrors(t, pkg) {
		got[e.Error()] = true
	}
	for _, w := range []string{
		rejectDir + "/types.go:12:2: variable n: int is not in the device subset; use int32",
		rejectDir + "/types.go:16:6: variable d: float64 is not in the device subset; use float32",
		rejectDir + "/exprs.go:31:27: integer division by a non-constant is not in the device subset: Go panics on a zero divisor and device code cannot; divide by a constant, or use a shift or a mask",
		rejectDir + "/exprs.go:33:15: conversion from float32 to int32 is not in the device subset: Go leaves out-of-range float-to-integer conversions implementation-defined (amd64 and arm64 differ), so the device cannot match them",
		rejectDir + "/exprs.go:37:2: writes to the block are not in the device subset; Dequant only reads it",
		rejectDir + "/exprs.go:11:21: table computed must be initialised by a constant composite literal (var computed = [4]uint8{...}): the translator reads table values from the source",
		rejectDir + "/structs.go:19:2: field B is at offset 2 in Go but would be at 1 packed: the block struct has padding; ggml block layouts have none (reorder the fields or make the padding an explicit _ field)",
		rejectDir + "/helpers.go:26:9: recursive call of countdown is not in the device subset",
		rejectDir + "/statements.go:11:2: go statements (goroutines) are not in the device subset",
		rejectDir + "/intform.go:68:21: Lut16's first argument must be the address of a package-level table, Lut16(&table, q) with var table = [16]int8{...}",
		rejectDir + "/intform.go:67:21: Lut16's table lutComputed must be initialised by a constant composite literal (var lutComputed = [16]int8{...}): the translator packs its values into constants",
	} {
		if !got[w] {
			t.Errorf("missing error\n\t%s", w)
		}
	}
}

// TestAPIErrors: a missing type, a non-struct and a struct without Dequant
// are errors too, and the result is always an ErrorList.
func TestAPIErrors(t *testing.T) {
	pkg, _ := load(t, rejectDir)
	for name, want := range map[string]string{
		"NoSuchBlock": "package github.com/rocmforge/forge/gen/translate/testdata/reject has no type NoSuchBlock",
		"myInt":       rejectDir + "/types.go:3:6: block type myInt must be a struct, not int32",
		"BlockNoDeq":  rejectDir + "/structs.go:39:6: block type BlockNoDeq has no Dequant method",
	} {
		_, err := translate.Block(pkg, name)
		var list translate.ErrorList
		if !errors.As(err, &list) || len(list) != 1 {
			t.Errorf("%s: error %v (%T), want one", name, err, err)
			continue
		}
		if list.Error() != want {
			t.Errorf("%s: error\n\t%s\nwant\n\t%s", name, list.Error(), want)
		}
	}
}

// relToRoot is a file name relative to the module root, slash-separated.
func relToRoot(t *testing.T, name string) string {
	root := modtest.Root(t)
	return strings.TrimPrefix(strings.ReplaceAll(name, "\\", "/"), strings.ReplaceAll(root, "\\", "/")+"/")
}
