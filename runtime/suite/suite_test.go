package suite

import (
	"math"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

func TestSplitmix64KnownValues(t *testing.T) {
	// splitmix64's published first outputs from seed 0.
	r := NewRand(0)
	for i, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := r.Uint64(); got != want {
			t.Fatalf("output %d: %#x, want %#x", i, got, want)
		}
	}
}

func TestRegistry(t *testing.T) {
	old := suites
	t.Cleanup(func() { suites = old })
	suites = nil
	a := Suite{Name: "dequant_f32/Q4_0", Family: "dequant", Kernel: "dequant_f32", Output: backend.OutputF32, Format: formats.Q4_0}
	b := Suite{Name: "dequant_f16/Q4_0", Family: "dequant", Kernel: "dequant_f16", Output: backend.OutputF16, Format: formats.Q4_0}
	Register(a)
	Register(b)
	if all := All(); len(all) != 2 || all[0] != a || all[1] != b {
		t.Fatalf("All() = %v, want [a b] in registration order", all)
	}
	if s, ok := ByName(b.Name); !ok || s != b {
		t.Errorf("ByName(%q) = %v, %v", b.Name, s, ok)
	}
	if _, ok := ByName("nope"); ok {
		t.Error("ByName found an unregistered suite")
	}
	for _, bad := range []Suite{a, {Name: "x", Output: backend.OutputF32}, {Name: "y", Output: "f8", Format: formats.Q4_0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%+v) did not panic", bad)
				}
			}()
			Register(bad)
		}()
	}
}

func TestInputsDeterministicAndSpread(t *testing.T) {
	f := formats.Q4_K
	a, b := Inputs(f, 500, Seed(f.Name)), Inputs(f, 500, Seed(f.Name))
	var zeroBlocks, tiny, huge int
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			t.Fatalf("Inputs differ at %d between calls", i)
		}
		if v := math.Abs(float64(a[i])); v != 0 && v < 1.0/(1<<24) {
			tiny++
		} else if v > 65504 {
			huge++
		}
	}
	for blk := range 500 {
		if allZero(a[blk*256 : (blk+1)*256]) {
			zeroBlocks++
		}
	}
	if zeroBlocks == 0 || tiny == 0 || huge == 0 {
		t.Errorf("Inputs lacks spread: %d zero blocks, %d values below 2^-24, %d beyond half range", zeroBlocks, tiny, huge)
	}
	c, d := Inputs(formats.Q4_0, 10, Seed("Q4_0")), Inputs(formats.Q4_0, 10, Seed("Q4_1"))
	same := 0
	for i := range c {
		if c[i] == d[i] {
			same++
		}
	}
	if same > len(c)/4 {
		t.Errorf("different seeds gave %d of %d equal inputs", same, len(c))
	}
}

func allZero(x []float32) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}

func TestCompare(t *testing.T) {
	f := formats.Q4_0
	nan1, nan2 := math.Float32frombits(0x7fc00000), math.Float32frombits(0xffc00001)
	want := make([]float32, 70)
	got := make([]float32, 70)
	want[3], got[3] = nan1, nan2                         // NaN matches NaN
	want[40], got[40] = 1, 1.0000001                     // one ulp off
	want[65], got[65] = 0, float32(math.Copysign(0, -1)) // -0 is not +0
	n, first := CompareF32(f, got, want, 10)
	if n != 2 || len(first) != 2 {
		t.Fatalf("CompareF32: %d mismatches %v, want 2", n, first)
	}
	if m := first[0]; m.Index != 40 || m.Block != 1 || m.Elem != 8 {
		t.Errorf("first mismatch %+v, want index 40 = block 1 element 8", m)
	}
	if s := first[1].String(); s != "block 2 element 1 (index 65): got 0x80000000 (-0), want 0x00000000 (0)" {
		t.Errorf("mismatch text %q", s)
	}
	if n, first := CompareF32(f, got, want, 1); n != 2 || len(first) != 1 {
		t.Errorf("limit 1: %d, %d listed", n, len(first))
	}

	h := []uint16{0x7e00, 0x7c01, 0x3c00, 0xfc00}
	g := []uint16{0xfe00, 0x7d00, 0x3c00, 0x7c00}
	n, first = CompareF16(f, g, h, 10)
	if n != 1 || first[0].Index != 3 || !first[0].F16 {
		t.Fatalf("CompareF16: %d %v, want one mismatch at 3 (-inf vs +inf)", n, first)
	}
	if s := first[0].String(); s != "block 0 element 3 (index 3): got 0x7c00 (+Inf), want 0xfc00 (-Inf)" {
		t.Errorf("mismatch text %q", s)
	}
}

func TestWantMatchesCPURowLoop(t *testing.T) {
	for _, f := range []*formats.Format{formats.Q4_0, formats.Q6_K, formats.MXFP6_E3M2} {
		src, err := QuantizedBlocks(f, 7, Seed(f.Name))
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]float32, 7*f.BlockElems)
		if err := f.Dequantize(rows, src); err != nil {
			t.Fatal(err)
		}
		if n, first := CompareF32(f, rows, WantF32(f, src), 3); n != 0 {
			t.Errorf("%s: Elem and the row loop disagree: %v", f.Name, first)
		}
		w16 := WantF16(f, src)
		for i, v := range rows {
			if uint16(formats.HalfFromFloat32(v)) != w16[i] {
				t.Fatalf("%s: WantF16[%d] is not HalfFromFloat32 of the f32 value", f.Name, i)
			}
		}
	}
}

// TestMatMulX8Slack: the bound holds for Y computed from X quantized as the
// integer tensor-core path quantizes it (8 bits per X8Group elements of each vector),
// and a result with one entry off by a tenth of its magnitude exceeds it.
func TestMatMulX8Slack(t *testing.T) {
	for _, name := range []string{"Q4_0", "Q4_K", "Q6_K", "Q8_0"} {
		f, ok := formats.ByName(name)
		if !ok {
			t.Fatalf("no format %s", name)
		}
		const rows, batch = 19, 5
		cols := 2 * f.BlockElems
		w, x, err := MatMulData(f, rows, cols, batch, Seed(name))
		if err != nil {
			t.Fatal(err)
		}
		xq := make([]float32, len(x))
		group := X8Group(f) // per block for the super form's formats (Q4_K, Q6_K here)
		for b := range batch {
			for g := 0; g < cols; g += group {
				xs := x[b*cols+g : b*cols+g+group]
				var amax float32
				for _, v := range xs {
					amax = max(amax, float32(math.Abs(float64(v))))
				}
				d := amax / 127
				for k, v := range xs {
					if d != 0 {
						xq[b*cols+g+k] = float32(math.Round(float64(v/d))) * d
					}
				}
			}
		}
		ref, mag := MatMulRef(f, w, x, rows, cols, batch)
		got, _ := MatMulRef(f, w, xq, rows, cols, batch)
		slack := MatMulX8Slack(f, w, x, rows, cols, batch)
		worst := 0.0
		for i := range ref {
			d := math.Abs(got[i] - ref[i])
			if d > slack[i]*(1+1e-9) {
				t.Errorf("%s entry %d: quantizing X moved it by %g, past its slack %g", name, i, d, slack[i])
			}
			if slack[i] > 0 {
				worst = max(worst, d/slack[i])
			}
			if slack[i] >= 0.1*mag[i] {
				t.Errorf("%s entry %d: slack %g is not below a tenth of the magnitude %g: a wrong entry could pass", name, i, slack[i], mag[i])
			}
		}
		if worst == 0 {
			t.Errorf("%s: quantizing X moved no entry: the test checks nothing", name)
		}
	}
}
