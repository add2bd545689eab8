package targets

import (
	"fmt"
	"slices"

	"github.com/rocmforge/forge/specs/check"
)

// The checks here are the constraints the kernel templates' static_asserts
// also enforce, so that a bad spec is reported at its line (gen/load turns
// each Problem's field into the position of that field in the spec's
// source) rather than as a compile error. Checks across targets (unique
// names, exactly one Default) are gen/load's, which sees them all.

// LDSBytes is the most shared memory (LDS) a workgroup's static tiles may
// take: 48 KiB, CUDA's limit for static shared memory (AMD allows 64 KiB).
const LDSBytes = 48 << 10

// Problems lists what is wrong with t. headDims are the head dimensions
// the attention family (specs/families) has launchers for, which the
// Attention tuning must serve; nil when there is no attention family, and
// then Attention must be left zero.
func (t *Target) Problems(headDims []int) []check.Problem {
	var l check.List
	if t.Name == "" {
		l.Add("Name", "Name is empty")
	}
	if t.Vendor != "amd" && t.Vendor != "nvidia" {
		l.Add("Vendor", "Vendor %q must be \"amd\" or \"nvidia\"", t.Vendor)
	}
	if t.WaveSize != 32 && t.WaveSize != 64 {
		l.Add("WaveSize", "WaveSize %d must be 32 or 64", t.WaveSize)
	}
	if t.WMMA && (t.Vendor != "amd" || t.WaveSize != 32) {
		l.Add("WMMA", "WMMA: only AMD wave32 targets (RDNA3) have it; NVIDIA's tensor cores need no flag")
	}
	if t.MFMA && (t.Vendor != "amd" || t.WaveSize != 64 || t.WMMA) {
		l.Add("MFMA", "MFMA: only AMD wave64 targets (CDNA) have it, and not with WMMA")
	}
	if t.WGMMA && (t.Vendor != "nvidia" || !slices.Contains(t.CompileFlags, "-arch=sm_90a")) {
		l.Add("WGMMA", "WGMMA: only NVIDIA Hopper has it, compiled for its arch-specific instructions (CompileFlags -arch=sm_90a)")
	}
	l.In("Dequant", t.Dequant.Problems(t.WaveSize))
	l.In("MatVec", t.MatVec.Problems(t.WaveSize))
	l.In("MatMul", t.MatMul.Problems(t.Vendor, t.WaveSize, t.TensorCores()))
	for i, b := range t.MatMulBatches {
		at := fmt.Sprintf("MatMulBatches[%d]", i)
		switch {
		case b.MaxBatch < 1:
			l.Add(at+".MaxBatch", "MatMulBatches[%d].MaxBatch %d must be positive", i, b.MaxBatch)
		case i > 0 && b.MaxBatch <= t.MatMulBatches[i-1].MaxBatch:
			l.Add(at+".MaxBatch", "MatMulBatches[%d].MaxBatch %d must exceed the class before's, %d: the classes are in increasing MaxBatch", i, b.MaxBatch, t.MatMulBatches[i-1].MaxBatch)
		}
		l.In(at+".Tuning", b.Tuning.Problems(t.Vendor, t.WaveSize, t.TensorCores()))
	}
	for i, b := range t.MatMulInt {
		at := fmt.Sprintf("MatMulInt[%d]", i)
		last := i == len(t.MatMulInt)-1
		switch {
		case b.MaxBatch < 0 || b.MaxBatch == 0 && !last:
			l.Add(at+".MaxBatch", "MatMulInt[%d].MaxBatch %d must be positive (only the last class may be 0: every batch above the one before)", i, b.MaxBatch)
		case i > 0 && b.MaxBatch != 0 && b.MaxBatch <= t.MatMulInt[i-1].MaxBatch:
			l.Add(at+".MaxBatch", "MatMulInt[%d].MaxBatch %d must exceed the class before's, %d: the classes are in increasing MaxBatch", i, b.MaxBatch, t.MatMulInt[i-1].MaxBatch)
		}
		l.In(at+".Tuning", b.Tuning.Problems(t.Vendor, t.WaveSize))
	}
	switch {
	case t.MatMulIntF16 < 0:
		l.Add("MatMulIntF16", "MatMulIntF16 %d must be 0 (off) or a batch", t.MatMulIntF16)
	case t.MatMulIntF16 > 0 && t.Vendor != "nvidia":
		l.Add("MatMulIntF16", "MatMulIntF16: the f16 fragments are mma.sync's, which only NVIDIA targets have")
	case t.MatMulIntF16 > 0 && len(t.MatMulInt) == 0:
		l.Add("MatMulIntF16", "MatMulIntF16: the f16 fragments take the integer path's classes (MatMulInt), and there are none")
	}
	for i, b := range t.MatMulHalf {
		at := fmt.Sprintf("MatMulHalf[%d]", i)
		last := i == len(t.MatMulHalf)-1
		switch {
		case t.Vendor != "nvidia":
			l.Add(at, "MatMulHalf: the mma.sync f16 path is NVIDIA's")
		case b.MaxBatch < 0 || b.MaxBatch == 0 && !last:
			l.Add(at+".MaxBatch", "MatMulHalf[%d].MaxBatch %d must be positive (only the last class may be 0: every batch above the one before)", i, b.MaxBatch)
		case i > 0 && b.MaxBatch != 0 && b.MaxBatch <= t.MatMulHalf[i-1].MaxBatch:
			l.Add(at+".MaxBatch", "MatMulHalf[%d].MaxBatch %d must exceed the class before's, %d: the classes are in increasing MaxBatch", i, b.MaxBatch, t.MatMulHalf[i-1].MaxBatch)
		case b.Tuning.OffsetWarpRows != 0:
			l.Add(at+".Tuning.OffsetWarpRows", "MatMulHalf[%d]: OffsetWarpRows is the integer path's; leave it 0", i)
		case !halfStagesFit(b.Tuning):
			l.Add(at+".Tuning", "MatMulHalf[%d]: two stages of %d × %d tiles at K step %d exceed 227 KiB of shared memory", i, b.Tuning.TileRows, b.Tuning.TileCols, b.Tuning.TileK)
		}
		l.In(at+".Tuning", b.Tuning.Problems(t.Vendor, t.WaveSize))
	}
	switch {
	case t.MatMulF16MinBatch > 0 && len(t.MatMulHalf) == 0:
		l.Add("MatMulF16MinBatch", "MatMulF16MinBatch: the f16 route needs MatMulHalf classes (F16's mma.sync path)")
	}
	switch {
	case t.MatMulF16MinBatch < 0:
		l.Add("MatMulF16MinBatch", "MatMulF16MinBatch %d must be 0 (off) or a batch", t.MatMulF16MinBatch)
	case t.MatMulF16MinBatch > 0 && t.Vendor != "nvidia":
		l.Add("MatMulF16MinBatch", "MatMulF16MinBatch: the f16 route needs F16's mma.sync path, which only NVIDIA targets have")
	}
	switch {
	case headDims != nil:
		l.In("Attention", t.Attention.Problems(t.Vendor, t.WaveSize, t.TensorCores(), headDims))
	case t.Attention != AttentionTuning{}:
		l.Add("Attention", "Attention tuning, but specs/families registers no attention family")
	}
	l.In("MatVecSpace", t.MatVecSpace.Problems(t.WaveSize))
	l.In("MatMulIntSpace", t.MatMulIntSpace.Problems(t.Vendor, t.WaveSize))
	if !t.MatMulIntSpace.Empty() && len(t.MatMulInt) == 0 {
		l.Add("MatMulIntSpace", "MatMulIntSpace without MatMulInt classes: the integer path is off on %s", t.Name)
	}
	l.In("MatMulHalfSpace", t.MatMulHalfSpace.Problems(t.Vendor, t.WaveSize))
	if !t.MatMulHalfSpace.Empty() && len(t.MatMulHalf) == 0 {
		l.Add("MatMulHalfSpace", "MatMulHalfSpace without MatMulHalf classes: the mma.sync f16 path is off on %s", t.Name)
	}
	return l
}

