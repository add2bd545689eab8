package translate

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// fnTr translates one function.
type fnTr struct {
	t      *translator
	decl   *ast.FuncDecl
	recv   *types.Var            // the block receiver, for methods
	names  map[*types.Var]string // C names of locals, parameters and the receiver
	used   map[string]bool       // C names taken in this function
	buf    strings.Builder
	indent int
	// single maps each local assigned only where it is declared to its
	// initialiser (for bound); bounding guards bound against cycles.
	single map[*types.Var]ast.Expr
	// badVars are locals whose declaration was rejected; their uses are
	// not reported again.
	badVars  map[*types.Var]bool
	bounding map[*types.Var]bool
	// breakable is the stack of statements an unlabelled break can leave:
	// true for a switch (which the translation turns into if/else, so a
	// break in it is rejected), false for a loop.
	breakable []bool
	// arithHalves are the Half.Float32 calls that only feed float
	// arithmetic (arithOnlyHalves).
	arithHalves map[*ast.CallExpr]bool
}

// cFuncName is the C name of a helper function or block method.
func (t *translator) cFuncName(fn *types.Func) string {
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		T := recv.Type()
		if p, ok := T.(*types.Pointer); ok {
			T = p.Elem()
		}
		if n, ok := types.Unalias(T).(*types.Named); ok {
			return "forge_" + n.Obj().Name() + "_" + fn.Name()
		}
	}
	return "forge_" + fn.Name()
}

// need makes sure fn is translated (after everything it calls) and returns
// its C name.
func (t *translator) need(fn *types.Func, at token.Pos) string {
	name := t.cFuncName(fn)
	switch t.state[fn] {
	case 1:
		t.errorf(at, "recursive call of %s is not in the device subset", fn.Name())
		return name
	case 2:
		return name
	}
	t.state[fn] = 1
	code := t.function(fn, name, at)
	t.state[fn] = 2
	if code != "" {
		t.funcs = append(t.funcs, code)
	}
	return name
}

// function translates a helper function or a block method (Dequant
// included) into a C function definition.
func (t *translator) function(fn *types.Func, cname string, at token.Pos) string {
	decl := t.funcDecls[fn]
	if decl == nil || decl.Body == nil {
		t.errorf(at, "%s has no Go body to translate", fn.Name())
		return ""
	}
	if !asciiIdent(fn.Name()) {
		t.errorf(decl.Name.Pos(), "identifier %s is not ASCII; device code names must be", fn.Name())
		return ""
	}
	what := "function " + fn.Name()
	if decl.Recv != nil {
		what = "method " + fn.Name()
	}
	t.global(cname, decl.Name.Pos(), what)
	f := &fnTr{t: t, decl: decl, names: map[*types.Var]string{}, used: map[string]bool{},
		single: map[*types.Var]ast.Expr{}, bounding: map[*types.Var]bool{}, badVars: map[*types.Var]bool{}}
	sig := fn.Type().(*types.Signature)
	ok := true
	if decl.Type.TypeParams != nil && decl.Type.TypeParams.NumFields() > 0 {
		t.errorf(decl.Type.TypeParams.Pos(), "generic functions are not in the device subset")
		ok = false
	}
	if decl.Recv != nil {
		rt := sig.Recv().Type()
		p, isPtr := rt.(*types.Pointer)
		if !isPtr || types.Unalias(p.Elem()) != types.Type(t.block) {
			t.errorf(decl.Recv.Pos(), "method %s: only methods with the block receiver *%s are in the device subset", fn.Name(), t.block.Obj().Name())
			ok = false
		}
		f.recv = sig.Recv()
	}
	if sig.Variadic() {
		t.errorf(decl.Type.Params.Pos(), "variadic functions are not in the device subset")
		ok = false
	}
	for _, fld := range decl.Type.Params.List {
		if sig.Variadic() {
			break // reported above
		}
		if _, msg := scalarOf(t.pkg.Info.Types[fld.Type].Type); msg != "" {
			t.errorf(fld.Type.Pos(), "parameter of %s: %s", fn.Name(), msg)
			ok = false
		}
	}
	var res scalar
	switch {
	case decl.Type.Results == nil || sig.Results().Len() == 0:
		t.errorf(decl.Name.Pos(), "%s must return one value: device helpers have no effects other than their result", fn.Name())
		ok = false
	case sig.Results().Len() > 1:
		t.errorf(decl.Type.Results.Pos(), "multiple results are not in the device subset")
		ok = false
	case len(decl.Type.Results.List[0].Names) > 0:
		t.errorf(decl.Type.Results.Pos(), "named results are not in the device subset")
		ok = false
	default:
		var msg string
		rf := decl.Type.Results.List[0]
		if res, msg = scalarOf(t.pkg.Info.Types[rf.Type].Type); msg != "" {
			t.errorf(rf.Type.Pos(), "result of %s: %s", fn.Name(), msg)
			ok = false
		}
	}
	if !ok {
		return ""
	}
	f.nameLocals()

	var params []string
	if f.recv != nil {
		p := t.blockRecvC
		if n := f.names[f.recv]; n != "" {
			p += " " + n
		}
		params = append(params, p)
	}
	for i := 0; i < sig.Params().Len(); i++ {
		v := sig.Params().At(i)
		s, _ := scalarOf(v.Type())
		p := s.c
		if n := f.names[v]; n != "" {
			p += " " + n
		}
		params = append(params, p)
	}
	f.buf.WriteString(t.line(decl.Pos()))
	if f.recv != nil && entryMethod(fn.Name()) {
		f.buf.WriteString("FORGE_DEVICE ")
	} else {
		f.buf.WriteString("static FORGE_DEVICE ")
	}
	f.buf.WriteString(res.c + " " + cname + "(" + strings.Join(params, ", ") + ") {\n")
	f.indent = 1
	// A parameter the body never reads (F32's j) would trip -Wunused-parameter.
	for i := 0; i < sig.Params().Len(); i++ {
		if v := sig.Params().At(i); f.names[v] != "" && !f.uses(v) {
			f.buf.WriteString("\t(void)" + f.names[v] + ";\n")
		}
	}
	f.stmts(decl.Body.List)
	f.buf.WriteString("}\n")
	return f.buf.String()
}

