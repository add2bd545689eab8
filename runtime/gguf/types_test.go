package gguf_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/specs/formats"
)

// TestTypeTableMatchesSpecs checks that every registered format with a ggml
// type id agrees with the table on name and block geometry.
func TestTypeTableMatchesSpecs(t *testing.T) {
	for _, f := range formats.All() {
		if !f.HasGGMLType() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			tt, ok := gguf.GGMLType(f.GGMLType).Traits()
			if !ok {
				t.Fatalf("spec has ggml type id %d, which the table does not define", f.GGMLType)
			}
			if tt.Name != f.Name || tt.BlockElems != f.BlockElems || tt.BlockBytes != f.BlockBytes {
				t.Errorf("table %s %d elems/%d bytes, spec %s %d elems/%d bytes",
					tt.Name, tt.BlockElems, tt.BlockBytes, f.Name, f.BlockElems, f.BlockBytes)
			}
		})
	}
}

// TestTypeTableMatchesVectors checks the table against the geometry that
// ggml itself reported for every format in vectors/manifest.json.
func TestTypeTableMatchesVectors(t *testing.T) {
	b, err := os.ReadFile(sharedtest.Path(t, "vectors/manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Files []struct {
			Format     string `json:"format"`
			GGMLType   *int   `json:"ggml_type"`
			BlockSize  int    `json:"block_size"`
			BlockBytes int    `json:"block_bytes"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range m.Files {
		if e.GGMLType == nil {
			continue // MXFP6: not a ggml type
		}
		tt, ok := gguf.GGMLType(*e.GGMLType).Traits()
		if !ok || tt.Name != e.Format || tt.BlockElems != e.BlockSize || tt.BlockBytes != e.BlockBytes {
			t.Errorf("%s (id %d): ggml says %d elems/%d bytes, table has %+v", e.Format, *e.GGMLType, e.BlockSize, e.BlockBytes, tt)
		}
		seen++
	}
	if seen == 0 {
		t.Fatal("manifest lists no ggml formats")
	}
}

func TestTypeNames(t *testing.T) {
	for id, want := range map[gguf.GGMLType]string{0: "F32", 16: "IQ2_XXS", 31: "Q4_0_4_4", 42: "Q2_0", 43: "type(43)", 1 << 31: "type(2147483648)"} {
		if got := id.String(); got != want {
			t.Errorf("GGMLType(%d).String() = %q, want %q", id, got, want)
		}
	}
	ids := gguf.GGMLTypes()
	if len(ids) != 35 { // 43 ids less 4, 5, 31-33, 36-38
		t.Errorf("%d defined types, want 35", len(ids))
	}
	for _, id := range ids {
		if tt, ok := id.Traits(); !ok || tt.BlockElems <= 0 || tt.BlockBytes <= 0 {
			t.Errorf("%s: %+v", id, tt)
		}
	}
	for _, id := range []gguf.GGMLType{4, 5, 31, 32, 33, 36, 37, 38, 43} {
		if _, ok := id.Traits(); ok {
			t.Errorf("%s (id %d) has traits", id, id)
		}
	}
}
