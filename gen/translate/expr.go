package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
)

// cexpr is a translated expression: C text of the C type of sc, either an
// atom (name, literal, call, array element) or wholly parenthesised, so it
// can be an operand anywhere without precedence surprises.
type cexpr struct {
	s   string
	w   string // if set: a uint32 expression equal to the value converted to uint32 (sign- or zero-extended)
	sc  scalar
	val constant.Value // the Go constant value, for constants
	bad bool           // an error was reported; the text is a placeholder
}

var badExpr = cexpr{s: "0", bad: true}

// bare strips one pair of parentheses that encloses all of s, for contexts
// that delimit the expression themselves (if conditions, initialisers,
// arguments, returns).
func bare(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s
			}
		}
	}
	return s[1 : len(s)-1]
}

// expr translates a value expression, which must have a device scalar type.
func (f *fnTr) expr(e ast.Expr) cexpr {
	info := f.t.pkg.Info
	e = ast.Unparen(e)
	tv, ok := info.Types[e]
	if !ok {
		f.t.errorf(e.Pos(), "expression has no type information")
		return badExpr
	}
	if tv.Value != nil {
		sc, msg := scalarOf(tv.Type)
		if msg != "" {
			f.t.errorf(e.Pos(), "%s", msg)
			return badExpr
		}
		return cexpr{s: constLit(tv.Value, sc), sc: sc, val: tv.Value}
	}
	// Misuses whose type alone would give a less helpful message.
	switch x := e.(type) {
	case *ast.Ident:
		if v, ok := info.Uses[x].(*types.Var); ok && f.badVars[v] {
			return badExpr // reported at its declaration
		}
		if f.isRecv(x) {
			f.t.errorf(x.Pos(), "the receiver %s can only be used to read its fields and call its methods", x.Name)
			return badExpr
		}
	case *ast.SelectorExpr:
		if sel := info.Selections[x]; sel != nil && sel.Kind() == types.MethodVal {
			f.t.errorf(x.Sel.Pos(), "method values are not in the device subset; call the method")
			return badExpr
		}
	case *ast.FuncLit:
		f.t.errorf(x.Pos(), "function literals (closures) are not in the device subset")
		return badExpr
	case *ast.CompositeLit:
		f.t.errorf(x.Pos(), "composite literals are not in the device subset, except as the initialisers of package-level tables")
		return badExpr
	}
	if v := f.pkgVar(e); v != nil {
		if _, isArr := types.Unalias(v.Type()).Underlying().(*types.Array); isArr {
			f.t.errorf(e.Pos(), "table %s can only be indexed", v.Name())
		} else {
			f.t.errorf(e.Pos(), "package-level variable %s is not in the device subset; only constants and array tables (read by indexing) are", v.Name())
		}
		return badExpr
	}
	sc, msg := scalarOf(tv.Type)
	if msg != "" {
		f.t.errorf(e.Pos(), "%s", msg)
		return badExpr
	}
	switch x := e.(type) {
	case *ast.Ident:
		switch o := info.Uses[x].(type) {
		case *types.Var:
			if n, ok := f.names[o]; ok {
				return cexpr{s: n, sc: sc}
			}
			f.t.errorf(x.Pos(), "variable %s is not declared in this function", x.Name)
		default:
			f.t.errorf(x.Pos(), "%s is not a value in the device subset", x.Name)
		}
		return badExpr
	case *ast.BinaryExpr:
		return f.binary(x, sc)
	case *ast.UnaryExpr:
		return f.unary(x, sc)
	case *ast.CallExpr:
		return f.call(x, sc)
	case *ast.IndexExpr:
		if t := info.Types[x.X].Type; t != nil {
			if _, isSig := t.Underlying().(*types.Signature); isSig {
				f.t.errorf(x.Pos(), "generic functions are not in the device subset")
				return badExpr
			}
		}
		base, ok := f.arrayRef(x.X)
		idx, ok2 := f.index(x.Index)
		if !ok || !ok2 {
			return badExpr
		}
		return cexpr{s: base + "[" + idx + "]", sc: sc}
	case *ast.SelectorExpr:
		sel := info.Selections[x]
		if sel != nil && sel.Kind() == types.FieldVal && f.isRecv(x.X) {
			return cexpr{s: f.names[f.recv] + "->" + f.t.fieldName(sel.Obj().(*types.Var)), sc: sc}
		}
		f.t.errorf(x.Pos(), "only the receiver's fields can be selected in the device subset")
		return badExpr
	case *ast.StarExpr:
		f.t.errorf(x.Pos(), "pointer indirection is not in the device subset")
	case *ast.SliceExpr:
		f.t.errorf(x.Pos(), "slice expressions are not in the device subset")
	case *ast.TypeAssertExpr:
		f.t.errorf(x.Pos(), "type assertions are not in the device subset")
	default:
		f.t.errorf(x.Pos(), "this expression is not in the device subset")
	}
	return badExpr
}

