package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/rocmforge/forge/generated/suites" // registers the suites GGUFTargets looks up
	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/specs/formats"
)

// TestGGUFTiny benchmarks every tensor of tiny.gguf: its real bytes at
// its shape.
func TestGGUFTiny(t *testing.T) {
	f, err := gguf.Open(sharedtest.Path(t, "testdata/tiny.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	if len(skipped) != 0 || len(targets) != len(f.Tensors) {
		t.Fatalf("%d targets, skipped %v; tiny.gguf has %d tensors, all of types forge has specs for", len(targets), skipped, len(f.Tensors))
	}
	run, err := Measure(context.Background(), cpu.New(1), targets, Options{Count: 2, Warmup: 1, CopyBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != len(f.Tensors) {
		t.Fatalf("%d results", len(run.Results))
	}
	for i, r := range run.Results {
		tt := &f.Tensors[i] // GGUF targets keep the file's order
		format, _ := tt.Format()
		if r.Name != "gguf/"+tt.Name+"/dequant_f32" || r.Suite != "dequant_f32/"+format.Name || r.Format != format.Name {
			t.Errorf("result %d: %s (%s), tensor %s %s", i, r.Name, r.Suite, tt.Name, tt.TypeName())
		}
		if r.Elements != tt.Elements() || r.BytesRead != tt.Bytes() || r.BytesWritten != 4*tt.Elements() || len(r.Shape) != len(tt.Dims) || int64(r.Shape[0]) != tt.Dims[0] {
			t.Errorf("%s: shape %v, %d elements, %d bytes read; tensor %v, %d, %d", r.Name, r.Shape, r.Elements, r.BytesRead, tt.Dims, tt.Elements(), tt.Bytes())
		}
		if r.Stats.N != 2 {
			t.Errorf("%s: %d samples", r.Name, r.Stats.N)
		}
	}
}

// TestGGUFSkipped: tensors of types forge has no spec for are skipped,
// each with the reason.
func TestGGUFSkipped(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mixed.gguf")
	writeGGUF(t, p, []ggufTensor{
		{"q4", []uint64{64}, 2, make([]byte, 36)},        // Q4_0
		{"iq2", []uint64{256}, 16, make([]byte, 66)},     // IQ2_XXS: no forge spec
		{"ints", []uint64{4}, 26, make([]byte, 16)},      // I32
		{"q8 odd", []uint64{32, 2}, 8, make([]byte, 68)}, // Q8_0, a space in its name
	})
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	var names, skips []string
	for _, tg := range targets {
		names = append(names, tg.Name)
	}
	for _, s := range skipped {
		skips = append(skips, s.String())
	}
	if got := strings.Join(names, ","); got != "gguf/q4/dequant_f32,gguf/q8_odd/dequant_f32" {
		t.Errorf("targets %s", got)
	}
	if got := strings.Join(skips, "; "); got != "iq2 (IQ2_XXS): no forge spec for ggml type 16; ints (I32): no forge spec for ggml type 26" {
		t.Errorf("skipped %s", got)
	}
	run, err := Measure(context.Background(), cpu.New(1), targets, Options{Count: 1, CopyBytes: -1})
	if err != nil || len(run.Results) != 2 || run.Results[1].Elements != 64 {
		t.Errorf("run %+v, %v", run, err)
	}
}

type ggufTensor struct {
	name string
	dims []uint64
	typ  uint32
	data []byte
}

// writeGGUF writes a GGUF v3 file with no metadata and the given tensors,
// each at the next 32-byte aligned offset.
func writeGGUF(t *testing.T, path string, ts []ggufTensor) {
	var b bytes.Buffer
	put := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("GGUF")
	put(uint32(3))
	put(uint64(len(ts)))
	put(uint64(0))
	var off uint64
	for _, tt := range ts {
		put(uint64(len(tt.name)))
		b.WriteString(tt.name)
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
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGGUFWrongGeometry: a tensor whose type id a spec claims with other
// blocks than ggml's is skipped with the reason, like a type with no spec
// (it was made a benchmark that decodes the data with the wrong blocks).
func TestGGUFWrongGeometry(t *testing.T) {
	old := specOf
	t.Cleanup(func() { specOf = old })
	specOf = func(t *gguf.Tensor) (*formats.Format, bool) {
		f, ok := t.Format()
		if ok && f.Name == "Q8_0" {
			wrong := *f // as a spec that got ggml's Q8_0 geometry wrong would
			wrong.BlockBytes = 36
			return &wrong, true
		}
		return f, ok
	}
	p := filepath.Join(t.TempDir(), "geometry.gguf")
	writeGGUF(t, p, []ggufTensor{
		{"q4", []uint64{64}, 2, make([]byte, 36)},
		{"q8", []uint64{32, 2}, 8, make([]byte, 68)},
	})
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	if len(targets) != 1 || targets[0].Name != "gguf/q4/dequant_f32" || len(skipped) != 1 ||
		skipped[0].String() != "q8 (Q8_0): forge's spec Q8_0 has 32-element blocks of 36 bytes, ggml's type 8 has 32-element blocks of 34 bytes" {
		t.Errorf("targets %v, skipped %v", targets, skipped)
	}
	if _, err := TensorFormat(&f.Tensors[1]); err == nil {
		t.Error("TensorFormat took the wrong spec")
	}
	// What SpecFits checks besides the geometry: whole blocks.
	q4, _ := formats.ByName("Q4_0")
	if err := SpecFits(q4, &f.Tensors[0]); err != nil {
		t.Errorf("Q4_0 tensor with Q4_0's spec: %v", err)
	}
	if err := SpecFits(q4, &f.Tensors[1]); err == nil {
		t.Error("Q8_0 tensor with Q4_0's spec fits")
	}
}

// TestGGUFTargetNames: a tensor name's control bytes and invalid UTF-8
// are escaped in its benchmark's name (and the skipped list), so that
// every output, JSON included, carries the name safely and distinctly.
func TestGGUFTargetNames(t *testing.T) {
	p := filepath.Join(t.TempDir(), "names.gguf")
	writeGGUF(t, p, []ggufTensor{
		{"a\x1b[31m b", []uint64{32}, 2, make([]byte, 18)},
		{"c\xff", []uint64{32}, 2, make([]byte, 18)},
		{"c\xfe", []uint64{32}, 2, make([]byte, 18)},
		{"iq2\x07", []uint64{256}, 16, make([]byte, 66)},
	})
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	targets, skipped := GGUFTargets(f, "dequant_f32")
	var names []string
	for _, tg := range targets {
		names = append(names, tg.Name)
	}
	if got := strings.Join(names, " "); got != `gguf/a\x1b[31m_b/dequant_f32 gguf/c\xff/dequant_f32 gguf/c\xfe/dequant_f32` {
		t.Errorf("targets %s", got)
	}
	if len(skipped) != 1 || skipped[0].String() != `iq2\a (IQ2_XXS): no forge spec for ggml type 16` {
		t.Errorf("skipped %v", skipped)
	}
}
