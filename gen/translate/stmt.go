package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strings"
)

// emit writes one line of C for the Go statement at p, preceded by its
// #line directive.
func (f *fnTr) emit(p token.Pos, s string) {
	f.buf.WriteString(f.t.line(p))
	f.raw(s)
}

// raw writes one indented line without a #line directive.
func (f *fnTr) raw(s string) {
	f.buf.WriteString(strings.Repeat("\t", f.indent))
	f.buf.WriteString(s)
	f.buf.WriteByte('\n')
}

func (f *fnTr) stmts(list []ast.Stmt) {
	for _, s := range list {
		f.stmt(s)
	}
}

// block emits a braced body: the opening text (ending in "{") at p, the
// statements, and the closing brace.
func (f *fnTr) block(p token.Pos, open string, body []ast.Stmt) {
	f.emit(p, open)
	f.indent++
	f.stmts(body)
	f.indent--
	f.raw("}")
}

func (f *fnTr) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.EmptyStmt:
	case *ast.BlockStmt:
		f.block(s.Pos(), "{", s.List)
	case *ast.ExprStmt:
		call, ok := ast.Unparen(s.X).(*ast.CallExpr)
		if !ok {
			f.t.errorf(s.Pos(), "this statement is not in the device subset")
			return
		}
		if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && id.Name == "panic" && f.t.pkg.Info.Types[id].IsBuiltin() {
			f.t.errorf(s.Pos(), "panic is not in the device subset: device code cannot stop; return a value (a NaN, say) instead")
			return
		}
		if tup, ok := f.t.pkg.Info.Types[call].Type.(*types.Tuple); ok && tup.Len() == 0 {
			// A call for its effects: translating the callee reports
			// why it has none on the device.
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				f.funcRef(id, call)
			} else {
				f.t.errorf(s.Pos(), "calls without a result are not in the device subset")
			}
			return
		}
		x := f.expr(call)
		if !x.bad {
			f.emit(s.Pos(), "(void)"+x.s+";")
		}
	case *ast.AssignStmt:
		f.assign(s)
	case *ast.IncDecStmt:
		lhs, ok := f.target(s.X)
		if !ok {
			return
		}
		op := token.ADD
		if s.Tok == token.DEC {
			op = token.SUB
		}
		r := f.arith(op, s.TokPos, lhs, nil, constant.MakeInt64(1), lhs.sc)
		if !r.bad {
			f.emit(s.Pos(), lhs.s+" = "+bare(r.s)+";")
		}
	case *ast.DeclStmt:
		f.declStmt(s)
	case *ast.IfStmt:
		f.ifStmt(s, "")
	case *ast.ForStmt:
		f.forStmt(s)
	case *ast.RangeStmt:
		f.rangeStmt(s)
	case *ast.SwitchStmt:
		f.switchStmt(s)
	case *ast.ReturnStmt:
		if len(s.Results) != 1 {
			f.t.errorf(s.Pos(), "return must return exactly one value")
			return
		}
		x := f.expr(s.Results[0])
		if !x.bad {
			f.emit(s.Pos(), "return "+bare(x.s)+";")
		}
	case *ast.BranchStmt:
		f.branch(s)
	case *ast.LabeledStmt:
		f.t.errorf(s.Pos(), "labels are not in the device subset")
	case *ast.GoStmt:
		f.t.errorf(s.Pos(), "go statements (goroutines) are not in the device subset")
	case *ast.DeferStmt:
		f.t.errorf(s.Pos(), "defer is not in the device subset")
	case *ast.SelectStmt:
		f.t.errorf(s.Pos(), "select is not in the device subset")
	case *ast.SendStmt:
		f.t.errorf(s.Pos(), "channels are not in the device subset")
	case *ast.TypeSwitchStmt:
		f.t.errorf(s.Pos(), "type switches are not in the device subset")
	default:
		f.t.errorf(s.Pos(), "this statement is not in the device subset")
	}
}

