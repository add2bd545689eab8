package targets

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/specs/check"
	"github.com/rocmforge/forge/specs/tuned"
)

// The registered targets are valid at the attention family's head
// dimensions (specs/families.Attention: 64 and 128).
func TestRegisteredTargetsValid(t *testing.T) {
	for _, tg := range All() {
		if ps := tg.Problems([]int{64, 128}); len(ps) > 0 {
			t.Errorf("%s: %v", tg.Name, ps)
		}
	}
}

func TestProblemsNameTheirFields(t *testing.T) {
	tg := *SM90
	tg.Vendor = "intel"
	tg.MatMul.TileK = 300
	tg.MatVecSpace.Chunk = []int{8, 12, 8}
	got := map[string]string{}
	for _, p := range tg.Problems([]int{64}) {
		got[p.Field] += p.Msg + "|"
	}
	for field, msg := range map[string]string{
		"Vendor":               `Vendor "intel" must be "amd" or "nvidia"`,
		"MatMul.TileK":         "MatMul.TileK 300 must be in [1, 256]",
		"MatVecSpace.Chunk[1]": "MatVecSpace.Chunk: 12 must be a power of two in [4, 64]",
		"MatVecSpace.Chunk[2]": "MatVecSpace.Chunk: 8 is listed twice",
	} {
		if !strings.Contains(got[field], msg) {
			t.Errorf("%s: got %q, want %q", field, got[field], msg)
		}
	}
	// Without an attention family, any Attention tuning is a problem.
	if ps := SM90.Problems(nil); len(ps) != 1 || ps[0].Field != "Attention" {
		t.Errorf("no attention family: %v", ps)
	}
	if err := check.Err("target sm_90", tg.Problems([]int{64})); err == nil || !strings.HasPrefix(err.Error(), "target sm_90: ") {
		t.Errorf("Err: %v", err)
	}
}

// The small-batch matmul classes are checked as MatMul is, and come in
// increasing MaxBatch.
func TestMatMulBatchesProblems(t *testing.T) {
	for _, c := range []struct {
		edit        func(*Target)
		field, want string
	}{
		{func(tg *Target) { tg.MatMulBatches[1].Tuning.TileK = 24 }, "MatMulBatches[1].Tuning.TileK", "multiples of 16"},
		{func(tg *Target) {
			b := &tg.MatMulBatches[1].Tuning
			b.TileRows, b.ThreadRows, b.TileK = 32, 2, 16
		}, "MatMulBatches[1].Tuning.TileK", "TileRows·TileK/4 = 128 must be a multiple of ThreadsPerBlock 256"},
		{func(tg *Target) { tg.MatMulBatches[0].MaxBatch = 0 }, "MatMulBatches[0].MaxBatch", "must be positive"},
		{func(tg *Target) { tg.MatMulBatches[1].MaxBatch = 16 }, "MatMulBatches[1].MaxBatch", "must exceed the class before's, 16"},
		{func(tg *Target) { tg.MatMulBatches[0].Tuning.SplitK = 65 }, "MatMulBatches[0].Tuning.SplitK", "must be in [0, 64]"},
		{func(tg *Target) { tg.Vendor, tg.MatMul.WarpRows, tg.MatMul.SplitK = "amd", 0, 2 }, "MatMul.SplitK", "only the tensor-core path splits K"},
	} {
		tg := *SM90
		tg.MatMulBatches = slices.Clone(SM90.MatMulBatches)
		c.edit(&tg)
		wantProblem(t, &tg, c.field, c.want)
	}
	tg := *SM90
	tg.MatMulBatches = nil
	if ps := tg.Problems([]int{64, 128}); len(ps) != 0 {
		t.Errorf("no batch classes: %v", ps)
	}
}

// wantProblem fails t unless tg has a problem of field whose message
// contains want.
func wantProblem(t *testing.T, tg *Target, field, want string) {
	t.Helper()
	ps := tg.Problems([]int{64})
	if !slices.ContainsFunc(ps, func(p check.Problem) bool { return p.Field == field && strings.Contains(p.Msg, want) }) {
		t.Errorf("%s: no problem %q in %v", field, want, ps)
	}
}

