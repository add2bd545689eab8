package translate

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
	"strings"
)

// needTable makes sure the package-level table v is emitted and returns its
// C name. A table is read-only device data whose values come from a
// constant composite literal.
func (t *translator) needTable(v *types.Var, at token.Pos) string {
	if name, ok := t.tableC[v]; ok {
		return name
	}
	name := "forge_" + v.Name()
	t.tableC[v] = name
	if v.Pkg() != t.pkg.Types {
		t.errorf(at, "table %s.%s is in another package; only this package's tables are in the device subset", v.Pkg().Name(), v.Name())
		return name
	}
	if !asciiIdent(v.Name()) {
		t.errorf(v.Pos(), "identifier %s is not ASCII; device code names must be", v.Name())
		return name
	}
	t.global(name, v.Pos(), "table "+v.Name())
	decl, msg := t.cDecl(v.Type(), name)
	if msg != "" {
		t.errorf(v.Pos(), "table %s: %s", v.Name(), msg)
		return name
	}
	sc, _ := scalarOf(arrayElem(v.Type()))
	arr := types.Unalias(v.Type()).Underlying().(*types.Array)
	var vals []any
	ok := false
	init := t.varInits[v]
	if lit, isLit := ast.Unparen(init).(*ast.CompositeLit); isLit {
		vals, ok = t.litValues(v, lit, arr)
	} else {
		p := v.Pos()
		if init != nil {
			p = init.Pos()
		}
		t.errorf(p, "table %s must be initialised by a constant composite literal (var %s = %s{...}): the translator reads table values from the source", v.Name(), v.Name(), types.TypeString(v.Type(), types.RelativeTo(t.pkg.Types)))
	}
	if !ok {
		return name
	}
	var b strings.Builder
	b.WriteString(t.line(v.Pos()))
	b.WriteString("static __device__ const " + decl + " = ")
	writeInit(&b, vals, sc, 0)
	b.WriteString(";\n")
	t.tables = append(t.tables, b.String())
	return name
}

// writeInit writes a brace initialiser of litValues' values as C
// literals of element type sc: scalars eight to a line (up to eight on the
// opening line), nested arrays one to a line.
func writeInit(b *strings.Builder, vals []any, sc scalar, depth int) {
	if len(vals) <= 8 {
		short := make([]string, 0, len(vals))
		for _, v := range vals {
			if c, ok := v.(constant.Value); ok {
				short = append(short, tableLit(c, sc))
			}
		}
		if len(short) == len(vals) {
			b.WriteString("{" + strings.Join(short, ", ") + "}")
			return
		}
	}
	ind := strings.Repeat("\t", depth+1)
	b.WriteString("{\n")
	for i, v := range vals {
		switch v := v.(type) {
		case constant.Value:
			if i%8 == 0 {
				b.WriteString(ind)
			}
			b.WriteString(tableLit(v, sc))
			if i < len(vals)-1 {
				b.WriteString(",")
				if i%8 != 7 {
					b.WriteString(" ")
				}
			}
			if i%8 == 7 || i == len(vals)-1 {
				b.WriteString("\n")
			}
		case []any:
			b.WriteString(ind)
			writeInit(b, v, sc, depth+1)
			if i < len(vals)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString(strings.Repeat("\t", depth) + "}")
}

// tableLit is a table element: an untyped C literal of the exact value,
// which brace initialisation converts to the element type.
func tableLit(v constant.Value, sc scalar) string {
	switch sc.class {
	case cBool:
		if constant.BoolVal(v) {
			return "true"
		}
		return "false"
	case cFloat:
		return floatLit(constFloat32(v))
	}
	n, _ := constant.Int64Val(constant.ToInt(v))
	if sc.isU32() {
		return strconv.FormatUint(uint64(n), 10) + "u"
	}
	if n == math.MinInt32 {
		return "(-2147483647 - 1)"
	}
	return strconv.FormatInt(n, 10)
}

// litValues reads a composite literal's constant elements (keyed or not;
// missing ones are zero), nested literals for nested arrays: each value is
// a constant.Value, or for a nested array a []any of them.
func (t *translator) litValues(v *types.Var, lit *ast.CompositeLit, arr *types.Array) ([]any, bool) {
	vals := make([]any, arr.Len())
	elemArr, nested := types.Unalias(arr.Elem()).Underlying().(*types.Array)
	ok := true
	idx := int64(0)
	for _, e := range lit.Elts {
		if kv, isKV := e.(*ast.KeyValueExpr); isKV {
			k := t.pkg.Info.Types[kv.Key].Value
			if k == nil {
				t.errorf(kv.Key.Pos(), "table %s: index is not a constant", v.Name())
				return nil, false
			}
			idx, _ = constant.Int64Val(constant.ToInt(k))
			e = kv.Value
		}
		if idx < 0 || idx >= arr.Len() {
			return nil, false // the type checker has reported it
		}
		if nested {
			sub, isLit := ast.Unparen(e).(*ast.CompositeLit)
			if !isLit {
				t.errorf(e.Pos(), "table %s: element is not a composite literal; tables must be constant composite literals", v.Name())
				ok = false
			} else if s, good := t.litValues(v, sub, elemArr); good {
				vals[idx] = s
			} else {
				ok = false
			}
		} else if c := t.pkg.Info.Types[e].Value; c == nil {
			t.errorf(e.Pos(), "table %s: element is not a constant; tables must be constant composite literals", v.Name())
			ok = false
		} else {
			vals[idx] = c
		}
		idx++
	}
	for i := range vals {
		if vals[i] == nil {
			if nested {
				vals[i] = zeroValues(elemArr)
			} else {
				vals[i] = constant.MakeInt64(0)
			}
		}
	}
	return vals, ok
}

func zeroValues(arr *types.Array) []any {
	vals := make([]any, arr.Len())
	elemArr, nested := types.Unalias(arr.Elem()).Underlying().(*types.Array)
	for i := range vals {
		if nested {
			vals[i] = zeroValues(elemArr)
		} else {
			vals[i] = constant.MakeInt64(0)
		}
	}
	return vals
}
