package formats_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/rocmforge/forge/internal/qvec"
	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/specs/formats"
)

// required are the formats of the reference engine; every one must have a spec.
var required = []string{"F32", "F16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K",
	"Q4_K", "Q5_K", "Q6_K", "MXFP4", "MXFP6_E2M3", "MXFP6_E3M2"}

func TestRequiredFormatsRegistered(t *testing.T) {
	for _, name := range required {
		if _, ok := formats.ByName(name); !ok {
			t.Errorf("no spec registered for %s", name)
		}
	}
}

func TestMetadata(t *testing.T) {
	names, ids := map[string]bool{}, map[int]string{}
	for _, f := range formats.All() {
		if f.StructSize() != f.BlockBytes {
			t.Errorf("%s: Go block struct is %d bytes, spec declares %d", f.Name, f.StructSize(), f.BlockBytes)
		}
		if f.BlockElems <= 0 || f.BlockBytes <= 0 {
			t.Errorf("%s: bad block geometry %d elems / %d bytes", f.Name, f.BlockElems, f.BlockBytes)
		}
		if names[f.Name] {
			t.Errorf("format name %s registered twice", f.Name)
		}
		names[f.Name] = true
		if f.HasGGMLType() {
			if other, dup := ids[f.GGMLType]; dup {
				t.Errorf("ggml type %d used by both %s and %s", f.GGMLType, other, f.Name)
			}
			ids[f.GGMLType] = f.Name
		}
		if f.Doc == "" {
			t.Errorf("%s: no Doc line", f.Name)
		}
	}
}

// loadVectors reads ggml's vectors of kind ("dequant", "quantize",
// "quantize_edge") for f, or returns nil when the shared folder's manifest
// lists none: a format that ggml lacks, or that the vectors do not cover,
// is checked by TestRoundTrip here and by gen/translate's TestFormatsHost
// instead. A file the manifest lists must be there and describe f. Without
// the shared folder the test skips (or fails, under $FORGE_REQUIRE_SHARED).
func loadVectors(t *testing.T, f *formats.Format, kind string) *qvec.File {
	t.Helper()
	m, err := qvec.ReadManifest(sharedtest.Path(t, "vectors/manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	name := m.File(f.Name, kind)
	if name == "" {
		return nil
	}
	p := sharedtest.Path(t, "vectors/"+name)
	v, err := qvec.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if v.Format != f.Name || v.BlockElems != f.BlockElems || v.BlockBytes != f.BlockBytes {
		t.Fatalf("%s: vector file describes %s with %d elems / %d bytes; spec says %s %d / %d",
			p, v.Format, v.BlockElems, v.BlockBytes, f.Name, f.BlockElems, f.BlockBytes)
	}
	if want := f.GGMLType; v.GGMLType != want {
		t.Fatalf("%s: vector file has ggml type %d, spec says %d", p, v.GGMLType, want)
	}
	return v
}

// sameFloats compares bit patterns; any two NaNs are equal (payloads are
// only meaningful where the test compares raw bytes).
func sameFloats(t *testing.T, what string, blockElems int, got, want []float32) {
	t.Helper()
	bad := 0
	for i := range want {
		g, w := got[i], want[i]
		if math.Float32bits(g) == math.Float32bits(w) || g != g && w != w {
			continue
		}
		if bad++; bad <= 8 {
			t.Errorf("%s: element %d (block %d, j=%d): got %g (%#08x), ggml %g (%#08x)",
				what, i, i/blockElems, i%blockElems, g, math.Float32bits(g), w, math.Float32bits(w))
		}
	}
	if bad > 8 {
		t.Errorf("%s: %d of %d elements differ", what, bad, len(want))
	}
}

// TestDequantVectors: every format's Dequant reproduces ggml's floats bit
// for bit, where the vectors have its dequant file.
func TestDequantVectors(t *testing.T) {
	for _, f := range formats.All() {
		t.Run(f.Name, func(t *testing.T) {
			v := loadVectors(t, f, "dequant")
			if v == nil {
				t.Skipf("the vectors have no dequant file for %s; TestRoundTrip and gen/translate's TestFormatsHost check it", f.Name)
			}
			got := make([]float32, len(v.Floats))
			if err := f.Dequantize(got, v.Raw); err != nil {
				t.Fatal(err)
			}
			sameFloats(t, "dequant", f.BlockElems, got, v.Floats)
			// The per-element path (no row loop) must agree too.
			for i := range got {
				if e := f.Elem(v.Raw, i); math.Float32bits(e) != math.Float32bits(got[i]) && !(e != e && got[i] != got[i]) {
					t.Fatalf("Elem(%d) = %#08x, row loop gave %#08x", i, math.Float32bits(e), math.Float32bits(got[i]))
				}
			}
		})
	}
}

// TestQuantizeVectors: every reference quantizer reproduces ggml's bytes,
// on the 8192 generator inputs and on the hand-made edge blocks, where the
// vectors have them. (Their only all-zero IQ4_NL block comes first, where
// forge and ggml agree; TestIQ4NLZeroBlocks covers the later ones.)
func TestQuantizeVectors(t *testing.T) {
	for _, f := range formats.All() {
		for _, kind := range []string{"quantize", "quantize_edge"} {
			t.Run(f.Name+"/"+kind, func(t *testing.T) {
				v := loadVectors(t, f, kind)
				if v == nil {
					t.Skipf("the vectors have no %s file for %s; TestRoundTrip checks its quantizer", kind, f.Name)
				}
				got := make([]byte, len(v.Raw))
				if err := f.Quantize(got, v.Inputs); err != nil {
					t.Fatal(err)
				}
				bad := 0
				for b := 0; b < v.Blocks; b++ {
					g := got[b*f.BlockBytes : (b+1)*f.BlockBytes]
					w := v.Raw[b*f.BlockBytes : (b+1)*f.BlockBytes]
					if string(g) != string(w) {
						if bad++; bad <= 4 {
							t.Errorf("block %d%s differs from ggml:\n got  %x\n ggml %x", b, edgeName(v, b), g, w)
						}
					}
				}
				if bad > 4 {
					t.Errorf("%d of %d blocks differ", bad, v.Blocks)
				}
				if v.Floats != nil {
					deq := make([]float32, len(v.Floats))
					if err := f.Dequantize(deq, v.Raw); err != nil {
						t.Fatal(err)
					}
					sameFloats(t, "dequant of ggml's bytes", f.BlockElems, deq, v.Floats)
				}
			})
		}
	}
}

func edgeName(v *qvec.File, b int) string {
	if v.Kind == qvec.KindQuantizeEdge {
		return fmt.Sprintf(" (edge block %d)", b)
	}
	return ""
}