// uses reports whether the function's body refers to v.
func (f *fnTr) uses(v *types.Var) bool {
	found := false
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && f.t.pkg.Info.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// nameLocals gives every variable the function declares a C name that is
// unique in the function, so that no C declaration shadows another. (Go's
// "x := x + 1" in an inner block reads the outer x; in C the new x would be
// in scope in its own initialiser.) Names are given in source order, so
// they are deterministic.
func (f *fnTr) nameLocals() {
	info := f.t.pkg.Info
	ast.Inspect(f.decl, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := info.Defs[id].(*types.Var)
		if !ok || v.IsField() || id.Name == "_" {
			return true
		}
		if _, done := f.names[v]; done {
			return true
		}
		if !asciiIdent(id.Name) {
			f.t.errorf(id.Pos(), "identifier %s is not ASCII; device code names must be", id.Name)
		}
		f.names[v] = uniqueName(localName(id.Name), f.used)
		return true
	})
	f.findSingles()
	f.arithHalves = f.arithOnlyHalves()
}

// findSingles fills f.single: locals declared with an initialiser
// (x := e, var x = e) and never assigned again.
func (f *fnTr) findSingles() {
	info := f.t.pkg.Info
	assigned := map[*types.Var]bool{}
	mark := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				assigned[v] = true
			}
		}
	}
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			for i, l := range s.Lhs {
				id, isID := l.(*ast.Ident)
				if s.Tok == token.DEFINE && isID && len(s.Lhs) == len(s.Rhs) {
					if v, isNew := info.Defs[id].(*types.Var); isNew {
						f.single[v] = s.Rhs[i]
						continue
					}
				}
				mark(l)
			}
		case *ast.IncDecStmt:
			mark(s.X)
		case *ast.ValueSpec:
			if len(s.Values) == len(s.Names) {
				for i, id := range s.Names {
					if v, ok := info.Defs[id].(*types.Var); ok {
						f.single[v] = s.Values[i]
					}
				}
			}
		case *ast.RangeStmt:
			if s.Key != nil {
				mark(s.Key)
			}
		}
		return true
	})
	for v := range assigned {
		delete(f.single, v)
	}
}

// temp is a fresh C name for a temporary.
func (f *fnTr) temp(base string) string { return uniqueName(base, f.used) }

// isRecv reports whether e is the block receiver.
func (f *fnTr) isRecv(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok || f.recv == nil {
		return false
	}
	return f.t.pkg.Info.Uses[id] == f.recv
}

// pkgVar is the package-level variable e names, if it does.
func (f *fnTr) pkgVar(e ast.Expr) *types.Var {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		if f.t.pkg.Info.Selections[e] != nil {
			return nil
		}
		id = e.Sel
	default:
		return nil
	}
	v, ok := f.t.pkg.Info.Uses[id].(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return nil
	}
	return v
}