// threadsWhy, rowsWhy and chunkWhy say why a value of a workgroup size, a
// matvec row count and a matvec chunk is invalid, or return "".
func threadsWhy(v, wave int) string {
	if v <= 0 || v > 1024 || wave > 0 && v%wave != 0 {
		return fmt.Sprintf("must be a multiple of the wave size %d, at most 1024", wave)
	}
	return ""
}

func rowsWhy(v, _ int) string {
	if v < 1 || v > 16 {
		return "must be in [1, 16]"
	}
	return ""
}

// lanesWhy: matvec_x8's lanes per 32-element group split the group's eight
// 32-bit words evenly.
func lanesWhy(v, _ int) string {
	if v != 1 && v != 2 && v != 4 && v != 8 {
		return "must be 1, 2, 4 or 8"
	}
	return ""
}

// groupsWhy: matvec_x8's consecutive 32-element groups per lane, a power
// of two so that it divides a super-block's eight.
func groupsWhy(v, _ int) string {
	if v != 1 && v != 2 && v != 4 && v != 8 {
		return "must be 1, 2, 4 or 8"
	}
	return ""
}

func chunkWhy(v, _ int) string {
	if v < 4 || v > 64 || v&(v-1) != 0 {
		return "must be a power of two in [4, 64]"
	}
	return ""
}