// fieldName is the C name of a block field.
func (t *translator) fieldName(v *types.Var) string {
	if n, ok := t.fieldC[v]; ok {
		return n
	}
	return v.Name()
}

// index translates an array index: a constant as a plain literal (Go has
// checked it is in range), anything else as an integer expression. Indexing
// is not bounds-checked on the device.
func (f *fnTr) index(e ast.Expr) (string, bool) {
	tv := f.t.pkg.Info.Types[ast.Unparen(e)]
	if tv.Value != nil {
		n, _ := constant.Int64Val(constant.ToInt(tv.Value))
		return strconv.FormatInt(n, 10), true
	}
	x := f.expr(e)
	if x.bad {
		return "", false
	}
	if !x.sc.isInt() {
		f.t.errorf(e.Pos(), "array index must be an integer")
		return "", false
	}
	return bare(x.s), true
}

// arrayRef translates an expression of array type that is indexed: a block
// field, a package-level table, or an element of either (nested arrays).
func (f *fnTr) arrayRef(e ast.Expr) (string, bool) {
	info := f.t.pkg.Info
	e = ast.Unparen(e)
	if v := f.pkgVar(e); v != nil {
		if _, isArr := types.Unalias(v.Type()).Underlying().(*types.Array); isArr {
			return f.t.needTable(v, e.Pos()), true
		}
	}
	switch x := e.(type) {
	case *ast.SelectorExpr:
		sel := info.Selections[x]
		if sel != nil && sel.Kind() == types.FieldVal && f.isRecv(x.X) {
			return f.names[f.recv] + "->" + f.t.fieldName(sel.Obj().(*types.Var)), true
		}
	case *ast.IndexExpr:
		base, ok := f.arrayRef(x.X)
		idx, ok2 := f.index(x.Index)
		return base + "[" + idx + "]", ok && ok2
	}
	if tv := info.Types[e]; tv.Type != nil {
		switch tv.Type.Underlying().(type) {
		case *types.Slice:
			f.t.errorf(e.Pos(), "slices are not in the device subset; use a fixed-size array field or a package-level table")
			return "", false
		case *types.Pointer:
			f.t.errorf(e.Pos(), "pointers are not in the device subset (only the block receiver is one)")
			return "", false
		}
	}
	f.t.errorf(e.Pos(), "only the block's array fields and package-level tables can be indexed")
	return "", false
}

// widen is x as a uint32 operand: a constant as its 32-bit two's
// complement literal, anything else through a (uint32_t) cast.
func widen(x cexpr) string {
	if x.val != nil && x.sc.isInt() {
		n, _ := constant.Int64Val(constant.ToInt(x.val))
		return strconv.FormatUint(uint64(uint32(n)), 10) + "u"
	}
	if x.sc.isU32() {
		return x.s
	}
	if x.w != "" {
		return x.w
	}
	return "(uint32_t)" + x.s
}

// wrap parenthesises s unless it already is wholly.
func wrap(s string) string {
	if bare(s) != s {
		return s
	}
	return "(" + s + ")"
}