func (f *fnTr) branch(s *ast.BranchStmt) {
	if s.Label != nil {
		f.t.errorf(s.Pos(), "labels are not in the device subset")
		return
	}
	switch s.Tok {
	case token.BREAK:
		if n := len(f.breakable); n > 0 && f.breakable[n-1] {
			f.t.errorf(s.Pos(), "break inside a switch is not in the device subset")
			return
		}
		f.emit(s.Pos(), "break;")
	case token.CONTINUE:
		f.emit(s.Pos(), "continue;")
	case token.GOTO:
		f.t.errorf(s.Pos(), "goto is not in the device subset")
	case token.FALLTHROUGH:
		f.t.errorf(s.Pos(), "fallthrough is not in the device subset")
	}
}

// target translates the left side of an assignment: a local variable.
func (f *fnTr) target(e ast.Expr) (cexpr, bool) {
	info := f.t.pkg.Info
	e = ast.Unparen(e)
	if v := f.pkgVar(e); v != nil {
		f.t.errorf(e.Pos(), "assignment to package-level variable %s is not in the device subset; tables are read-only", v.Name())
		return badExpr, false
	}
	switch x := e.(type) {
	case *ast.Ident:
		if f.isRecv(x) {
			f.t.errorf(x.Pos(), "assignment to the receiver %s is not in the device subset", x.Name)
			return badExpr, false
		}
		v, ok := info.Uses[x].(*types.Var)
		if !ok {
			v, ok = info.Defs[x].(*types.Var)
		}
		name, ok2 := f.names[v]
		if !ok || !ok2 {
			f.t.errorf(x.Pos(), "cannot assign to %s", x.Name)
			return badExpr, false
		}
		sc, msg := scalarOf(v.Type())
		if msg != "" {
			f.t.errorf(x.Pos(), "%s", msg)
			return badExpr, false
		}
		return cexpr{s: name, sc: sc}, true
	case *ast.IndexExpr, *ast.SelectorExpr:
		root := e
		for {
			switch r := root.(type) {
			case *ast.IndexExpr:
				root = ast.Unparen(r.X)
				continue
			case *ast.SelectorExpr:
				root = ast.Unparen(r.X)
				continue
			}
			break
		}
		if f.isRecv(root) {
			f.t.errorf(e.Pos(), "writes to the block are not in the device subset; Dequant only reads it")
			return badExpr, false
		}
		if v := f.pkgVar(root); v != nil {
			f.t.errorf(e.Pos(), "writes to table %s are not in the device subset; tables are read-only", v.Name())
			return badExpr, false
		}
	case *ast.StarExpr:
		f.t.errorf(e.Pos(), "pointer indirection is not in the device subset")
		return badExpr, false
	}
	f.t.errorf(e.Pos(), "only local variables can be assigned in the device subset")
	return badExpr, false
}

// localDecl declares the new local v (from a := or var) initialised by the
// Go expression init, or zero when init is nil.
func (f *fnTr) localDecl(at token.Pos, id *ast.Ident, v *types.Var, init ast.Expr) {
	if id.Name == "_" {
		if init != nil {
			if x := f.expr(init); !x.bad {
				f.emit(at, "(void)"+x.s+";")
			}
		}
		return
	}
	sc, msg := scalarOf(v.Type())
	if msg != "" {
		if _, isArr := v.Type().Underlying().(*types.Array); isArr {
			msg = "local arrays are not in the device subset; use a package-level table (read-only) or separate variables"
		}
		f.t.errorf(id.Pos(), "variable %s: %s", id.Name, msg)
		f.badVars[v] = true
		return
	}
	val := zero(sc)
	if init != nil {
		x := f.expr(init)
		if x.bad {
			f.badVars[v] = true
			return
		}
		val = x.s
	}
	f.emit(at, sc.c+" "+f.names[v]+" = "+bare(val)+";")
}

