package gguf_test

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/rocmforge/forge/runtime/gguf"
)

// This file is a small GGUF writer for tests: it builds valid files, and
// corrupt ones by letting a test state any field (counts, types, offsets)
// regardless of the rest.

// arr is an array value for the writer: elem is written as the element type
// and items are encoded one by one (so they may disagree with elem).
type arr struct {
	elem  gguf.ValueType
	items []any
}

// raw is written verbatim in place of a value (after the value type).
type raw []byte

// kv is a metadata entry; typ is written as the value type, and val is
// encoded by its Go type (see enc).
type kv struct {
	key string
	typ gguf.ValueType
	val any
}

// tensor is a tensor info plus its data. offset < 0 means "the next aligned
// position after the previous tensor"; data nil means zeros of the size the
// type and dims imply.
type tensor struct {
	name   string
	dims   []uint64
	typ    uint32
	offset int64
	data   []byte
}

type builder struct {
	version    uint32 // 0 means 3
	nKV        *uint64
	nTensors   *uint64
	kvs        []kv
	tensors    []tensor
	align      int64 // layout alignment; 0 means 32 (not written as a key: add one)
	noPadding  bool  // stop after the tensor infos (and any data) without aligning
	truncateAt int   // cut the file to this length when > 0
}

func u64p(v uint64) *uint64 { return &v }

func (b *builder) bytes() []byte {
	var w bytes.Buffer
	put := func(v any) { binary.Write(&w, binary.LittleEndian, v) }
	str := func(s string) { put(uint64(len(s))); w.WriteString(s) }
	var enc func(v any)
	enc = func(v any) {
		switch v := v.(type) {
		case string:
			str(v)
		case bool:
			if v {
				put(uint8(1))
			} else {
				put(uint8(0))
			}
		case arr:
			put(uint32(v.elem))
			put(uint64(len(v.items)))
			for _, it := range v.items {
				enc(it)
			}
		case raw:
			w.Write(v)
		default: // fixed-size numbers
			put(v)
		}
	}
	version := b.version
	if version == 0 {
		version = 3
	}
	align := b.align
	if align == 0 {
		align = 32
	}
	w.WriteString("GGUF")
	put(version)
	nT, nKV := uint64(len(b.tensors)), uint64(len(b.kvs))
	if b.nTensors != nil {
		nT = *b.nTensors
	}
	if b.nKV != nil {
		nKV = *b.nKV
	}
	put(nT)
	put(nKV)
	for _, e := range b.kvs {
		str(e.key)
		put(uint32(e.typ))
		enc(e.val)
	}
	// Lay out the data: each tensor at its stated offset, or aligned after
	// the previous one.
	offsets := make([]int64, len(b.tensors))
	datas := make([][]byte, len(b.tensors))
	var next int64
	for i, t := range b.tensors {
		d := t.data
		if d == nil {
			d = make([]byte, tensorBytes(t))
		}
		off := t.offset
		if off < 0 {
			off = (next + align - 1) / align * align
		}
		offsets[i], datas[i] = off, d
		next = off + int64(len(d))
	}
	for i, t := range b.tensors {
		str(t.name)
		put(uint32(len(t.dims)))
		for _, d := range t.dims {
			put(d)
		}
		put(t.typ)
		put(uint64(offsets[i]))
	}
	if !b.noPadding {
		for int64(w.Len())%align != 0 {
			w.WriteByte(0)
		}
		start := w.Len()
		for i := range b.tensors {
			end := start + int(offsets[i]) + len(datas[i])
			for w.Len() < end {
				w.WriteByte(0)
			}
			copy(w.Bytes()[start+int(offsets[i]):], datas[i])
		}
	}
	out := w.Bytes()
	if b.truncateAt > 0 && b.truncateAt < len(out) {
		out = out[:b.truncateAt]
	}
	return out
}

// tensorBytes is the data size of a well-formed tensor info (0 when the
// info is malformed).
func tensorBytes(t tensor) int {
	tt, ok := gguf.GGMLType(t.typ).Traits()
	if !ok {
		return 0
	}
	n := uint64(1)
	for _, d := range t.dims {
		if d > math.MaxInt32 {
			return 0
		}
		n *= d
	}
	if n > 1<<24 || n%uint64(tt.BlockElems) != 0 {
		return 0
	}
	return int(n) / tt.BlockElems * tt.BlockBytes
}

// f32bytes encodes floats as little-endian float32.
func f32bytes(xs ...float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// sampleBuilder is a valid file using every value type, nested arrays and
// tensors of several ranks and types.
func sampleBuilder() *builder {
	q4 := make([]byte, 2*18)
	for i := range q4 {
		q4[i] = byte(i*7 + 3)
	}
	q4[0], q4[1] = 0x00, 0x3c // d = 1.0
	return &builder{
		kvs: []kv{
			{"general.architecture", gguf.TypeString, "test"},
			{"u8", gguf.TypeUint8, uint8(200)},
			{"i8", gguf.TypeInt8, int8(-100)},
			{"u16", gguf.TypeUint16, uint16(60000)},
			{"i16", gguf.TypeInt16, int16(-30000)},
			{"u32", gguf.TypeUint32, uint32(4000000000)},
			{"i32", gguf.TypeInt32, int32(-2000000000)},
			{"f32", gguf.TypeFloat32, float32(1.5)},
			{"bool", gguf.TypeBool, true},
			{"str", gguf.TypeString, "héllo"},
			{"u64", gguf.TypeUint64, uint64(math.MaxUint64)},
			{"i64", gguf.TypeInt64, int64(math.MinInt64)},
			{"f64", gguf.TypeFloat64, math.Pi},
			{"empty", gguf.TypeArray, arr{gguf.TypeUint32, nil}},
			{"bools", gguf.TypeArray, arr{gguf.TypeBool, []any{true, false, uint8(2)}}}, // ggml reads any non-zero byte as true
			{"i16s", gguf.TypeArray, arr{gguf.TypeInt16, []any{int16(-1), int16(2)}}},
			{"strs", gguf.TypeArray, arr{gguf.TypeString, []any{"a", "", "c"}}},
			{"nested", gguf.TypeArray, arr{gguf.TypeArray, []any{
				arr{gguf.TypeUint8, []any{uint8(1), uint8(2)}},
				arr{gguf.TypeString, []any{"x"}},
				arr{gguf.TypeArray, []any{arr{gguf.TypeFloat64, []any{2.5}}}},
			}}},
		},
		tensors: []tensor{
			{name: "f32", dims: []uint64{3, 2}, typ: 0, offset: -1, data: f32bytes(1, 2, 3, 4, 5, -6)},
			{name: "q4_0", dims: []uint64{32, 2}, typ: 2, offset: -1, data: q4},
			{name: "scalar", dims: nil, typ: 0, offset: -1, data: f32bytes(7)},
			{name: "empty", dims: []uint64{0, 5}, typ: 2, offset: -1},
			{name: "4d", dims: []uint64{1, 2, 1, 3}, typ: 30, offset: -1},
			{name: "no spec", dims: []uint64{256}, typ: 16, offset: -1},
		},
	}
}
