package hipgen_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/longtest"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// attnCase is one attention call of the host tests.
type attnCase struct {
	b, h, hkv, sq, skv int
	causal             bool
	// ramp scales key j by 1 + j/10, so that later keys score ever
	// higher: the running maximum keeps growing, and the tensor-core
	// path's lazy rescaling (only past a growth of 2^8) must happen.
	ramp bool
}

func (c attnCase) String() string {
	m := "full"
	if c.causal {
		m = "causal"
	}
	if c.ramp {
		m += "_ramp"
	}
	return fmt.Sprintf("b%d_h%d_kv%d_q%d_k%d_%s", c.b, c.h, c.hkv, c.sq, c.skv, m)
}

// attnTunes are the tunings TestAttentionKernelHost runs the launchers at:
// the generic path at gfx1100's tuning (wave32), at gfx90a's (wave64, the
// cross-lane reductions in 64-lane waves) and at a small odd one (4 threads
// per row, 20 keys per tile), and the NVIDIA tensor-core path with
// nvcuda::wmma emulated at sm_90's tuning and at three others. The ones not
// quick run with the long tests.
var attnTunes = []struct {
	name, target string
	quick        bool
	flags        []string
}{
	{"generic", "gfx1100", true, nil},
	{"generic_wave64", "gfx90a", true, nil},
	{"generic_odd", "gfx1100", false, []string{"-DFORGE_TUNE_ATTENTION_THREADS=64", "-DFORGE_TUNE_ATTENTION_ROWS=16", "-DFORGE_TUNE_ATTENTION_KEYS=20"}},
	{"wmma", "gfx1100", true, []string{"-DFORGE_EMU_WMMA", "-DFORGE_TUNE_ATTENTION_WMMA_WARPS=4", "-DFORGE_TUNE_ATTENTION_WMMA_KEYS=32"}},
	// RDNA3's WMMA under the header's nvcuda::wmma subset (emulated), at gfx1100's tuning.
	{"amd_wmma", "gfx1100", true, []string{"-DFORGE_EMU_AMD_WMMA"}},
	// CDNA's MFMA (wave64: 4 softmax lanes a row) under the same subset, at gfx90a's tuning.
	{"amd_mfma", "gfx90a", true, []string{"-DFORGE_EMU_AMD_WMMA=2"}},
	{"wmma_1warp_16keys", "gfx1100", false, []string{"-DFORGE_EMU_WMMA", "-DFORGE_TUNE_ATTENTION_WMMA_WARPS=1", "-DFORGE_TUNE_ATTENTION_WMMA_KEYS=16"}},
	{"wmma_8warps_16keys", "gfx1100", false, []string{"-DFORGE_EMU_WMMA", "-DFORGE_TUNE_ATTENTION_WMMA_WARPS=8", "-DFORGE_TUNE_ATTENTION_WMMA_KEYS=16"}},
	{"wmma_1warp_48keys", "gfx1100", false, []string{"-DFORGE_EMU_WMMA", "-DFORGE_TUNE_ATTENTION_WMMA_WARPS=1", "-DFORGE_TUNE_ATTENTION_WMMA_KEYS=48"}},
	// sm_90's wgmma path (f16 prefill; wgmma and TMA emulated: Q, K and V
	// land swizzled, zeros past each head's rows), at its 128-key tiles
	// and two stages, and at 64-key tiles through one stage (a stage
	// refilled as soon as both warpgroups released it; 200 keys are four
	// tiles); f32 and decode take the generic paths.
	{"wgmma", "sm_90", true, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_EMU_WMMA"}},
	{"wgmma_64keys_1stage", "sm_90", true, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_EMU_WMMA", "-DFORGE_TUNE_ATTENTION_WGMMA_KEYS=64", "-DFORGE_TUNE_ATTENTION_WGMMA_STAGES=1"}},
	// The split-KV decode path with splits of a few keys, so that the
	// small cases split (and the merge kernel runs): odd rows per
	// workgroup and keys per step, wave32 and wave64.
	{"decode_split", "gfx1100", true, []string{"-DFORGE_TUNE_ATTENTION_DECODE_THREADS=64", "-DFORGE_TUNE_ATTENTION_DECODE_ROWS=3",
		"-DFORGE_TUNE_ATTENTION_DECODE_KEYS=3", "-DFORGE_TUNE_ATTENTION_DECODE_SPLIT=8", "-DFORGE_TUNE_ATTENTION_DECODE_WORKGROUPS=40"}},
	{"decode_split_wave64", "gfx90a", true, []string{"-DFORGE_TUNE_ATTENTION_DECODE_THREADS=128", "-DFORGE_TUNE_ATTENTION_DECODE_ROWS=5",
		"-DFORGE_TUNE_ATTENTION_DECODE_KEYS=2", "-DFORGE_TUNE_ATTENTION_DECODE_SPLIT=4", "-DFORGE_TUNE_ATTENTION_DECODE_WORKGROUPS=100"}},
}

// decodeKnobs are the split-KV path's knobs of a tuning: the target's,
// overridden by its flags.
type decodeKnobs struct {
	threads, rows, keys, split, workgroups, wave int
}

func decodeKnobsOf(t *testing.T, e *emuHost, target string, flags []string) decodeKnobs {
	t.Helper()
	var k decodeKnobs
	for _, tg := range e.spec.Targets {
		if tg.Name == target {
			a := tg.Attention
			k = decodeKnobs{a.DecodeThreads, a.DecodeRows, a.DecodeKeys, a.DecodeSplitKeys, a.DecodeWorkgroups, tg.WaveSize}
		}
	}
	if k.wave == 0 {
		t.Fatalf("no target %s", target)
	}
	for _, f := range flags {
		var v int
		for name, p := range map[string]*int{"THREADS": &k.threads, "ROWS": &k.rows, "KEYS": &k.keys, "SPLIT": &k.split, "WORKGROUPS": &k.workgroups} {
			if n, _ := fmt.Sscanf(f, "-DFORGE_TUNE_ATTENTION_DECODE_"+name+"=%d", &v); n == 1 {
				*p = v
			}
		}
	}
	return k
}

// launches is how many kernels the launcher starts for case c: the
// split-KV path (seq_q ≤ 8) adds the merge when it splits the keys, as the
// template's rule says (worked out here independently).
func (k decodeKnobs) launches(c attnCase, dtype string, d int) int {
	if c.sq > 8 {
		return 1
	}
	lanes, ch := 1, d*suite.AttentionElemSize(dtype)/16
	for ch%2 == 0 && lanes < k.wave {
		lanes, ch = lanes*2, ch/2
	}
	step := k.threads / lanes * k.keys
	base := c.b * c.hkv * ((c.h/c.hkv*c.sq + k.rows - 1) / k.rows)
	if c.skv <= k.split || base >= k.workgroups {
		return 1
	}
	want := min((k.workgroups+base-1)/base, c.skv/k.split, 256)
	if want <= 1 {
		return 1
	}
	chunk := (c.skv + want - 1) / want
	chunk = (chunk + step - 1) / step * step
	if (c.skv+chunk-1)/chunk > 1 {
		return 2
	}
	return 1
}

// TestAttentionKernelHost runs the generated attention launchers of every
// input type and head dimension on the host (emuHost) at every tuning of
// attnTunes (the quick ones unless FORGE_LONG_TESTS=1): odd sequence lengths (1, 37, 200), seq_q ≠ seq_kv both ways
// (rows with no key under causal masking), grouped-query heads, causal and
// not, against the float64 reference (cpu.AttentionRef) within
// suite.AttentionTolerances; and the argument checks (return codes, no
// launch).
func TestAttentionKernelHost(t *testing.T) {
	e := newEmuHost(t)
	if e.spec.Attention == nil {
		t.Fatal("no attention family in the specs")
	}
	cases := []attnCase{
		{1, 2, 2, 37, 37, true, false},
		{1, 2, 2, 37, 37, false, false},
		{2, 4, 2, 200, 200, false, false}, // grouped-query heads
		{1, 4, 1, 1, 77, true, false},     // one decode step: every key
		{1, 2, 2, 70, 30, true, false},    // seq_q > seq_kv: the first 40 rows attend nothing
		{1, 1, 1, 200, 10, true, false},   // a whole block of 128 rows attends nothing (no key tile at all)
		{1, 3, 3, 37, 100, true, false},   // seq_q < seq_kv
		{1, 1, 1, 20, 0, false, false},    // no keys at all: zeros
		{1, 2, 2, 100, 100, true, true},   // growing scores
		{1, 2, 1, 37, 150, false, true},
		// The split-KV decode path (seq_q ≤ 8): grouped-query heads whose
		// rows span workgroups, speculated tokens under causal masking,
		// rows that attend no key, growing scores across splits.
		{2, 8, 2, 1, 300, false, false},
		{1, 8, 2, 4, 150, true, false},
		{1, 4, 4, 8, 5, true, false},  // the first 3 rows attend nothing
		{1, 2, 1, 3, 0, false, false}, // no keys
		{1, 4, 1, 1, 500, false, true},
		{1, 6, 3, 2, 61, true, true},
	}
	wmmaCases := []attnCase{cases[0], {1, 4, 2, 150, 150, false, false}, cases[3], cases[4], cases[5], cases[6], cases[7], cases[8]}
	for _, tune := range attnTunes {
		t.Run(tune.name, func(t *testing.T) {
			if !tune.quick {
				longtest.Skip(t, "the attention kernels at every tuning, emulated")
			}
			t.Parallel()
			obj := e.compile(t, e.source(t, tune.target, "attention.hip"), "attention_"+tune.name+".o", tune.flags...)
			exe := e.link(t, "attention", "attention_"+tune.name, obj)
			wmma := strings.HasPrefix(tune.name, "wmma")
			knobs := decodeKnobsOf(t, e, tune.target, tune.flags)
			split := 0
			for _, v := range e.spec.Attention.Variants() {
				if wmma && v.DType != "f16" {
					continue // f32 takes the generic path there too
				}
				l := attnLauncher{exe: exe, symbol: v.Symbol(), dtype: v.DType, headDim: v.HeadDim}
				cs := cases
				if wmma {
					cs = wmmaCases
				}
				for _, c := range cs {
					n := knobs.launches(c, v.DType, v.HeadDim)
					if n == 2 {
						split++
					}
					runHostAttention(t, e, l, c, n)
				}
				if tune.name == "generic" {
					checkAttentionRefusals(t, e, l)
				}
			}
			if strings.HasPrefix(tune.name, "decode") && split == 0 {
				t.Errorf("%s: no case split its keys", tune.name)
			}
		})
	}
}

// attnLauncher is one launcher of an attention emulation executable.
type attnLauncher struct {
	exe, symbol, dtype string
	headDim            int
}

// run runs the launcher on the files at base (.q, .k, .v in, .o out) with
// args (batch heads heads_kv seq_q seq_kv scale causal [mode]).
func (l attnLauncher) run(t *testing.T, e *emuHost, base string, args ...any) string {
	t.Helper()
	all := []any{l.symbol, l.headDim, suite.AttentionElemSize(l.dtype), base + ".q", base + ".k", base + ".v", base + ".o"}
	return e.run(t, l.exe, append(all, args...)...)
}

// attnBytes encodes values as dtype.
func attnBytes(dtype string, x []float32) []byte {
	if dtype == "f16" {
		b := make([]byte, 2*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(formats.HalfFromFloat32(v)))
		}
		return b
	}
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func attnFloats(dtype string, b []byte) []float32 {
	if dtype == "f16" {
		out := make([]float32, len(b)/2)
		for i := range out {
			out[i] = formats.Half(binary.LittleEndian.Uint16(b[2*i:])).Float32()
		}
		return out
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func runHostAttention(t *testing.T, e *emuHost, l attnLauncher, c attnCase, launches int) {
	t.Helper()
	dtype, d := l.dtype, l.headDim
	sh := cpu.AttentionShape{Batch: c.b, Heads: c.h, HeadsKV: c.hkv, SeqQ: c.sq, SeqKV: c.skv, HeadDim: d,
		Scale: float32(1 / math.Sqrt(float64(d))), Causal: c.causal}
	q, k, v := suite.AttentionData(dtype, sh, suite.Seed(c.String()))
	if c.ramp {
		for i := range k {
			x := k[i] * (1 + float32(i/d%c.skv)/10)
			if dtype == "f16" {
				x = formats.HalfFromFloat32(x).Float32()
			}
			k[i] = x
		}
	}
	base := fmt.Sprintf("%s_%s_%s", filepath.Base(l.exe), l.symbol, c)
	for name, x := range map[string][]float32{".q": q, ".k": k, ".v": v} {
		e.write(t, base+name, attnBytes(dtype, x))
	}
	base = filepath.Join(e.dir, base)
	causal := 0
	if c.causal {
		causal = 1
	}
	if out, want := l.run(t, e, base, c.b, c.h, c.hkv, c.sq, c.skv, sh.Scale, causal), launched(0, launches); out != want {
		t.Errorf("%s d%d %s: %q, want %q", dtype, d, c, out, want)
		return
	}
	ob, err := os.ReadFile(base + ".o")
	if err != nil {
		t.Fatal(err)
	}
	o := attnFloats(dtype, ob)
	ref := make([]float32, sh.QElems())
	if err := cpu.New(0).AttentionRef(sh, q, k, v, ref); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s d%d %s", dtype, d, c)
	if err := suite.CheckAttention(name, dtype, o, ref); err != nil {
		t.Error(err)
	}
	nmse, maxAbs := suite.AttentionError(o, ref)
	t.Logf("%s: NMSE %.3g, max abs error %.3g", name, nmse, maxAbs)
	// The rows that attend no key must be exact zeros.
	for i := range sh.SeqQ {
		if sh.Attended(i) != 0 {
			continue
		}
		for x := range sh.Batch * sh.Heads {
			for j := range d {
				if v := o[(x*sh.SeqQ+i)*d+j]; v != 0 {
					t.Errorf("%s: row %d of head %d attends no key but o[%d] = %g", name, i, x, j, v)
					return
				}
			}
		}
	}
}

// checkAttentionRefusals runs calls the launcher must refuse (rc=1) or
// accept without launching (rc=0), none of them launching.
func checkAttentionRefusals(t *testing.T, e *emuHost, l attnLauncher) {
	t.Helper()
	dtype, d := l.dtype, l.headDim
	sh := cpu.AttentionShape{Batch: 1, Heads: 2, HeadsKV: 2, SeqQ: 4, SeqKV: 4, HeadDim: d, Scale: 1}
	q, k, v := suite.AttentionData(dtype, sh, 1)
	base := filepath.Base(l.exe) + "_" + l.symbol + "_refuse"
	for name, x := range map[string][]float32{".q": q, ".k": k, ".v": v} {
		e.write(t, base+name, attnBytes(dtype, x))
	}
	base = filepath.Join(e.dir, base)
	for _, tc := range []struct {
		args []any // batch heads heads_kv seq_q seq_kv scale causal [mode]
		rc   int
	}{
		{[]any{-1, 2, 2, 4, 4, 1, 0}, 1},
		{[]any{1, -2, 2, 4, 4, 1, 0}, 1},
		{[]any{1, 2, -2, 4, 4, 1, 0}, 1},
		{[]any{1, 2, 2, -4, 4, 1, 0}, 1},
		{[]any{1, 2, 2, 4, -4, 1, 0}, 1},
		{[]any{1, 2, 0, 4, 4, 1, 0}, 1},           // heads_kv 0
		{[]any{1, 3, 2, 4, 4, 1, 0}, 1},           // 3 heads over 2 kv heads
		{[]any{1, 2, 4, 4, 4, 1, 0}, 1},           // more kv heads than heads
		{[]any{1, 2, 2, 4, 4, 1, 2}, 1},           // causal 2
		{[]any{1, 2, 2, 4, 4, 1, 0, "null_q"}, 1}, // null q
		{[]any{1, 2, 2, 4, 4, 1, 0, "null_k"}, 1},
		{[]any{1, 2, 2, 4, 4, 1, 0, "null_o"}, 1},
		{[]any{1, 2, 2, 4, 4, 1, 0, "misaligned_v"}, 1},
		{[]any{1, 2, 2, int64(1) << 60, 4, 1, 0}, 1}, // 2^60 rows
		{[]any{0, 2, 2, 4, 4, 1, 0, "null_q"}, 0},    // nothing to do
		{[]any{1, 0, 0, 4, 4, 1, 0}, 0},
		{[]any{1, 2, 2, 0, 4, 1, 0, "null_o"}, 0},
	} {
		if out, want := l.run(t, e, base, tc.args...), launched(tc.rc, 0); out != want {
			t.Errorf("%s d%d %v: %q, want %q", dtype, d, tc.args, out, want)
		}
	}
}