func (f *fnTr) assign(s *ast.AssignStmt) {
	info := f.t.pkg.Info
	if len(s.Lhs) != len(s.Rhs) {
		f.t.errorf(s.Pos(), "multi-value assignment from a call is not in the device subset (helpers return one value)")
		f.markBad(s.Lhs)
		return
	}
	switch s.Tok {
	case token.DEFINE:
		// Every new variable has a function-unique C name, so sequential
		// declarations cannot capture one another; a redeclared (existing)
		// variable on the left needs Go's evaluate-all-then-assign order.
		redecl := false
		for _, l := range s.Lhs {
			if id := l.(*ast.Ident); id.Name != "_" && info.Defs[id] == nil {
				redecl = true
			}
		}
		if !redecl || len(s.Lhs) == 1 {
			for i, l := range s.Lhs {
				id := l.(*ast.Ident)
				v, _ := info.Defs[id].(*types.Var)
				if v == nil && id.Name != "_" {
					x, ok := f.target(id)
					if r := f.expr(s.Rhs[i]); ok && !r.bad {
						f.emit(s.Pos(), x.s+" = "+bare(r.s)+";")
					}
					continue
				}
				f.localDecl(s.Pos(), id, v, s.Rhs[i])
			}
			return
		}
		f.parallel(s)
	case token.ASSIGN:
		if len(s.Lhs) == 1 {
			if id, ok := s.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
				if r := f.expr(s.Rhs[0]); !r.bad {
					f.emit(s.Pos(), "(void)"+r.s+";")
				}
				return
			}
			x, ok := f.target(s.Lhs[0])
			if !ok {
				return
			}
			if r := f.expr(s.Rhs[0]); !r.bad {
				f.emit(s.Pos(), x.s+" = "+bare(r.s)+";")
			}
			return
		}
		f.parallel(s)
	default: // op-assign
		op, ok := opAssign[s.Tok]
		if !ok {
			f.t.errorf(s.TokPos, "%s is not in the device subset", s.Tok)
			return
		}
		x, ok := f.target(s.Lhs[0])
		if !ok {
			return
		}
		r := f.arith(op, s.TokPos, x, s.Rhs[0], nil, x.sc)
		if !r.bad {
			f.emit(s.Pos(), x.s+" = "+bare(r.s)+";")
		}
	}
}

// markBad marks the variables that idents declare as rejected.
func (f *fnTr) markBad(idents []ast.Expr) {
	for _, l := range idents {
		if id, ok := l.(*ast.Ident); ok {
			if v, ok := f.t.pkg.Info.Defs[id].(*types.Var); ok {
				f.badVars[v] = true
			}
		}
	}
}

var opAssign = map[token.Token]token.Token{
	token.ADD_ASSIGN: token.ADD, token.SUB_ASSIGN: token.SUB, token.MUL_ASSIGN: token.MUL,
	token.QUO_ASSIGN: token.QUO, token.REM_ASSIGN: token.REM, token.AND_ASSIGN: token.AND,
	token.OR_ASSIGN: token.OR, token.XOR_ASSIGN: token.XOR, token.SHL_ASSIGN: token.SHL,
	token.SHR_ASSIGN: token.SHR, token.AND_NOT_ASSIGN: token.AND_NOT,
}

// parallel is a multi-value assignment a, b = x, y (or a mixed :=): every
// right side is evaluated into a temporary first, as Go evaluates them all
// before assigning any.
func (f *fnTr) parallel(s *ast.AssignStmt) {
	info := f.t.pkg.Info
	temps := make([]string, len(s.Rhs))
	ok := true
	for i, r := range s.Rhs {
		x := f.expr(r)
		if x.bad {
			ok = false
			if s.Tok == token.DEFINE {
				f.markBad(s.Lhs[i : i+1])
			}
			continue
		}
		temps[i] = f.temp("tmp")
		f.emit(s.Pos(), x.sc.c+" "+temps[i]+" = "+bare(x.s)+";")
	}
	if !ok {
		return
	}
	for i, l := range s.Lhs {
		if id, isID := l.(*ast.Ident); isID {
			if id.Name == "_" {
				continue
			}
			if v, isNew := info.Defs[id].(*types.Var); isNew && s.Tok == token.DEFINE {
				sc, msg := scalarOf(v.Type())
				if msg != "" {
					f.t.errorf(id.Pos(), "variable %s: %s", id.Name, msg)
					f.badVars[v] = true
					continue
				}
				f.emit(s.Pos(), sc.c+" "+f.names[v]+" = "+temps[i]+";")
				continue
			}
		}
		if x, ok := f.target(l); ok {
			f.emit(s.Pos(), x.s+" = "+temps[i]+";")
		}
	}
}

