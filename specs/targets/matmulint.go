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
}

// matMulIntKnobs are MatMulIntTuning's knobs by winners-file name
// (specs/tuned.MatMulInt) and field.
var matMulIntKnobs = []struct {
	name, field string
	in          func(*MatMulIntTuning) *int
	space       func(*MatMulIntSpace) []int
}{
	{"threads", "ThreadsPerBlock", func(m *MatMulIntTuning) *int { return &m.ThreadsPerBlock }, func(s *MatMulIntSpace) []int { return s.ThreadsPerBlock }},
	{"tm", "TileRows", func(m *MatMulIntTuning) *int { return &m.TileRows }, func(s *MatMulIntSpace) []int { return s.TileRows }},
	{"tn", "TileCols", func(m *MatMulIntTuning) *int { return &m.TileCols }, func(s *MatMulIntSpace) []int { return s.TileCols }},
	{"tk", "TileK", func(m *MatMulIntTuning) *int { return &m.TileK }, func(s *MatMulIntSpace) []int { return s.TileK }},
	{"warp_rows", "WarpRows", func(m *MatMulIntTuning) *int { return &m.WarpRows }, func(s *MatMulIntSpace) []int { return s.WarpRows }},
	{"split_k", "SplitK", func(m *MatMulIntTuning) *int { return &m.SplitK }, func(s *MatMulIntSpace) []int { return s.SplitK }},
}

// Knobs is m as a winners file's knobs (specs/tuned.MatMulInt). m's
// OffsetWarpRows is not a knob: a format's own configuration has it as
// warp_rows (MatMulIntAt).
func (m MatMulIntTuning) Knobs() map[string]int {
	out := map[string]int{}
	for _, k := range matMulIntKnobs {
		out[k.name] = *k.in(&m)
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
	for _, k := range matMulIntKnobs {
		out[k.name] = slices.Clone(k.space(&s))
	}
	return out
}

// Empty reports whether s lists no values at all (the target is not tuned).
func (s MatMulIntSpace) Empty() bool {
	for _, k := range matMulIntKnobs {
		if len(k.space(&s)) > 0 {
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
	for _, k := range matMulIntKnobs {
		values := k.space(&s)
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
		for _, v := range matMulIntKnobs[i].space(&s) {
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
	for _, c := range t.MatMulInt {
		if c.MaxBatch == 0 || batch <= c.MaxBatch {
			m = c.Tuning
			if offset && m.OffsetWarpRows != 0 {
				m.WarpRows = m.OffsetWarpRows
			}
			m.OffsetWarpRows = 0
			return m, true
		}
	}
	return MatMulIntTuning{}, false
}

// HasMatMulIntClass reports whether t has a MatMulInt class of MaxBatch
// maxBatch (0: the class of every larger batch).
func (t *Target) HasMatMulIntClass(maxBatch int) bool {
	for _, c := range t.MatMulInt {
		if c.MaxBatch == maxBatch {
			return true
		}
	}
	return false
}

// matMulIntKnobProblems is KnobProblems for matmul_int: the tuning's own
// problems, with each Field the knob's name.
func (t *Target) matMulIntKnobProblems(knobs map[string]int) []check.Problem {
	var l check.List
	field := map[string]string{}
	for _, k := range matMulIntKnobs {
		field[k.field] = k.name
	}
	for _, p := range MatMulIntOfKnobs(knobs).Problems(t.Vendor, t.WaveSize) {
		name, ok := field[p.Field]
		if !ok {
			name = p.Field
		}
		l.Add(name, "%s", p.Msg)
	}
	return l
}

// String is m's knobs as the winners file names them.
func (m MatMulIntTuning) String() string {
	return fmt.Sprintf("threads=%d tm=%d tn=%d tk=%d warp_rows=%d split_k=%d", m.ThreadsPerBlock, m.TileRows, m.TileCols, m.TileK, m.WarpRows, m.SplitK)
}
