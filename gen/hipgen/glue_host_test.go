package hipgen_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// TestGlueKernelHost runs the generated model glue (glue.hip) on the host
// (emuHost), at gfx1100 (wave32) and gfx90a (wave64: rmsnorm's cross-lane
// sums in 64-lane waves), against the Go references of runtime/backend/cpu
// (RMSNorm, RoPE, SiLUMul, Add, ToHeads, ToTokens): rmsnorm within 2e-6
// relative (float32 sums against float64), rope within 2e-5 of the
// vectors' scale at positions near 100 and 4e-4 near 4000 (the float32
// angle: see the template), silu within 1e-6 relative, the add and the
// layout kernels exactly (f16 rounding included), rows of the cache outside
// the appended ones untouched; rmsnorm_x8 bit for bit formats.QuantizeX8
// of the emulated rmsnorm's output; the other fused kernels bit for bit
// the unfused ones they replace, emulated on the same inputs (silu_mul_x8,
// tokens_x8 and add_rmsnorm_x8 against formats.QuantizeX8 of silu_mul's,
// tokens' and add's then rmsnorm's outputs; rope_kv against rope, then
// heads three times, its inputs left as they were); and the refusals
// (rc=1) and no-ops (rc=0), none of which launches.
func TestGlueKernelHost(t *testing.T) {
	e := newEmuHost(t)
	for _, target := range []string{"gfx1100", "gfx90a"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			obj := e.compile(t, e.source(t, target, "glue.hip"), "glue_"+target+".o")
			g := &glueRun{t: t, e: e, exe: e.link(t, "glue", "glue_"+target, obj), prefix: target}
			g.rmsnorm(3, 300)
			g.rmsnorm(2, 4096)
			g.rmsnormX8(1, 4096)
			g.rmsnormX8(3, 96)
			g.rmsnormX8(2, 800)
			g.rope(5, 3, 32, 100, false, 2e-5)
			g.rope(5, 3, 32, 100, true, 2e-5)
			g.rope(2, 2, 128, 4000, false, 4e-4)
			g.elementwise("silu_mul", 1000)
			g.elementwise("add", 777)
			g.layout(3, 2, 8, 5, 10)
			g.layout(1, 4, 128, 63, 64)
			g.layout(7, 2, 16, 0, 7)
			g.siluMulX8(1024)
			g.siluMulX8(96)
			g.tokensX8(1, 4, 64, 9, 12)
			g.tokensX8(3, 2, 16, 2, 8)
			g.addRMSNormX8(1, 4096)
			g.addRMSNormX8(3, 96)
			g.addRMSNormX8(2, 800)
			g.ropeKV(1, 8, 2, 64, 100, 128, false)
			g.ropeKV(3, 4, 4, 32, 5, 9, true)
			g.ropeKV(2, 6, 2, 16, 0, 2, false)
			g.refusals()
		})
	}
}

type glueRun struct {
	t      *testing.T
	e      *emuHost
	exe    string
	prefix string
	n      int
}

func (g *glueRun) file(data []byte) string {
	g.n++
	return g.e.write(g.t, fmt.Sprintf("%s_%d.bin", g.prefix, g.n), data)
}

func (g *glueRun) run(want string, args ...any) {
	g.t.Helper()
	if out := g.e.run(g.t, g.exe, args...); out != want {
		g.t.Fatalf("glue %v: %q, want %q", args, out, want)
	}
}

func (g *glueRun) floats(p string) []float32 { return readFloats(g.t, p) }

func glueData(n int, seed uint64, sd float32) []float32 {
	r := suite.NewRand(seed)
	x := make([]float32, n)
	for i := range x {
		x[i] = sd * (r.Float() + r.Float() + r.Float())
	}
	return x
}

// closeTo fails when |got-want| exceeds tol·scale for any element, where
// scale is want's largest magnitude (or 1 per element when rel).
func (g *glueRun) closeTo(what string, got, want []float32, tol float64, rel bool) {
	g.t.Helper()
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(float64(w)))
	}
	worst := 0.0
	for i := range want {
		s := scale
		if rel {
			s = math.Max(math.Abs(float64(want[i])), 1e-30)
		}
		e := math.Abs(float64(got[i])-float64(want[i])) / s
		if !(e <= tol) {
			g.t.Errorf("%s: element %d is %g, want %g (error %.3g of the scale, bound %.0e)", what, i, got[i], want[i], e, tol)
			return
		}
		worst = math.Max(worst, e)
	}
	g.t.Logf("%s: worst error %.3g of the scale (bound %.0e)", what, worst, tol)
}

