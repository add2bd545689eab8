package main

import (
	"path/filepath"
	"testing"

	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/runtime/gguf/ggufwrite"
)

// testKV is a metadata entry: val is a string, bool, fixed-size number or
// testArray, written with type typ.
type testKV struct {
	key string
	typ gguf.ValueType
	val any
}

// testArray is an array value of element type elem.
type testArray struct {
	elem  gguf.ValueType
	items []any
}

// testTensor is a tensor info and its data.
type testTensor struct {
	name string
	dims []uint64
	typ  uint32
	data []byte
}

// writeTestGGUF writes a GGUF v3 file of kvs and tensors (internal/ggufwrite)
// into a temporary directory and returns its path.
func writeTestGGUF(t *testing.T, kvs []testKV, ts []testTensor) string {
	t.Helper()
	var value func(v any) any
	value = func(v any) any {
		a, ok := v.(testArray)
		if !ok {
			return v
		}
		items := make([]any, len(a.items))
		for i, it := range a.items {
			items[i] = value(it)
		}
		return ggufwrite.Array{Elem: a.elem, Items: items}
	}
	var wk []ggufwrite.KV
	for _, kv := range kvs {
		wk = append(wk, ggufwrite.KV{Key: kv.key, Type: kv.typ, Val: value(kv.val)})
	}
	var wt []ggufwrite.Tensor
	for _, tt := range ts {
		wt = append(wt, ggufwrite.Tensor{Name: tt.name, Dims: tt.dims, Type: tt.typ, Data: tt.data})
	}
	p := filepath.Join(t.TempDir(), "crafted.gguf")
	if err := ggufwrite.File(p, wk, wt); err != nil {
		t.Fatal(err)
	}
	return p
}

// q4Block is one Q4_0 block (32 elements, 18 bytes) with scale 1.
func q4Block() []byte {
	b := make([]byte, 18)
	b[1] = 0x3c // fp16 1.0
	for i := 2; i < 18; i++ {
		b[i] = 0x98
	}
	return b
}
