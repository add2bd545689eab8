package bench

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MergePiece is one input of Merge: a run of `forgebench run --shard
// I/N` and the path it was read from (for messages and Merged.Pieces).
type MergePiece struct {
	Path string
	Run  *Run
}

// MergeOptions relax Merge's checks.
type MergeOptions struct {
	// AllowMixed merges pieces measured on different hardware or software
	// (backend, device, arch, target, kernel library, driver, toolkit,
	// OS, Go, forge version or commit, ...) or with a different selection
	// or options: each difference becomes a warning and is kept in
	// Merged.Mixed.
	AllowMixed bool
	// AllowPartial merges when shards are missing or a piece was
	// interrupted (with a warning; the missing shards are kept in
	// Merged.Missing, and an interrupted piece marks the merged run
	// interrupted).
	AllowPartial bool
}

// Merged says which pieces a run was merged from (Meta.Merged).
type Merged struct {
	Count     int           `json:"count"`               // N of the pieces' --shard I/N
	Selection string        `json:"selection,omitempty"` // the pieces' Shard.Selection (the first's, when mixed)
	Pieces    []MergedPiece `json:"pieces"`              // by shard
	Missing   []int         `json:"missing,omitempty"`   // shards not given (MergeOptions.AllowPartial)
	Mixed     []string      `json:"mixed,omitempty"`     // differences merged anyway (MergeOptions.AllowMixed)
}

// MergedPiece describes one piece of a merged run.
type MergedPiece struct {
	Path         string    `json:"path"` // as given to merge
	Shard        int       `json:"shard"`
	Benchmarks   int       `json:"benchmarks"` // Shard.Benchmarks
	Results      int       `json:"results"`
	Hostname     string    `json:"hostname,omitempty"`
	Device       string    `json:"device,omitempty"`
	DeviceIndex  *int      `json:"device_index,omitempty"`
	Started      time.Time `json:"started"`
	Finished     time.Time `json:"finished"`
	RooflineGBps float64   `json:"roofline_gbps,omitempty"`
	Interrupted  bool      `json:"interrupted,omitempty"`
}

// metaField is one property of a run that the pieces of a merge must
// share: its name and its value, "" when unknown (never a difference).
type metaField struct {
	name string
	get  func(r *Run) string
}

