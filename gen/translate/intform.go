package translate

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"

	"github.com/rocmforge/forge/gen/ir"
)

// The integer form: a block's Codes, Scale and Offset methods (see
// specs/formats' intForm) and the intrinsics they use, Word32, Word16,
// Lut16 and Dot4 of package formats.

// intMethods are the integer form's block methods, with the signature each
// must have; they are emitted like Dequant (not static), for the kernels.
var intMethods = []struct{ name, param, result string }{
	{"Codes", "w", "uint32"},
	{"Scale", "s", "float32"},
	{"Offset", "s", "float32"},
	// the super form (param "": no parameter)
	{"SuperScale", "", "float32"},
	{"SubScale", "s", "int32"},
	{"SuperOffset", "", "float32"},
	{"SubOffset", "s", "int32"},
}

// entryMethod reports whether a block method is one the kernels call.
func entryMethod(name string) bool {
	switch name {
	case "Dequant", "Codes", "Scale", "Offset", "SuperScale", "SubScale", "SuperOffset", "SubOffset":
		return true
	}
	return false
}

// intForm translates the block's integer-form methods, if it defines any,
// into dev.Int (Sub is the caller's: it comes from the format's Meta).
func (t *translator) intForm(dev *ir.Device) {
	found := map[string]*types.Func{}
	for i := 0; i < t.block.NumMethods(); i++ {
		m := t.block.Method(i)
		for _, im := range intMethods {
			if m.Name() == im.name {
				found[im.name] = m
			}
		}
	}
	if len(found) == 0 {
		return
	}
	typeName := t.block.Obj().Name()
	ok := true
	for _, im := range intMethods {
		m := found[im.name]
		if m == nil {
			continue
		}
		sig := m.Type().(*types.Signature)
		_, ptr := sig.Recv().Type().(*types.Pointer)
		res := types.Typ[types.Uint32]
		switch im.result {
		case "float32":
			res = types.Typ[types.Float32]
		case "int32":
			res = types.Typ[types.Int32]
		}
		params := sig.Params().Len() == 1 && types.Identical(sig.Params().At(0).Type(), types.Typ[types.Int32])
		param := im.param + " int32"
		if im.param == "" {
			params, param = sig.Params().Len() == 0, ""
		}
		if !ptr || !params || sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), res) {
			t.errorf(m.Pos(), "%s must have the signature func (b *%s) %s(%s) %s", im.name, typeName, im.name, param, im.result)
			ok = false
		}
	}
	// The super form's methods come in pairs, and its offsets need its scales.
	for _, pair := range [][2]string{{"SuperScale", "SubScale"}, {"SuperOffset", "SubOffset"}, {"SuperScale", "SuperOffset"}} {
		if found[pair[0]] == nil && found[pair[1]] != nil {
			t.errorf(found[pair[1]].Pos(), "block type %s defines %s but no %s (the super form: SuperScale and SubScale, and SuperOffset and SubOffset for offsets)", typeName, pair[1], pair[0])
			ok = false
		}
	}
	if found["SuperScale"] != nil && found["SubScale"] == nil {
		t.errorf(found["SuperScale"].Pos(), "block type %s defines SuperScale but no SubScale", typeName)
		ok = false
	}
	if found["SuperOffset"] != nil && found["SubOffset"] == nil {
		t.errorf(found["SuperOffset"].Pos(), "block type %s defines SuperOffset but no SubOffset", typeName)
		ok = false
	}
	for _, need := range []string{"Codes", "Scale"} {
		if found[need] == nil {
			var at token.Pos
			for _, m := range found {
				at = m.Pos()
			}
			t.errorf(at, "block type %s defines part of the integer form but no %s method; it needs Codes and Scale (and may have Offset)", typeName, need)
			ok = false
		}
	}
	if !ok {
		return
	}
	in := &ir.IntForm{Align: int(t.blockAlign)}
	in.Codes = t.need(found["Codes"], found["Codes"].Pos())
	in.Scale = t.need(found["Scale"], found["Scale"].Pos())
	if m := found["Offset"]; m != nil {
		in.Offset = t.need(m, m.Pos())
	}
	if m := found["SuperScale"]; m != nil {
		in.SuperScale = t.need(m, m.Pos())
		in.SubScale = t.need(found["SubScale"], found["SubScale"].Pos())
	}
	if m := found["SuperOffset"]; m != nil {
		in.SuperOffset = t.need(m, m.Pos())
		in.SubOffset = t.need(found["SubOffset"], found["SubOffset"].Pos())
	}
	dev.Int = in
}