func (g *glueRun) rmsnorm(rows, dim int) {
	x, w := glueData(rows*dim, uint64(dim), 1.5), glueData(dim, 7, 1)
	xp, wp, yp := g.file(f32Bytes(x)), g.file(f32Bytes(w)), g.file(make([]byte, 4*rows*dim))
	g.run(launched(0, 1), "rmsnorm", xp, wp, yp, rows, dim, 1e-5)
	want := make([]float32, rows*dim)
	cpu.RMSNorm(x, w, want, rows, dim, 1e-5)
	g.closeTo(fmt.Sprintf("rmsnorm %d×%d", rows, dim), g.floats(yp), want, 2e-6, false)
}

// rmsnormX8 runs rmsnorm and rmsnorm_x8 on the same rows: the fused
// kernel's X8 bytes must be formats.QuantizeX8 of rmsnorm's output.
func (g *glueRun) rmsnormX8(rows, dim int) {
	x, w := glueData(rows*dim, uint64(dim)+1, 1.5), glueData(dim, 8, 1)
	xp, wp, yp := g.file(f32Bytes(x)), g.file(f32Bytes(w)), g.file(make([]byte, 4*rows*dim))
	g.run(launched(0, 1), "rmsnorm", xp, wp, yp, rows, dim, 1e-5)
	want := suite.X8Layout(formats.QuantizeX8(g.floats(yp)))
	qp := g.file(make([]byte, len(want)))
	g.run(launched(0, 1), "rmsnorm_x8", xp, wp, qp, rows, dim, 1e-5)
	got, err := os.ReadFile(qp)
	if err != nil {
		g.t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g.t.Errorf("rmsnorm_x8 %d×%d: %s", rows, dim, x8Diff(got, want, rows*dim))
	}
}

func (g *glueRun) rope(seq, heads, hd, pos int, neox bool, tol float64) {
	x := glueData(seq*heads*hd, uint64(pos+hd), 1)
	xp := g.file(f32Bytes(x))
	nx := 0
	if neox {
		nx = 1
	}
	g.run(launched(0, 1), "rope", xp, seq, heads, hd, pos, 500000, nx)
	cpu.RoPE(x, seq, heads, hd, pos, 500000, neox)
	g.closeTo(fmt.Sprintf("rope s%d h%d d%d pos %d neox=%v", seq, heads, hd, pos, neox), g.floats(xp), x, tol, false)
}

func (g *glueRun) elementwise(op string, n int) {
	a, b := glueData(n, 3, 4), glueData(n, 4, 1)
	ap, bp, op2 := g.file(f32Bytes(a)), g.file(f32Bytes(b)), g.file(make([]byte, 4*n))
	g.run(launched(0, 1), op, ap, bp, op2, n)
	want := make([]float32, n)
	tol := 0.0
	if op == "add" {
		cpu.Add(a, b, want)
	} else {
		cpu.SiLUMul(a, b, want)
		tol = 1e-6
	}
	g.closeTo(op, g.floats(op2), want, tol, true)
}

// layout appends seq token-major rows at pos of a [heads, cap, hd] f16
// cache (heads), then reads them back (tokens).
func (g *glueRun) layout(seq, heads, hd, pos, capacity int) {
	what := fmt.Sprintf("layout s%d h%d d%d at %d of %d", seq, heads, hd, pos, capacity)
	x := glueData(seq*heads*hd, uint64(seq*hd+pos), 2)
	cache := glueData(heads*capacity*hd, 99, 1)
	for i, v := range cache {
		cache[i] = formats.HalfFromFloat32(v).Float32()
	}
	cacheBytes := attnBytes("f16", cache)
	xp, cp := g.file(f32Bytes(x)), g.file(cacheBytes)
	g.run(launched(0, 1), "heads", xp, cp, seq, heads, hd, pos, capacity)
	want := append([]float32(nil), cache...)
	cpu.ToHeads(x, want, seq, heads, hd, pos, capacity)
	b, err := os.ReadFile(cp)
	if err != nil {
		g.t.Fatal(err)
	}
	g.closeTo(what+" (heads)", attnFloats("f16", b), want, 0, true)
	back := g.file(make([]byte, 4*seq*heads*hd))
	g.run(launched(0, 1), "tokens", cp, back, seq, heads, hd, pos, capacity)
	wantBack := make([]float32, seq*heads*hd)
	cpu.ToTokens(want, wantBack, seq, heads, hd, pos, capacity)
	g.closeTo(what+" (tokens)", g.floats(back), wantBack, 0, true)
}

