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
