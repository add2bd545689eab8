// Package ggufwrite writes small GGUF v3 files, for the tests of packages
// that read them (the CLI, the benchmark engine): metadata of every GGUF
// value type and tensors laid out at the default 32-byte alignment. It
// writes what it is given, names and values included, without validating
// them, so tests can craft hostile files; runtime/gguf's own tests build
// malformed headers byte by byte instead.
package ggufwrite

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"

	"github.com/rocmforge/forge/runtime/gguf"
)

// KV is a metadata entry. Val is a string, a bool, a fixed-size number of
// the Go type that Type stands for, or an Array (Type gguf.TypeArray).
type KV struct {
	Key  string
	Type gguf.ValueType
	Val  any
}

// Array is an array value of element type Elem; Items are as KV.Val.
type Array struct {
	Elem  gguf.ValueType
	Items []any
}

// Tensor is a tensor info and its data (dims in ggml's order, innermost
// first; Type a ggml type id).
type Tensor struct {
	Name string
	Dims []uint64
	Type uint32
	Data []byte
}

// Align is where each tensor's data starts: a multiple of it.
const Align = 32

// Bytes is the GGUF v3 file of kvs and ts: each tensor's data at the next
// multiple of Align after the one before.
func Bytes(kvs []KV, ts []Tensor) ([]byte, error) {
	var b bytes.Buffer
	var err error
	put := func(v any) {
		if err == nil {
			err = binary.Write(&b, binary.LittleEndian, v)
		}
	}
	str := func(s string) { put(uint64(len(s))); b.WriteString(s) }
	var value func(v any)
	value = func(v any) {
		switch v := v.(type) {
		case string:
			str(v)
		case Array:
			put(uint32(v.Elem))
			put(uint64(len(v.Items)))
			for _, it := range v.Items {
				value(it)
			}
		default: // bool and fixed-size numbers; anything else fails in binary.Write
			put(v)
		}
	}
	b.WriteString("GGUF")
	put(uint32(3))
	put(uint64(len(ts)))
	put(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv.Key)
		put(uint32(kv.Type))
		value(kv.Val)
	}
	var off uint64
	for _, t := range ts {
		str(t.Name)
		put(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			put(d)
		}
		put(t.Type)
		put(off)
		off = (off + uint64(len(t.Data)) + Align - 1) / Align * Align
	}
	pad := func() {
		for b.Len()%Align != 0 {
			b.WriteByte(0)
		}
	}
	pad()
	for _, t := range ts {
		b.Write(t.Data)
		pad()
	}
	if err != nil {
		return nil, fmt.Errorf("ggufwrite: %w", err)
	}
	return b.Bytes(), nil
}

// File writes Bytes(kvs, ts) to path.
func File(path string, kvs []KV, ts []Tensor) error {
	data, err := Bytes(kvs, ts)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
