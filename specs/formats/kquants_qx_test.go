package formats_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/rocmforge/forge/specs/formats"
)

// TestQXQuantizeOverwrites: the Q3_K, Q6_K and Q8_K quantizers write every
// byte of the block, whatever it held before (the vector harness always
// quantizes into zeroed memory, so it cannot see a field left stale). The
// inputs include an all-zero block and a block with an all-zero sub-block.
func TestQXQuantizeOverwrites(t *testing.T) {
	const n = 4 * 256
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.7) * math.Exp2(float64(i%7-3)))
	}
	for i := 256; i < 512; i++ {
		x[i] = 0
	}
	for i := 512; i < 528; i++ {
		x[i] = 0
	}
	for _, name := range []string{"Q3_K", "Q6_K", "Q8_K"} {
		f, ok := formats.ByName(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		clean := make([]byte, n/f.BlockElems*f.BlockBytes)
		if err := f.Quantize(clean, x); err != nil {
			t.Fatal(err)
		}
		for _, fill := range []byte{0xff, 0xaa, 0x55} {
			dirty := bytes.Repeat([]byte{fill}, len(clean))
			if err := f.Quantize(dirty, x); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dirty, clean) {
				t.Errorf("%s: quantizing into memory filled with %#x gives different bytes than into zeroed memory", name, fill)
			}
		}
	}
}