// Problems lists what is wrong with the dequant tuning d for a target of
// the given wave size.
func (d DequantTuning) Problems(wave int) []check.Problem {
	var l check.List
	if why := threadsWhy(d.ThreadsPerBlock, wave); why != "" {
		l.Add("ThreadsPerBlock", "Dequant.ThreadsPerBlock %d %s", d.ThreadsPerBlock, why)
	}
	if v := d.VectorsPerThread; v < 1 || v > 16 {
		l.Add("VectorsPerThread", "Dequant.VectorsPerThread %d must be in [1, 16]", v)
	}
	return l
}

// matVecKnob is one knob of the matvec tuning: its field, its name in the
// winners files (specs/tuned.MatVec's knobs), its rule, and where it is in
// a tuning and in a tuning space.
type matVecKnob struct {
	field, name string
	why         func(v, wave int) string
	in          func(*MatVecTuning) *int
	space       func(*MatVecSpace) []int
}

var matVecKnobs = []matVecKnob{
	{"ThreadsPerBlock", "threads", threadsWhy,
		func(m *MatVecTuning) *int { return &m.ThreadsPerBlock }, func(s *MatVecSpace) []int { return s.ThreadsPerBlock }},
	{"RowsPerBlock", "rows", rowsWhy,
		func(m *MatVecTuning) *int { return &m.RowsPerBlock }, func(s *MatVecSpace) []int { return s.RowsPerBlock }},
	{"Chunk", "chunk", chunkWhy,
		func(m *MatVecTuning) *int { return &m.Chunk }, func(s *MatVecSpace) []int { return s.Chunk }},
}

// Problems lists what is wrong with the matvec tuning m for a target of
// the given wave size.
func (m MatVecTuning) Problems(wave int) []check.Problem {
	var l check.List
	for _, k := range matVecKnobs {
		if v := *k.in(&m); k.why(v, wave) != "" {
			l.Add(k.field, "MatVec.%s %d %s", k.field, v, k.why(v, wave))
		}
	}
	return l
}

// Problems lists what is wrong with the matvec tuning space s for a target
// of the given wave size: each knob's list is not empty, has no value
// twice, and holds only values valid as MatVec's.
func (s MatVecSpace) Problems(wave int) []check.Problem {
	var l check.List
	for _, k := range matVecKnobs {
		values := k.space(&s)
		if len(values) == 0 {
			l.Add(k.field, "MatVecSpace.%s: the tuning space needs at least one value", k.field)
		}
		seen := map[int]bool{}
		for i, v := range values {
			if seen[v] {
				l.Add(check.Index(k.field, i), "MatVecSpace.%s: %d is listed twice", k.field, v)
			}
			seen[v] = true
			if why := k.why(v, wave); why != "" {
				l.Add(check.Index(k.field, i), "MatVecSpace.%s: %d %s", k.field, v, why)
			}
		}
	}
	return l
}

// Knobs is m as a winners file's knobs (specs/tuned.MatVec): threads,
// rows and chunk.
func (m MatVecTuning) Knobs() map[string]int {
	out := map[string]int{}
	for _, k := range matVecKnobs {
		out[k.name] = *k.in(&m)
	}
	return out
}

// MatVecOfKnobs is the matvec tuning a winners file's knobs set; a knob
// missing is 0.
func MatVecOfKnobs(knobs map[string]int) MatVecTuning {
	var m MatVecTuning
	for _, k := range matVecKnobs {
		*k.in(&m) = knobs[k.name]
	}
	return m
}