// mkInt is the integer of type sc whose bits are the low bits of the
// uint32 expression w: w itself for uint32, a truncating cast otherwise
// (for int32 the uint32 form is kept, so a further operation can use it).
func mkInt(sc scalar, w string) cexpr {
	switch {
	case sc.isU32():
		return cexpr{s: wrap(w), sc: sc}
	case sc.isI32():
		return cexpr{s: trunc(sc, w), w: wrap(w), sc: sc}
	}
	return cexpr{s: trunc(sc, w), sc: sc}
}

// mkExt is mkInt for a uint32 expression w that is already the value of
// type sc sign- or zero-extended to 32 bits (bitwise operations and right
// shifts of extended operands are), so w stays usable as its uint32 form.
func mkExt(sc scalar, w string) cexpr {
	x := mkInt(sc, w)
	if !sc.isU32() {
		x.w = wrap(w)
	}
	return x
}

// zero is the zero value of sc as an operand.
func zero(sc scalar) string {
	switch {
	case sc.class == cBool:
		return "false"
	case sc.isFloat():
		return floatLit(0)
	case sc.isU32():
		return "0u"
	case sc.isI32():
		return "0"
	}
	return "((" + sc.c + ")0)"
}

// trunc is the uint32 expression w truncated back to sc.
func trunc(sc scalar, w string) string { return "((" + sc.c + ")(" + w + "))" }

var opText = map[token.Token]string{
	token.ADD: "+", token.SUB: "-", token.MUL: "*", token.QUO: "/", token.REM: "%",
	token.AND: "&", token.OR: "|", token.XOR: "^", token.SHL: "<<", token.SHR: ">>",
	token.EQL: "==", token.NEQ: "!=", token.LSS: "<", token.LEQ: "<=", token.GTR: ">", token.GEQ: ">=",
	token.LAND: "&&", token.LOR: "||",
}

func (f *fnTr) binary(e *ast.BinaryExpr, sc scalar) cexpr {
	switch e.Op {
	case token.LAND, token.LOR:
		x, y := f.expr(e.X), f.expr(e.Y) // both, for their errors
		if x.bad || y.bad {
			return badExpr
		}
		return cexpr{s: "(" + x.s + " " + opText[e.Op] + " " + y.s + ")", sc: sc}
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		// Operands have one Go type; C's promotion of both to int (narrow
		// types) or their common 32-bit type keeps every value, so the
		// comparison is Go's.
		x, y := f.expr(e.X), f.expr(e.Y)
		if x.bad || y.bad {
			return badExpr
		}
		return cexpr{s: "(" + x.s + " " + opText[e.Op] + " " + y.s + ")", sc: sc}
	}
	x := f.expr(e.X)
	if x.bad {
		f.expr(e.Y) // for its own errors
		return badExpr
	}
	return f.arith(e.Op, e.OpPos, x, e.Y, nil, sc)
}