// formatsIntrinsic is the name of the package-formats intrinsic function
// the call e calls (Word32, Word16, Lut16, Dot4), or "".
func (f *fnTr) formatsIntrinsic(e *ast.CallExpr) string {
	var id *ast.Ident
	switch x := ast.Unparen(e.Fun).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		if f.t.pkg.Info.Selections[x] != nil {
			return ""
		}
		id = x.Sel
	case *ast.IndexExpr: // Word32[uint8](...)
		return f.formatsIntrinsic(&ast.CallExpr{Fun: x.X})
	default:
		return ""
	}
	fn, ok := f.t.pkg.Info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != FormatsPath {
		return ""
	}
	switch fn.Origin().Name() {
	case "Word32", "Word16", "Lut16", "Dot4":
		return fn.Origin().Name()
	}
	return ""
}

// intrinsicCall translates a call of Word32, Word16, Lut16 or Dot4.
func (f *fnTr) intrinsicCall(name string, e *ast.CallExpr, sc scalar) cexpr {
	if name == "Lut16" {
		return f.lut16(e, sc)
	}
	if name == "Dot4" {
		var args []string
		ok := true
		for _, a := range e.Args {
			x := f.expr(a)
			ok = ok && !x.bad
			args = append(args, bare(x.s))
		}
		if !ok || len(args) != 3 {
			return badExpr
		}
		return cexpr{s: "forge_dot4(" + args[0] + ", " + args[1] + ", " + args[2] + ")", sc: sc}
	}
	bytes := int64(4)
	if name == "Word16" {
		bytes = 2
	}
	if len(e.Args) != 2 {
		return badExpr // the type checker has reported it
	}
	field, off, n, ok := f.byteField(name, e.Args[0])
	idx := f.expr(e.Args[1])
	if !ok || idx.bad {
		return badExpr
	}
	if v := f.t.pkg.Info.Types[ast.Unparen(e.Args[1])].Value; v != nil {
		if i, exact := constant.Int64Val(constant.ToInt(v)); !exact || i < 0 || i+bytes > n {
			f.t.errorf(e.Args[1].Pos(), "%s reads bytes %s..+%d of a %d-byte field: out of range", name, v, bytes-1, n)
			return badExpr
		}
	}
	// The widest load the address's alignment allows: the block's (see
	// translateBlock), the field offset's and the index's.
	align := min(bytes, f.t.blockAlign, lowBit(uint64(off)), f.multiple(e.Args[1]))
	return cexpr{s: "forge_word" + strconv.FormatInt(8*bytes, 10) + "_a" + strconv.FormatInt(align, 10) +
		"(" + field + " + " + wrap(idx.s) + ")", sc: sc}
}

// lut16 translates Lut16(&table, q) into forge_lut16(t0, t1, t2, t3, q),
// where t0..t3 are the table's 16 bytes packed little-endian into 32-bit
// constants (t0 holds entries 0..3, entry 0 in the low byte): the device
// selects from them in registers, so the table is not emitted for it.
func (f *fnTr) lut16(e *ast.CallExpr, sc scalar) cexpr {
	if len(e.Args) != 2 {
		return badExpr // the type checker has reported it
	}
	words, ok := f.lutTable(e.Args[0])
	q := f.expr(e.Args[1])
	if !ok || q.bad {
		return badExpr
	}
	s := "forge_lut16("
	for _, w := range words {
		s += fmt.Sprintf("0x%08Xu, ", w)
	}
	return cexpr{s: s + bare(q.s) + ")", sc: sc}
}