// Knobs is s by knob name, as MatVecTuning.Knobs names them.
func (s MatVecSpace) Knobs() map[string][]int {
	out := map[string][]int{}
	for _, k := range matVecKnobs {
		out[k.name] = k.space(&s)
	}
	return out
}

// MatVecX8Space is every target's tuning space for matvec_x8: the hand
// sweep's threads and rows (docs/PERFORMANCE.md, "The integer matvec") and
// one or two lanes per 32-element group (more lanes repeat the scale
// decoding per lane: 4 and 8 were slower for every format measured), and
// one, two or four consecutive 32-element groups per lane (a super-block's
// groups share bytes: Q4_K's pairs their nibbles' bytes, Q3_K's fours their
// 2-bit codes' bytes, Q6_K's fours their high bits). Candidates a format
// cannot compile (FormatKnobProblems: a block of one group has one group
// per lane) are left out per format.
var MatVecX8Space = map[string][]int{"threads": {64, 128, 256}, "rows": {1, 2, 4}, "lanes": {1, 2}, "groups": {1, 2, 4}}

// MatVecX8Default is matvec_x8's configuration for a format of blockElems
// elements in blockBytes bytes when no winner is baked in: the
// templates/hip/matvec.hip.tmpl #ifndef FORGE_TUNE_MATVEC_X8_* defaults,
// a rule read off the hand sweeps on the H100: blocks of 32 elements 64
// threads and 2 rows (1 above 6 bits per weight), super-blocks 128
// threads and 1 row; one lane per 32-element group, two for super-blocks
// above 6 bits per weight (Q6_K: 28.1 µs against 30.4 with one, where
// Q2_K to Q5_K were as fast or faster with one); one group per lane.
// gen/hipgen bakes it into
// each launcher that has no winner, so this is the rule's one copy.
func MatVecX8Default(blockElems, blockBytes int) map[string]int {
	threads, rows, lanes := 64, 2, 1
	if blockElems > 32 {
		threads = 128
	}
	if blockElems > 32 || blockBytes*8 > 6*blockElems {
		rows = 1
	}
	if blockElems > 32 && blockBytes*8 > 6*blockElems {
		lanes = 2
	}
	return map[string]int{"threads": threads, "rows": rows, "lanes": lanes, "groups": 1}
}

// TuningSpace is t's tuning space and default knobs for the tunable family
// (specs/tuned.Families) of that name; ok is false for a family t has no
// space for. defaults is nil for a family whose default depends on the
// format (matvec_x8: MatVecX8Default).
func (t *Target) TuningSpace(family string) (space map[string][]int, defaults map[string]int, ok bool) {
	switch family {
	case "matvec":
		return t.MatVecSpace.Knobs(), t.MatVec.Knobs(), true
	case "matvec_x8":
		space = map[string][]int{}
		for k, v := range MatVecX8Space {
			space[k] = append([]int(nil), v...)
		}
		return space, nil, true
	case "matmul_int":
		// The default depends on the batch class (MatMulIntAt).
		if len(t.MatMulInt) == 0 || t.MatMulIntSpace.Empty() {
			return nil, nil, false
		}
		return t.MatMulIntSpace.Knobs(), nil, true
	case "matmul_half":
		// The default depends on the batch class (MatMulHalfAt).
		if len(t.MatMulHalf) == 0 || t.MatMulHalfSpace.Empty() {
			return nil, nil, false
		}
		return t.MatMulHalfSpace.Knobs(), nil, true
	}
	return nil, nil, false
}

// KnobProblems lists what keeps knobs, a winners file's entry for the
// tunable family, from compiling on t whatever the format: the rules of
// the family's tuning (a family without rules here has none). Each
// problem's Field is the knob's name.
func (t *Target) KnobProblems(family string, knobs map[string]int) []check.Problem {
	var l check.List
	switch family {
	case "matvec":
		m := MatVecOfKnobs(knobs)
		for _, k := range matVecKnobs {
			if v := *k.in(&m); k.why(v, t.WaveSize) != "" {
				l.Add(k.name, "%s %d %s", k.name, v, k.why(v, t.WaveSize))
			}
		}
	case "matvec_x8":
		for _, k := range []struct {
			name string
			why  func(v, wave int) string
		}{{"threads", threadsWhy}, {"rows", rowsWhy}, {"lanes", lanesWhy}, {"groups", groupsWhy}} {
			if v := knobs[k.name]; k.why(v, t.WaveSize) != "" {
				l.Add(k.name, "%s %d %s", k.name, v, k.why(v, t.WaveSize))
			}
		}
	case "matmul_int":
		return t.matMulIntKnobProblems(knobs, false)
	case "matmul_half":
		return t.matMulIntKnobProblems(knobs, true)
	}
	return l
}

