package gguf_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/specs/formats"
)

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func read(b []byte) (*gguf.File, error) { return gguf.Read(bytes.NewReader(b), int64(len(b))) }

func TestSampleRoundTrip(t *testing.T) {
	b := sampleBuilder()
	data := b.bytes()
	f, err := read(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != 32 || f.DataStart%32 != 0 || len(f.KVs) != len(b.kvs) || len(f.Tensors) != len(b.tensors) {
		t.Fatalf("header: version %d alignment %d data start %d, %d KVs, %d tensors", f.Version, f.Alignment, f.DataStart, len(f.KVs), len(f.Tensors))
	}
	wantStr := map[string]string{
		"general.architecture": "test", "u8": "200", "i8": "-100", "u16": "60000", "i16": "-30000",
		"u32": "4000000000", "i32": "-2000000000", "f32": "1.5", "bool": "true", "str": "héllo",
		"u64": "18446744073709551615", "i64": "-9223372036854775808", "f64": "3.141592653589793",
		"empty": "[]", "bools": "[true false true]", "i16s": "[-1 2]", "strs": `["a" "" "c"]`,
		"nested": `[[1 2] ["x"] [[2.5]]]`,
	}
	for i, e := range b.kvs {
		v := f.KVs[i].Value
		if f.KVs[i].Key != e.key || v.Type() != e.typ {
			t.Errorf("KV %d: %q %s, want %q %s", i, f.KVs[i].Key, v.Type(), e.key, e.typ)
		}
		if got := v.String(); got != wantStr[e.key] {
			t.Errorf("%s: String() = %q, want %q", e.key, got, wantStr[e.key])
		}
	}
	get := func(k string) gguf.Value { return mustKV(t, f, k) }
	if u, ok := get("u64").Uint64(); !ok || u != math.MaxUint64 {
		t.Errorf("u64: %d %v", u, ok)
	}
	if _, ok := get("u64").Int64(); ok {
		t.Error("u64 max converted to int64")
	}
	if i, ok := get("i8").Int64(); !ok || i != -100 {
		t.Errorf("i8: %d %v", i, ok)
	}
	if u, ok := get("u16").Int64(); !ok || u != 60000 {
		t.Errorf("u16 as int64: %d %v", u, ok)
	}
	if x, ok := get("f64").Float64(); !ok || x != math.Pi {
		t.Errorf("f64: %v %v", x, ok)
	}
	if _, ok := get("f64").Uint64(); ok {
		t.Error("float converted to an integer")
	}
	if b, ok := get("bools").Index(2).Bool(); !ok || !b {
		t.Errorf("bool byte 2 = %v, %v; want true as in ggml", b, ok)
	}
	if _, ok := get("str").Bool(); ok {
		t.Error("string converted to bool")
	}
	n := get("nested")
	if n.Elem() != gguf.TypeArray || n.Len() != 3 || n.Index(1).Elem() != gguf.TypeString || n.TypeName() != "array[array]" {
		t.Errorf("nested: elem %s len %d", n.Elem(), n.Len())
	}
	if x, _ := n.Index(2).Index(0).Index(0).Float64(); x != 2.5 {
		t.Errorf("nested[2][0][0] = %v", x)
	}
	if e := get("empty"); e.Len() != 0 || e.Elem() != gguf.TypeUint32 || e.TypeName() != "array[uint32]" {
		t.Errorf("empty: %s len %d", e.TypeName(), e.Len())
	}
	var zero gguf.Value
	if _, ok := zero.Uint64(); ok || zero.Type() == gguf.TypeUint8 || zero.String() != "<invalid>" {
		t.Errorf("zero Value looks valid: %s %q", zero.Type(), zero.String())
	}

	for i, w := range b.tensors {
		ti := &f.Tensors[i]
		if ti.Name != w.name || uint32(ti.Type) != w.typ || ti.Offset%32 != 0 || ti.FileOffset != f.DataStart+ti.Offset {
			t.Errorf("tensor %d: %+v", i, ti)
		}
		data, err := f.TensorData(ti)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) != ti.Bytes() || (w.data != nil && !bytes.Equal(data, w.data)) {
			t.Errorf("tensor %q: data %x, want %x", w.name, data, w.data)
		}
	}
	if s, _ := f.Tensor("scalar"); s.Elements() != 1 || len(s.Dims) != 0 {
		t.Errorf("scalar: %d elements, dims %v", s.Elements(), s.Dims)
	}
	if e, _ := f.Tensor("empty"); e.Elements() != 0 || e.Bytes() != 0 {
		t.Errorf("empty: %d elements, %d bytes", e.Elements(), e.Bytes())
	}
	if d, _ := f.Tensor("4d"); d.Elements() != 6 || d.Bytes() != 12 || d.TypeName() != "BF16" {
		t.Errorf("4d: %d elements %d bytes %s", d.Elements(), d.Bytes(), d.TypeName())
	}

	// Dequantize through the registered specs (Q4_0 is always registered).
	q, _ := f.Tensor("q4_0")
	got, err := f.Dequantize(q)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, 64)
	if err := formats.Q4_0.Dequantize(want, b.tensors[1].data); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Dequantize(q4_0) = %v, want %v", got, want)
	}
	if xs, err := f.Dequantize(&gguf.Tensor{Name: "empty"}); err != nil || len(xs) != 0 {
		t.Errorf("Dequantize(empty) = %v, %v", xs, err)
	}
}