func (f *fnTr) declStmt(s *ast.DeclStmt) {
	g := s.Decl.(*ast.GenDecl)
	switch g.Tok {
	case token.CONST:
		return // constants are emitted as values where they are used
	case token.TYPE:
		f.t.errorf(g.Pos(), "local type declarations are not in the device subset")
		return
	case token.IMPORT:
		return
	}
	for _, spec := range g.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Values) != 0 && len(vs.Values) != len(vs.Names) {
			f.t.errorf(vs.Pos(), "multi-value assignment from a call is not in the device subset (helpers return one value)")
			for _, id := range vs.Names {
				f.markBad([]ast.Expr{id})
			}
			continue
		}
		for i, id := range vs.Names {
			v, _ := f.t.pkg.Info.Defs[id].(*types.Var)
			var init ast.Expr
			if len(vs.Values) > 0 {
				init = vs.Values[i]
			}
			if v == nil {
				continue
			}
			f.localDecl(vs.Pos(), id, v, init)
		}
	}
}

// ifStmt emits an if statement; prefix is "} else " for an else-if chain.
// An init statement is scoped in a block of its own, as in Go.
func (f *fnTr) ifStmt(s *ast.IfStmt, prefix string) {
	if s.Init != nil {
		if prefix != "" {
			f.emit(s.Pos(), prefix+"{")
			f.indent++
		} else {
			f.emit(s.Pos(), "{")
			f.indent++
		}
		f.stmt(s.Init)
		prefix = ""
	}
	c := f.expr(s.Cond)
	f.emit(s.Pos(), prefix+"if ("+bare(c.s)+") {")
	f.indent++
	f.stmts(s.Body.List)
	f.indent--
	switch e := s.Else.(type) {
	case nil:
		f.raw("}")
	case *ast.IfStmt:
		f.ifStmt(e, "} else ")
	case *ast.BlockStmt:
		f.buf.WriteString(f.t.line(e.Pos()))
		f.raw("} else {")
		f.indent++
		f.stmts(e.List)
		f.indent--
		f.raw("}")
	}
	if s.Init != nil {
		f.indent--
		f.raw("}")
	}
}

// forForm checks the accepted three-clause form (i := C1; i OP C2; i++,
// i--, i += C or i -= C) and returns the loop variable.
func (f *fnTr) forForm(s *ast.ForStmt) (v *types.Var, ok bool) {
	info := f.t.pkg.Info
	as, isAssign := s.Init.(*ast.AssignStmt)
	if !isAssign || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil, false
	}
	id := as.Lhs[0].(*ast.Ident)
	v, _ = info.Defs[id].(*types.Var)
	if v == nil || info.Types[as.Rhs[0]].Value == nil {
		return nil, false
	}
	cond, isBin := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	if !isBin || !f.isVar(cond.X, v) || info.Types[cond.Y].Value == nil {
		return nil, false
	}
	switch cond.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ, token.NEQ:
	default:
		return nil, false
	}
	switch p := s.Post.(type) {
	case *ast.IncDecStmt:
		return v, f.isVar(p.X, v)
	case *ast.AssignStmt:
		if (p.Tok == token.ADD_ASSIGN || p.Tok == token.SUB_ASSIGN) && len(p.Lhs) == 1 && f.isVar(p.Lhs[0], v) {
			return v, info.Types[p.Rhs[0]].Value != nil
		}
	}
	return nil, false
}

