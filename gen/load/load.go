// Package load reads forge's specs from source: it loads specs/formats,
// specs/targets, specs/families and specs/workloads with
// golang.org/x/tools/go/packages (with full type information), decodes
// every registered spec literal into the spec package's own Go type
// (decode), and reports the problems the types' Problems methods find, and
// those across specs, each at its field's file:line:col. The specs are
// never executed: every value must be a constant that go/types can
// evaluate, or a composite literal of them, which is what lets the
// generator work on a spec tree it has not compiled (a new format, a
// temporary copy in a test).
package load

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/translate"
)

// Spec package paths, relative to the module.
const (
	FormatsDir  = "specs/formats"
	TargetsDir  = "specs/targets"
	FamiliesDir = "specs/families"
	// WorkloadsDir is optional: a module without it has no scenario suites.
	WorkloadsDir = "specs/workloads"
)

// Result is the loaded spec plus the type-checked formats package, which
// the translator needs.
type Result struct {
	Spec    *ir.Spec
	Formats *translate.Package
}

// Load loads and validates the specs of the module rooted at root. The error,
// if any, is a translate.ErrorList of every problem found, each with its
// position relative to root.
func Load(root string) (*Result, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule | packages.NeedImports | packages.NeedDeps,
		Dir:   root,
		Tests: false,
	}
	patterns := []string{"./" + FormatsDir, "./" + TargetsDir, "./" + FamiliesDir}
	if fi, err := os.Stat(filepath.Join(root, WorkloadsDir)); err == nil && fi.IsDir() {
		patterns = append(patterns, "./"+WorkloadsDir)
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading specs: %w", err)
	}
	l := &loader{root: root}
	byDir := map[string]*packages.Package{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			l.errs = append(l.errs, packageError(root, e))
		}
		if len(p.GoFiles) > 0 {
			rel, _ := filepath.Rel(root, filepath.Dir(p.GoFiles[0]))
			byDir[filepath.ToSlash(rel)] = p
		}
	}
	if len(l.errs) > 0 {
		return nil, l.sorted()
	}
	for _, dir := range []string{FormatsDir, TargetsDir, FamiliesDir} {
		if byDir[dir] == nil {
			return nil, fmt.Errorf("loading specs: no Go package in %s", filepath.Join(root, dir))
		}
	}
	fp := byDir[FormatsDir]
	spec := &ir.Spec{Root: root}
	if fp.Module != nil {
		spec.Module = fp.Module.Path
	}
	spec.Formats = l.formats(fp)
	spec.Targets = l.targets(byDir[TargetsDir])
	spec.Families = l.families(byDir[FamiliesDir])
	spec.Attention = l.attention(byDir[FamiliesDir])
	l.checkTargets(spec.Targets, spec.Attention)
	if a := spec.Attention; a != nil {
		// The attention family is a Shared family like any other to the
		// renderers; its own spec type lists variants, not kernels.
		for _, f := range spec.Families {
			if f.Name == a.Name {
				l.errorAt(f.Pos, "family name %s is also the attention family's (%s)", a.Name, a.Pos)
			}
		}
		spec.Families = append(spec.Families, a.AsFamily())
		sort.SliceStable(spec.Families, func(i, j int) bool { return spec.Families[i].Name < spec.Families[j].Name })
	}
	if wp := byDir[WorkloadsDir]; wp != nil {
		spec.Workloads = l.workloads(wp)
	}
	if len(l.errs) == 0 {
		l.tunedFiles(spec)
	}
	if len(l.errs) > 0 {
		return nil, l.sorted()
	}
	return &Result{
		Spec:    spec,
		Formats: &translate.Package{Fset: fp.Fset, Files: fp.Syntax, Types: fp.Types, Info: fp.TypesInfo, Root: root},
	}, nil
}

type loader struct {
	root string
	errs translate.ErrorList
	fset *token.FileSet
}

func (l *loader) sorted() translate.ErrorList {
	sort.SliceStable(l.errs, func(i, j int) bool {
		a, b := l.errs[i].Pos, l.errs[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return l.errs
}

func (l *loader) pos(p token.Pos) token.Position {
	pos := l.fset.Position(p)
	if rel, err := filepath.Rel(l.root, pos.Filename); err == nil {
		pos.Filename = filepath.ToSlash(rel)
	}
	return pos
}

func (l *loader) errorf(p token.Pos, format string, args ...any) {
	l.errorAt(l.pos(p), format, args...)
}

func (l *loader) errorAt(pos token.Position, format string, args ...any) {
	l.errs = append(l.errs, &translate.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func packageError(root string, e packages.Error) *translate.Error {
	// e.Pos is "file:line:col" (or "" / "-"); keep it, made relative.
	pos := token.Position{}
	if parts := strings.Split(e.Pos, ":"); len(parts) >= 3 {
		file := strings.Join(parts[:len(parts)-2], ":")
		if rel, err := filepath.Rel(root, file); err == nil {
			file = filepath.ToSlash(rel)
		}
		pos.Filename = file
		fmt.Sscan(parts[len(parts)-2], &pos.Line)
		fmt.Sscan(parts[len(parts)-1], &pos.Column)
	}
	return &translate.Error{Pos: pos, Msg: e.Msg}
}

// registration is one `var X = register(...)` in a spec package.
type registration struct {
	name string         // the variable
	call *ast.CallExpr  // the register call
	file string         // relative path
	id   *ast.Ident     // the variable's identifier
	fn   *types.Func    // the register function
	inst types.Instance // its instantiation, for generic register
}

// registrations finds every package-level variable initialised by a call to
// the package's own unexported register function, in source order.
func (l *loader) registrations(p *packages.Package) []registration {
	return l.registrationsOf(p, "register")
}

// registrationsOf is registrations for the package's own function named fn
// (registerAttention in specs/families, say).
func (l *loader) registrationsOf(p *packages.Package, fn string) []registration {
	l.fset = p.Fset
	var out []registration
	for _, f := range p.Syntax {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Names) != 1 || len(vs.Values) != 1 {
					continue
				}
				call, ok := vs.Values[0].(*ast.CallExpr)
				if !ok {
					continue
				}
				fun := call.Fun
				if ix, ok := fun.(*ast.IndexExpr); ok { // register[T](...)
					fun = ix.X
				}
				id, ok := fun.(*ast.Ident)
				if !ok || id.Name != fn {
					continue
				}
				fn, _ := p.TypesInfo.Uses[id].(*types.Func)
				if fn == nil || fn.Pkg() != p.Types {
					continue
				}
				out = append(out, registration{
					name: vs.Names[0].Name, call: call, id: vs.Names[0], fn: fn,
					file: l.pos(vs.Pos()).Filename, inst: p.TypesInfo.Instances[id],
				})
			}
		}
	}
	return out
}