// TestMatMulIntProblems: each class of the integer path's is validated,
// with the field named: warps are wavefronts of the target's wave size
// (64 on gfx90a), an AMD class's tiles fit 64 KiB of LDS, and only the
// last class may serve every larger batch.
func TestMatMulIntProblems(t *testing.T) {
	for _, c := range []struct {
		edit        func(*Target)
		field, want string
	}{
		{func(tg *Target) {
			tg.Vendor, tg.WaveSize, tg.MatMul.WarpRows, tg.MatMulBatches, tg.Attention = "amd", 64, 0, nil, GFX90A.Attention
		},
			"MatMulInt[0].Tuning.WarpRows", "must divide the 4 warps"},
		{func(tg *Target) {
			tg.Vendor, tg.MatMul.WarpRows, tg.MatMulBatches, tg.Attention = "amd", 0, nil, GFX1100.Attention
		},
			"MatMulInt[2].Tuning.TileRows", "above AMD's 65536"},
		{func(tg *Target) { tg.MatMulInt[0].MaxBatch = 0 }, "MatMulInt[0].MaxBatch", "only the last class may be 0"},
		{func(tg *Target) { tg.MatMulInt[1].MaxBatch = 16 }, "MatMulInt[1].MaxBatch", "must exceed the class before's, 16"},
		{func(tg *Target) { tg.MatMulInt[0].Tuning.WarpRows = 3 }, "MatMulInt[0].Tuning.WarpRows", "must divide the 8 warps"},
		{func(tg *Target) { tg.MatMulInt[2].Tuning.TileRows = 48 }, "MatMulInt[2].Tuning.TileRows", "a multiple of 16·WarpRows = 32"},
		{func(tg *Target) { tg.MatMulInt[2].Tuning.TileCols = 32 }, "MatMulInt[2].Tuning.TileCols", "a multiple of 16·(warps/WarpRows) = 64"},
		{func(tg *Target) { tg.MatMulInt[1].Tuning.OffsetWarpRows = 3 }, "MatMulInt[1].Tuning.OffsetWarpRows", "must divide the 8 warps"},
		{func(tg *Target) { tg.MatMulInt[1].Tuning.TileCols = 32 }, "MatMulInt[1].Tuning.TileCols", "a multiple of 16·(warps/OffsetWarpRows) = 64"},
		{func(tg *Target) { tg.MatMulInt[2].Tuning.TileK = 48 }, "MatMulInt[2].Tuning.TileK", "a multiple of 32 in [32, 512]"},
		{func(tg *Target) { tg.MatMulInt[0].Tuning.SplitK = 65 }, "MatMulInt[0].Tuning.SplitK", "must be in [0, 64]"},
		{func(tg *Target) { tg.MatMulInt[0].Tuning.ThreadsPerBlock = 100 }, "MatMulInt[0].Tuning.ThreadsPerBlock", "MatMulInt.ThreadsPerBlock 100"},
		{func(tg *Target) { tg.MatMulInt[0].Tuning.Int8 = 2 }, "MatMulInt[0].Tuning.Int8", "must be 0 (the f16 fragments"},
		{func(tg *Target) {
			tg.Vendor, tg.MatMul.WarpRows, tg.MatMulBatches, tg.Attention, tg.MatMulIntF16 = "amd", 0, nil, GFX1100.Attention, 0
			tg.MatMulInt[0].Tuning.Int8 = 1
		},
			"MatMulInt[0].Tuning.Int8", "only NVIDIA targets"},
	} {
		tg := *SM90
		tg.MatMulInt = slices.Clone(SM90.MatMulInt)
		c.edit(&tg)
		wantProblem(t, &tg, c.field, c.want)
	}
	for _, tg := range []*Target{SM90, GFX1100, GFX1030, GFX90A} {
		if len(tg.MatMulInt) == 0 || tg.MatMulInt[len(tg.MatMulInt)-1].MaxBatch != 0 {
			t.Errorf("%s's integer path should serve every batch from its last class: %+v", tg.Name, tg.MatMulInt)
		}
	}
	for _, c := range []struct {
		tg   *Target
		want string
	}{{SM90, "mma.sync"}, {GFX1100, "WMMA"}, {GFX90A, "MFMA"}, {GFX1030, "dot4"}} {
		if got := c.tg.IntProduct(); got != c.want {
			t.Errorf("%s.IntProduct() = %q, want %q", c.tg.Name, got, c.want)
		}
	}
}

