package gogen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rocmforge/forge/gen/model"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
)

// moduleRoot is the directory holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for ; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatal("go.mod not found")
		}
	}
}

// registration is where a spec package registers a value: the variable
// and its file, found by name.
type registration struct {
	goVar string
	file  string
	pos   token.Position
}

// registrations finds, in the spec package in dir, every top-level
// `var X = register(T{Name: "...", ...})`, keyed by the Name field.
func registrations(t testing.TB, root, dir string) map[string]registration {
	t.Helper()
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]registration{}
	for _, path := range matches {
		if filepath.Ext(path) != ".go" || len(path) > 8 && path[len(path)-8:] == "_test.go" {
			continue
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if len(vs.Names) != 1 || len(vs.Values) != 1 {
					continue
				}
				call, ok := vs.Values[0].(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					continue
				}
				if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "register" {
					continue
				}
				lit, ok := call.Args[0].(*ast.CompositeLit)
				if !ok {
					continue
				}
				for _, el := range lit.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Name" {
						if bl, ok := kv.Value.(*ast.BasicLit); ok {
							name, _ := strconv.Unquote(bl.Value)
							rel, _ := filepath.Rel(root, path)
							pos := fset.Position(call.Pos())
							pos.Filename = filepath.ToSlash(rel)
							out[name] = registration{goVar: vs.Names[0].Name, file: filepath.ToSlash(rel), pos: pos}
						}
					}
				}
			}
		}
	}
	return out
}

// realSpec is the Spec that gen/load builds from the real specs: the
// registries' values, with each spec's variable and file found in source.
func realSpec(t testing.TB) *model.Spec {
	t.Helper()
	root := moduleRoot(t)
	s := &model.Spec{Module: "github.com/rocmforge/forge", Root: root}
	fr := registrations(t, root, "specs/formats")
	for _, f := range formats.All() {
		r, ok := fr[f.Name]
		if !ok {
			t.Fatalf("format %s: no register call found in specs/formats", f.Name)
		}
		s.Formats = append(s.Formats, &model.Format{
			Name: f.Name, GGMLType: f.GGMLType, BlockElems: f.BlockElems, BlockBytes: f.BlockBytes, Doc: f.Doc,
			GoVar: r.goVar, BlockType: "Block" + f.Name, File: r.file, Pos: r.pos,
		})
	}
	tr := registrations(t, root, "specs/targets")
	for _, tg := range targets.All() {
		r := tr[tg.Name]
		s.Targets = append(s.Targets, &model.Target{
			Name: tg.Name, Vendor: tg.Vendor, WaveSize: tg.WaveSize, Default: tg.Default, CompileFlags: tg.CompileFlags,
			Doc: tg.Doc, GoVar: r.goVar, File: r.file, Pos: r.pos,
			Dequant: model.DequantTuning{ThreadsPerBlock: tg.Dequant.ThreadsPerBlock, BlocksPerThread: tg.Dequant.BlocksPerThread},
		})
	}
	famr := registrations(t, root, "specs/families")
	for _, fam := range families.All() {
		r, ok := famr[fam.Name]
		if !ok {
			t.Fatalf("family %s: no register call found in specs/families", fam.Name)
		}
		mf := &model.Family{Name: fam.Name, Doc: fam.Doc, GoVar: r.goVar, File: r.file, Pos: r.pos}
		for _, k := range fam.Kernels {
			mf.Kernels = append(mf.Kernels, model.Kernel{Name: k.Name, Output: k.Output})
		}
		s.Families = append(s.Families, mf)
	}
	return s
}