// arith is x op y for an arithmetic, bitwise or shift operator, with Go's
// semantics for the result type sc (the type of x). y is the Go
// expression yExpr, translated here because a constant divisor or shift
// count is used as a value, or (yExpr nil) the constant yConst of type sc,
// for ++ and --.
func (f *fnTr) arith(op token.Token, opPos token.Pos, x cexpr, yExpr ast.Expr, yConst constant.Value, sc scalar) cexpr {
	yv, yPos := yConst, opPos
	if yExpr != nil {
		yExpr = ast.Unparen(yExpr)
		yv, yPos = f.t.pkg.Info.Types[yExpr].Value, yExpr.Pos()
	}
	if op == token.SHL || op == token.SHR {
		return f.shift(op, x, yExpr, yv, sc)
	}
	if (op == token.QUO || op == token.REM) && sc.isInt() {
		if yv == nil {
			f.t.errorf(yPos, "integer division by a non-constant is not in the device subset: Go panics on a zero divisor and device code cannot; divide by a constant, or use a shift or a mask")
			return badExpr
		}
		d, _ := constant.Int64Val(constant.ToInt(yv))
		return divide(op, x, d, sc)
	}
	var y cexpr
	if yExpr == nil {
		y = cexpr{s: constLit(yConst, sc), sc: sc, val: yConst}
	} else if y = f.expr(yExpr); y.bad {
		return badExpr
	}
	o := opText[op]
	switch {
	case sc.isFloat():
		// One IEEE operation per Go operation, grouped as Go groups them;
		// compiled without contraction, so never fused.
		return cexpr{s: "(" + x.s + " " + o + " " + y.s + ")", sc: sc}
	case sc.class == cBool:
		f.t.errorf(opPos, "operator %s is not defined on bool", op)
		return badExpr
	}
	switch op {
	case token.ADD, token.SUB, token.MUL:
		// int32: wraps in uint32 (signed overflow is undefined in C);
		// narrow types: C would promote to int, where a uint16 product
		// can overflow, so compute in uint32 and truncate.
		return mkInt(sc, widen(x)+" "+o+" "+widen(y))
	case token.AND, token.OR, token.XOR, token.AND_NOT:
		if op == token.AND_NOT {
			o = "& ~"
		} else {
			o += " "
		}
		if sc.bits == 32 {
			return cexpr{s: "(" + x.s + " " + o + y.s + ")", sc: sc}
		}
		// The operands are extended to 32 bits, and so is the result of
		// any bitwise operation on them.
		return mkExt(sc, widen(x)+" "+o+widen(y))
	}
	f.t.errorf(opPos, "operator %s is not in the device subset", op)
	return badExpr
}

// divide is x / d or x % d for a constant non-zero divisor d. Go truncates
// toward zero, as C++11 does. The one overflow, minimum / -1, wraps in Go
// and is undefined in C, so division by -1 is a wrapping negation and the
// remainder by -1 is 0. Narrow types divide in 32 bits, where nothing
// overflows, and truncate.
func divide(op token.Token, x cexpr, d int64, sc scalar) cexpr {
	o := opText[op]
	if !sc.signed {
		return mkInt(sc, widen(x)+" "+o+" "+strconv.FormatUint(uint64(uint32(d)), 10)+"u")
	}
	if d == -1 {
		if op == token.REM {
			return cexpr{s: zero(sc), sc: sc}
		}
		return mkInt(sc, "0u - "+widen(x))
	}
	lit := strconv.FormatInt(d, 10)
	if d < 0 {
		lit = "(" + lit + ")"
	}
	if sc.isI32() {
		return cexpr{s: "(" + x.s + " " + o + " " + lit + ")", sc: sc}
	}
	return cexpr{s: trunc(sc, "(int32_t)"+x.s+" "+o+" "+lit), sc: sc}
}

// shift is x << y or x >> y with Go's semantics: a count of at least the
// width gives 0, or the sign for a signed >>; C leaves counts of 32 or more
// undefined, so a constant count is resolved here and a variable count is
// guarded unless it is provably below 32 (see bound). Narrow types shift in
// 32 bits (zero- or sign-extended), which gives Go's result once truncated.
// A negative signed count, which panics in Go, is converted to uint32 and
// so acts as a count of at least 32.
func (f *fnTr) shift(op token.Token, x cexpr, yExpr ast.Expr, yv constant.Value, sc scalar) cexpr {
	if !sc.isInt() {
		return badExpr // Go only shifts integers
	}
	shifted := func(cnt string) cexpr {
		switch {
		case op == token.SHL:
			return mkInt(sc, widen(x)+" << "+cnt)
		case !sc.signed:
			return mkExt(sc, widen(x)+" >> "+cnt)
		case sc.isI32():
			return cexpr{s: "(" + x.s + " >> " + cnt + ")", sc: sc}
		}
		return cexpr{s: trunc(sc, "(int32_t)"+x.s+" >> "+cnt), sc: sc}
	}
	if yv != nil {
		c, exact := constant.Uint64Val(constant.ToInt(yv))
		if !exact || c >= 32 {
			if op == token.SHR && sc.signed {
				return shifted("31")
			}
			return cexpr{s: zero(sc), sc: sc}
		}
		return shifted(strconv.FormatUint(c, 10))
	}
	y := f.expr(yExpr)
	if y.bad {
		return badExpr
	}
	if !y.sc.isInt() {
		f.t.errorf(yExpr.Pos(), "shift count must be an integer")
		return badExpr
	}
	if m, ok := f.bound(yExpr); ok && m < 32 {
		if op == token.SHR && sc.signed && m > 31 {
			return shifted("31")
		}
		return shifted(y.s)
	}
	cnt := y.s
	if !y.sc.isU32() {
		cnt = wrap(widen(y))
	}
	if op == token.SHR && sc.signed {
		return shifted("((" + cnt + " < 31u) ? " + cnt + " : 31u)")
	}
	return cexpr{s: "((" + cnt + " < 32u) ? " + shifted(cnt).s + " : " + zero(sc) + ")", sc: sc}
}

