package formats_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rocmforge/forge/specs/formats"
)

// maxRoundTripNMSE bounds the normalised error of quantizing and
// dequantizing smooth inputs: the coarsest formats (Q1_0's signs, the
// ternary and 2-bit codes) lose about a quarter of a uniform signal's
// energy, 4-bit formats a few hundredths, so any format keeps more than
// half of it. A Dequant that reads its own Quantize's layout wrongly (the
// wrong nibble, byte or scale) scrambles or flips values and gives an
// error of the order of the signal or more.
const maxRoundTripNMSE = 0.5

// roundTripInputs are n floats, uniform in [-1, 1) times a power of two
// from 2^-10 to 2^5 that changes every 256 elements, so that the scales of
// every format run through small and large values.
func roundTripInputs(n int) []float32 {
	rng := rand.New(rand.NewPCG(13, 17))
	x := make([]float32, n)
	for i := range x {
		e := (i>>8)&15 - 10
		x[i] = float32(math.Ldexp(2*rng.Float64()-1, e))
	}
	return x
}

// TestRoundTrip checks every format without ggml's answers: its Quantize
// against its own Dequant, and the per-element path against the row loop.
// Where ggml has the format, TestDequantVectors and TestQuantizeVectors pin
// both down bit for bit; this is what a new format without vectors has
// (with gen/translate's TestFormatsHost for the device translation).
func TestRoundTrip(t *testing.T) {
	for _, f := range formats.All() {
		t.Run(f.Name, func(t *testing.T) {
			blocks := (8192 + f.BlockElems - 1) / f.BlockElems
			x := roundTripInputs(blocks * f.BlockElems)

			// Quantize writes every byte of its blocks: what the buffer
			// held before does not show through.
			q := make([]byte, blocks*f.BlockBytes)
			if err := f.Quantize(q, x); err != nil {
				t.Fatal(err)
			}
			dirty := make([]byte, len(q))
			for i := range dirty {
				dirty[i] = 0xFF
			}
			if err := f.Quantize(dirty, x); err != nil {
				t.Fatal(err)
			}
			for b := range blocks {
				if g, w := dirty[b*f.BlockBytes:(b+1)*f.BlockBytes], q[b*f.BlockBytes:(b+1)*f.BlockBytes]; string(g) != string(w) {
					t.Fatalf("block %d: Quantize into 0xFF bytes gives %x, into zeros %x: it leaves bytes it should write", b, g, w)
				}
			}

			y := make([]float32, len(x))
			if err := f.Dequantize(y, q); err != nil {
				t.Fatal(err)
			}
			// The error per run of one input scale, so that the runs of
			// small values count as much as the large ones. A run that comes
			// back all zeros is below the format's range (NVFP4's UE4M3
			// scales stop at 2^-10): allowed for inputs below 1, logged.
			var under []int
			for run := 0; run < len(x); run += 256 {
				var num, den float64
				zeros := true
				for i := run; i < min(run+256, len(x)); i++ {
					d := float64(y[i]) - float64(x[i])
					num += d * d
					den += float64(x[i]) * float64(x[i])
					zeros = zeros && y[i] == 0
				}
				exp := (run>>8)&15 - 10
				if zeros && exp < 0 {
					if !slices.Contains(under, exp) {
						under = append(under, exp)
					}
					continue
				}
				if nmse := num / den; !(nmse < maxRoundTripNMSE) {
					t.Errorf("elements %d..%d (inputs of magnitude 2^%d): Dequant(Quantize(x)) has NMSE %.3g, want < %g",
						run, min(run+256, len(x))-1, exp, nmse, maxRoundTripNMSE)
				}
			}
			if len(under) > 0 {
				t.Logf("inputs of magnitude 2^%v quantize to zeros: below the format's range", under)
			}

			// An all-zero block comes back as zeros.
			zero := make([]byte, f.BlockBytes)
			if err := f.Quantize(zero, make([]float32, f.BlockElems)); err != nil {
				t.Fatal(err)
			}
			z := make([]float32, f.BlockElems)
			if err := f.Dequantize(z, zero); err != nil {
				t.Fatal(err)
			}
			for j, v := range z {
				if v != 0 {
					t.Fatalf("an all-zero block quantizes to %x, whose element %d is %g", zero, j, v)
				}
			}

			// The per-element path (Dequant called directly) agrees with the
			// row loop on arbitrary bytes.
			rng := rand.New(rand.NewPCG(uint64(f.BlockBytes), uint64(f.BlockElems)))
			raw := make([]byte, 64*f.BlockBytes)
			for i := range raw {
				raw[i] = byte(rng.Uint32())
			}
			rows := make([]float32, 64*f.BlockElems)
			if err := f.Dequantize(rows, raw); err != nil {
				t.Fatal(err)
			}
			for i, r := range rows {
				if e := f.Elem(raw, i); math.Float32bits(e) != math.Float32bits(r) && !(e != e && r != r) {
					t.Fatalf("Elem(%d) = %#08x, the row loop gives %#08x", i, math.Float32bits(e), math.Float32bits(r))
				}
			}
		})
	}
}
