package translate

import (
	"go/types"
	"strconv"
)

// class is what kind of device scalar a type is.
type class int

const (
	cBool class = iota + 1
	cInt
	cFloat
)

// scalar is an allowed device scalar type.
type scalar struct {
	class  class
	bits   int  // 8, 16 or 32 (1 for bool)
	signed bool // integers only
	c      string
	goName string
}

func (s scalar) isInt() bool   { return s.class == cInt }
func (s scalar) isFloat() bool { return s.class == cFloat }
func (s scalar) isU32() bool   { return s.class == cInt && s.bits == 32 && !s.signed }
func (s scalar) isI32() bool   { return s.class == cInt && s.bits == 32 && s.signed }

var basicScalars = map[types.BasicKind]scalar{
	types.Bool:        {cBool, 1, false, "bool", "bool"},
	types.UntypedBool: {cBool, 1, false, "bool", "bool"},
	types.Int8:        {cInt, 8, true, "int8_t", "int8"},
	types.Int16:       {cInt, 16, true, "int16_t", "int16"},
	types.Int32:       {cInt, 32, true, "int32_t", "int32"},
	types.Uint8:       {cInt, 8, false, "uint8_t", "uint8"},
	types.Uint16:      {cInt, 16, false, "uint16_t", "uint16"},
	types.Uint32:      {cInt, 32, false, "uint32_t", "uint32"},
	types.Float32:     {cFloat, 32, false, "float", "float32"},
}

// specScalars are the scalar types of package formats, by name, with the C
// typedef the portability header gives each.
var specScalars = map[string]scalar{
	"Half":     {cInt, 16, false, "forge_half", "formats.Half"},
	"BFloat16": {cInt, 16, false, "forge_bfloat16", "formats.BFloat16"},
	"E8M0":     {cInt, 8, false, "forge_e8m0", "formats.E8M0"},
}

// intrinsics maps the scalar types' methods to the header's functions.
var intrinsics = map[string]string{
	"Half.Float32":     "forge_half_to_f32",
	"BFloat16.Float32": "forge_bf16_to_f32",
	"E8M0.Float32":     "forge_e8m0_to_f32",
	"E8M0.HalfScale":   "forge_e8m0_half_scale",
}

// specScalarName is the name of T if it is one of package formats' scalar
// types, else "".
func specScalarName(T types.Type) string {
	n, ok := types.Unalias(T).(*types.Named)
	if !ok {
		return ""
	}
	o := n.Obj()
	if o.Pkg() == nil || o.Pkg().Path() != FormatsPath {
		return ""
	}
	if _, ok := specScalars[o.Name()]; ok {
		return o.Name()
	}
	return ""
}

// scalarOf classifies T, or explains why it is outside the subset.
func scalarOf(T types.Type) (scalar, string) {
	if T == nil {
		return scalar{}, "expression has no type information"
	}
	T = types.Unalias(T)
	if name := specScalarName(T); name != "" {
		return specScalars[name], ""
	}
	switch T := T.(type) {
	case *types.Basic:
		if s, ok := basicScalars[T.Kind()]; ok {
			return s, ""
		}
		return scalar{}, basicMsg(T)
	case *types.Named:
		if T.TypeParams().Len() > 0 || T.TypeArgs().Len() > 0 {
			return scalar{}, "generic type " + T.Obj().Name() + " is not in the device subset"
		}
		if _, ok := T.Underlying().(*types.Struct); ok {
			return scalar{}, "struct values (" + T.Obj().Name() + ") are not in the device subset; only the block is a struct, used through its receiver"
		}
		if b, ok := T.Underlying().(*types.Basic); ok {
			if _, ok := basicScalars[b.Kind()]; ok {
				return scalar{}, "named type " + T.Obj().Name() + " is not in the device subset; use " + b.Name() + " (only formats.Half, formats.BFloat16 and formats.E8M0 are named scalars)"
			}
		}
		_, msg := scalarOf(T.Underlying())
		return scalar{}, msg
	}
	return scalar{}, compositeMsg(T)
}

func basicMsg(T *types.Basic) string {
	switch T.Kind() {
	case types.Int, types.UntypedInt, types.UntypedRune:
		return "int is not in the device subset; use int32"
	case types.Uint:
		return "uint is not in the device subset; use uint32"
	case types.Int64:
		return "int64 is not in the device subset; device integers are at most 32 bits (use int32)"
	case types.Uint64:
		return "uint64 is not in the device subset; device integers are at most 32 bits (use uint32)"
	case types.Uintptr:
		return "uintptr is not in the device subset"
	case types.Float64, types.UntypedFloat:
		return "float64 is not in the device subset; use float32"
	case types.Complex64, types.Complex128, types.UntypedComplex:
		return T.Name() + " is not in the device subset"
	case types.String, types.UntypedString:
		return "strings are not in the device subset"
	case types.UntypedNil:
		return "nil is not in the device subset"
	case types.UnsafePointer:
		return "unsafe.Pointer is not in the device subset"
	}
	return T.Name() + " is not in the device subset"
}

func compositeMsg(T types.Type) string {
	switch T := T.(type) {
	case *types.Slice:
		return "slices are not in the device subset; use a fixed-size array field or a package-level table"
	case *types.Map:
		return "maps are not in the device subset"
	case *types.Pointer:
		return "pointers are not in the device subset (only the block receiver is one)"
	case *types.Struct:
		return "struct values are not in the device subset"
	case *types.Interface:
		return "interfaces are not in the device subset"
	case *types.Chan:
		return "channels are not in the device subset"
	case *types.Signature:
		return "function values are not in the device subset"
	case *types.Array:
		return "array values are not in the device subset; arrays are only block fields and package-level tables, read by indexing"
	case *types.Tuple:
		return "multiple results are not in the device subset"
	case *types.TypeParam:
		return "type parameters (generics) are not in the device subset"
	case *types.Basic:
		return basicMsg(T)
	}
	return T.String() + " is not in the device subset"
}

// cDecl is the C declarator of a field or table of type T named name:
// "uint8_t Qs[16]", or an explanation of why T is not allowed there.
func (t *translator) cDecl(T types.Type, name string) (string, string) {
	dims := ""
	for {
		a, ok := types.Unalias(T).(*types.Array)
		if !ok {
			break
		}
		dims += "[" + strconv.FormatInt(a.Len(), 10) + "]"
		T = a.Elem()
	}
	s, msg := scalarOf(T)
	if msg != "" {
		return "", msg
	}
	return s.c + " " + name + dims, ""
}

// arrayElem is the innermost element type of nested arrays.
func arrayElem(T types.Type) types.Type {
	for {
		a, ok := types.Unalias(T).(*types.Array)
		if !ok {
			return T
		}
		T = a.Elem()
	}
}
