package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocmforge/forge/runtime/gguf"
)

// A small GGUF v3 writer for crafted files: runtime/gguf's own test writer
// is in that package's tests, out of reach.

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

// testTensor is a tensor info and its data, laid out at the next 32-byte
// aligned offset.
type testTensor struct {
	name string
	dims []uint64
	typ  uint32
	data []byte
}

// writeTestGGUF writes a GGUF v3 file of kvs and tensors into a temporary
// directory and returns its path.
func writeTestGGUF(t *testing.T, kvs []testKV, ts []testTensor) string {
	t.Helper()
	var b bytes.Buffer
	put := func(v any) {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	str := func(s string) { put(uint64(len(s))); b.WriteString(s) }
	var enc func(v any)
	enc = func(v any) {
		switch v := v.(type) {
		case string:
			str(v)
		case bool:
			put(v)
		case testArray:
			put(uint32(v.elem))
			put(uint64(len(v.items)))
			for _, it := range v.items {
				enc(it)
			}
		default:
			put(v)
		}
	}
	b.WriteString("GGUF")
	put(uint32(3))
	put(uint64(len(ts)))
	put(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv.key)
		put(uint32(kv.typ))
		enc(kv.val)
	}
	var off uint64
	for _, tt := range ts {
		str(tt.name)
		put(uint32(len(tt.dims)))
		for _, d := range tt.dims {
			put(d)
		}
		put(tt.typ)
		put(off)
		off = (off + uint64(len(tt.data)) + 31) &^ 31
	}
	pad := func() {
		for b.Len()%32 != 0 {
			b.WriteByte(0)
		}
	}
	pad()
	for _, tt := range ts {
		b.Write(tt.data)
		pad()
	}
	p := filepath.Join(t.TempDir(), "crafted.gguf")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
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
