package translate_test

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/internal/modtest"
)

// load type-checks the package in dir (relative to the module root) from
// source, as gen/load does: once per test binary (a load is seconds of go
// list and type-checking; the tests only read the result).
func load(t testing.TB, dir string) (*translate.Package, *packages.Package) {
	t.Helper()
	root := modtest.Root(t)
	v, _ := loads.LoadOrStore(dir, &loadResult{})
	r := v.(*loadResult)
	r.once.Do(func() {
		cfg := &packages.Config{
			Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
				packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps,
			Dir: root,
		}
		pkgs, err := packages.Load(cfg, "./"+dir)
		switch {
		case err != nil:
			r.errs = []string{err.Error()}
		case len(pkgs) != 1:
			r.errs = []string{fmt.Sprintf("loading ./%s: %d packages", dir, len(pkgs))}
		default:
			r.p = pkgs[0]
			for _, e := range r.p.Errors {
				r.errs = append(r.errs, fmt.Sprintf("%s: %v", dir, e))
			}
		}
	})
	for _, e := range r.errs {
		t.Error(e)
	}
	if len(r.errs) > 0 {
		t.FailNow()
	}
	p := r.p
	return &translate.Package{Fset: p.Fset, Files: p.Syntax, Types: p.Types, Info: p.TypesInfo, Root: root}, p
}

var loads sync.Map // dir → *loadResult

type loadResult struct {
	once sync.Once
	p    *packages.Package
	errs []string
}

// blockType is a struct type with a Dequant method, in source order.
type blockType struct {
	name string
	file string // base name of the declaring file
	pos  int
}

// blockTypes lists the package's types that have a Dequant method, by file
// and position.
func blockTypes(pkg *translate.Package) []blockType {
	var out []blockType
	for _, f := range pkg.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			tn, _ := pkg.Info.Defs[ts.Name].(*types.TypeName)
			if tn == nil {
				return false
			}
			if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(tn.Type()), true, pkg.Types, "Dequant"); obj != nil {
				if _, isFn := obj.(*types.Func); isFn {
					p := pkg.Fset.Position(ts.Pos())
					out = append(out, blockType{ts.Name.Name, filepath.Base(p.Filename), p.Offset})
				}
			}
			return false
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].file != out[j].file {
			return out[i].file < out[j].file
		}
		return out[i].pos < out[j].pos
	})
	return out
}