// FormatKnobProblems is KnobProblems and the rules that depend on the
// format, one of blockElems elements per block: matvec_x8's groups per lane
// must divide the block's 32-element groups, and its threads must be a
// multiple of the block's lanes, its groups over the groups per lane times
// the lanes per group (each thread keeps to one part of the same groups of
// every block it visits).
func (t *Target) FormatKnobProblems(family string, blockElems int, knobs map[string]int) []check.Problem {
	l := check.List(t.KnobProblems(family, knobs))
	if family == "matvec_x8" && len(l) == 0 {
		if gpb := blockElems / 32; blockElems%32 != 0 || gpb == 0 {
			l.Add("threads", "matvec_x8 needs blocks of whole 32-element groups, not %d elements", blockElems)
		} else if g := knobs["groups"]; gpb%g != 0 {
			l.Add("groups", "groups %d per lane must divide the %d 32-element groups per block", g, gpb)
		} else if v, n := knobs["threads"], knobs["lanes"]; v%(gpb/g*n) != 0 {
			l.Add("threads", "threads %d must be a multiple of the %d 32-element groups per block over %d groups per lane, times %d lanes per group", v, gpb, g, n)
		}
	}
	return l
}

// IntLDSBytes is the shared memory (LDS) the AMD integer matmul kernel's
// tiles take at the TileRows × TileCols tile of m, in the worst case of a
// format: 256-element blocks (a step of at least 256 elements), sub-blocks
// of 16 and an offset term (matmul.hip.tmpl's _x8_lds).
func (m MatMulIntTuning) IntLDSBytes() int {
	bk := max(m.TileK, 256)
	kw, ng, ns := bk/4+4, bk/32, bk/16
	return 4 * ((m.TileRows+m.TileCols)*kw + m.TileRows*ns*2 + m.TileCols*(ng+bk/16))
}

// Problems lists what is wrong with the integer matmul tuning m for a
// target of the given vendor and wave size: its waves ("warps") are
// ThreadsPerBlock / wave; on AMD its tiles also take at most 64 KiB of LDS
// (IntLDSBytes).
func (m MatMulIntTuning) Problems(vendor string, wave int) []check.Problem {
	var l check.List
	tpb, tm, tn, tk := m.ThreadsPerBlock, m.TileRows, m.TileCols, m.TileK
	if wave != 32 && wave != 64 {
		return l // WaveSize's own problem
	}
	if why := threadsWhy(tpb, wave); why != "" {
		l.Add("ThreadsPerBlock", "MatMulInt.ThreadsPerBlock %d %s", tpb, why)
		return l
	}
	warps := tpb / wave
	// Both layouts must tile TileRows × TileCols in whole 16 × 16 pieces.
	for _, wr := range []struct {
		name string
		v    int
	}{{"WarpRows", m.WarpRows}, {"OffsetWarpRows", m.OffsetWarpRows}} {
		if wr.name == "OffsetWarpRows" && wr.v == 0 {
			continue // WarpRows's
		}
		switch {
		case wr.v < 1 || warps%wr.v != 0:
			l.Add(wr.name, "MatMulInt.%s %d must divide the %d warps", wr.name, wr.v, warps)
		case tm < 16 || tm > 256 || tm%(16*wr.v) != 0:
			l.Add("TileRows", "MatMulInt.TileRows %d must be in [16, 256] and a multiple of 16·%s = %d", tm, wr.name, 16*wr.v)
		case tn < 16 || tn > 256 || tn%(16*(warps/wr.v)) != 0:
			l.Add("TileCols", "MatMulInt.TileCols %d must be in [16, 256] and a multiple of 16·(warps/%s) = %d", tn, wr.name, 16*(warps/wr.v))
		}
	}
	// NVIDIA's launcher halves a K step whose stages pass the shared
	// memory a workgroup may have (Q3_K's batch-16 class measured fastest
	// at 512 on the H200: 32.1 against 46.3 µs at 4096×14336×16, one
	// weight buffer); AMD's LDS holds 256.
	maxTK := 256
	if vendor == "nvidia" {
		maxTK = 512
	}
	if tk < 32 || tk > maxTK || tk%32 != 0 {
		l.Add("TileK", "MatMulInt.TileK %d must be a multiple of 32 in [32, %d]", tk, maxTK)
	}
	if m.SplitK < 0 || m.SplitK > 64 {
		l.Add("SplitK", "MatMulInt.SplitK %d must be in [0, 64] (0 or 1: no split)", m.SplitK)
	}
	switch {
	case m.Int8 != 0 && m.Int8 != 1:
		l.Add("Int8", "MatMulInt.Int8 %d must be 0 (the f16 fragments where the target's MatMulIntF16 takes them) or 1 (int8 products)", m.Int8)
	case m.Int8 == 1 && vendor != "nvidia":
		l.Add("Int8", "MatMulInt.Int8: only NVIDIA targets have the f16 fragments that Int8 1 turns down")
	}
	if b := m.IntLDSBytes(); vendor == "amd" && b > 64<<10 {
		l.Add("TileRows", "MatMulInt: tiles of %d × %d take %d bytes of LDS at a step of 256 elements (K-quants), above AMD's 65536", tm, tn, b)
	}
	return l
}