// lutTable checks that e is &table for a package-level [16]int8 table of
// this package initialised by a constant composite literal, and returns
// its entries packed four to a word.
func (f *fnTr) lutTable(e ast.Expr) ([4]uint32, bool) {
	const form = "Lut16(&table, q) with var table = [16]int8{...}"
	var words [4]uint32
	info := f.t.pkg.Info
	u, isAddr := ast.Unparen(e).(*ast.UnaryExpr)
	var id *ast.Ident
	if isAddr && u.Op == token.AND {
		id, _ = ast.Unparen(u.X).(*ast.Ident)
	}
	var v *types.Var
	if id != nil {
		v, _ = info.Uses[id].(*types.Var)
	}
	if v == nil || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		f.t.errorf(e.Pos(), "Lut16's first argument must be the address of a package-level table, %s", form)
		return words, false
	}
	if v.Pkg() != f.t.pkg.Types {
		f.t.errorf(e.Pos(), "Lut16 of table %s.%s: only this package's tables are in the device subset", v.Pkg().Name(), v.Name())
		return words, false
	}
	lit, isLit := ast.Unparen(f.t.varInits[v]).(*ast.CompositeLit)
	if !isLit {
		f.t.errorf(e.Pos(), "Lut16's table %s must be initialised by a constant composite literal (var %s = [16]int8{...}): the translator packs its values into constants", v.Name(), v.Name())
		return words, false
	}
	arr := types.Unalias(v.Type()).Underlying().(*types.Array) // [16]int8: Lut16's parameter type says so
	vals, ok := f.t.litValues(v, lit, arr)
	if !ok {
		return words, false
	}
	for i, val := range vals {
		n, _ := constant.Int64Val(val.(constant.Value))
		words[i/4] |= uint32(uint8(n)) << (8 * (i % 4))
	}
	return words, true
}

// byteField checks that e is a receiver's byte-array field sliced whole,
// b.F[:], and returns its C lvalue, byte offset and length.
func (f *fnTr) byteField(name string, e ast.Expr) (string, int64, int64, bool) {
	info := f.t.pkg.Info
	form := fmt.Sprintf("%s(b.Field[:], i)", name)
	sl, isSlice := ast.Unparen(e).(*ast.SliceExpr)
	if !isSlice || sl.Low != nil || sl.High != nil || sl.Max != nil {
		f.t.errorf(e.Pos(), "%s's first argument must be a byte-array field of the receiver sliced whole: %s", name, form)
		return "", 0, 0, false
	}
	x := ast.Unparen(sl.X)
	sel, isSel := x.(*ast.SelectorExpr)
	var s *types.Selection
	if isSel {
		s = info.Selections[sel]
	}
	if s == nil || s.Kind() != types.FieldVal || !f.isRecv(sel.X) {
		f.t.errorf(x.Pos(), "%s reads only the receiver's byte-array fields: %s", name, form)
		return "", 0, 0, false
	}
	v := s.Obj().(*types.Var)
	arr, isArr := types.Unalias(v.Type()).(*types.Array)
	if isArr {
		if b, isBasic := types.Unalias(arr.Elem()).(*types.Basic); !isBasic || b.Kind() != types.Uint8 && b.Kind() != types.Int8 {
			isArr = false
		}
	}
	if !isArr {
		f.t.errorf(x.Pos(), "%s reads arrays of uint8 or int8; field %s is %s", name, v.Name(), v.Type())
		return "", 0, 0, false
	}
	return f.names[f.recv] + "->" + f.t.fieldName(v), f.t.fieldOff[v], arr.Len(), true
}