// bound is an upper bound of the integer expression e when e is provably
// non-negative: constants, an unsigned type's maximum, & with a bounded
// operand, >> of a bounded value, and +, *, %, |, ^ and conversions of
// bounded values that cannot wrap. It lets shifts by counts such as
// uint32(j&7) go unguarded.
func (f *fnTr) bound(e ast.Expr) (uint64, bool) {
	info := f.t.pkg.Info
	e = ast.Unparen(e)
	tv := info.Types[e]
	if tv.Value != nil {
		if n, ok := constant.Uint64Val(constant.ToInt(tv.Value)); ok {
			return n, true
		}
		return 0, false
	}
	sc, msg := scalarOf(tv.Type)
	if msg != "" || !sc.isInt() {
		return 0, false
	}
	_, tmax := intRange(sc)
	typeMax := uint64(tmax)
	m, ok := uint64(0), false
	switch x := e.(type) {
	case *ast.BinaryExpr:
		a, okA := f.bound(x.X)
		b, okB := f.bound(x.Y)
		switch x.Op {
		case token.AND:
			switch {
			case okA && okB:
				m, ok = min(a, b), true
			case okA:
				m, ok = a, true
			case okB:
				m, ok = b, true
			}
		case token.SHL:
			if c := info.Types[x.Y].Value; okA && c != nil {
				if n, exact := constant.Uint64Val(constant.ToInt(c)); exact && n < 32 && a <= typeMax>>n {
					m, ok = a<<n, true
				}
			}
		case token.SHR:
			if okA {
				m, ok = a, true
				if c := info.Types[x.Y].Value; c != nil {
					if n, exact := constant.Uint64Val(constant.ToInt(c)); exact && n < 64 {
						m = a >> n
					}
				}
			}
		case token.ADD:
			m, ok = a+b, okA && okB && a <= typeMax && b <= typeMax-a
		case token.MUL:
			m, ok = a*b, okA && okB && (a == 0 || b <= typeMax/a)
		case token.REM:
			if okA && okB && b > 0 {
				m, ok = min(a, b-1), true
			}
		case token.OR, token.XOR:
			if okA && okB {
				m, ok = 1<<bitLen(max(a, b))-1, true
			}
		}
	case *ast.Ident:
		if v, isVar := info.Uses[x].(*types.Var); isVar {
			if init := f.single[v]; init != nil && !f.bounding[v] {
				f.bounding[v] = true
				m, ok = f.bound(init)
				delete(f.bounding, v)
			}
		}
	case *ast.CallExpr:
		if info.Types[x.Fun].IsType() && len(x.Args) == 1 {
			if a, okA := f.bound(x.Args[0]); okA {
				m, ok = a, true
			}
		}
	}
	if ok && m <= typeMax {
		return m, true
	}
	if !sc.signed {
		return typeMax, true
	}
	return 0, false
}

func bitLen(x uint64) uint {
	n := uint(0)
	for ; x != 0; x >>= 1 {
		n++
	}
	return n
}