// Problems lists what is wrong with the matmul tuning m for a target of the
// given vendor and wave size.
func (m MatMulTuning) Problems(vendor string, wave int, tensor bool) []check.Problem {
	var l check.List
	tpb, tm, tn, tk, rm := m.ThreadsPerBlock, m.TileRows, m.TileCols, m.TileK, m.ThreadRows
	if why := threadsWhy(tpb, wave); why != "" {
		l.Add("ThreadsPerBlock", "MatMul.ThreadsPerBlock %d %s", tpb, why)
		return l
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"TileRows", tm}, {"TileCols", tn}, {"TileK", tk}} {
		if f.v < 1 || f.v > 256 {
			l.Add(f.name, "MatMul.%s %d must be in [1, 256]", f.name, f.v)
		}
	}
	if len(l) > 0 {
		return l
	}
	// The generic path: threads form (TM/RM) × (THREADS/(TM/RM)), each with an RM × RN register tile.
	switch {
	case rm < 1 || tm%rm != 0:
		l.Add("ThreadRows", "MatMul.ThreadRows %d must divide TileRows %d", rm, tm)
	case tpb%(tm/rm) != 0 || tn%(tpb/(tm/rm)) != 0:
		l.Add("ThreadRows", "MatMul: TileRows/ThreadRows = %d threads along rows must divide ThreadsPerBlock %d, and the %d thread columns that leaves must divide TileCols %d",
			tm/rm, tpb, tpb/max(1, tm/rm), tn)
	}
	if b := 4 * tk * (tm + 1 + tn + 1); b > LDSBytes {
		l.Add("TileK", "MatMul: the generic path's tiles take %d bytes of shared memory, more than %d", b, LDSBytes)
	}
	if m.SplitK < 0 || m.SplitK > 64 {
		l.Add("SplitK", "MatMul.SplitK %d must be in [0, 64] (0 or 1: no split)", m.SplitK)
	}
	if !tensor {
		if m.WarpRows != 0 {
			l.Add("WarpRows", "MatMul.WarpRows %d: only targets with tensor cores (NVIDIA, AMD with WMMA or MFMA) have the tensor-core path; leave it 0", m.WarpRows)
		}
		if m.SplitK > 1 {
			l.Add("SplitK", "MatMul.SplitK %d: only the tensor-core path splits K; leave it 0", m.SplitK)
		}
		return l
	}
	warps := tpb / wave
	switch {
	case tm%16 != 0 || tn%16 != 0 || tk%16 != 0:
		l.Add("TileK", "MatMul: the tensor-core path needs TileRows %d, TileCols %d and TileK %d multiples of 16", tm, tn, tk)
	case m.WarpRows < 1 || warps%m.WarpRows != 0 || (tm/16)%m.WarpRows != 0 || (tn/16)%(warps/m.WarpRows) != 0:
		l.Add("WarpRows", "MatMul.WarpRows %d must divide the %d warps and TileRows/16 = %d, and the warps/WarpRows that leaves must divide TileCols/16 = %d",
			m.WarpRows, warps, tm/16, tn/16)
	case (tm*tk/2)%tpb != 0 || (tn*tk/2)%tpb != 0:
		l.Add("TileK", "MatMul: the tensor-core path stages element pairs evenly: TileRows·TileK/2 = %d and TileCols·TileK/2 = %d must be multiples of ThreadsPerBlock %d",
			tm*tk/2, tn*tk/2, tpb)
	case (tm*tk/4)%tpb != 0:
		l.Add("TileK", "MatMul: the tensor-core path stages W on a format's integer form in quads evenly: TileRows·TileK/4 = %d must be a multiple of ThreadsPerBlock %d",
			tm*tk/4, tpb)
	}
	if b := 2 * 2 * (tm + tn) * (tk + 8); b > LDSBytes {
		l.Add("TileK", "MatMul: the tensor-core path's double-buffered f16 tiles take %d bytes of shared memory, more than %d", b, LDSBytes)
	} else if b < warps*1024 {
		l.Add("TileK", "MatMul: the tensor-core path's tiles (%d bytes) must hold the %d warps' 1 KiB output scratch", b, warps)
	}
	return l
}