// x8Equal fails unless the X8 bytes in file p are want.
func (g *glueRun) x8Equal(what, p string, want []byte, n int) {
	g.t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		g.t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		g.t.Errorf("%s: %s", what, x8Diff(got, want, n))
	}
}

// bytesOf is file p's bytes.
func (g *glueRun) bytesOf(p string) []byte {
	g.t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		g.t.Fatal(err)
	}
	return b
}

// siluMulX8 runs silu_mul and silu_mul_x8 on the same gate and up.
func (g *glueRun) siluMulX8(n int) {
	a, b := glueData(n, 11, 4), glueData(n, 12, 1)
	ap, bp, op := g.file(f32Bytes(a)), g.file(f32Bytes(b)), g.file(make([]byte, 4*n))
	g.run(launched(0, 1), "silu_mul", ap, bp, op, n)
	want := suite.X8Layout(formats.QuantizeX8(g.floats(op)))
	qp := g.file(make([]byte, len(want)))
	g.run(launched(0, 1), "silu_mul_x8", ap, bp, qp, n)
	g.x8Equal(fmt.Sprintf("silu_mul_x8 %d", n), qp, want, n)
}

// tokensX8 runs tokens and tokens_x8 on the same f16 cache rows.
func (g *glueRun) tokensX8(seq, heads, hd, pos, capacity int) {
	n := seq * heads * hd
	cache := glueData(heads*capacity*hd, uint64(n+pos), 2)
	cp := g.file(attnBytes("f16", cache))
	back := g.file(make([]byte, 4*n))
	g.run(launched(0, 1), "tokens", cp, back, seq, heads, hd, pos, capacity)
	want := suite.X8Layout(formats.QuantizeX8(g.floats(back)))
	qp := g.file(make([]byte, len(want)))
	g.run(launched(0, 1), "tokens_x8", cp, qp, seq, heads, hd, pos, capacity)
	g.x8Equal(fmt.Sprintf("tokens_x8 s%d h%d d%d at %d of %d", seq, heads, hd, pos, capacity), qp, want, n)
}

// addRMSNormX8 runs add then rmsnorm_x8, and add_rmsnorm_x8, on the same
// rows: the same h and the same X8 bytes.
func (g *glueRun) addRMSNormX8(rows, dim int) {
	n := rows * dim
	a, b, w := glueData(n, uint64(dim)+5, 1.5), glueData(n, uint64(dim)+6, 0.5), glueData(dim, 9, 1)
	ap, bp, wp := g.file(f32Bytes(a)), g.file(f32Bytes(b)), g.file(f32Bytes(w))
	sum := g.file(make([]byte, 4*n))
	g.run(launched(0, 1), "add", ap, bp, sum, n)
	x8 := int(formats.X8Bytes(n))
	wq := g.file(make([]byte, x8))
	g.run(launched(0, 1), "rmsnorm_x8", sum, wp, wq, rows, dim, 1e-5)
	hp, qp := g.file(make([]byte, 4*n)), g.file(make([]byte, x8))
	g.run(launched(0, 1), "add_rmsnorm_x8", ap, bp, wp, hp, qp, rows, dim, 1e-5)
	what := fmt.Sprintf("add_rmsnorm_x8 %d×%d", rows, dim)
	if !bytes.Equal(g.bytesOf(hp), g.bytesOf(sum)) {
		g.t.Errorf("%s: h is not add's a + b", what)
	}
	g.x8Equal(what, qp, g.bytesOf(wq), n)
}

