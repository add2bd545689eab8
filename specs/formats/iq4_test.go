package formats_test

import (
	"testing"

	"github.com/rocmforge/forge/internal/qvec"
	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/specs/formats"
)

// TestIQ4NLChunk: QuantizeIQ4NLChunk reproduces ggml_quantize_chunk's IQ4_NL
// bytes (ntry = 7, what llama-quantize writes), which differ from the
// quantize_row_iq4_nl_ref bytes that Format.Quantize gives.
func TestIQ4NLChunk(t *testing.T) {
	v, err := qvec.Read(sharedtest.Path(t, "vectors/iq4_nl.quantize_chunk.bin"))
	if err != nil {
		t.Fatal(err)
	}
	f := formats.IQ4_NL
	if v.Format != f.Name || v.Kind != qvec.KindQuantizeChunk || v.BlockElems != f.BlockElems || v.BlockBytes != f.BlockBytes {
		t.Fatalf("vector file is %s kind %d, %d elems / %d bytes; want %s chunk, %d / %d",
			v.Format, v.Kind, v.BlockElems, v.BlockBytes, f.Name, f.BlockElems, f.BlockBytes)
	}
	got := make([]byte, len(v.Raw))
	if err := formats.QuantizeIQ4NLChunk(got, v.Inputs); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for b := 0; b < v.Blocks; b++ {
		g := got[b*f.BlockBytes : (b+1)*f.BlockBytes]
		w := v.Raw[b*f.BlockBytes : (b+1)*f.BlockBytes]
		if string(g) != string(w) {
			if bad++; bad <= 4 {
				t.Errorf("block %d differs from ggml_quantize_chunk:\n got  %x\n ggml %x", b, g, w)
			}
		}
	}
	if bad > 4 {
		t.Errorf("%d of %d blocks differ", bad, v.Blocks)
	}

	// The _ref path must give different bytes on these inputs, or this test
	// would not tell the two apart.
	ref := make([]byte, len(v.Raw))
	if err := f.Quantize(ref, v.Inputs); err != nil {
		t.Fatal(err)
	}
	if string(ref) == string(v.Raw) {
		t.Error("quantize_row_iq4_nl_ref bytes equal the chunk bytes; expected them to differ")
	}

	if err := formats.QuantizeIQ4NLChunk(got[:17], v.Inputs[:32]); err == nil {
		t.Error("QuantizeIQ4NLChunk accepted 17 bytes for one block")
	}
}
