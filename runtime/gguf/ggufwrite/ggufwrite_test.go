package ggufwrite

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rocmforge/forge/runtime/gguf"
)

// TestReadBack writes every kind of value and two tensors and reads the
// file with the reader forge ships.
func TestReadBack(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.gguf")
	data := bytes.Repeat([]byte{7}, 18)
	err := File(p, []KV{
		{"general.name", gguf.TypeString, "x"},
		{"u", gguf.TypeUint32, uint32(5)},
		{"b", gguf.TypeBool, true},
		{"f", gguf.TypeFloat32, float32(0.5)},
		{"a", gguf.TypeArray, Array{gguf.TypeArray, []any{Array{gguf.TypeInt8, []any{int8(-1)}}, Array{gguf.TypeString, []any{"s"}}}}},
	}, []Tensor{{"t0", []uint64{32}, 2, data}, {"t1", []uint64{32}, 2, data}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Tensors) != 2 || f.Tensors[1].Offset != Align {
		t.Fatalf("tensors %+v", f.Tensors)
	}
	if len(f.KVs) != 5 {
		t.Errorf("%d metadata entries, want 5", len(f.KVs))
	}
}

// TestBadValue: a value binary.Write cannot encode is an error, not a file.
func TestBadValue(t *testing.T) {
	if _, err := Bytes([]KV{{"k", gguf.TypeUint32, 3}}, nil); err == nil {
		t.Error("an int (no fixed size) was written")
	}
}
