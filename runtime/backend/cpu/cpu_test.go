package cpu_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/specs/formats"
)

// testInputs returns n reproducible floats with a spread of magnitudes.
func testInputs(n int) []float32 {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64()) * float32(math.Ldexp(1, i/4096%8-4))
	}
	return x
}

// TestParallelMatchesReference: the parallel backend gives exactly the
// spec's single-goroutine results, for sizes around the chunking boundaries.
func TestParallelMatchesReference(t *testing.T) {
	be := cpu.New(4)
	for _, f := range formats.All() {
		for _, blocks := range []int{0, 1, 3, 513, 4099} {
			t.Run(fmt.Sprintf("%s/%d", f.Name, blocks), func(t *testing.T) {
				n := blocks * f.BlockElems
				x := testInputs(n)
				q, ref := make([]byte, blocks*f.BlockBytes), make([]byte, blocks*f.BlockBytes)
				if err := be.Quantize(f, q, x); err != nil {
					t.Fatal(err)
				}
				if err := f.Quantize(ref, x); err != nil {
					t.Fatal(err)
				}
				if string(q) != string(ref) {
					t.Fatal("parallel Quantize differs from the reference")
				}
				got, want := make([]float32, n), make([]float32, n)
				if err := be.Dequantize(f, got, q); err != nil {
					t.Fatal(err)
				}
				if err := f.Dequantize(want, q); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("element %d: parallel %g, reference %g", i, got[i], want[i])
					}
				}
			})
		}
	}
}

func TestSizeErrors(t *testing.T) {
	be := cpu.New(2)
	f := formats.Q4_0
	if err := be.Dequantize(f, make([]float32, 32), make([]byte, 17)); err == nil {
		t.Error("17 bytes of Q4_0 accepted")
	}
	if err := be.Dequantize(f, make([]float32, 31), make([]byte, 18)); err == nil {
		t.Error("a 31-float buffer for one Q4_0 block accepted")
	}
	if err := be.Quantize(f, make([]byte, 18), make([]float32, 33)); err == nil {
		t.Error("33 floats for one Q4_0 block accepted")
	}
}

// BenchmarkDequantize measures whole-tensor dequantization of 16 Mi elements
// per format. bytes/s counts the blocks read plus the float32s written;
// elems/s is the figure the reference engine published (1.31 G/s for Q4_0).
func BenchmarkDequantize(b *testing.B) {
	const n = 16 << 20
	x := testInputs(n)
	dst := make([]float32, n)
	be := cpu.New(0)
	for _, f := range formats.All() {
		if n%f.BlockElems != 0 {
			continue
		}
		b.Run(f.Name, func(b *testing.B) {
			src := make([]byte, n/f.BlockElems*f.BlockBytes)
			if err := be.Quantize(f, src, x); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src) + 4*n))
			for b.Loop() {
				if err := be.Dequantize(f, dst, src); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelems/s")
		})
	}
}