// MmaLDSBytes is the shared memory of the attention mma.sync path's
// workgroup for head dimension d: one K and one V tile of keys × (d+8)
// halves.
func (a AttentionTuning) MmaLDSBytes(d int) int { return 2 * a.MmaKeysPerTile * (d + 8) * 2 }

// GenericLDSBytes is the shared memory of the attention generic path's
// workgroup for head dimension d: Q (rows × (d+1)), K (keys × (d+1)) and V
// (keys × d) tiles and the probabilities (rows × (keys+1)), all float32.
func (a AttentionTuning) GenericLDSBytes(d int) int {
	return 4 * (a.QueryRows*(d+1) + a.KeysPerTile*(2*d+1) + a.QueryRows*(a.KeysPerTile+1))
}

// WmmaLDSBytes is the shared memory of the attention tensor-core path's
// workgroup for head dimension d: two K buffers and one V buffer of keys ×
// (d+8) halves, and per warp 16 rows of float32 scores (keys+4), of f16
// probabilities (keys+8) and 16 floats of row factors; or, if larger, the
// Q staging of 16·warps rows × (d+8) halves, which shares the space.
func (a AttentionTuning) WmmaLDSBytes(d int) int {
	bk, w := a.WmmaKeysPerTile, a.WmmaWarps
	loop := 3*bk*(d+8)*2 + w*(16*(bk+4)*4+16*(bk+8)*2+16*4)
	return max(loop, 16*w*(d+8)*2)
}

// DecodeLDSBytes is the shared memory of the attention split-KV path's
// workgroup for head dimension d: per wave, DecodeRows rows of d sums, a
// maximum and a sum, float32.
func (a AttentionTuning) DecodeLDSBytes(wave, d int) int {
	return 4 * (a.DecodeThreads / wave) * a.DecodeRows * (d + 2)
}

// decodeProblems lists what is wrong with the split-KV path's knobs.
func (a AttentionTuning) decodeProblems(l *check.List, wave int, dims []int) {
	if why := threadsWhy(a.DecodeThreads, wave); why != "" {
		l.Add("DecodeThreads", "Attention.DecodeThreads %d %s", a.DecodeThreads, why)
		return
	}
	if a.DecodeRows < 1 || a.DecodeRows > 16 {
		l.Add("DecodeRows", "Attention.DecodeRows %d must be in [1, 16]", a.DecodeRows)
	} else {
		for _, d := range dims {
			if b := a.DecodeLDSBytes(wave, d); b > LDSBytes {
				l.Add("DecodeRows", "Attention: the split-KV path's merge buffers take %d bytes of shared memory at head dimension %d, more than %d", b, d, LDSBytes)
			}
		}
	}
	if a.DecodeKeys < 1 || a.DecodeKeys > 8 {
		l.Add("DecodeKeys", "Attention.DecodeKeys %d must be in [1, 8]", a.DecodeKeys)
	}
	if a.DecodeSplitKeys < 1 {
		l.Add("DecodeSplitKeys", "Attention.DecodeSplitKeys %d must be at least 1", a.DecodeSplitKeys)
	}
	if a.DecodeWorkgroups < 1 {
		l.Add("DecodeWorkgroups", "Attention.DecodeWorkgroups %d must be at least 1", a.DecodeWorkgroups)
	}
}