func (f *fnTr) unary(e *ast.UnaryExpr, sc scalar) cexpr {
	switch e.Op {
	case token.AND:
		f.t.errorf(e.OpPos, "taking an address (&) is not in the device subset")
		return badExpr
	case token.ARROW:
		f.t.errorf(e.OpPos, "channels are not in the device subset")
		return badExpr
	}
	x := f.expr(e.X)
	if x.bad {
		return badExpr
	}
	switch e.Op {
	case token.ADD:
		return x
	case token.NOT:
		return cexpr{s: "(!" + x.s + ")", sc: sc}
	case token.SUB:
		switch {
		case sc.isFloat():
			return cexpr{s: "(-" + x.s + ")", sc: sc}
		}
		return mkInt(sc, "0u - "+widen(x))
	case token.XOR:
		return mkInt(sc, "~"+widen(x))
	}
	f.t.errorf(e.OpPos, "operator %s is not in the device subset", e.Op)
	return badExpr
}

// call translates a conversion, a helper call, a block method call or a
// scalar intrinsic.
func (f *fnTr) call(e *ast.CallExpr, sc scalar) cexpr {
	info := f.t.pkg.Info
	fun := ast.Unparen(e.Fun)
	ftv := info.Types[fun]
	if ftv.IsType() {
		return f.conversion(e, sc)
	}
	if name := f.formatsIntrinsic(e); name != "" {
		return f.intrinsicCall(name, e, sc)
	}
	if ftv.IsBuiltin() {
		name := "builtin"
		if id, ok := fun.(*ast.Ident); ok {
			name = id.Name
		}
		f.t.errorf(e.Pos(), "builtin %s is not in the device subset", name)
		return badExpr
	}
	if e.Ellipsis.IsValid() {
		f.t.errorf(e.Ellipsis, "variadic calls are not in the device subset")
		return badExpr
	}
	var args []string
	var recvArg string
	var cname string
	switch x := fun.(type) {
	case *ast.Ident:
		cname = f.funcRef(x, e)
	case *ast.SelectorExpr:
		sel := info.Selections[x]
		if sel == nil { // qualified identifier pkg.F
			cname = f.funcRef(x.Sel, e)
			break
		}
		if sel.Kind() != types.MethodVal {
			f.t.errorf(e.Pos(), "calls of function values are not in the device subset")
			return badExpr
		}
		m := sel.Obj().(*types.Func)
		recvT := sel.Recv()
		if p, ok := recvT.(*types.Pointer); ok {
			recvT = p.Elem()
		}
		if name := specScalarName(recvT); name != "" {
			in, ok := intrinsics[name+"."+m.Name()]
			if !ok {
				f.t.errorf(x.Sel.Pos(), "method %s.%s is not in the device subset; only Half.Float32, BFloat16.Float32, E8M0.Float32 and E8M0.HalfScale are", name, m.Name())
				return badExpr
			}
			r := f.expr(x.X)
			if r.bad {
				return badExpr
			}
			if f.arithHalves[e] {
				in = "forge_half_to_f32_arith"
			}
			return cexpr{s: in + "(" + bare(r.s) + ")", sc: sc}
		}
		if types.Unalias(recvT) != types.Type(f.t.block) {
			f.t.errorf(x.Sel.Pos(), "method calls on %s are not in the device subset; only methods of the block %s are", recvT, f.t.block.Obj().Name())
			return badExpr
		}
		if !f.isRecv(x.X) {
			f.t.errorf(x.X.Pos(), "block methods can only be called on the receiver")
			return badExpr
		}
		if m.Pkg() != f.t.pkg.Types {
			f.t.errorf(x.Sel.Pos(), "method %s is not in this package", m.Name())
			return badExpr
		}
		cname = f.t.need(m, x.Sel.Pos())
		recvArg = f.names[f.recv]
	default:
		f.t.errorf(e.Pos(), "calls of function values are not in the device subset")
		return badExpr
	}
	if cname == "" {
		return badExpr
	}
	if recvArg != "" {
		args = append(args, recvArg)
	}
	ok := true
	for _, a := range e.Args {
		x := f.expr(a)
		ok = ok && !x.bad
		args = append(args, bare(x.s))
	}
	if !ok {
		return badExpr
	}
	s := cname + "("
	for i, a := range args {
		if i > 0 {
			s += ", "
		}
		s += a
	}
	return cexpr{s: s + ")", sc: sc}
}