// ropeKV runs rope on copies of q and k, then heads on q, k and v, and
// rope_kv on the originals: the same f16 bytes in qh and both caches
// (rows outside pos.. included), and q, k, v unchanged.
func (g *glueRun) ropeKV(seq, heads, hkv, hd, pos, capacity int, neox bool) {
	what := fmt.Sprintf("rope_kv s%d h%d/%d d%d at %d of %d neox=%v", seq, heads, hkv, hd, pos, capacity, neox)
	nx := 0
	if neox {
		nx = 1
	}
	q, k, v := glueData(seq*heads*hd, uint64(pos)+21, 1), glueData(seq*hkv*hd, uint64(pos)+22, 1), glueData(seq*hkv*hd, uint64(pos)+23, 1)
	caches := func() (string, string) {
		return g.file(attnBytes("f16", glueData(hkv*capacity*hd, 31, 1))), g.file(attnBytes("f16", glueData(hkv*capacity*hd, 32, 1)))
	}
	// Unfused: rope in place on copies, then the three layouts.
	rq, rk, rv := g.file(f32Bytes(q)), g.file(f32Bytes(k)), g.file(f32Bytes(v))
	g.run(launched(0, 1), "rope", rq, seq, heads, hd, pos, 500000, nx)
	g.run(launched(0, 1), "rope", rk, seq, hkv, hd, pos, 500000, nx)
	wqh := g.file(make([]byte, 2*seq*heads*hd))
	wkc, wvc := caches()
	g.run(launched(0, 1), "heads", rq, wqh, seq, heads, hd, 0, seq)
	g.run(launched(0, 1), "heads", rk, wkc, seq, hkv, hd, pos, capacity)
	g.run(launched(0, 1), "heads", rv, wvc, seq, hkv, hd, pos, capacity)
	// Fused.
	qp, kp, vp := g.file(f32Bytes(q)), g.file(f32Bytes(k)), g.file(f32Bytes(v))
	qh := g.file(make([]byte, 2*seq*heads*hd))
	kc, vc := caches()
	g.run(launched(0, 1), "rope_kv", qp, kp, vp, qh, kc, vc, seq, heads, hkv, hd, pos, capacity, 500000, nx)
	for _, c := range []struct{ name, got, want string }{{"qh", qh, wqh}, {"k cache", kc, wkc}, {"v cache", vc, wvc}} {
		if !bytes.Equal(g.bytesOf(c.got), g.bytesOf(c.want)) {
			g.t.Errorf("%s: %s differs from rope then heads", what, c.name)
		}
	}
	for _, c := range []struct {
		name string
		p    string
		x    []float32
	}{{"q", qp, q}, {"k", kp, k}, {"v", vp, v}} {
		if !bytes.Equal(g.bytesOf(c.p), f32Bytes(c.x)) {
			g.t.Errorf("%s: wrote its input %s", what, c.name)
		}
	}
}

