package load

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/specs/check"
)

// decode sets *dst, a value of a spec package's own Go type, to the spec
// literal e read from source, by reflection over dst's type: a struct
// literal's fields by name, lists element by element, constants (typed or
// not) converted to the field's type. Anything that is not a constant or a
// composite literal of constants (a call, a variable, an expression
// go/types cannot evaluate) is an error at its position: specs are read,
// never run. what names the value in errors ("target GFX1100"). It reports
// every problem it finds, and returns the position of each part of e (see
// ir.Positions) and whether it decoded all of them.
func (l *loader) decode(info *types.Info, e ast.Expr, dst any, what string) (ir.Positions, bool) {
	d := &decoding{l: l, info: info, what: what, at: ir.Positions{}, ok: true}
	d.value(e, reflect.ValueOf(dst).Elem(), "")
	return d.at, d.ok
}

// decoding is one decode call's state.
type decoding struct {
	l    *loader
	info *types.Info
	what string
	at   ir.Positions
	ok   bool
}

func (d *decoding) errorf(n ast.Node, format string, args ...any) {
	d.l.errorf(n.Pos(), format, args...)
	d.ok = false
}

// value decodes e, the part at path, into v.
func (d *decoding) value(e ast.Expr, v reflect.Value, path string) {
	e = ast.Unparen(e)
	d.at[path] = d.l.pos(e.Pos())
	name := check.Join(d.what, path)
	tv := d.info.Types[e]
	switch {
	case tv.Value != nil:
		d.constant(e, tv.Value, v, name)
		return
	case tv.IsNil():
		switch v.Kind() {
		case reflect.Slice, reflect.Map, reflect.Pointer:
			v.SetZero()
		default:
			d.errorf(e, "%s: nil cannot be a %s", name, v.Type())
		}
		return
	}
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND && v.Kind() == reflect.Pointer {
		e = ast.Unparen(u.X) // &T{...}
	}
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		d.errorf(e, "%s is not a constant or a composite literal of constants: specs are read from source, never run", name)
		return
	}
	if v.Kind() == reflect.Pointer { // &T{...}, or an element of []*T written {...}
		v.Set(reflect.New(v.Type().Elem()))
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		d.structLit(cl, tv.Type, v, path, name)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), len(cl.Elts), len(cl.Elts)))
		d.list(cl, v, path, name)
	case reflect.Array:
		if len(cl.Elts) > v.Len() {
			d.errorf(cl, "%s: %d elements, but a %s holds %d", name, len(cl.Elts), v.Type(), v.Len())
			return
		}
		d.list(cl, v, path, name)
	case reflect.Map:
		d.mapLit(cl, v, path, name)
	default:
		d.errorf(cl, "%s: a %s literal cannot be a %s", name, tv.Type, v.Type())
	}
}

// structLit decodes a struct literal, whose fields must be keyed.
func (d *decoding) structLit(cl *ast.CompositeLit, src types.Type, v reflect.Value, path, name string) {
	if n, ok := types.Unalias(src).(*types.Named); ok && v.Type().Name() != "" && n.Obj().Name() != v.Type().Name() {
		d.errorf(cl, "%s: a %s literal cannot be a %s", name, n.Obj().Name(), v.Type())
		return
	}
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok { // go/types allows no mix: the literal is unkeyed
			d.errorf(el, "%s: use keyed fields (Name: value) in spec literals", name)
			return
		}
		key := kv.Key.(*ast.Ident).Name // go/types accepted the literal: a field name
		f, ok := v.Type().FieldByName(key)
		switch {
		case !ok || len(f.Index) != 1:
			d.errorf(kv.Key, "%s: the generator's %s has no field %s (it was built from other specs: go run it from this tree)", name, v.Type(), key)
			continue
		case !f.IsExported():
			d.errorf(kv.Key, "%s: field %s is unexported, which a spec value cannot set", name, key)
			continue
		}
		d.value(kv.Value, v.Field(f.Index[0]), check.Join(path, key))
	}
}

// list decodes the elements of a slice or array literal into v, which
// has room for them.
func (d *decoding) list(cl *ast.CompositeLit, v reflect.Value, path, name string) {
	for i, el := range cl.Elts {
		if _, ok := el.(*ast.KeyValueExpr); ok {
			d.errorf(el, "%s: indexed elements are not supported in spec lists", name)
			continue
		}
		d.value(el, v.Index(i), check.Index(path, i))
	}
}

// mapLit decodes a map literal; each element's path is its key's Go
// syntax: Shapes["wide"].
func (d *decoding) mapLit(cl *ast.CompositeLit, v reflect.Value, path, name string) {
	v.Set(reflect.MakeMapWithSize(v.Type(), len(cl.Elts)))
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			d.errorf(el, "%s: a map literal's elements are key: value", name)
			continue
		}
		k := reflect.New(v.Type().Key()).Elem()
		c := d.info.Types[kv.Key].Value
		if c == nil {
			d.errorf(kv.Key, "%s: map key is not a constant", name)
			continue
		}
		d.constant(kv.Key, c, k, name)
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(kv.Value, elem, fmt.Sprintf("%s[%s]", path, c.ExactString()))
		v.SetMapIndex(k, elem)
	}
}

// constant sets v to c, reporting a constant v's type cannot hold.
func (d *decoding) constant(e ast.Expr, c constant.Value, v reflect.Value, name string) {
	bad := func() { d.errorf(e, "%s: constant %s cannot be a %s", name, c, v.Type()) }
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, exact := constant.Int64Val(constant.ToInt(c))
		if !exact || v.OverflowInt(i) {
			bad()
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, exact := constant.Uint64Val(constant.ToInt(c))
		if !exact || v.OverflowUint(u) {
			bad()
			return
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		f := constant.ToFloat(c)
		x, _ := constant.Float64Val(f)
		if f.Kind() != constant.Float && f.Kind() != constant.Int || v.OverflowFloat(x) {
			bad()
			return
		}
		v.SetFloat(x)
	case reflect.String:
		if c.Kind() != constant.String {
			bad()
			return
		}
		v.SetString(constant.StringVal(c))
	case reflect.Bool:
		if c.Kind() != constant.Bool {
			bad()
			return
		}
		v.SetBool(constant.BoolVal(c))
	default:
		bad()
	}
}
