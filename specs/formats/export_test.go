package formats

import "reflect"

// IntDefined reports whether the block type defines Codes and Scale.
func (f *Format) IntDefined() bool { return f.intDefined() }

// MakeFinite rewrites, in the block blk of f, every Half, BFloat16 and
// float32 field (and array element) that is inf or NaN into a finite value
// (its top exponent bit cleared), leaving every other byte as it is.
func (f *Format) MakeFinite(blk []byte) {
	finite(f.blockType, blk[:f.BlockBytes])
}

func finite(t reflect.Type, b []byte) {
	switch {
	case t == reflect.TypeFor[Half]():
		if b[1]&0x7C == 0x7C {
			b[1] &^= 0x40
		}
	case t == reflect.TypeFor[BFloat16]():
		if b[1]&0x7F == 0x7F && b[0]&0x80 != 0 {
			b[1] &^= 0x40
		}
	case t.Kind() == reflect.Float32:
		if b[3]&0x7F == 0x7F && b[2]&0x80 != 0 {
			b[3] &^= 0x40
		}
	case t.Kind() == reflect.Array:
		n := int(t.Elem().Size())
		for i := range t.Len() {
			finite(t.Elem(), b[i*n:(i+1)*n])
		}
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			fl := t.Field(i)
			finite(fl.Type, b[fl.Offset:fl.Offset+fl.Type.Size()])
		}
	}
}