// The matvec knobs are specs/tuned.MatVec's, and a tuning survives the
// round trip through them.
func TestMatVecKnobs(t *testing.T) {
	m := MatVecTuning{ThreadsPerBlock: 128, RowsPerBlock: 2, Chunk: 16}
	if got := slices.Sorted(maps.Keys(m.Knobs())); !slices.Equal(got, slices.Sorted(slices.Values(tuned.MatVec.KnobNames()))) {
		t.Errorf("knobs %v, specs/tuned has %v", got, tuned.MatVec.KnobNames())
	}
	if MatVecOfKnobs(m.Knobs()) != m {
		t.Errorf("round trip: %+v", MatVecOfKnobs(m.Knobs()))
	}
	space, def, ok := SM90.TuningSpace("matvec")
	if !ok || def["threads"] != SM90.MatVec.ThreadsPerBlock || !slices.Equal(space["chunk"], SM90.MatVecSpace.Chunk) {
		t.Errorf("TuningSpace: %v %v %v", space, def, ok)
	}
	if _, _, ok := SM90.TuningSpace("matmul"); ok {
		t.Error("matmul has no tuning space yet")
	}
	ps := SM90.KnobProblems("matvec", map[string]int{"threads": 100, "rows": 2, "chunk": 16})
	if len(ps) != 1 || ps[0].Field != "threads" || ps[0].Msg != "threads 100 must be a multiple of the wave size 32, at most 1024" {
		t.Errorf("KnobProblems: %v", ps)
	}
}

func TestMatVecX8Knobs(t *testing.T) {
	space, def, ok := SM90.TuningSpace("matvec_x8")
	if !ok || def != nil || !slices.Equal(space["threads"], []int{64, 128, 256}) || !slices.Equal(space["rows"], []int{1, 2, 4}) || !slices.Equal(space["lanes"], []int{1, 2}) {
		t.Errorf("TuningSpace: %v %v %v", space, def, ok)
	}
	space["threads"][0] = 1 // a copy: the shared space is unchanged
	if MatVecX8Space["threads"][0] != 64 {
		t.Error("TuningSpace handed out MatVecX8Space itself")
	}
	for _, tc := range []struct{ elems, bytes, threads, rows, lanes int }{
		{32, 18, 64, 2, 1},    // Q4_0: 4.5 bits per weight
		{32, 34, 64, 1, 1},    // Q8_0: 8.5
		{256, 144, 128, 1, 1}, // Q4_K: a super-block
		{256, 210, 128, 1, 2}, // Q6_K: a super-block above 6 bits per weight
	} {
		if d := MatVecX8Default(tc.elems, tc.bytes); d["threads"] != tc.threads || d["rows"] != tc.rows || d["lanes"] != tc.lanes {
			t.Errorf("MatVecX8Default(%d, %d) = %v", tc.elems, tc.bytes, d)
		}
	}
	for _, tc := range []struct {
		t           *Target
		elems       int
		knobs       map[string]int
		field, want string
	}{
		{GFX90A, 32, map[string]int{"threads": 48, "rows": 1, "lanes": 1, "groups": 1}, "threads", "threads 48 must be a multiple of the wave size 64, at most 1024"},
		{SM90, 32, map[string]int{"threads": 64, "rows": 0, "lanes": 1, "groups": 1}, "rows", "rows 0 must be in [1, 16]"},
		{SM90, 32, map[string]int{"threads": 64, "rows": 1, "lanes": 3, "groups": 1}, "lanes", "lanes 3 must be 1, 2, 4 or 8"},
		{SM90, 256, map[string]int{"threads": 64, "rows": 1, "lanes": 1, "groups": 3}, "groups", "groups 3 must be 1, 2, 4 or 8"},
		{SM90, 32, map[string]int{"threads": 64, "rows": 1, "lanes": 1, "groups": 2}, "groups", "groups 2 per lane must divide the 1 32-element groups per block"},
		{SM90, 4096, map[string]int{"threads": 64, "rows": 1, "lanes": 1, "groups": 1}, "threads", "threads 64 must be a multiple of the 128 32-element groups per block over 1 groups per lane, times 1 lanes per group"},
		{SM90, 256, map[string]int{"threads": 32, "rows": 1, "lanes": 8, "groups": 1}, "threads", "threads 32 must be a multiple of the 8 32-element groups per block over 1 groups per lane, times 8 lanes per group"},
		{SM90, 48, map[string]int{"threads": 64, "rows": 1, "lanes": 1, "groups": 1}, "threads", "matvec_x8 needs blocks of whole 32-element groups, not 48 elements"},
	} {
		ps := tc.t.FormatKnobProblems("matvec_x8", tc.elems, tc.knobs)
		if len(ps) != 1 || ps[0].Field != tc.field || ps[0].Msg != tc.want {
			t.Errorf("%s %d %v: %v, want %s: %s", tc.t.Name, tc.elems, tc.knobs, ps, tc.field, tc.want)
		}
	}
	if ps := SM90.FormatKnobProblems("matvec_x8", 256, map[string]int{"threads": 32, "rows": 4, "lanes": 2, "groups": 4}); len(ps) != 0 {
		t.Errorf("a valid configuration: %v", ps)
	}
}

