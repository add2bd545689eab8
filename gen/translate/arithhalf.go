package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// arithOnlyHalves finds the Half.Float32 calls in f's body whose value
// only feeds float arithmetic (+, -, *, /): an operand of one, or the
// initialiser of a single-assignment local (f.single, so findSingles runs
// first) used only as such operands. Those widen with
// forge_half_to_f32_arith, which on NVIDIA is one cvt instruction: the NaN
// payload that forge_half_to_f32 keeps cannot reach a result there,
// because NVIDIA's float arithmetic returns the canonical NaN for any NaN
// operand, so every output bit is the same. (A value returned, compared,
// negated or converted keeps the exact form.)
func (f *fnTr) arithOnlyHalves() map[*ast.CallExpr]bool {
	info := f.t.pkg.Info
	parent := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if len(stack) > 0 {
			parent[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	// operand reports whether n (parentheses aside) is an operand of a
	// float +, -, * or /.
	operand := func(n ast.Node) bool {
		p := parent[n]
		for {
			pe, ok := p.(*ast.ParenExpr)
			if !ok {
				break
			}
			p = parent[pe]
		}
		b, ok := p.(*ast.BinaryExpr)
		if !ok {
			return false
		}
		switch b.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO:
		default:
			return false
		}
		t, ok := info.Types[b].Type.Underlying().(*types.Basic)
		return ok && t.Info()&types.IsFloat != 0
	}
	out := map[*ast.CallExpr]bool{}
	uses := map[*types.Var][]*ast.Ident{}
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if v, ok := info.Uses[n].(*types.Var); ok {
				uses[v] = append(uses[v], n)
			}
		case *ast.CallExpr:
			if isHalfFloat32(n, info) && operand(n) {
				out[n] = true
			}
		}
		return true
	})
	// v := h.Float32() (or var v = ...), never assigned again, every use an operand.
	for v, init := range f.single {
		call, ok := ast.Unparen(init).(*ast.CallExpr)
		if !ok || !isHalfFloat32(call, info) || len(uses[v]) == 0 {
			continue
		}
		all := true
		for _, id := range uses[v] {
			all = all && operand(id)
		}
		if all {
			out[call] = true
		}
	}
	return out
}

// isHalfFloat32 reports whether call is x.Float32() on a formats.Half.
func isHalfFloat32(call *ast.CallExpr, info *types.Info) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Float32" {
		return false
	}
	s := info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return false
	}
	recv := s.Recv()
	if p, ok := recv.(*types.Pointer); ok {
		recv = p.Elem()
	}
	return specScalarName(recv) == "Half"
}