func itoa(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// mergeFields are what Merge refuses to mix without AllowMixed: the
// hardware and the software that sets performance (as compare warns of
// them), forge's version and commit, the kernel library (by file name:
// its directory differs between machines), and the selection and options.
var mergeFields = []metaField{
	{"backend", func(r *Run) string { return r.Meta.Backend }},
	{"device", func(r *Run) string { return r.Meta.Device }},
	{"arch", func(r *Run) string { return r.Meta.Arch }},
	{"target", func(r *Run) string { return r.Meta.Target }},
	{"kernel library", func(r *Run) string {
		if r.Meta.Library == "" {
			return ""
		}
		return filepath.Base(r.Meta.Library)
	}},
	{"wave size", func(r *Run) string { return itoa(r.Meta.WaveSize) }},
	{"compute units", func(r *Run) string { return itoa(r.Meta.ComputeUnits) }},
	{"device memory", func(r *Run) string {
		if r.Meta.MemoryBytes == 0 {
			return ""
		}
		return strconv.FormatUint(r.Meta.MemoryBytes, 10)
	}},
	{"driver", func(r *Run) string { return r.Meta.Driver }},
	{"toolkit", func(r *Run) string { return r.Meta.Toolkit }},
	{"CPUs (GOMAXPROCS)", func(r *Run) string {
		if r.Meta.Backend != "cpu" { // the cpu backend runs on GOMAXPROCS goroutines
			return ""
		}
		return itoa(r.Meta.CPUs)
	}},
	{"os", func(r *Run) string { return r.Meta.OS }},
	{"go version", func(r *Run) string { return r.Meta.GoVersion }},
	{"forge version", func(r *Run) string { return r.Meta.ForgeVersion }},
	{"forge commit", func(r *Run) string {
		if r.Meta.ForgeCommit != "" && r.Meta.ForgeModified {
			return r.Meta.ForgeCommit + " (modified)"
		}
		return r.Meta.ForgeCommit
	}},
	{"selection", func(r *Run) string { return r.Meta.Shard.Selection }},
	{"options", func(r *Run) string { return r.Meta.Shard.Options }},
}

// Merge puts the pieces of a split run (forgebench run --shard I/N, one
// per shard) back together into one run. It refuses, naming the pieces:
// a piece that is not a shard (or is itself merged); pieces of different
// N; a shard given twice; a benchmark in two pieces; missing shards, or a
// piece that was interrupted or failed part-way (fewer results than
// benchmarks), unless opt.AllowPartial; and pieces that differ in
// hardware, software, selection or options (mergeFields; unless
// opt.AllowMixed). It returns the merged run and warnings (what the
// options let through).
//
// The merged run's metadata is the pieces' (values that differ between
// them, such as the host names, joined with ", "; numbers that differ
// left 0), with Shard unset and Merged listing the pieces. It starts when
// the first piece started and finishes when the last finished. Its copy
// roofline is the median of the pieces' (each machine measured its own,
// and each result keeps its % of copy against its own machine's). Its
// results are in the order of an unsharded run of the same selection.
func Merge(pieces []MergePiece, opt MergeOptions) (*Run, []string, error) {
	if len(pieces) == 0 {
		return nil, nil, errors.New("no pieces to merge")
	}
	var warnings []string
	for _, p := range pieces {
		switch {
		case p.Run.Meta.Merged != nil:
			return nil, nil, fmt.Errorf("%s is already a merged run (of %d pieces): merge the shards themselves", p.Path, len(p.Run.Meta.Merged.Pieces))
		case p.Run.Meta.Shard == nil:
			return nil, nil, fmt.Errorf("%s is not a shard: it has no meta.shard (measure the pieces with forgebench run --shard I/N)", p.Path)
		}
	}
	pieces = slices.Clone(pieces)
	slices.SortStableFunc(pieces, func(a, b MergePiece) int { return cmp.Compare(a.Run.Meta.Shard.Index, b.Run.Meta.Shard.Index) })
	n := pieces[0].Run.Meta.Shard.Count
	for _, p := range pieces[1:] {
		if c := p.Run.Meta.Shard.Count; c != n {
			return nil, nil, fmt.Errorf("the pieces are of different splits: %s is shard %s, %s is shard %s",
				pieces[0].Path, shardLabel(pieces[0].Run.Meta.Shard), p.Path, shardLabel(p.Run.Meta.Shard))
		}
	}
	for i := 1; i < len(pieces); i++ {
		if a, b := pieces[i-1], pieces[i]; a.Run.Meta.Shard.Index == b.Run.Meta.Shard.Index {
			return nil, nil, fmt.Errorf("shard %s is given twice: %s and %s", shardLabel(a.Run.Meta.Shard), a.Path, b.Path)
		}
	}

	// Benchmarks in two pieces: never merged (which would win?).
	owner := map[string]int{}
	for i, p := range pieces {
		for _, r := range p.Run.Results {
			if j, dup := owner[r.Name]; dup {
				return nil, nil, fmt.Errorf("benchmark %q is in two pieces: %s (shard %s) and %s (shard %s)",
					r.Name, pieces[j].Path, shardLabel(pieces[j].Run.Meta.Shard), p.Path, shardLabel(p.Run.Meta.Shard))
			}
			owner[r.Name] = i
		}
	}

	var partial []string
	var missing []int
	have := map[int]bool{}
	for _, p := range pieces {
		have[p.Run.Meta.Shard.Index] = true
	}
	for i := range n {
		if !have[i] {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		partial = append(partial, fmt.Sprintf("%d of %d shards missing: %s", len(missing), n, joinInts(missing)))
	}
	for _, p := range pieces {
		switch sh := p.Run.Meta.Shard; {
		case p.Run.Interrupted:
			partial = append(partial, fmt.Sprintf("%s (shard %s) was interrupted: it holds %d results, and lacks the benchmarks it did not reach",
				p.Path, shardLabel(sh), len(p.Run.Results)))
		case len(p.Run.Results) < sh.Benchmarks: // each benchmark gives a result at least (a scenario several)
			partial = append(partial, fmt.Sprintf("%s (shard %s) holds %d results for its %d benchmarks: its run did not finish",
				p.Path, shardLabel(sh), len(p.Run.Results), sh.Benchmarks))
		}
	}
	if len(partial) > 0 {
		if !opt.AllowPartial {
			return nil, nil, fmt.Errorf("the pieces are not the whole selection (--allow-partial merges them anyway): %s", strings.Join(partial, "; "))
		}
		for _, s := range partial {
			warnings = append(warnings, s+"; merged anyway (--allow-partial)")
		}
	}

	mixed := mixedFields(pieces)
	if len(mixed) > 0 {
		if !opt.AllowMixed {
			return nil, nil, fmt.Errorf("the pieces differ (--allow-mixed merges them anyway): %s", strings.Join(mixed, "; "))
		}
		for _, s := range mixed {
			warnings = append(warnings, s+"; merged anyway (--allow-mixed)")
		}
	}

	// Complete and of one selection: every benchmark of it must be in a
	// piece.
	first := pieces[0].Run.Meta.Shard
	if len(partial) == 0 && len(mixed) == 0 {
		sum := 0
		for _, p := range pieces {
			sum += p.Run.Meta.Shard.Benchmarks
		}
		if sum != first.Selected {
			return nil, nil, fmt.Errorf("the pieces hold %d benchmarks, but their selection has %d", sum, first.Selected)
		}
	}

	run := &Run{Kind: Kind, Schema: SchemaVersion, Results: []Result{}}
	run.Meta = mergeMeta(pieces)
	merged := &Merged{Count: n, Selection: first.Selection, Missing: missing, Mixed: mixed}
	var roofs []float64
	var roofBytes int64
	var roofMethod string
	for i, p := range pieces {
		r := p.Run
		if i == 0 || r.Started.Before(run.Started) {
			run.Started = r.Started
		}
		if r.Finished.After(run.Finished) {
			run.Finished = r.Finished
		}
		run.Interrupted = run.Interrupted || r.Interrupted
		mp := MergedPiece{
			Path: p.Path, Shard: r.Meta.Shard.Index, Benchmarks: r.Meta.Shard.Benchmarks, Results: len(r.Results),
			Hostname: r.Meta.Hostname, Device: r.Meta.Device, DeviceIndex: r.Meta.DeviceIndex,
			Started: r.Started, Finished: r.Finished, Interrupted: r.Interrupted,
		}
		if r.Roofline != nil {
			mp.RooflineGBps = r.Roofline.GBps
			roofs = append(roofs, r.Roofline.GBps)
			if roofMethod == "" {
				roofBytes, roofMethod = r.Roofline.Bytes, r.Roofline.Method
			}
		}
		merged.Pieces = append(merged.Pieces, mp)
		run.Results = append(run.Results, r.Results...)
	}
	if len(roofs) > 0 {
		run.Roofline = &Roofline{Bytes: roofBytes, GBps: medianFloat(roofs), Method: roofMethod}
		if len(roofs) > 1 {
			run.Roofline.Method = fmt.Sprintf("median of %d shards: %s", len(roofs), roofMethod)
		}
	}
	run.Meta.Merged = merged
	orderResults(run.Results, pieces)
	if err := run.Validate(); err != nil {
		return nil, nil, fmt.Errorf("the merged run: %w", err)
	}
	return run, warnings, nil
}

func shardLabel(s *Shard) string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// mixedFields names each mergeFields property whose known values differ
// between the pieces, with the shards of each value:
// `device differs: "A" (shards 0, 1), "B" (shard 2)`.
func mixedFields(pieces []MergePiece) []string {
	var out []string
	for _, f := range mergeFields {
		var values []string
		shards := map[string][]int{}
		for _, p := range pieces {
			v := f.get(p.Run)
			if v == "" {
				continue
			}
			if _, ok := shards[v]; !ok {
				values = append(values, v)
			}
			shards[v] = append(shards[v], p.Run.Meta.Shard.Index)
		}
		if len(values) < 2 {
			continue
		}
		parts := make([]string, len(values))
		for i, v := range values {
			word := "shard"
			if len(shards[v]) > 1 {
				word = "shards"
			}
			parts[i] = fmt.Sprintf("%q (%s %s)", v, word, joinInts(shards[v]))
		}
		out = append(out, f.name+" differs: "+strings.Join(parts, ", "))
	}
	return out
}

// mergeMeta is the pieces' metadata as one: the first piece's, with each
// string that differs between pieces replaced by their distinct values
// joined with ", ", each number that differs by 0, forge_modified set if
// any piece's is, the device index kept only when all share it, and no
// Shard.
func mergeMeta(pieces []MergePiece) Meta {
	m := pieces[0].Run.Meta
	m.Shard, m.Merged = nil, nil
	strs := []func(*Meta) *string{
		func(m *Meta) *string { return &m.Backend }, func(m *Meta) *string { return &m.Library },
		func(m *Meta) *string { return &m.Device }, func(m *Meta) *string { return &m.Arch },
		func(m *Meta) *string { return &m.Target }, func(m *Meta) *string { return &m.Driver },
		func(m *Meta) *string { return &m.Toolkit }, func(m *Meta) *string { return &m.GoVersion },
		func(m *Meta) *string { return &m.OS }, func(m *Meta) *string { return &m.Hostname },
		func(m *Meta) *string { return &m.ForgeVersion }, func(m *Meta) *string { return &m.ForgeCommit },
	}
	for _, f := range strs {
		var distinct []string
		for _, p := range pieces {
			if v := *f(&p.Run.Meta); v != "" && !slices.Contains(distinct, v) {
				distinct = append(distinct, v)
			}
		}
		*f(&m) = strings.Join(distinct, ", ")
	}
	ints := []func(*Meta) *int{
		func(m *Meta) *int { return &m.WaveSize }, func(m *Meta) *int { return &m.ComputeUnits },
		func(m *Meta) *int { return &m.CPUs },
	}
	for _, f := range ints {
		for _, p := range pieces[1:] {
			if *f(&p.Run.Meta) != *f(&m) {
				*f(&m) = 0
			}
		}
	}
	for _, p := range pieces[1:] {
		pm := &p.Run.Meta
		if pm.MemoryBytes != m.MemoryBytes {
			m.MemoryBytes = 0
		}
		m.ForgeModified = m.ForgeModified || pm.ForgeModified
		if m.DeviceIndex != nil && (pm.DeviceIndex == nil || *pm.DeviceIndex != *m.DeviceIndex) {
			m.DeviceIndex = nil
		}
	}
	if m.DeviceIndex != nil {
		idx := *m.DeviceIndex // not shared with the piece
		m.DeviceIndex = &idx
	}
	return m
}

func medianFloat(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// orderResults sorts a merged run's results as an unsharded run of the
// selection orders them: by their benchmark's position in it
// (Shard.Positions of the pieces; a scenario's results, named
// "<benchmark>/<case>", at their benchmark's). Results of one benchmark,
// and any whose position is unknown (last), keep their order.
func orderResults(rs []Result, pieces []MergePiece) {
	pos := map[string]int{}
	for _, p := range pieces {
		for name, i := range p.Run.Meta.Shard.Positions {
			pos[name] = i
		}
	}
	posOf := func(name string) int {
		for {
			if i, ok := pos[name]; ok {
				return i
			}
			cut := strings.LastIndexByte(name, '/')
			if cut < 0 {
				return math.MaxInt
			}
			name = name[:cut]
		}
	}
	keys := make(map[string]int, len(rs))
	for _, r := range rs {
		keys[r.Name] = posOf(r.Name)
	}
	slices.SortStableFunc(rs, func(a, b Result) int { return cmp.Compare(keys[a.Name], keys[b.Name]) })
}
