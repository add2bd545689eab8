package hipgen_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/longtest"
	"github.com/rocmforge/forge/specs/formats"
)

// dequantFormats run in every run of TestDequantKernelHost: a 32-element
// block (Q4_0), super-blocks with 32- and 16-element sub-blocks (Q4_K,
// Q6_K), a table-coded block of odd size (MXFP4) and a scalar format
// (F16). The others run with the long tests.
var dequantFormats = map[string]bool{"Q4_0": true, "Q4_K": true, "Q6_K": true, "MXFP4": true, "F16": true}

// dequantBlocks are the block counts each format runs: one block, a few,
// and enough that every thread of a workgroup step (and a grid-stride step
// past it) has vectors, at wave32 and wave64.
var dequantBlocks = []int{1, 7, 1003}

// TestDequantKernelHost runs the dequant kernels, as generated from the
// real specs for gfx1100 (wave32) and gfx90a (wave64), on the host under
// the emulation, and requires every output bit for bit equal to the Go
// spec's Dequant (→ f32) and its rounding to binary16 (→ f16), NaN as NaN:
// random blocks (float fields left as the bytes fall: NaNs and infinities
// included), with the 16-byte store path and the element stores.
func TestDequantKernelHost(t *testing.T) {
	e := newEmuHost(t)
	var all []*formats.Format
	lower := map[string]string{}
	for _, spec := range e.spec.Formats {
		f, ok := formats.ByName(spec.Name)
		if !ok {
			t.Errorf("%s: no format %s in specs/formats", spec.File, spec.Name)
			continue
		}
		all = append(all, f)
		lower[f.Name] = spec.Lower()
	}
	// The inputs and their files, written before the targets run in
	// parallel (both read them).
	rng := rand.New(rand.NewPCG(11, 13))
	inputs := map[string][]byte{} // format/blocks → the blocks' bytes
	paths := map[string]string{}  // format/blocks → their file
	for _, f := range all {
		for _, n := range dequantBlocks {
			b := make([]byte, n*f.BlockBytes)
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			key := fmt.Sprintf("%s/%d", f.Name, n)
			inputs[key] = b
			paths[key] = e.write(t, fmt.Sprintf("dq_%s_%d.src", f.Name, n), b)
		}
	}
	for _, target := range []string{"gfx1100", "gfx90a"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			var files []string
			run := map[string]bool{}
			for _, f := range all {
				if dequantFormats[f.Name] || longtest.Enabled() {
					run[f.Name] = true
					files = append(files, lower[f.Name]+"_dequant.hip")
				}
			}
			exe := e.link(t, "dequant", "dequant_"+target, e.unity(t, target, files, "dequant_"+target))
			for _, f := range all {
				t.Run(f.Name, func(t *testing.T) {
					if !run[f.Name] {
						longtest.Skip(t, "the dequant kernels of every format, emulated")
					}
					for _, n := range dequantBlocks {
						key := fmt.Sprintf("%s/%d", f.Name, n)
						want := make([]float32, n*f.BlockElems)
						if err := f.Dequantize(want, inputs[key]); err != nil {
							t.Fatal(err)
						}
						sp := paths[key]
						for _, out := range []struct {
							name  string
							bytes int
						}{{"f32", 4}, {"f16", 2}} {
							for _, offset := range []int{0, out.bytes} {
								runHostDequant(t, e, exe, f, lower[f.Name], out.name, out.bytes, offset, sp, n, want)
							}
						}
					}
				})
			}
		})
	}
}

func runHostDequant(t *testing.T, e *emuHost, exe string, f *formats.Format, low, out string, size, offset int, src string, n int, want []float32) {
	t.Helper()
	launcher := "forge_dequant_" + out + "_" + low
	dp := filepath.Join(e.dir, fmt.Sprintf("%s_%s_%d_%d.dst", filepath.Base(exe), launcher, n, offset))
	got := e.run(t, exe, launcher, src, dp, n, len(want), size, offset)
	if wantReport := launched(0, 1); got != wantReport {
		t.Fatalf("%s, %d blocks, dst at +%d: %q, want %q", launcher, n, offset, got, wantReport)
	}
	b, err := os.ReadFile(dp)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != len(want)*size {
		t.Fatalf("%s: %d output bytes, want %d", launcher, len(b), len(want)*size)
	}
	var bad []string
	for i, w := range want {
		var gotBits, wantBits uint32
		var gotNaN, wantNaN bool
		if size == 4 {
			gotBits = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
			wantBits = math.Float32bits(w)
			gotNaN, wantNaN = math.IsNaN(float64(math.Float32frombits(gotBits))), w != w
		} else {
			gotBits = uint32(b[2*i]) | uint32(b[2*i+1])<<8
			wantBits = uint32(formats.HalfFromFloat32(w))
			gotNaN, wantNaN = gotBits&0x7c00 == 0x7c00 && gotBits&0x3ff != 0, wantBits&0x7c00 == 0x7c00 && wantBits&0x3ff != 0
		}
		if gotBits != wantBits && !(gotNaN && wantNaN) {
			if bad = append(bad, fmt.Sprintf("element %d: %#x, want %#x", i, gotBits, wantBits)); len(bad) == 4 {
				break
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s, %d blocks, dst at +%d: %s", launcher, n, offset, strings.Join(bad, "; "))
	}
}
