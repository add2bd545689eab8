package translate

import (
	"go/ast"
	"go/token"
	"go/types"
)

// arithOnlyHalves finds the Half.Float32 calls in body whose value only
// feeds float arithmetic (+, -, *, /): an operand of one, or the
// initialiser of a local that is assigned nowhere else and used only as
// such operands. Those widen with forge_half_to_f32_arith, which on NVIDIA
// is one cvt instruction: the NaN payload that forge_half_to_f32 keeps
// cannot reach a result there, because NVIDIA's float arithmetic returns
// the canonical NaN for any NaN operand, so every output bit is the same.
// (A value returned, compared, negated or converted keeps the exact form.)
func arithOnlyHalves(body *ast.BlockStmt, info *types.Info) map[*ast.CallExpr]bool {
	parent := map[ast.Node]ast.Node{}
	var stack []ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
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
	uses := map[types.Object][]*ast.Ident{}
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if o := info.Uses[id]; o != nil {
				uses[o] = append(uses[o], id)
			}
		}
		return true
	})
	out := map[*ast.CallExpr]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !isHalfFloat32(call, info) {
			return true
		}
		if operand(call) {
			out[call] = true
			return true
		}
		// v := h.Float32() (or var v = ...), v's every use an operand.
		var obj types.Object
		switch p := parent[call].(type) {
		case *ast.AssignStmt:
			if p.Tok == token.DEFINE && len(p.Lhs) == 1 && len(p.Rhs) == 1 {
				if id, ok := p.Lhs[0].(*ast.Ident); ok {
					obj = info.Defs[id]
				}
			}
		case *ast.ValueSpec:
			if len(p.Names) == 1 && len(p.Values) == 1 {
				obj = info.Defs[p.Names[0]]
			}
		}
		if obj == nil || len(uses[obj]) == 0 {
			return true
		}
		for _, id := range uses[obj] {
			if !operand(id) {
				return true
			}
		}
		out[call] = true
		return true
	})
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
