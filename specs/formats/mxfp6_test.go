package formats

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/rocmforge/forge/internal/sharedtest"
)

// Properties of forge's MXFP6 reference quantizer, which has no ggml
// vectors to match; the harness in vectors_test.go checks Dequant.

type fp6Variant struct {
	f     *Format
	table *[64]float32 // the full signed table, from the definition
	mag   *[32]float32 // the spec's literal magnitudes
	mbits int
	bias  int
	emax  int // binary exponent of the largest value
}

var fp6Variants = []fp6Variant{
	{MXFP6_E2M3, ptr(fp6Table(3, 1)), &fp6E2M3Mag, 3, 1, 2},
	{MXFP6_E3M2, ptr(fp6Table(2, 3)), &fp6E3M2Mag, 2, 3, 4},
}

func ptr[T any](v T) *T { return &v }

// TestMXFP6MagnitudeLiterals: the literal magnitude tables Dequant uses are
// the definition's, bit for bit (the signed halves are their negations).
func TestMXFP6MagnitudeLiterals(t *testing.T) {
	for _, v := range fp6Variants {
		for c := range 32 {
			if math.Float32bits(v.mag[c]) != math.Float32bits(v.table[c]) ||
				math.Float32bits(-v.mag[c]) != math.Float32bits(v.table[c+32]) {
				t.Errorf("%s code %d: literal %g, definition %g / %g", v.f.Name, c, v.mag[c], v.table[c], v.table[c+32])
			}
		}
	}
}

// blockCode reads code k of a 25-byte block bit by bit (independently of
// fp6Code): bit i of the code is bit 6k+i of the little-endian bytes 1..24.
func blockCode(blk []byte, k int) uint8 {
	var c uint8
	for i := range 6 {
		bit := 6*k + i
		c |= (blk[1+bit/8] >> (bit % 8) & 1) << i
	}
	return c
}

func quantizeBlock(t *testing.T, f *Format, x []float32) []byte {
	t.Helper()
	blk := make([]byte, f.BlockBytes)
	if err := f.Quantize(blk, x); err != nil {
		t.Fatal(err)
	}
	return blk
}

func dequantBlocks(t *testing.T, f *Format, blk []byte) []float32 {
	t.Helper()
	out := make([]float32, len(blk)/f.BlockBytes*f.BlockElems)
	if err := f.Dequantize(out, blk); err != nil {
		t.Fatal(err)
	}
	return out
}

