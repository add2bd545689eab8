package formats

import (
	"math"
	"testing"
)

// TestMXFP4QuantizeOutsideVectors pins what the MXFP4 quantizer does where
// ggml's C is undefined or the vectors do not reach: the (uint8_t) cast of
// a negative or infinite e behaves as gcc's x86-64 code does (values
// observed from quantize_row_mxfp4_ref's scale expression compiled with gcc
// 12 -O2), and NaN elements never set amax and get code 0.
func TestMXFP4QuantizeOutsideVectors(t *testing.T) {
	for _, c := range []struct {
		amax float32
		e    E8M0
	}{
		{1e-40, 248},              // floor(log2) = -133: e = -8 wraps
		{1e-45, 232},              // smallest subnormal: -149 + 125 = -24 wraps
		{3e-38, 0},                // floor(log2) = -125: e = 0 exactly
		{float32(math.Inf(1)), 0}, // cvttss2si gives 0x80000000
		{1, 125},
		{3e38, 252},
	} {
		x := make([]float32, 32)
		x[7] = -c.amax
		var b BlockMXFP4
		b.Quantize(x)
		if b.E != c.e {
			t.Errorf("amax %g: e = %d, want %d", c.amax, b.E, c.e)
		}
	}

	x := make([]float32, 32)
	for k := range x {
		x[k] = float32(k%8) - 4
	}
	x[3], x[20] = float32(math.NaN()), float32(math.NaN())
	var b BlockMXFP4
	b.Quantize(x)
	if b.E != 127 { // amax 4: floor(log2 4) - 2 + 127
		t.Errorf("NaN block: e = %d, want 127", b.E)
	}
	if b.Qs[3]&15 != 0 || b.Qs[4]>>4 != 0 {
		t.Errorf("NaN elements got codes %d and %d, want 0", b.Qs[3]&15, b.Qs[4]>>4)
	}
	for j := range int32(32) {
		if j != 3 && j != 20 && b.Dequant(j) != x[j] {
			t.Errorf("element %d = %g came back as %g", j, x[j], b.Dequant(j))
		}
	}
}