// The split-KV decode knobs are checked on every target, each naming its
// field; the merge buffers are sized per wave at each head dimension.
func TestAttentionDecodeProblems(t *testing.T) {
	for _, c := range []struct {
		base        *Target
		edit        func(*AttentionTuning)
		field, want string
	}{
		{SM90, func(a *AttentionTuning) { a.DecodeThreads = 48 }, "Attention.DecodeThreads", "Attention.DecodeThreads 48"},
		{GFX90A, func(a *AttentionTuning) { a.DecodeThreads = 96 }, "Attention.DecodeThreads", "Attention.DecodeThreads 96"},
		{SM90, func(a *AttentionTuning) { a.DecodeRows = 0 }, "Attention.DecodeRows", "Attention.DecodeRows 0 must be in [1, 16]"},
		{GFX1100, func(a *AttentionTuning) { a.DecodeRows = 17 }, "Attention.DecodeRows", "Attention.DecodeRows 17 must be in [1, 16]"},
		{GFX1100, func(a *AttentionTuning) { a.DecodeThreads, a.DecodeRows = 1024, 16 }, "Attention.DecodeRows",
			"the split-KV path's merge buffers take 266240 bytes of shared memory at head dimension 128, more than 49152"},
		{SM90, func(a *AttentionTuning) { a.DecodeKeys = 9 }, "Attention.DecodeKeys", "Attention.DecodeKeys 9 must be in [1, 8]"},
		{SM90, func(a *AttentionTuning) { a.DecodeSplitKeys = 0 }, "Attention.DecodeSplitKeys", "at least 1"},
		{GFX90A, func(a *AttentionTuning) { a.DecodeWorkgroups = -1 }, "Attention.DecodeWorkgroups", "at least 1"},
	} {
		tg := *c.base
		c.edit(&tg.Attention)
		got := ""
		for _, p := range tg.Problems([]int{64, 128}) {
			if p.Field == c.field {
				got += p.Msg + "|"
			}
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %s: got %q, want %q", c.base.Name, c.field, got, c.want)
		}
	}
}

// TestWMMAProblems: WMMA is an AMD wave32 flag and MFMA a wave64 one, and
// with either an AMD target may have the f16 tensor-core paths' knobs
// (gfx1100 has WMMA, gfx90a MFMA).
func TestWMMAProblems(t *testing.T) {
	tg := *GFX90A
	tg.WMMA = true
	wantProblem(t, &tg, "WMMA", "only AMD wave32 targets")
	tg = *GFX1030
	tg.MatMul.WarpRows = 2
	wantProblem(t, &tg, "MatMul.WarpRows", "only targets with tensor cores (NVIDIA, AMD with WMMA or MFMA)")
	tg = *GFX1100
	tg.MFMA = true
	wantProblem(t, &tg, "MFMA", "only AMD wave64 targets (CDNA)")
	if !GFX90A.MFMA || !GFX90A.TensorCores() {
		t.Errorf("gfx90a: MFMA %v, tensor cores %v", GFX90A.MFMA, GFX90A.TensorCores())
	}
	if !GFX1100.WMMA || !GFX1100.TensorCores() || GFX1030.TensorCores() || !SM90.TensorCores() {
		t.Errorf("tensor cores: gfx1100 %v (WMMA %v), gfx1030 %v, sm_90 %v", GFX1100.TensorCores(), GFX1100.WMMA, GFX1030.TensorCores(), SM90.TensorCores())
	}
	if ps := GFX1100.Problems([]int{64, 128}); len(ps) > 0 {
		t.Errorf("gfx1100: %v", ps)
	}
}

// TestWGMMAProblems: WGMMA is an NVIDIA flag that needs sm_90a's
// arch-specific instructions in the compile flags.
func TestWGMMAProblems(t *testing.T) {
	tg := *GFX1100
	tg.WGMMA = true
	wantProblem(t, &tg, "WGMMA", "only NVIDIA Hopper has it")
	tg = *SM90
	tg.CompileFlags = []string{"-arch=sm_90"}
	wantProblem(t, &tg, "WGMMA", "-arch=sm_90a")
	if ps := SM90.Problems([]int{64, 128}); len(ps) > 0 || !SM90.WGMMA {
		t.Errorf("sm_90: WGMMA %v, %v", SM90.WGMMA, ps)
	}
}

