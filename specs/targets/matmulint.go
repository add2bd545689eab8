package targets

import (
	"fmt"
	"slices"

	"github.com/rocmforge/forge/specs/check"
)

// MatMulIntSpace lists the candidate values of each MatMulIntTuning knob:
// forgebench tune --family matmul_int times every combination the target
// can compile (MatMulIntTuning.Problems) at each batch class of
// specs/tuned.MatMulInt. Empty: the integer path is not tuned on the target
// (it keeps MatMulInt).
type MatMulIntSpace struct {
	ThreadsPerBlock []int
	TileRows        []int
	TileCols        []int
	TileK           []int
	WarpRows        []int
	SplitK          []int
	// Int8: the values of MatMulIntTuning.Int8 tried; empty: 0 only (a
	// target without the f16 fragments, or matmul_half's space).
	Int8 []int
}

// matMulIntKnobs are MatMulIntTuning's knobs by winners-file name
// (specs/tuned.MatMulInt) and field.
var matMulIntKnobs = []struct {
	name, field string
	in          func(*MatMulIntTuning) *int
	space       func(*MatMulIntSpace) []int
	optional    bool // an empty space means {0}
}{
	{"threads", "ThreadsPerBlock", func(m *MatMulIntTuning) *int { return &m.ThreadsPerBlock }, func(s *MatMulIntSpace) []int { return s.ThreadsPerBlock }, false},
	{"tm", "TileRows", func(m *MatMulIntTuning) *int { return &m.TileRows }, func(s *MatMulIntSpace) []int { return s.TileRows }, false},
	{"tn", "TileCols", func(m *MatMulIntTuning) *int { return &m.TileCols }, func(s *MatMulIntSpace) []int { return s.TileCols }, false},
	{"tk", "TileK", func(m *MatMulIntTuning) *int { return &m.TileK }, func(s *MatMulIntSpace) []int { return s.TileK }, false},
	{"warp_rows", "WarpRows", func(m *MatMulIntTuning) *int { return &m.WarpRows }, func(s *MatMulIntSpace) []int { return s.WarpRows }, false},
	{"split_k", "SplitK", func(m *MatMulIntTuning) *int { return &m.SplitK }, func(s *MatMulIntSpace) []int { return s.SplitK }, false},
	{"int8", "Int8", func(m *MatMulIntTuning) *int { return &m.Int8 }, func(s *MatMulIntSpace) []int { return s.Int8 }, true},
}

// values is knob k's values in s ({0} for an optional knob s leaves empty).
func (s *MatMulIntSpace) values(k int) []int {
	if v := matMulIntKnobs[k].space(s); len(v) > 0 || !matMulIntKnobs[k].optional {
		return v
	}
	return []int{0}
}

// Knobs is m as a winners file's knobs (specs/tuned.MatMulInt). m's
// OffsetWarpRows is not a knob: a format's own configuration has it as
// warp_rows (MatMulIntAt). An optional knob at 0 is left out, as the
// winners of before it left it.
func (m MatMulIntTuning) Knobs() map[string]int {
	out := map[string]int{}
	for _, k := range matMulIntKnobs {
		if v := *k.in(&m); v != 0 || !k.optional {
			out[k.name] = v
		}
	}
	return out
}

// MatMulIntOfKnobs is the integer matmul tuning a winners file's knobs
// set; a knob missing is 0.
func MatMulIntOfKnobs(knobs map[string]int) MatMulIntTuning {
	var m MatMulIntTuning
	for _, k := range matMulIntKnobs {
		*k.in(&m) = knobs[k.name]
	}
	return m
}

// Knobs is s by knob name, as MatMulIntTuning.Knobs names them.
func (s MatMulIntSpace) Knobs() map[string][]int {
	out := map[string][]int{}
	for i, k := range matMulIntKnobs {
		out[k.name] = slices.Clone(s.values(i))
	}
	return out
}

// Empty reports whether s lists no values at all (the target is not tuned).
func (s MatMulIntSpace) Empty() bool {
	for _, k := range matMulIntKnobs {
		if len(k.space(&s)) > 0 && !k.optional {
			return false
		}
	}
	return true
}

// Problems lists what is wrong with the space s of a target of the given
// vendor and wave size: every knob needs at least one value, none twice,
// and some combination must be a valid MatMulIntTuning.
func (s MatMulIntSpace) Problems(vendor string, wave int) []check.Problem {
	var l check.List
	if s.Empty() {
		return l
	}
	for i, k := range matMulIntKnobs {
		values := s.values(i)
		if len(values) == 0 {
			l.Add(k.field, "MatMulIntSpace.%s: the tuning space needs at least one value", k.field)
		}
		seen := map[int]bool{}
		for i, v := range values {
			if seen[v] {
				l.Add(check.Index(k.field, i), "MatMulIntSpace.%s: %d is listed twice", k.field, v)
			}
			seen[v] = true
		}
	}
	if len(l) > 0 {
		return l
	}
	valid := false
	var each func(i int, m MatMulIntTuning)
	each = func(i int, m MatMulIntTuning) {
		if valid {
			return
		}
		if i == len(matMulIntKnobs) {
			valid = len(m.Problems(vendor, wave)) == 0
			return
		}
		for _, v := range s.values(i) {
			*matMulIntKnobs[i].in(&m) = v
			each(i+1, m)
		}
	}
	each(0, MatMulIntTuning{})
	if !valid {
		l.Add("ThreadsPerBlock", "MatMulIntSpace: no combination of its values is a valid MatMulInt tuning")
	}
	return l
}