func readFloats(t *testing.T, rel string) []float32 {
	t.Helper()
	b, err := os.ReadFile(sharedtest.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// TestMXFP6Tables: the computed decode tables equal the project's
// mxfp6_tables.bin (E2M3 codes 0..63, then E3M2 codes 0..63), bit for bit.
func TestMXFP6Tables(t *testing.T) {
	want := readFloats(t, "vectors/mxfp6_tables.bin")
	if len(want) != 128 {
		t.Fatalf("mxfp6_tables.bin holds %d floats, want 128", len(want))
	}
	for vi, v := range fp6Variants {
		for c := range 64 {
			g, w := v.table[c], want[64*vi+c]
			if math.Float32bits(g) != math.Float32bits(w) {
				t.Errorf("%s code %d: table %g (%#08x), mxfp6_tables.bin %g (%#08x)",
					v.f.Name, c, g, math.Float32bits(g), w, math.Float32bits(w))
			}
		}
		if _, e := math.Frexp(float64(v.table[31])); e-1 != v.emax {
			t.Errorf("%s: largest value %g does not have exponent %d", v.f.Name, v.table[31], v.emax)
		}
	}
}

// TestMXFP6RoundTripRepresentable: a block whose values are already
// representable (the dequantization of any block with a finite scale)
// quantizes back to exactly the same floats, signed zeros included. The
// bytes can differ: the quantizer picks the smallest scale that holds amax,
// which only shifts the codes up a binade or more, losing no bits.
func TestMXFP6RoundTripRepresentable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range fp6Variants {
		t.Run(v.f.Name, func(t *testing.T) {
			blk := make([]byte, 25)
			tested := 0
			for e := range 255 { // every finite scale
				for range 40 {
					blk[0] = byte(e)
					for i := 1; i < 25; i++ {
						blk[i] = byte(rng.Uint32())
					}
					if rng.IntN(4) == 0 { // few distinct codes: small amax, zeros
						for i := 1; i < 25; i++ {
							blk[i] &= 0x41
						}
					}
					x := dequantBlocks(t, v.f, blk)
					if hasInf(x) {
						continue // overflowed at e near 254: not representable
					}
					tested++
					q := quantizeBlock(t, v.f, x)
					y := dequantBlocks(t, v.f, q)
					for k := range x {
						if math.Float32bits(x[k]) != math.Float32bits(y[k]) {
							t.Fatalf("block % x: element %d = %g (%#08x) came back as %g (%#08x) from % x",
								blk, k, x[k], math.Float32bits(x[k]), y[k], math.Float32bits(y[k]), q)
						}
					}
				}
			}
			if tested < 9000 {
				t.Fatalf("only %d blocks tested", tested)
			}
		})
	}
}

func hasInf(x []float32) bool {
	for _, v := range x {
		if math.IsInf(float64(v), 0) {
			return true
		}
	}
	return false
}

// TestMXFP6QuantizeInputs quantizes the 8192 generator inputs and checks
// each element against the block's scale X = 2^(e-127): e is the OCP shared
// exponent floor(log2 amax) - emax, and every element's value is the nearest
// FP6 value times X — within half an FP6 ulp at x/X, and the nearest entry of
// the table by brute force — except that |x/X| above the largest value gives
// exactly ±max·X.
func TestMXFP6QuantizeInputs(t *testing.T) {
	in := readFloats(t, "vectors/inputs.f32")
	if len(in) != 8192 {
		t.Fatalf("inputs.f32 holds %d floats, want 8192", len(in))
	}
	for _, v := range fp6Variants {
		t.Run(v.f.Name, func(t *testing.T) {
			raw := make([]byte, len(in)/32*25)
			if err := v.f.Quantize(raw, in); err != nil {
				t.Fatal(err)
			}
			out := dequantBlocks(t, v.f, raw)
			maxv := float64(v.table[31])
			saturated := 0
			for b := range len(in) / 32 {
				x, y := in[32*b:32*b+32], out[32*b:32*b+32]
				e := int(raw[25*b])
				var amax float64
				for _, xv := range x {
					amax = max(amax, math.Abs(float64(xv)))
				}
				if amax == 0 {
					if e != 0 {
						t.Errorf("block %d: all zero, scale byte %d, want 0", b, e)
					}
				} else if want := int(math.Floor(math.Log2(amax))) - v.emax + 127; e != want {
					t.Errorf("block %d: amax %g: scale byte %d, want %d", b, amax, e, want)
				}
				X := math.Ldexp(1, e-127)
				for k := range x {
					xv, yv := float64(x[k]), float64(y[k])
					s := xv / X
					err := math.Abs(yv - xv)
					if math.Abs(s) > maxv {
						saturated++
						if yv != math.Copysign(maxv*X, xv) {
							t.Errorf("block %d element %d: x/X = %g saturates to %g·X, got %g·X", b, k, s, maxv, yv/X)
						}
						continue
					}
					_, ex := math.Frexp(math.Abs(s))
					halfUlp := math.Ldexp(X, max(ex-1, 1-v.bias)-v.mbits-1)
					if err > halfUlp || math.Signbit(xv) != math.Signbit(yv) {
						t.Errorf("block %d element %d: x %g → %g: error %g over half an ulp %g", b, k, xv, yv, err, halfUlp)
					}
					// Brute force: no table value is nearer.
					for c := range 64 {
						if d := math.Abs(float64(v.table[c])*X - xv); d < err {
							t.Errorf("block %d element %d: x %g → %g, but code %d (%g) is nearer", b, k, xv, yv, c, float64(v.table[c])*X)
							break
						}
					}
				}
			}
			t.Logf("%d of %d elements saturated", saturated, len(in))
		})
	}
}

// TestMXFP6TiesToEven: with X = 1 (amax = the largest value), each midpoint
// between neighbouring positive values goes to the even code, for both signs.
func TestMXFP6TiesToEven(t *testing.T) {
	for _, v := range fp6Variants {
		for _, sign := range []float32{1, -1} {
			x := make([]float32, 32)
			x[0] = v.table[31]
			for c := range 31 {
				x[1+c] = sign * (v.table[c] + v.table[c+1]) / 2 // exact: few bits
			}
			blk := quantizeBlock(t, v.f, x)
			if blk[0] != 127 {
				t.Fatalf("%s: scale byte %d, want 127 (X = 1)", v.f.Name, blk[0])
			}
			for c := range 31 {
				even := uint8(c + c&1)
				if sign < 0 {
					even |= 32
				}
				if got := blockCode(blk, 1+c); got != even {
					t.Errorf("%s: %g (between codes %d and %d) got code %d, want %d",
						v.f.Name, x[1+c], c, c+1, got, even)
				}
			}
		}
	}
}

// TestMXFP6Saturation: |x/X| between the largest value and the next power
// of two saturates to ±max, also at the top of the float32 range.
func TestMXFP6Saturation(t *testing.T) {
	for _, v := range fp6Variants {
		top := math.Nextafter32(float32(math.Ldexp(1, v.emax+1)), 0) // just below 2^(emax+1)
		x := make([]float32, 32)
		x[0], x[1], x[2] = top, -top, (v.table[31]+top)/2
		x[3] = -math.Nextafter32(v.table[31], top)
		blk := quantizeBlock(t, v.f, x)
		if blk[0] != 127 {
			t.Fatalf("%s: scale byte %d, want 127", v.f.Name, blk[0])
		}
		for k, want := range []uint8{31, 63, 31, 63} {
			if got := blockCode(blk, k); got != want {
				t.Errorf("%s: x = %g got code %d, want %d", v.f.Name, x[k], got, want)
			}
		}
		// FLT_MAX: floor(log2) = 127, so X = 2^(127-emax) and FLT_MAX/X is
		// just below 2^(emax+1).
		x = make([]float32, 32)
		x[0], x[1] = math.MaxFloat32, -math.MaxFloat32
		blk = quantizeBlock(t, v.f, x)
		y := dequantBlocks(t, v.f, blk)
		if int(blk[0]) != 127-v.emax+127 || blockCode(blk, 0) != 31 || blockCode(blk, 1) != 63 {
			t.Errorf("%s: FLT_MAX block: scale %d codes %d %d", v.f.Name, blk[0], blockCode(blk, 0), blockCode(blk, 1))
		}
		if want := float32(math.Ldexp(float64(v.table[31]), 127-v.emax)); y[0] != want || y[1] != -want {
			t.Errorf("%s: FLT_MAX block decodes to %g %g, want ±%g", v.f.Name, y[0], y[1], want)
		}
	}
}

// TestMXFP6Specials: zeros keep their sign with scale byte 0, tiny blocks
// clamp the scale at e = 0, and a NaN or infinity anywhere makes the scale
// NaN (byte 255, codes 0), so the whole block decodes to NaN.
func TestMXFP6Specials(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	for _, v := range fp6Variants {
		x := make([]float32, 32)
		x[5] = negZero
		blk := quantizeBlock(t, v.f, x)
		y := dequantBlocks(t, v.f, blk)
		for k := range 32 {
			want := uint8(0)
			if k == 5 {
				want = 32
			}
			if got := blockCode(blk, k); got != want || math.Float32bits(y[k]) != math.Float32bits(x[k]) {
				t.Errorf("%s zeros: element %d code %d value %g, want code %d", v.f.Name, k, got, y[k], want)
			}
		}
		if blk[0] != 0 {
			t.Errorf("%s zeros: scale byte %d, want 0", v.f.Name, blk[0])
		}

		// amax = 2^-140 would want s = -140-emax: clamped to -127 (e = 0).
		// The smallest step is then 2^(1-bias-m)·2^-127.
		step := math.Ldexp(1, 1-v.bias-v.mbits-127)
		x = make([]float32, 32)
		x[0] = float32(math.Ldexp(1, -140))
		x[1] = float32(step)
		x[2] = float32(-step / 2)       // tie between -0 and -step: even is -0
		x[3] = float32(step * 3 / 2)    // tie between step and 2·step: even is 2·step
		x[4] = float32(-step * 3 / 4.0) // nearer -step
		blk = quantizeBlock(t, v.f, x)
		y = dequantBlocks(t, v.f, blk)
		if blk[0] != 0 {
			t.Errorf("%s tiny: scale byte %d, want 0", v.f.Name, blk[0])
		}
		for k, want := range []float32{0, float32(step), negZero, float32(2 * step), float32(-step)} {
			if math.Float32bits(y[k]) != math.Float32bits(want) {
				t.Errorf("%s tiny: element %d = %g decodes to %g, want %g", v.f.Name, k, x[k], y[k], want)
			}
		}

		for _, special := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
			x = make([]float32, 32)
			for k := range x {
				x[k] = float32(k) - 3
			}
			x[17] = special
			blk = quantizeBlock(t, v.f, x)
			if blk[0] != 255 {
				t.Errorf("%s with %g: scale byte %d, want 255", v.f.Name, special, blk[0])
			}
			for i := 1; i < 25; i++ {
				if blk[i] != 0 {
					t.Errorf("%s with %g: code bytes % x, want zeros", v.f.Name, special, blk[1:])
					break
				}
			}
			for k, yv := range dequantBlocks(t, v.f, blk) {
				if yv == yv {
					t.Errorf("%s with %g: element %d decodes to %g, want NaN", v.f.Name, special, k, yv)
				}
			}
		}
	}
}

// TestMXFP6Packing: Dequant reads code k at bits 6k..6k+5, LSB first; each
// single code is placed by hand and read back through Dequant.
func TestMXFP6Packing(t *testing.T) {
	for _, v := range fp6Variants {
		for k := range 32 {
			for _, c := range []uint8{1, 33, 42, 63} {
				blk := make([]byte, 25)
				blk[0] = 127
				for i := range 6 {
					if c>>i&1 != 0 {
						bit := 6*k + i
						blk[1+bit/8] |= 1 << (bit % 8)
					}
				}
				if got := blockCode(blk, k); got != c {
					t.Fatalf("test packer: code %d at %d reads back %d", c, k, got)
				}
				y := dequantBlocks(t, v.f, blk)
				for j := range 32 {
					want := float32(0)
					if j == k {
						want = v.table[c]
					}
					if y[j] != want {
						t.Errorf("%s: code %d at element %d: element %d = %g, want %g", v.f.Name, c, k, j, y[j], want)
					}
				}
			}
		}
	}
}