// multiple is a power of two (at most 16) that provably divides the
// integer expression e, for the alignment of Word32 and Word16 indices:
// constants, sums and differences, products, shifts left by constants,
// masks, conversions, and locals assigned once. Two's complement wrap-around
// keeps every power-of-two factor, so no range reasoning is needed.
func (f *fnTr) multiple(e ast.Expr) int64 {
	const most = 16
	info := f.t.pkg.Info
	e = ast.Unparen(e)
	if v := info.Types[e].Value; v != nil {
		n, _ := constant.Int64Val(constant.ToInt(v))
		if n == 0 {
			return most
		}
		return min(most, lowBit(uint64(n)))
	}
	switch x := e.(type) {
	case *ast.BinaryExpr:
		a, b := f.multiple(x.X), f.multiple(x.Y)
		switch x.Op {
		case token.ADD, token.SUB, token.OR, token.XOR:
			return min(a, b)
		case token.MUL:
			return min(most, a*b)
		case token.AND:
			return max(a, b)
		case token.SHL:
			if c := info.Types[x.Y].Value; c != nil {
				if n, exact := constant.Uint64Val(constant.ToInt(c)); exact && n < 8 {
					return min(most, a<<n)
				}
			}
		}
	case *ast.Ident:
		if v, isVar := info.Uses[x].(*types.Var); isVar {
			if init := f.single[v]; init != nil && !f.bounding[v] {
				f.bounding[v] = true
				m := f.multiple(init)
				delete(f.bounding, v)
				return m
			}
		}
	case *ast.CallExpr:
		// Conversions to any integer type keep the low 8 bits at least.
		if info.Types[x.Fun].IsType() && len(x.Args) == 1 {
			return f.multiple(x.Args[0])
		}
	}
	return 1
}

// lowBit is the largest power of two dividing n (n > 0), or 1<<62 for 0.
func lowBit(n uint64) int64 {
	if n == 0 {
		return 1 << 62
	}
	return int64(n & -n)
}

// Format translates the block of format f (Block) and completes its integer
// form from f's Meta: Sub from SubBlock, or IntWhy from NoIntForm. A
// SubBlock without Codes and Scale, or the methods without a SubBlock, is an
// error at the SubBlock field (or the register call).
func Format(pkg *Package, f *ir.Format) (*ir.Device, error) {
	dev, err := Block(pkg, f.BlockType)
	if err != nil {
		return nil, err
	}
	at := f.Fields.Of("SubBlock")
	if !at.IsValid() {
		at = f.Pos
	}
	switch {
	case f.SubBlock > 0 && dev.Int == nil:
		return nil, ErrorList{{Pos: at, Msg: fmt.Sprintf("format %s: SubBlock %d declares an integer form, but %s has no Codes and Scale methods", f.Name, f.SubBlock, f.BlockType)}}
	case f.SubBlock == 0 && dev.Int != nil:
		return nil, ErrorList{{Pos: at, Msg: fmt.Sprintf("format %s: %s defines the integer form (Codes, Scale), but Meta.SubBlock is 0; declare its sub-block, 16 or 32", f.Name, f.BlockType)}}
	case dev.Int != nil && dev.Int.SuperScale != "" && dev.Int.Offset != "" && f.IntZero == 0 && dev.Int.SuperOffset == "":
		return nil, ErrorList{{Pos: at, Msg: fmt.Sprintf("format %s: %s has a super form (SuperScale, SubScale) and offsets that no IntZero accounts for, but no SuperOffset and SubOffset", f.Name, f.BlockType)}}
	case dev.Int != nil:
		dev.Int.Sub = f.SubBlock
	case f.NoIntForm != "":
		dev.IntWhy = f.NoIntForm
	default:
		dev.IntWhy = "the spec declares none (Meta.SubBlock is 0) and gives no reason (Meta.NoIntForm)"
	}
	return dev, nil
}