// Problems lists what is wrong with the attention tuning a for a target of
// the given vendor and wave size, for every head dimension in dims.
func (a AttentionTuning) Problems(vendor string, wave int, tensor bool, dims []int) []check.Problem {
	var l check.List
	a.decodeProblems(&l, wave, dims)
	tpb, rows, keys := a.ThreadsPerBlock, a.QueryRows, a.KeysPerTile
	if why := threadsWhy(tpb, wave); why != "" {
		l.Add("ThreadsPerBlock", "Attention.ThreadsPerBlock %d %s", tpb, why)
		return l
	}
	if rows < 1 || tpb%rows != 0 {
		l.Add("QueryRows", "Attention.QueryRows %d must divide ThreadsPerBlock %d", rows, tpb)
		return l
	}
	if g := tpb / rows; g&(g-1) != 0 || g > wave {
		l.Add("QueryRows", "Attention: ThreadsPerBlock/QueryRows = %d threads per query row must be a power of two, at most the wave size %d", g, wave)
	} else if keys < 1 || keys%g != 0 || keys > 256 {
		l.Add("KeysPerTile", "Attention.KeysPerTile %d must be a multiple of the %d threads per query row, at most 256", keys, g)
	} else {
		for _, d := range dims {
			if d%g != 0 {
				l.Add("QueryRows", "Attention: the %d threads per query row must divide head dimension %d", g, d)
			}
			if b := a.GenericLDSBytes(d); b > LDSBytes {
				l.Add("KeysPerTile", "Attention: the generic path's tiles take %d bytes of shared memory at head dimension %d, more than %d", b, d, LDSBytes)
			}
		}
	}
	if vendor != "nvidia" {
		if a.MmaWarps != 0 || a.MmaKeysPerTile != 0 {
			l.Add("MmaWarps", "Attention.MmaWarps %d and MmaKeysPerTile %d: only NVIDIA targets have the mma.sync path; leave them 0", a.MmaWarps, a.MmaKeysPerTile)
		}
		if !tensor {
			if a.WmmaWarps != 0 || a.WmmaKeysPerTile != 0 {
				l.Add("WmmaWarps", "Attention.WmmaWarps %d and WmmaKeysPerTile %d: only targets with tensor cores (NVIDIA, AMD with WMMA or MFMA) have the tensor-core path; leave them 0", a.WmmaWarps, a.WmmaKeysPerTile)
			}
			return l
		}
	} else if a.MmaWarps < 1 || a.MmaWarps > 16 {
		l.Add("MmaWarps", "Attention.MmaWarps %d must be in [1, 16]", a.MmaWarps)
	} else if bk := a.MmaKeysPerTile; bk < 16 || bk%16 != 0 || bk > 256 {
		l.Add("MmaKeysPerTile", "Attention.MmaKeysPerTile %d must be a multiple of 16 in [16, 256]", bk)
	} else {
		for _, d := range dims {
			if b := a.MmaLDSBytes(d); b > LDSBytes {
				l.Add("MmaKeysPerTile", "Attention: the mma.sync path's K and V tiles take %d bytes of shared memory at head dimension %d, more than %d", b, d, LDSBytes)
			}
		}
	}
	if a.WmmaWarps < 1 || a.WmmaWarps > 16 {
		l.Add("WmmaWarps", "Attention.WmmaWarps %d must be in [1, 16]", a.WmmaWarps)
		return l
	}
	if bk := a.WmmaKeysPerTile; bk < 16 || bk%16 != 0 || bk > 256 {
		l.Add("WmmaKeysPerTile", "Attention.WmmaKeysPerTile %d must be a multiple of 16 in [16, 256]", bk)
		return l
	}
	for _, d := range dims {
		if b := a.WmmaLDSBytes(d); b > LDSBytes {
			l.Add("WmmaKeysPerTile", "Attention: the tensor-core path takes %d bytes of shared memory at head dimension %d, more than %d", b, d, LDSBytes)
		}
	}
	return l
}