func TestDequantizeNoSpec(t *testing.T) {
	var id gguf.GGMLType
	found := false
	for _, ty := range gguf.GGMLTypes() {
		if _, ok := formats.ByGGMLType(int(ty)); !ok {
			id, found = ty, true
			break
		}
	}
	if !found {
		t.Skip("every ggml type has a spec")
	}
	tt, _ := id.Traits()
	b := &builder{tensors: []tensor{{name: "x", dims: []uint64{uint64(tt.BlockElems)}, typ: uint32(id), offset: -1}}}
	f, err := read(b.bytes())
	if err != nil {
		t.Fatal(err)
	}
	x, _ := f.Tensor("x")
	if _, ok := x.Format(); ok {
		t.Fatal("Format found a spec")
	}
	if _, err := f.TensorData(x); err != nil {
		t.Errorf("TensorData of a type without a spec: %v", err)
	}
	_, err = f.Dequantize(x)
	want := "unsupported tensor type " + id.String() + " (id " + strconv.Itoa(int(id)) + `) for tensor "x": forge has no spec for it`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Dequantize error %v, want it to contain %q", err, want)
	}
}

func TestForeignTensor(t *testing.T) {
	f, err := read(sampleBuilder().bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.TensorData(&gguf.Tensor{Name: "nope"}); err == nil {
		t.Error("TensorData of a tensor not in the file succeeded")
	}
	if _, err := f.TensorData(nil); err == nil {
		t.Error("TensorData(nil) succeeded")
	}
	// A caller's copy with a forged range reads the file's own range.
	forged := f.Tensors[0]
	forged.FileOffset = 1 << 40
	if d, err := f.TensorData(&forged); err != nil || int64(len(d)) != f.Tensors[0].Bytes() {
		t.Errorf("TensorData(forged) = %d bytes, %v", len(d), err)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.gguf")
	if err := os.WriteFile(good, sampleBuilder().bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.TensorData(&f.Tensors[0]); err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	bad := filepath.Join(dir, "bad.gguf")
	if err := os.WriteFile(bad, []byte("GGUF\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = gguf.Open(bad)
	var fe *gguf.FormatError
	if !errors.As(err, &fe) || fe.Path != bad || !strings.Contains(err.Error(), bad+": GGUF version 1 is not supported") {
		t.Errorf("Open(bad) = %v", err)
	}
	if _, err := gguf.Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) = %v", err)
	}
}

func TestAlignment(t *testing.T) {
	b := sampleBuilder()
	b.align = 64
	b.kvs = append(b.kvs, kv{gguf.AlignmentKey, gguf.TypeUint32, uint32(64)})
	f, err := read(b.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.Alignment != 64 || f.DataStart%64 != 0 {
		t.Errorf("alignment %d, data start %d", f.Alignment, f.DataStart)
	}
	for _, ti := range f.Tensors {
		if ti.Offset%64 != 0 {
			t.Errorf("tensor %q at offset %d", ti.Name, ti.Offset)
		}
	}
}

// TestCorrupt checks each validation with a crafted file: the error must
// say what was wrong (want) and, where given, at which byte.
func TestCorrupt(t *testing.T) {
	huge := uint64(1) << 62
	f32t := func(name string) tensor { return tensor{name: name, dims: []uint64{4}, typ: 0, offset: -1} }
	cases := []struct {
		name   string
		data   []byte
		want   string
		offset int64 // -2: don't check
	}{
		{"empty", nil, "empty file: not a GGUF file", 0},
		{"short", []byte("GGU"), "file truncated: 3 bytes, too short for a GGUF header", 0},
		{"magic", []byte("GGML\x03\x00\x00\x00"), `not a GGUF file: magic "GGML", want "GGUF"`, 0},
		{"v1", (&builder{version: 1}).bytes(), "GGUF version 1 is not supported", 4},
		{"v4", (&builder{version: 4}).bytes(), "unsupported GGUF version 4", 4},
		{"big-endian", (&builder{version: 3 << 24}).bytes(), "big-endian GGUF file", 4},
		{"header cut", (&builder{truncateAt: 20}).bytes(), "file truncated: the metadata count needs 8 bytes but only 4 remain", 16},
		{"kv count", (&builder{nKV: &huge}).bytes(), "metadata count 4611686018427387904 is more than the 381300 entries that a header may hold in memory (MaxHeaderMemory)", 16},
		{"tensor count", (&builder{nTensors: &huge}).bytes(), "tensor count 4611686018427387904 is more than the 254200 tensor infos that a header may hold in memory (MaxHeaderMemory)", 8},
		{"kvs cut", (&builder{nKV: u64p(3), kvs: []kv{{"k", gguf.TypeUint8, uint8(1)}}, noPadding: true}).bytes(), "metadata entry 1: file truncated: it ends before the key length", 38},
		{"tensor infos cut", (&builder{nTensors: u64p(3), kvs: []kv{{"k", gguf.TypeUint8, uint8(1)}}}).bytes(), "tensor info 1: file truncated: the name length needs 8 bytes but only 2 remain", 62},
		{"empty key", (&builder{kvs: []kv{{"", gguf.TypeUint8, uint8(1)}}}).bytes(), "metadata entry 0: empty key", 24},
		{"key cut", (&builder{kvs: []kv{{"abcdefghijklmnop", gguf.TypeUint8, uint8(1)}}, truncateAt: 37}).bytes(), "metadata entry 0: key length 16 runs past the end of the file (5 bytes remain): the file is truncated or the length corrupt", 24},
		{"key past end", withBytes((&builder{kvs: []kv{{"key", gguf.TypeUint8, uint8(1)}}}).bytes(), 24, le64(1000)), `metadata entry 0: key length 1000 runs past the end of the file`, 24},
		{"value type", (&builder{kvs: []kv{{"k", 13, uint8(0)}}}).bytes(), `key "k": unknown value type 13`, 33},
		{"value cut", (&builder{kvs: []kv{{"k", gguf.TypeUint32, uint16(1)}}, noPadding: true}).bytes(), `key "k": file truncated: the uint32 value needs 4 bytes but only 2 remain`, 37},
		{"string length", (&builder{kvs: []kv{{"k", gguf.TypeString, raw(le64(huge))}}}).bytes(), `key "k": string length 4611686018427387904 runs past the end`, 37},
		{"array elem type", (&builder{kvs: []kv{{"k", gguf.TypeArray, arr{99, nil}}}}).bytes(), `key "k": unknown array element type 99`, 37},
		{"array length u8", (&builder{kvs: []kv{{"k", gguf.TypeArray, raw(cat(le32(0), le64(1000), []byte{1, 2, 3}))}}, noPadding: true}).bytes(), `key "k": array of 1000 uint8 elements runs past the end of the file (3 bytes remain, room for at most 3): the file is truncated or the length corrupt`, 41},
		{"array length strings", (&builder{kvs: []kv{{"k", gguf.TypeArray, raw(cat(le32(8), le64(1<<40)))}}}).bytes(), `key "k": array of 1099511627776 string elements runs past the end of the file`, 41},
		{"array length arrays", (&builder{kvs: []kv{{"k", gguf.TypeArray, raw(cat(le32(9), le64(5), le32(0), le64(0)))}}}).bytes(), `key "k": array of 5 array elements runs past the end`, 41},
		{"array nesting", (&builder{kvs: []kv{{"k", gguf.TypeArray, deep(gguf.MaxArrayDepth + 1)}}}).bytes(), `key "k"[0][0][0][0][0][0][0][0]: arrays nested more than 8 deep`, 133},
		{"array string cut", (&builder{kvs: []kv{{"k", gguf.TypeArray, arr{gguf.TypeString, []any{"ab", raw(le64(50))}}}}}).bytes(), `key "k"[1]: string length 50 runs past the end`, 59},
		{"nested string cut", (&builder{kvs: []kv{{"k", gguf.TypeArray, arr{gguf.TypeArray, []any{arr{gguf.TypeString, []any{"ab"}}, arr{gguf.TypeString, []any{raw(le64(1 << 27))}}}}}}}).bytes(), `key "k"[1][0]: string length 134217728 runs past the end`, 83},
		{"duplicate key", (&builder{kvs: []kv{{"a", gguf.TypeUint8, uint8(1)}, {"a", gguf.TypeUint8, uint8(2)}}}).bytes(), `key "a": duplicate metadata key`, 38},
		{"alignment type", (&builder{kvs: []kv{{gguf.AlignmentKey, gguf.TypeUint64, uint64(32)}}}).bytes(), `key "general.alignment": type uint64, want uint32`, 49},
		{"alignment zero", (&builder{kvs: []kv{{gguf.AlignmentKey, gguf.TypeUint32, uint32(0)}}}).bytes(), `key "general.alignment": alignment 0 is not a power of two`, 53},
		{"alignment 48", (&builder{kvs: []kv{{gguf.AlignmentKey, gguf.TypeUint32, uint32(48)}}}).bytes(), "alignment 48 is not a power of two", 53},
		{"tensor name", withBytes((&builder{tensors: []tensor{f32t("t")}}).bytes(), 24, le64(1<<50)), "tensor info 0: name length 1125899906842624 runs past", 24},
		{"n_dims", (&builder{tensors: []tensor{{name: "t", dims: []uint64{1, 1, 1, 1, 1}, offset: -1}}}).bytes(), `tensor "t": 5 dimensions, at most 4 are allowed`, 33},
		{"dim sign", (&builder{tensors: []tensor{{name: "t", dims: []uint64{1, 1 << 63}, offset: -1}}}).bytes(), `tensor "t": dimension 1 is 9223372036854775808, too large`, 45},
		{"elements overflow", (&builder{tensors: []tensor{{name: "t", dims: []uint64{1 << 32, 1 << 32}, offset: -1}}}).bytes(), `tensor "t": element count of shape [4294967296 4294967296] overflows int64`, 45},
		{"bytes overflow", (&builder{tensors: []tensor{{name: "t", dims: []uint64{1 << 61, 2}, typ: 28, offset: -1}}}).bytes(), `tensor "t": byte size of F64 tensor of shape [2305843009213693952 2] overflows int64`, 53},
		{"unknown type", (&builder{tensors: []tensor{{name: "t", dims: []uint64{4}, typ: 43, offset: -1}}}).bytes(), `tensor "t": unknown ggml type id 43`, 45},
		{"removed type", (&builder{tensors: []tensor{{name: "t", dims: []uint64{32}, typ: 31, offset: -1}}}).bytes(), `tensor "t": ggml type Q4_0_4_4 (id 31) has been removed`, 45},
		{"row blocks", (&builder{tensors: []tensor{{name: "t", dims: []uint64{48, 2}, typ: 2, offset: -1}}}).bytes(), `tensor "t": row of 48 elements (dims[0]) is not a whole number of 32-element Q4_0 blocks`, 53},
		{"scalar blocks", (&builder{tensors: []tensor{{name: "t", typ: 12, offset: -1}}}).bytes(), `row of 1 elements (dims[0]) is not a whole number of 256-element Q4_K blocks`, 37},
		{"offset sign", withBytes((&builder{tensors: []tensor{f32t("t")}}).bytes(), 49, le64(1<<63)), `tensor "t": data offset 9223372036854775808 is too large`, 49},
		{"duplicate tensor", (&builder{tensors: []tensor{f32t("w"), f32t("w")}}).bytes(), `tensor "w": duplicate tensor name`, 57},
		{"misaligned", (&builder{tensors: []tensor{f32t("a"), {name: "b", dims: []uint64{4}, offset: 16}}}).bytes(), `tensor "b": data offset 16 is not a multiple of the alignment 32`, -1},
		{"past end", (&builder{tensors: []tensor{f32t("a"), f32t("b")}, truncateAt: 96 + 32 + 8}).bytes(), `tensor "b": data [128, 144) ends past the end of the file (136 bytes): the file is truncated or the offset corrupt`, -1},
		{"starts past end", (&builder{tensors: []tensor{f32t("a"), {name: "b", dims: []uint64{0}, offset: 1 << 40, data: []byte{}}}, noPadding: true}).bytes(), `tensor "a": data starts at byte 96, past the end of the file (90 bytes)`, -1},
		{"starts past end 2", withBytes((&builder{tensors: []tensor{{name: "b", dims: []uint64{0}, offset: 0}, f32t("a")}}).bytes(), 49, le64(1<<40)), `tensor "b": data starts at byte 1099511627872, past the end of the file (112 bytes)`, -1},
		{"tensor info cut", (&builder{tensors: []tensor{f32t("a")}, truncateAt: 48}).bytes(), `tensor "a": file truncated: the type needs 4 bytes but only 3 remain`, 45},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := read(c.data)
			if err == nil {
				t.Fatalf("no error; %d KVs, %d tensors", len(f.KVs), len(f.Tensors))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
			var fe *gguf.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FormatError", err)
			}
			if c.offset != -2 && fe.Offset != c.offset {
				t.Errorf("error at byte %d, want %d (%v)", fe.Offset, c.offset, err)
			}
		})
	}
}

// TestCorruptAllocatesLittle reads files whose counts and lengths claim far
// more than the file holds: the reader must fail without allocating for them.
func TestCorruptAllocatesLittle(t *testing.T) {
	huge := uint64(1) << 60
	files := [][]byte{
		(&builder{nKV: &huge}).bytes(),
		(&builder{nTensors: &huge}).bytes(),
		(&builder{kvs: []kv{{"k", gguf.TypeString, raw(le64(huge))}}}).bytes(),
		(&builder{kvs: []kv{{"k", gguf.TypeArray, raw(cat(le32(0), le64(huge)))}}}).bytes(),
		(&builder{kvs: []kv{{"k", gguf.TypeArray, raw(cat(le32(9), le64(huge)))}}}).bytes(),
		withBytes((&builder{tensors: []tensor{{name: "t", dims: []uint64{4}, offset: -1}}}).bytes(), 24, le64(huge)),
	}
	// In a large file the counts' bound by the file size is loose: a count
	// that fits the file and the memory limit must still not size an
	// allocation.
	big := (&builder{tensors: []tensor{{name: "t", dims: []uint64{1 << 22}, offset: -1}}}).bytes()
	files = append(files, withBytes(big, 16, le64(300_000)))
	files = append(files, withBytes(big, 8, le64(200_000)))
	for i, data := range files {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := read(data)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("file %d: no error", i)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 128<<10 { // the read buffer is 64 KiB
			t.Errorf("file %d: %d bytes allocated for a %d-byte file (%v)", i, n, len(data), err)
		}
	}
}

func le32(v uint32) []byte    { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }
func le64(v uint64) []byte    { return append(le32(uint32(v)), le32(uint32(v>>32))...) }
func cat(bs ...[]byte) []byte { return slices.Concat(bs...) }

// withBytes returns a copy of data with b written at off.
func withBytes(data []byte, off int, b []byte) []byte {
	out := slices.Clone(data)
	copy(out[off:], b)
	return out
}

// deep is an array nested n levels deep.
func deep(n int) arr {
	a := arr{gguf.TypeUint8, []any{uint8(1)}}
	for range n - 1 {
		a = arr{gguf.TypeArray, []any{a}}
	}
	return a
}

func TestNestingLimit(t *testing.T) {
	b := &builder{kvs: []kv{{"k", gguf.TypeArray, deep(gguf.MaxArrayDepth)}}}
	f, err := read(b.bytes())
	if err != nil {
		t.Fatalf("%d-deep array: %v", gguf.MaxArrayDepth, err)
	}
	v := mustKV(t, f, "k")
	for range gguf.MaxArrayDepth - 1 {
		v = v.Index(0)
	}
	if u, _ := v.Index(0).Uint64(); u != 1 {
		t.Errorf("innermost value %d", u)
	}
}