// TestMatMulIntAt: the class that serves a batch, with OffsetWarpRows for
// a format with an offset term; the knobs round-trip; sm_90's space is
// valid and an empty space is not a problem, one without MatMulInt is.
func TestMatMulIntAt(t *testing.T) {
	for _, c := range []struct {
		batch    int
		offset   bool
		tn, wr   int
		wantSome bool
	}{{1, false, 16, 8, true}, {16, true, 16, 8, true}, {17, false, 64, 8, true}, {64, true, 64, 2, true}, {65, false, 128, 2, true}, {4096, true, 128, 2, true}} {
		m, ok := SM90.MatMulIntAt(c.batch, c.offset)
		if ok != c.wantSome || m.TileCols != c.tn || m.WarpRows != c.wr || m.OffsetWarpRows != 0 {
			t.Errorf("batch %d offset %v: %+v %v", c.batch, c.offset, m, ok)
		}
		if back := MatMulIntOfKnobs(m.Knobs()); back != m {
			t.Errorf("knobs round trip: %+v → %+v", m, back)
		}
	}
	if _, ok := (&Target{}).MatMulIntAt(1, false); ok {
		t.Error("a class without MatMulInt")
	}
	if ps := SM90.MatMulIntSpace.Problems(SM90.Vendor, SM90.WaveSize); len(ps) > 0 {
		t.Errorf("sm_90's space: %v", ps)
	}
	if ps := (MatMulIntSpace{}).Problems("amd", 32); len(ps) > 0 {
		t.Errorf("empty space: %v", ps)
	}
	tg := *GFX1100
	tg.MatMulIntSpace = MatMulIntSpace{ThreadsPerBlock: []int{256, 256}, TileRows: []int{64}, TileCols: []int{64}, TileK: []int{128}, WarpRows: []int{4}, SplitK: nil}
	wantProblem(t, &tg, "MatMulIntSpace.SplitK", "needs at least one value")
	wantProblem(t, &tg, "MatMulIntSpace.ThreadsPerBlock[1]", "256 is listed twice")
	tg.MatMulIntSpace = MatMulIntSpace{ThreadsPerBlock: []int{256}, TileRows: []int{48}, TileCols: []int{64}, TileK: []int{128}, WarpRows: []int{4}, SplitK: []int{1}}
	wantProblem(t, &tg, "MatMulIntSpace.ThreadsPerBlock", "no combination of its values is a valid MatMulInt tuning")
	tg.MatMulInt = nil
	wantProblem(t, &tg, "MatMulIntSpace", "without MatMulInt classes")
}

// MatMulIntF16 is an NVIDIA batch over the integer path's classes; which
// class takes the f16 fragments is each class's int8 knob, a space may
// leave that knob out (0 only), and a winners file's knobs round-trip it.
func TestMatMulIntF16Problems(t *testing.T) {
	for _, c := range []struct {
		edit        func(*Target)
		field, want string
	}{
		{func(tg *Target) { tg.MatMulIntF16 = -1 }, "MatMulIntF16", "must be 0 (off) or a batch"},
		{func(tg *Target) { tg.Vendor = "amd" }, "MatMulIntF16", "only NVIDIA targets"},
		{func(tg *Target) { tg.MatMulInt = nil }, "MatMulIntF16", "there are none"},
		{func(tg *Target) { tg.MatMulIntSpace.Int8 = []int{1, 1} }, "MatMulIntSpace.Int8[1]", "1 is listed twice"},
	} {
		tg := *SM90
		tg.MatMulInt = slices.Clone(SM90.MatMulInt)
		c.edit(&tg)
		found := false
		for _, p := range tg.Problems([]int{64, 128}) {
			if p.Field == c.field && strings.Contains(p.Msg, c.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no problem containing %q in %v", c.field, c.want, tg.Problems([]int{64, 128}))
		}
	}
	if got := SM90.MatMulIntSpace.Knobs()["int8"]; !slices.Equal(got, []int{0, 1}) {
		t.Errorf("sm_90's space has int8 %v, want [0 1]", got)
	}
	if got := GFX1100.MatMulIntSpace.Knobs()["int8"]; !slices.Equal(got, []int{0}) {
		t.Errorf("a space without int8 values has int8 %v, want [0] (an optional knob)", got)
	}
	m := SM90.MatMulInt[0].Tuning
	if _, ok := m.Knobs()["int8"]; ok {
		t.Errorf("a tuning with Int8 0 writes int8 into its knobs: %v", m.Knobs())
	}
	m.Int8 = 1
	if back := MatMulIntOfKnobs(m.Knobs()); back != m {
		t.Errorf("int8 1 does not survive the knobs' round trip: %+v -> %v -> %+v", m, m.Knobs(), back)
	}
	if !strings.HasSuffix(m.String(), " int8=1") {
		t.Errorf("String() = %q, want int8=1 at its end", m.String())
	}
}