// MatMulIntAt is the configuration of matmul's integer path that t's
// launcher takes at batch for a format with (offset) or without an offset
// term: the first MatMulInt class whose MaxBatch is at least batch (the
// last, of MaxBatch 0, takes every larger batch), with OffsetWarpRows as
// WarpRows for a format with an offset term where the class sets it. ok
// is false where no class serves batch.
func (t *Target) MatMulIntAt(batch int, offset bool) (m MatMulIntTuning, ok bool) {
	if m, ok = classAt(t.MatMulInt, batch); ok {
		if offset && m.OffsetWarpRows != 0 {
			m.WarpRows = m.OffsetWarpRows
		}
		m.OffsetWarpRows = 0
	}
	return m, ok
}

// classAt is the tuning of the first of classes whose MaxBatch is at least
// batch (MaxBatch 0: every larger batch).
func classAt(classes []MatMulIntBatch, batch int) (MatMulIntTuning, bool) {
	for _, c := range classes {
		if c.MaxBatch == 0 || batch <= c.MaxBatch {
			return c.Tuning, true
		}
	}
	return MatMulIntTuning{}, false
}

// hasClass reports whether classes have one of MaxBatch maxBatch.
func hasClass(classes []MatMulIntBatch, maxBatch int) bool {
	return slices.ContainsFunc(classes, func(c MatMulIntBatch) bool { return c.MaxBatch == maxBatch })
}

// HasMatMulIntClass reports whether t has a MatMulInt class of MaxBatch
// maxBatch (0: the class of every larger batch).
func (t *Target) HasMatMulIntClass(maxBatch int) bool { return hasClass(t.MatMulInt, maxBatch) }

// MatMulHalfAt is the configuration of matmul's mma.sync f16 path that t's
// launcher takes at batch: the first MatMulHalf class whose MaxBatch is at
// least batch (the last, of MaxBatch 0, takes every larger batch); ok is
// false where no class serves batch.
func (t *Target) MatMulHalfAt(batch int) (MatMulIntTuning, bool) { return classAt(t.MatMulHalf, batch) }

// HasMatMulHalfClass reports whether t has a MatMulHalf class of MaxBatch
// maxBatch (0: the class of every larger batch).
func (t *Target) HasMatMulHalfClass(maxBatch int) bool { return hasClass(t.MatMulHalf, maxBatch) }

// halfStagesFit reports whether two pipeline stages of m's tiles (W's
// and X's rows of TileK f16 elements, padded by 8) fit the 227 KiB of
// shared memory a workgroup may have on sm_90: the mma.sync f16 path's
// own limit, beside the integer path's rules.
func halfStagesFit(m MatMulIntTuning) bool {
	return 2*(m.TileRows+m.TileCols)*(m.TileK+8)*2 <= 232448
}

// matMulIntKnobProblems is KnobProblems for matmul_int (and, half, for
// matmul_half, whose tiles follow the same rules and must also fit two
// stages in shared memory): the tuning's own problems, with each Field the
// knob's name.
func (t *Target) matMulIntKnobProblems(knobs map[string]int, half bool) []check.Problem {
	var l check.List
	field := map[string]string{}
	for _, k := range matMulIntKnobs {
		field[k.field] = k.name
	}
	m := MatMulIntOfKnobs(knobs)
	for _, p := range m.Problems(t.Vendor, t.WaveSize) {
		name, ok := field[p.Field]
		if !ok {
			name = p.Field
		}
		l.Add(name, "%s", p.Msg)
	}
	if half && len(l) == 0 && !halfStagesFit(m) {
		l.Add("tk", "two stages of %d × %d tiles at K step %d exceed 227 KiB of shared memory", m.TileRows, m.TileCols, m.TileK)
	}
	return l
}

// String is m's knobs as the winners file names them.
func (m MatMulIntTuning) String() string {
	s := fmt.Sprintf("threads=%d tm=%d tn=%d tk=%d warp_rows=%d split_k=%d", m.ThreadsPerBlock, m.TileRows, m.TileCols, m.TileK, m.WarpRows, m.SplitK)
	if m.Int8 != 0 {
		s += fmt.Sprintf(" int8=%d", m.Int8)
	}
	return s
}
