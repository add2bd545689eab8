package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ValueType is the type of a metadata value (gguf_type in ggml).
type ValueType uint32

// The metadata value types, with their GGUF ids.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var valueTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32",
	"float32", "bool", "string", "array", "uint64", "int64", "float64"}

// String is the type's name as ggml spells it ("uint32", "array").
func (t ValueType) String() string {
	if t.valid() {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

func (t ValueType) valid() bool { return int64(t) < int64(len(valueTypeNames)) }

// size is the encoded size of a fixed-size type, 0 for string and array.
func (t ValueType) size() int64 {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// minSize is the fewest bytes a value of the type occupies in a file: a
// string is at least its 8-byte length, an array its 4-byte element type and
// 8-byte count.
func (t ValueType) minSize() int64 {
	switch t {
	case TypeString:
		return 8
	case TypeArray:
		return 12
	}
	return t.size()
}

// Value is a metadata value: a scalar, a string, or an array (of scalars,
// strings, or arrays). The zero Value is invalid: Type returns an invalid
// type and every getter reports false.
type Value struct {
	valid bool // false only for the zero Value
	typ   ValueType
	bits  uint64 // fixed-size scalars: the value's little-endian bits, zero-extended
	str   string
	arr   *array
}

type array struct {
	elem ValueType
	n    int
	raw  []byte   // fixed-size elements, back to back as in the file
	strs []string // string elements
	vals []Value  // array elements
}

func scalar(t ValueType, b []byte) Value {
	v := Value{valid: true, typ: t}
	switch len(b) {
	case 1:
		v.bits = uint64(b[0])
	case 2:
		v.bits = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		v.bits = uint64(binary.LittleEndian.Uint32(b))
	case 8:
		v.bits = binary.LittleEndian.Uint64(b)
	}
	return v
}

// invalidType is what Type returns for the zero Value.
const invalidType = ValueType(math.MaxUint32)

// Type is the value's type; for an array, TypeArray (see Elem).
func (v Value) Type() ValueType {
	if !v.valid {
		return invalidType
	}
	return v.typ
}

// TypeName is the type as written in tiny.gguf.json and by gguf-py:
// "uint32", "string", "array[string]", "array[array]".
func (v Value) TypeName() string {
	if v.arr != nil {
		return "array[" + v.arr.elem.String() + "]"
	}
	return v.Type().String()
}

// Uint64 returns an integer value of any width that is not negative.
func (v Value) Uint64() (uint64, bool) {
	switch v.Type() {
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		return v.bits, true
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		if i, _ := v.Int64(); i >= 0 {
			return uint64(i), true
		}
	}
	return 0, false
}

// Int64 returns an integer value of any width that fits in an int64.
func (v Value) Int64() (int64, bool) {
	switch v.Type() {
	case TypeInt8:
		return int64(int8(v.bits)), true
	case TypeInt16:
		return int64(int16(v.bits)), true
	case TypeInt32:
		return int64(int32(v.bits)), true
	case TypeInt64:
		return int64(v.bits), true
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		if v.bits <= math.MaxInt64 {
			return int64(v.bits), true
		}
	}
	return 0, false
}

// Float64 returns a float32 or float64 value.
func (v Value) Float64() (float64, bool) {
	switch v.Type() {
	case TypeFloat32:
		return float64(math.Float32frombits(uint32(v.bits))), true
	case TypeFloat64:
		return math.Float64frombits(v.bits), true
	}
	return 0, false
}

// Bool returns a bool value: any non-zero byte is true, as in ggml.
func (v Value) Bool() (bool, bool) {
	return v.bits != 0, v.Type() == TypeBool
}

// String returns a string value itself; for any other type it returns the
// value formatted for display (numbers in Go syntax, arrays as [a b c] with
// strings quoted), as reflect.Value.String does for non-strings.
func (v Value) String() string {
	if v.Type() == TypeString {
		return v.str
	}
	var b strings.Builder
	v.format(&b)
	return b.String()
}

func (v Value) format(b *strings.Builder) {
	switch v.Type() {
	case TypeString:
		b.WriteString(strconv.Quote(v.str))
	case TypeBool:
		b.WriteString(strconv.FormatBool(v.bits != 0))
	case TypeFloat32:
		b.WriteString(strconv.FormatFloat(float64(math.Float32frombits(uint32(v.bits))), 'g', -1, 32))
	case TypeFloat64:
		b.WriteString(strconv.FormatFloat(math.Float64frombits(v.bits), 'g', -1, 64))
	case TypeInt8, TypeInt16, TypeInt32, TypeInt64:
		i, _ := v.Int64()
		b.WriteString(strconv.FormatInt(i, 10))
	case TypeUint8, TypeUint16, TypeUint32, TypeUint64:
		b.WriteString(strconv.FormatUint(v.bits, 10))
	case TypeArray:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(' ')
			}
			v.Index(i).format(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString("<invalid>")
	}
}

// Elem is the element type of an array (each element of an array of arrays
// has its own Elem); for a non-array it returns an invalid type.
func (v Value) Elem() ValueType {
	if v.arr == nil {
		return invalidType
	}
	return v.arr.elem
}

// Len is the number of elements of an array, 0 for a non-array.
func (v Value) Len() int {
	if v.arr == nil {
		return 0
	}
	return v.arr.n
}

// Index returns element i of an array. It panics if v is not an array or i
// is out of range, like indexing a slice.
func (v Value) Index(i int) Value {
	a := v.arr
	if a == nil {
		panic("gguf: Index of a non-array " + v.Type().String() + " value")
	}
	if i < 0 || i >= a.n {
		panic(fmt.Sprintf("gguf: array index %d out of range [0, %d)", i, a.n))
	}
	switch a.elem {
	case TypeString:
		return Value{valid: true, typ: TypeString, str: a.strs[i]}
	case TypeArray:
		return a.vals[i]
	}
	sz := int(a.elem.size())
	return scalar(a.elem, a.raw[i*sz:(i+1)*sz])
}

// Strings returns the elements of an array of strings.
func (v Value) Strings() ([]string, bool) {
	if v.arr == nil || v.arr.elem != TypeString {
		return nil, false
	}
	return slices.Clone(v.arr.strs), true
}