func (f *fnTr) isVar(e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && f.t.pkg.Info.Uses[id] == v
}

// checkUnassigned reports assignments to the loop variable v in body: the
// loop's bounds must stay the constant ones of its header.
func (f *fnTr) checkUnassigned(body *ast.BlockStmt, v *types.Var) bool {
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		var lhs []ast.Expr
		switch s := n.(type) {
		case *ast.AssignStmt:
			lhs = s.Lhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{s.X}
		}
		for _, l := range lhs {
			if f.isVar(l, v) {
				f.t.errorf(l.Pos(), "loop variable %s is assigned in the loop body; for loops need constant bounds", v.Name())
				ok = false
			}
		}
		return true
	})
	return ok
}

func (f *fnTr) forStmt(s *ast.ForStmt) {
	v, ok := f.forForm(s)
	if !ok {
		f.t.errorf(s.Pos(), "for loops must have constant bounds: for i := C1; i < C2; i++ (or <=, >, >=, !=, i--, i += C, i -= C), or for i := range C")
		return
	}
	if !f.checkUnassigned(s.Body, v) {
		return
	}
	as := s.Init.(*ast.AssignStmt)
	sc, msg := scalarOf(v.Type())
	if msg != "" {
		f.t.errorf(as.Lhs[0].Pos(), "loop variable %s: %s", v.Name(), msg)
		return
	}
	init := f.expr(as.Rhs[0])
	cond := f.expr(s.Cond)
	if init.bad || cond.bad {
		return
	}
	name := f.names[v]
	var post string
	// i++ under i < C (or i <= C below the type's maximum) cannot wrap,
	// so C's ++ (no undefined behaviour) says it; otherwise the post
	// statement wraps as Go's does.
	c := ast.Unparen(s.Cond).(*ast.BinaryExpr)
	bound, _ := constant.Int64Val(constant.ToInt(f.t.pkg.Info.Types[c.Y].Value))
	lo, hi := intRange(sc)
	if p, isInc := s.Post.(*ast.IncDecStmt); isInc && sc.isInt() &&
		(p.Tok == token.INC && (c.Op == token.LSS || c.Op == token.LEQ && bound < hi) ||
			p.Tok == token.DEC && (c.Op == token.GTR || c.Op == token.GEQ && bound > lo)) {
		post = name + p.Tok.String()
	} else {
		op, rhs, one := token.ADD, ast.Expr(nil), constant.MakeInt64(1)
		switch p := s.Post.(type) {
		case *ast.IncDecStmt:
			if p.Tok == token.DEC {
				op = token.SUB
			}
		case *ast.AssignStmt:
			op, rhs = opAssign[p.Tok], p.Rhs[0]
		}
		r := f.arith(op, s.Post.Pos(), cexpr{s: name, sc: sc}, rhs, one, sc)
		if r.bad {
			return
		}
		post = name + " = " + bare(r.s)
	}
	f.breakable = append(f.breakable, false)
	f.block(s.Pos(), "for ("+sc.c+" "+name+" = "+bare(init.s)+"; "+bare(cond.s)+"; "+post+") {", s.Body.List)
	f.breakable = f.breakable[:len(f.breakable)-1]
}

// intRange is the value range of an integer type.
func intRange(sc scalar) (lo, hi int64) {
	if sc.signed {
		return -1 << (sc.bits - 1), 1<<(sc.bits-1) - 1
	}
	return 0, 1<<sc.bits - 1
}

