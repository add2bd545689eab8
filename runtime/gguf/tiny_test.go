package gguf_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/runtime/gguf"
)

// tinyJSON is tiny.gguf.json: what gguf-py and ggml's gguf.cpp read from
// tiny.gguf.
type tinyJSON struct {
	Size            int64  `json:"size"`
	SHA256          string `json:"sha256"`
	Version         uint32 `json:"gguf_version"`
	Alignment       int64  `json:"alignment"`
	TensorDataStart int64  `json:"tensor_data_start"`
	NKV             int    `json:"n_kv"`
	KV              []struct {
		Key   string `json:"key"`
		Type  string `json:"type"`
		Value any    `json:"value"`
	} `json:"kv"`
	Tensors []struct {
		Name       string   `json:"name"`
		Type       string   `json:"type"`
		GGMLType   uint32   `json:"ggml_type"`
		Shape      []int64  `json:"shape"`
		DataOffset int64    `json:"data_offset"`
		FileOffset int64    `json:"file_offset"`
		NBytes     int64    `json:"n_bytes"`
		RawSHA256  string   `json:"raw_sha256"`
		DequantSHA string   `json:"dequant_f32_sha256"`
		First8Bits []string `json:"first8_bits"`
	} `json:"tensors"`
}

func loadTiny(t *testing.T) (*gguf.File, *tinyJSON, []byte) {
	t.Helper()
	path := sharedtest.Path(t, "testdata/tiny.gguf")
	jf, err := os.Open(sharedtest.Path(t, "testdata/tiny.gguf.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	dec := json.NewDecoder(jf)
	dec.UseNumber() // keep 64-bit integers exact
	var want tinyJSON
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("tiny.gguf.json: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256hex(raw); got != want.SHA256 {
		t.Fatalf("tiny.gguf sha256 %s, json says %s", got, want.SHA256)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, &want, raw
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestTinyHeader(t *testing.T) {
	f, want, _ := loadTiny(t)
	if f.Version != want.Version || f.Alignment != want.Alignment || f.DataStart != want.TensorDataStart || f.Size != want.Size {
		t.Errorf("version %d, alignment %d, data start %d, size %d; want %d, %d, %d, %d",
			f.Version, f.Alignment, f.DataStart, f.Size, want.Version, want.Alignment, want.TensorDataStart, want.Size)
	}
	if len(f.KVs) != want.NKV || len(f.Tensors) != len(want.Tensors) {
		t.Errorf("%d KVs, %d tensors; want %d, %d", len(f.KVs), len(f.Tensors), want.NKV, len(want.Tensors))
	}
}

func TestTinyMetadata(t *testing.T) {
	f, want, _ := loadTiny(t)
	if len(f.KVs) != len(want.KV) {
		t.Fatalf("%d KVs, want %d", len(f.KVs), len(want.KV))
	}
	for i, w := range want.KV {
		if f.KVs[i].Key != w.Key {
			t.Errorf("KV %d is %q, want %q (file order)", i, f.KVs[i].Key, w.Key)
		}
		v, ok := f.KV(w.Key)
		if !ok {
			t.Errorf("key %q missing", w.Key)
			continue
		}
		if v.TypeName() != w.Type {
			t.Errorf("key %q: type %s, want %s", w.Key, v.TypeName(), w.Type)
		}
		if !jsonEqual(v, w.Value) {
			t.Errorf("key %q: value %s, want %v", w.Key, v, w.Value)
		}
	}
	if name, _ := f.KV("general.name"); name.String() != "forge-tiny" {
		t.Errorf("general.name = %q", name)
	}
	if u, ok := mustKV(t, f, "forge.test.u32").Uint64(); !ok || u != 3735928559 {
		t.Errorf("forge.test.u32 Uint64() = %d, %v", u, ok)
	}
	if i, ok := mustKV(t, f, "forge.test.i32").Int64(); !ok || i != -123456 {
		t.Errorf("forge.test.i32 Int64() = %d, %v", i, ok)
	}
	if _, ok := mustKV(t, f, "forge.test.i32").Uint64(); ok {
		t.Errorf("negative int32 converted to uint64")
	}
	if s, ok := mustKV(t, f, "forge.test.strings").Strings(); !ok || !slices.Equal(s, []string{"alpha", "beta", "", "gamma δ"}) {
		t.Errorf("forge.test.strings = %q, %v", s, ok)
	}
	if _, ok := f.KV("no.such.key"); ok {
		t.Error("KV found a missing key")
	}
}

func mustKV(t *testing.T, f *gguf.File, key string) gguf.Value {
	t.Helper()
	v, ok := f.KV(key)
	if !ok {
		t.Fatalf("key %q missing", key)
	}
	return v
}

// jsonEqual compares a value with its JSON form (numbers as json.Number).
func jsonEqual(v gguf.Value, j any) bool {
	switch j := j.(type) {
	case string:
		return v.Type() == gguf.TypeString && v.String() == j
	case bool:
		b, ok := v.Bool()
		return ok && b == j
	case json.Number:
		if x, ok := v.Float64(); ok {
			w, err := strconv.ParseFloat(j.String(), 64)
			if v.Type() == gguf.TypeFloat32 {
				return err == nil && float32(x) == float32(w)
			}
			return err == nil && x == w
		}
		if i, ok := v.Int64(); ok {
			return strconv.FormatInt(i, 10) == j.String()
		}
		u, ok := v.Uint64()
		return ok && strconv.FormatUint(u, 10) == j.String()
	case []any:
		if v.Type() != gguf.TypeArray || v.Len() != len(j) {
			return false
		}
		for i := range j {
			if !jsonEqual(v.Index(i), j[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// TestTinyTensors checks every tensor info and its raw bytes, one subtest per
// tensor.
func TestTinyTensors(t *testing.T) {
	f, want, raw := loadTiny(t)
	for i, w := range want.Tensors {
		t.Run(w.Name, func(t *testing.T) {
			ti, ok := f.Tensor(w.Name)
			if !ok {
				t.Fatalf("tensor missing")
			}
			if ti != &f.Tensors[i] {
				t.Errorf("tensor is not number %d in file order", i)
			}
			if ti.TypeName() != w.Type || uint32(ti.Type) != w.GGMLType {
				t.Errorf("type %s (id %d), want %s (id %d)", ti.TypeName(), ti.Type, w.Type, w.GGMLType)
			}
			if !slices.Equal(ti.Dims, w.Shape) {
				t.Errorf("dims %v, want %v", ti.Dims, w.Shape)
			}
			if ti.Offset != w.DataOffset || ti.FileOffset != w.FileOffset || ti.Bytes() != w.NBytes {
				t.Errorf("offset %d, file offset %d, %d bytes; want %d, %d, %d",
					ti.Offset, ti.FileOffset, ti.Bytes(), w.DataOffset, w.FileOffset, w.NBytes)
			}
			if n := w.Shape[0] * w.Shape[1]; ti.Elements() != n {
				t.Errorf("%d elements, want %d", ti.Elements(), n)
			}
			data, err := f.TensorData(ti)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(data)) != w.NBytes || !slices.Equal(data, raw[w.FileOffset:w.FileOffset+w.NBytes]) {
				t.Errorf("TensorData differs from the file's bytes [%d, %d)", w.FileOffset, w.FileOffset+w.NBytes)
			}
			if got := sha256hex(data); got != w.RawSHA256 {
				t.Errorf("raw sha256 %s, want %s", got, w.RawSHA256)
			}
		})
	}
}

// TestTinyDequant checks every tensor's dequantized floats against ggml's,
// one subtest per tensor; a tensor whose type forge has no spec for fails,
// naming the type.
func TestTinyDequant(t *testing.T) {
	f, want, _ := loadTiny(t)
	for _, w := range want.Tensors {
		t.Run(w.Name, func(t *testing.T) {
			ti, _ := f.Tensor(w.Name)
			xs, err := f.Dequantize(ti)
			if err != nil {
				t.Fatal(err)
			}
			b := make([]byte, 4*len(xs))
			for i, x := range xs {
				binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
			}
			if got := sha256hex(b); got != w.DequantSHA {
				t.Errorf("dequant f32 sha256 %s, want %s", got, w.DequantSHA)
				for i, s := range w.First8Bits {
					if i < len(xs) {
						t.Logf("x[%d] = %#08x, ggml %s", i, math.Float32bits(xs[i]), s)
					}
				}
			}
		})
	}
}

// TestTinyTruncated reads every prefix of tiny.gguf up past the data start,
// and a sample of longer ones: each must be an error that says the file is
// truncated (the truncated-mid-header.gguf, a prefix that ends in
// the metadata, was reported as "tensor count 24 is impossible"), never a
// panic.
func TestTinyTruncated(t *testing.T) {
	_, want, raw := loadTiny(t)
	check := func(n int) {
		f, err := gguf.Read(bytesReader(raw[:n]), int64(n))
		if err == nil {
			t.Fatalf("prefix of %d bytes: no error (%d tensors)", n, len(f.Tensors))
		}
		if n > 0 && !strings.Contains(err.Error(), "truncated") {
			t.Errorf("prefix of %d bytes: %v; want it to say the file is truncated", n, err)
		}
	}
	limit := int(want.TensorDataStart) + 4096
	for n := 0; n <= limit; n++ {
		check(n)
	}
	for n := limit; n < len(raw); n += 61 {
		check(n)
	}
	for n := len(raw) - 64; n < len(raw); n++ {
		check(n)
	}
}