func (g *glueRun) refusals() {
	buf := g.file(make([]byte, 4096))
	for _, tc := range []struct {
		args []any
		rc   int
	}{
		{[]any{"rmsnorm", buf, buf, buf, -1, 4, 1e-5}, 1},
		{[]any{"rmsnorm", buf, "null", buf, 2, 4, 1e-5}, 1},
		{[]any{"rmsnorm", buf, buf, buf, int64(1) << 40, int64(1) << 40, 1e-5}, 1},
		{[]any{"rmsnorm", "null", "null", "null", 0, 4, 1e-5}, 0},
		{[]any{"rmsnorm_x8", buf, buf, buf, 1, 48, 1e-5}, 1}, // dim not whole 32-element groups
		{[]any{"rmsnorm_x8", buf, "null", buf, 1, 32, 1e-5}, 1},
		{[]any{"rmsnorm_x8", buf, buf, buf, -1, 32, 1e-5}, 1},
		{[]any{"rmsnorm_x8", "null", "null", "null", 0, 32, 1e-5}, 0},
		{[]any{"rope", buf, 2, 2, 7, 0, 10000, 0}, 1}, // odd head dim
		{[]any{"rope", buf, 2, 2, 8, 0, 10000, 2}, 1}, // neox 2
		{[]any{"rope", buf, 2, 2, 8, -1, 10000, 0}, 1},
		{[]any{"rope", buf, 2, 2, 8, 0, 0, 0}, 1}, // theta 0
		{[]any{"rope", "null", 2, 2, 8, 0, 10000, 0}, 1},
		{[]any{"rope", "null", 0, 2, 8, 0, 10000, 0}, 0},
		{[]any{"add", buf, buf, buf, -1}, 1},
		{[]any{"silu_mul", buf, buf, "null", 4}, 1},
		{[]any{"add", "null", "null", "null", 0}, 0},
		{[]any{"heads", buf, buf, 3, 2, 8, 5, 7}, 1},   // pos + seq > cap
		{[]any{"tokens", buf, buf, 1, 2, 8, -1, 7}, 1}, // negative pos
		{[]any{"heads", buf, "null", 1, 2, 8, 0, 7}, 1},
		{[]any{"tokens", buf, buf, 1, int64(1) << 40, 8, 0, int64(1) << 40}, 1},
		{[]any{"heads", "null", "null", 0, 2, 8, 7, 7}, 0},
		{[]any{"silu_mul_x8", buf, buf, buf, 48}, 1}, // not whole 32-element groups
		{[]any{"silu_mul_x8", buf, "null", buf, 32}, 1},
		{[]any{"silu_mul_x8", buf, buf, buf, -32}, 1},
		{[]any{"silu_mul_x8", "null", "null", "null", 0}, 0},
		{[]any{"tokens_x8", buf, buf, 1, 3, 8, 0, 4}, 1}, // heads·head_dim 24
		{[]any{"tokens_x8", buf, buf, 2, 4, 8, 3, 4}, 1}, // pos + seq > cap
		{[]any{"tokens_x8", buf, "null", 1, 4, 8, 0, 4}, 1},
		{[]any{"tokens_x8", "null", "null", 0, 4, 8, 0, 4}, 0},
		{[]any{"add_rmsnorm_x8", buf, buf, buf, buf, buf, 1, 48, 1e-5}, 1}, // dim not whole groups
		{[]any{"add_rmsnorm_x8", buf, buf, "null", buf, buf, 1, 32, 1e-5}, 1},
		{[]any{"add_rmsnorm_x8", buf, buf, buf, buf, "null", 1, 32, 1e-5}, 1},
		{[]any{"add_rmsnorm_x8", buf, buf, buf, buf, buf, 1, 32, 1e-5}, 1}, // h is a
		{[]any{"add_rmsnorm_x8", buf, buf, buf, buf, buf, -1, 32, 1e-5}, 1},
		{[]any{"add_rmsnorm_x8", "null", "null", "null", "null", "null", 0, 32, 1e-5}, 0},
		{[]any{"rope_kv", buf, buf, buf, buf, buf, buf, 1, 6, 4, 8, 0, 4, 10000, 0}, 1}, // 6 heads over 4
		{[]any{"rope_kv", buf, buf, buf, buf, buf, buf, 1, 4, 0, 8, 0, 4, 10000, 0}, 1}, // no key/value heads
		{[]any{"rope_kv", buf, buf, buf, buf, buf, buf, 1, 4, 2, 7, 0, 4, 10000, 0}, 1}, // odd head dim
		{[]any{"rope_kv", buf, buf, buf, buf, buf, buf, 2, 4, 2, 8, 3, 4, 10000, 0}, 1}, // pos + seq > cap
		{[]any{"rope_kv", buf, buf, buf, buf, buf, buf, 1, 4, 2, 8, 0, 4, 0, 0}, 1},     // theta 0
		{[]any{"rope_kv", buf, buf, buf, buf, buf, buf, 1, 4, 2, 8, 0, 4, 10000, 2}, 1}, // neox 2
		{[]any{"rope_kv", buf, buf, buf, buf, "null", buf, 1, 4, 2, 8, 0, 4, 10000, 0}, 1},
		{[]any{"rope_kv", "null", "null", "null", "null", "null", "null", 0, 4, 2, 8, 0, 4, 10000, 0}, 0},
	} {
		g.run(launched(tc.rc, 0), tc.args...)
	}
}