// rangeStmt emits for i := range C over an integer constant.
func (f *fnTr) rangeStmt(s *ast.RangeStmt) {
	info := f.t.pkg.Info
	tv := info.Types[s.X]
	if tv.Value == nil || tv.Value.Kind() != constant.Int {
		what := "range over this operand"
		if tv.Type != nil {
			switch tv.Type.Underlying().(type) {
			case *types.Array, *types.Pointer:
				what = "range over an array (its index would be an int)"
			}
		}
		f.t.errorf(s.Pos(), "%s is not in the device subset; write for i := range int32(N) with a constant N", what)
		return
	}
	if s.Value != nil {
		f.t.errorf(s.Value.Pos(), "range with two variables is not in the device subset")
		return
	}
	n, _ := constant.Int64Val(constant.ToInt(tv.Value))
	var name string
	sc := basicScalars[types.Int32]
	if id, ok := s.Key.(*ast.Ident); ok && id.Name != "_" {
		if s.Tok != token.DEFINE {
			f.t.errorf(s.Pos(), "for ... = range is not in the device subset; declare the loop variable with :=")
			return
		}
		v, _ := info.Defs[id].(*types.Var)
		var msg string
		if sc, msg = scalarOf(v.Type()); msg != "" {
			f.t.errorf(id.Pos(), "loop variable %s has type %s, which is not in the device subset; write for %s := range int32(%d)", id.Name, v.Type(), id.Name, n)
			return
		}
		if !f.checkUnassigned(s.Body, v) {
			return
		}
		name = f.names[v]
	} else {
		if s.Key != nil && s.Tok != token.DEFINE {
			f.t.errorf(s.Pos(), "for ... = range is not in the device subset")
			return
		}
		if n > math.MaxInt32 {
			f.t.errorf(s.X.Pos(), "range count %d does not fit in int32", n)
			return
		}
		name = f.temp("iter")
	}
	// i < n <= the type's maximum before each increment, so ++ cannot wrap.
	f.breakable = append(f.breakable, false)
	f.block(s.Pos(), "for ("+sc.c+" "+name+" = "+bare(zero(sc))+"; "+name+" < "+bare(constLit(tv.Value, sc))+"; "+name+"++) {", s.Body.List)
	f.breakable = f.breakable[:len(f.breakable)-1]
}

// switchStmt emits an expression switch as an if/else chain (Go cases do
// not fall through), with a non-trivial tag evaluated once into a
// temporary. The chain is wrapped in a block when it declares something.
func (f *fnTr) switchStmt(s *ast.SwitchStmt) {
	open := false
	openBlock := func() {
		if !open {
			f.emit(s.Pos(), "{")
			f.indent++
			open = true
		}
	}
	if s.Init != nil {
		openBlock()
		f.stmt(s.Init)
	}
	f.cases(s, openBlock)
	if open {
		f.indent--
		f.raw("}")
	}
}

func (f *fnTr) cases(s *ast.SwitchStmt, openBlock func()) {
	var tag cexpr
	if s.Tag != nil {
		if tag = f.expr(s.Tag); tag.bad {
			return
		}
		if _, isID := ast.Unparen(s.Tag).(*ast.Ident); tag.val == nil && !isID {
			openBlock()
			t := f.temp("tag")
			f.emit(s.Tag.Pos(), tag.sc.c+" "+t+" = "+bare(tag.s)+";")
			tag.s = t
		}
	}
	var def *ast.CaseClause
	first := true
	f.breakable = append(f.breakable, true)
	defer func() { f.breakable = f.breakable[:len(f.breakable)-1] }()
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			def = cc
			continue
		}
		var conds []string
		ok := true
		for _, e := range cc.List {
			x := f.expr(e)
			switch {
			case x.bad:
				ok = false
			case s.Tag != nil:
				conds = append(conds, "("+tag.s+" == "+x.s+")")
			default:
				conds = append(conds, x.s)
			}
		}
		if !ok {
			continue
		}
		prefix := "} else if ("
		if first {
			prefix = "if ("
		}
		first = false
		f.emit(cc.Pos(), prefix+bare(strings.Join(conds, " || "))+") {")
		f.indent++
		f.stmts(cc.Body)
		f.indent--
	}
	if def != nil {
		if first {
			f.emit(def.Pos(), "{")
		} else {
			f.emit(def.Pos(), "} else {")
		}
		f.indent++
		f.stmts(def.Body)
		f.indent--
		first = false
	}
	if !first {
		f.raw("}")
	}
}
