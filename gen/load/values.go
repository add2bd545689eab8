package load

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strconv"
)

// lit is a spec value read from source: a constant (int64, float64, string,
// bool), a struct literal (*structLit) or a slice literal ([]any).
type structLit struct {
	typ    string
	fields map[string]any
	pos    map[string]ast.Expr
	node   ast.Expr
}

// value evaluates e, which must be built only of constants and composite
// literals, reporting anything else at its position.
func (l *loader) value(info *types.Info, e ast.Expr, what string) (any, bool) {
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		switch v := tv.Value; v.Kind() {
		case constant.Int:
			if i, exact := constant.Int64Val(v); exact {
				return i, true
			}
		case constant.Float:
			f, _ := constant.Float64Val(v)
			return f, true
		case constant.String:
			return constant.StringVal(v), true
		case constant.Bool:
			return constant.BoolVal(v), true
		}
		l.errorf(e.Pos(), "%s: constant %s is out of range", what, tv.Value)
		return nil, false
	}
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		l.errorf(e.Pos(), "%s is not a constant or a composite literal of constants: specs are read from source, never run", what)
		return nil, false
	}
	t := info.TypeOf(cl)
	switch u := t.Underlying().(type) {
	case *types.Struct:
		s := &structLit{typ: types.TypeString(t, func(*types.Package) string { return "" }),
			fields: map[string]any{}, pos: map[string]ast.Expr{}, node: cl}
		ok := true
		for _, el := range cl.Elts {
			kv, isKV := el.(*ast.KeyValueExpr)
			if !isKV {
				l.errorf(el.Pos(), "%s: use keyed fields (Name: value) in spec literals", what)
				ok = false
				continue
			}
			key := kv.Key.(*ast.Ident).Name
			v, vok := l.value(info, kv.Value, what+"."+key)
			ok = ok && vok
			s.fields[key], s.pos[key] = v, kv.Value
		}
		return s, ok
	case *types.Slice, *types.Array:
		_ = u
		var out []any
		ok := true
		for i, el := range cl.Elts {
			if _, isKV := el.(*ast.KeyValueExpr); isKV {
				l.errorf(el.Pos(), "%s: indexed elements are not supported in spec lists", what)
				ok = false
				continue
			}
			v, vok := l.value(info, el, what+"["+strconv.Itoa(i)+"]")
			ok = ok && vok
			out = append(out, v)
		}
		return out, ok
	}
	l.errorf(e.Pos(), "%s: a %s literal is not a spec value", what, t)
	return nil, false
}

// The getters read one field of a struct literal, reporting a field of the
// wrong kind at its position; an absent field is the zero value.

func (l *loader) str(s *structLit, name string) string {
	v, ok := s.fields[name]
	if !ok {
		return ""
	}
	if x, ok := v.(string); ok {
		return x
	}
	l.errorf(s.pos[name].Pos(), "%s.%s must be a string", s.typ, name)
	return ""
}

func (l *loader) integer(s *structLit, name string) int {
	v, ok := s.fields[name]
	if !ok {
		return 0
	}
	if x, ok := v.(int64); ok {
		return int(x)
	}
	l.errorf(s.pos[name].Pos(), "%s.%s must be an integer", s.typ, name)
	return 0
}

func (l *loader) boolean(s *structLit, name string) bool {
	v, ok := s.fields[name]
	if !ok {
		return false
	}
	if x, ok := v.(bool); ok {
		return x
	}
	l.errorf(s.pos[name].Pos(), "%s.%s must be a bool", s.typ, name)
	return false
}

func (l *loader) strings(s *structLit, name string) []string {
	v, ok := s.fields[name]
	if !ok {
		return nil
	}
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		str, ok := x.(string)
		if !ok {
			l.errorf(s.pos[name].Pos(), "%s.%s must be a list of strings", s.typ, name)
			return nil
		}
		out = append(out, str)
	}
	return out
}

func (l *loader) ints(s *structLit, name string) []int {
	v, ok := s.fields[name]
	if !ok {
		return nil
	}
	list, _ := v.([]any)
	var out []int
	for _, x := range list {
		n, ok := x.(int64)
		if !ok {
			l.errorf(s.pos[name].Pos(), "%s.%s must be a list of integers", s.typ, name)
			return nil
		}
		out = append(out, int(n))
	}
	return out
}

func (l *loader) sub(s *structLit, name string) *structLit {
	v, ok := s.fields[name]
	if !ok {
		return &structLit{typ: s.typ + "." + name, fields: map[string]any{}, pos: map[string]ast.Expr{}, node: s.node}
	}
	if x, ok := v.(*structLit); ok {
		return x
	}
	l.errorf(s.pos[name].Pos(), "%s.%s must be a struct literal", s.typ, name)
	return &structLit{fields: map[string]any{}, pos: map[string]ast.Expr{}, node: s.node}
}

// at is the position to report a problem with field name (the literal when
// the field is absent).
func (s *structLit) at(name string) ast.Expr {
	if e, ok := s.pos[name]; ok {
		return e
	}
	return s.node
}