// funcRef resolves a called function name: a helper of this package
// (translated on demand) or formats.HalfFromFloat32; "" after an error.
func (f *fnTr) funcRef(id *ast.Ident, call *ast.CallExpr) string {
	switch o := f.t.pkg.Info.Uses[id].(type) {
	case *types.Func:
		if o.Pkg() != nil && o.Pkg().Path() == FormatsPath && o.Name() == "HalfFromFloat32" {
			return "forge_f32_to_half"
		}
		if o.Pkg() != f.t.pkg.Types {
			f.t.errorf(call.Pos(), "call of %s.%s: only this package's functions and the scalar conversions of package formats are in the device subset", o.Pkg().Name(), o.Name())
			return ""
		}
		if o.Origin() != o || o.Type().(*types.Signature).TypeParams().Len() > 0 {
			f.t.errorf(call.Pos(), "generic functions are not in the device subset")
			return ""
		}
		return f.t.need(o, id.Pos())
	case *types.Var:
		f.t.errorf(call.Pos(), "calls of function values are not in the device subset")
	default:
		f.t.errorf(call.Pos(), "%s cannot be called in the device subset", id.Name)
	}
	return ""
}

// conversion translates T(x) between device scalar types. Integer
// conversions are C casts, which truncate or extend in two's complement as
// Go does; integer to float32 rounds to nearest even in both. float32 to an
// integer is rejected: Go leaves out-of-range results implementation-defined.
func (f *fnTr) conversion(e *ast.CallExpr, sc scalar) cexpr {
	if len(e.Args) != 1 {
		f.t.errorf(e.Pos(), "conversion takes one argument")
		return badExpr
	}
	x := f.expr(e.Args[0])
	if x.bad {
		return badExpr
	}
	if x.sc.isFloat() && sc.isInt() {
		f.t.errorf(e.Pos(), "conversion from float32 to %s is not in the device subset: Go leaves out-of-range float-to-integer conversions implementation-defined (amd64 and arm64 differ), so the device cannot match them", sc.goName)
		return badExpr
	}
	switch {
	case x.sc.c == sc.c && !sc.isFloat():
		return cexpr{s: x.s, w: x.w, sc: sc}
	case sc.isU32() && x.sc.isInt():
		if x.w != "" {
			return cexpr{s: x.w, sc: sc}
		}
		return cexpr{s: wrap(widen(x)), sc: sc}
	case sc.isI32() && x.sc.isInt():
		return cexpr{s: "((int32_t)" + x.s + ")", w: wrap(widen(x)), sc: sc}
	}
	return cexpr{s: "((" + sc.c + ")" + x.s + ")", sc: sc}
}

// constLit is a Go constant of device type sc as a typed C operand.
func constLit(v constant.Value, sc scalar) string {
	switch sc.class {
	case cBool:
		if constant.BoolVal(v) {
			return "true"
		}
		return "false"
	case cFloat:
		s := floatLit(constFloat32(v))
		if s[0] == '-' {
			return "(" + s + ")"
		}
		return s
	}
	n, _ := constant.Int64Val(constant.ToInt(v))
	switch {
	case sc.isU32():
		return strconv.FormatUint(uint64(uint32(n)), 10) + "u"
	case sc.isI32():
		if n == math.MinInt32 {
			return "(-2147483647 - 1)"
		}
		if n < 0 {
			return "(" + strconv.FormatInt(n, 10) + ")"
		}
		return strconv.FormatInt(n, 10)
	}
	return "((" + sc.c + ")" + strconv.FormatInt(n, 10) + ")"
}

func constFloat32(v constant.Value) float32 {
	x, _ := constant.Float32Val(constant.ToFloat(v))
	return x
}

// floatLit is the exact C hex-float literal of x (no parentheses).
func floatLit(x float32) string {
	return strconv.FormatFloat(float64(x), 'x', -1, 32) + "f"
}
