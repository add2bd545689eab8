// Package tune is forgebench tune: it builds every candidate configuration
// of a kernel family's tuning knobs (the target spec's tuning space) for a
// format, drops those that do not compile or do not pass the correctness
// check, times the rest at each shape class's shape, and picks the fastest
// per (format, class). Compiling, opening a library on the device and
// measuring are interfaces (Builder, Opener, Runner), so that tests run the
// whole flow without a compiler or a GPU. It never needs the Go toolchain:
// the candidates are compiled from the already generated sources.
package tune

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/check"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// Candidate is one configuration: a value for every knob of the family.
type Candidate map[string]int

// String is "threads=256 rows=4 chunk=8", in the family's knob order.
func (c Candidate) String(fam *tuned.Family) string {
	var parts []string
	for _, k := range fam.Knobs {
		parts = append(parts, fmt.Sprintf("%s=%d", k.Name, c[k.Name]))
	}
	return strings.Join(parts, " ")
}

// Defines are the -D flags that force c.
func (c Candidate) Defines(fam *tuned.Family) []string {
	var out []string
	for _, k := range fam.Knobs {
		out = append(out, fmt.Sprintf("-D%s=%d", k.Macro, c[k.Name]))
	}
	return out
}

// equal reports whether c and o set the same knobs alike, a knob one
// leaves out being 0 (an optional knob's winners may leave it out).
func (c Candidate) equal(o Candidate) bool {
	for k, v := range c {
		if o[k] != v {
			return false
		}
	}
	for k, v := range o {
		if c[k] != v {
			return false
		}
	}
	return true
}

// Space is the candidate values of each knob.
type Space map[string][]int

// Enumerate is every combination of space's values (the cartesian
// product), the first knob varying slowest, values in the space's order.
// A knob with no values yields no candidates.
func Enumerate(fam *tuned.Family, space Space) []Candidate {
	out := []Candidate{{}}
	for _, k := range fam.Knobs {
		var next []Candidate
		for _, c := range out {
			for _, v := range space[k.Name] {
				n := Candidate{}
				for kk, vv := range c {
					n[kk] = vv
				}
				n[k.Name] = v
				next = append(next, n)
			}
		}
		out = next
	}
	return out
}

// Narrow restricts space to the values spec names, for a tune that fits a
// budget (a K-quant's matmul file takes minutes to compile, so 84
// candidates may not): spec is space-separated knob=v1,v2,... items, each
// knob one of fam's and each value one of space's for it; knobs spec does
// not name keep all their values. It returns a new space.
func Narrow(fam *tuned.Family, space Space, spec string) (Space, error) {
	out := Space{}
	for k, vs := range space {
		out[k] = slices.Clone(vs)
	}
	seen := map[string]bool{}
	for _, item := range strings.Fields(spec) {
		name, list, ok := strings.Cut(item, "=")
		if !ok || list == "" {
			return nil, fmt.Errorf("--space %q: want knob=v1,v2,... (space-separated items)", item)
		}
		if !slices.ContainsFunc(fam.Knobs, func(k tuned.Knob) bool { return k.Name == name }) {
			var names []string
			for _, k := range fam.Knobs {
				names = append(names, k.Name)
			}
			return nil, fmt.Errorf("--space %q: %s has no knob %q; its knobs are %s", item, fam.Name, name, strings.Join(names, ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("--space %q: knob %s given twice", item, name)
		}
		seen[name] = true
		var vals []int
		for _, v := range strings.Split(list, ",") {
			var n int
			if _, err := fmt.Sscan(v, &n); err != nil || fmt.Sprint(n) != v {
				return nil, fmt.Errorf("--space %q: %q is not an integer", item, v)
			}
			if !slices.Contains(space[name], n) {
				return nil, fmt.Errorf("--space %q: %s=%d is not in the target's space (%v): --space narrows it", item, name, n, space[name])
			}
			if !slices.Contains(vals, n) {
				vals = append(vals, n)
			}
		}
		out[name] = vals
	}
	return out, nil
}

// FamilySpace is target t's tuning space and default configuration for a
// tunable family, from the target spec. The default is nil for a family
// whose default depends on the format (FormatDefault).
func FamilySpace(t *targets.Target, fam *tuned.Family) (Space, Candidate, error) {
	space, def, ok := t.TuningSpace(fam.Name)
	if !ok {
		return nil, nil, fmt.Errorf("family %s: no tuning space in specs/targets yet", fam.Name)
	}
	return space, def, nil
}

// FormatDefault is the configuration the generated launcher takes for f
// when no winner is baked in: def (the target's, for every format) when
// not nil, else the family's rule for f (targets.MatVecX8Default).
func FormatDefault(fam *tuned.Family, def Candidate, f *formats.Format) Candidate {
	if def != nil {
		return def
	}
	if fam.Name == tuned.MatVecX8.Name {
		return targets.MatVecX8Default(f.BlockElems, f.BlockBytes)
	}
	return nil
}

// ClassDefaults is, per class of fam, the configuration f's generated
// launcher takes there when no winner is baked in: FormatDefault for the
// matvec families (one for every class), and for matmul_int (matmul_half)
// the target spec's MatMulInt (MatMulHalf) class that serves the class's
// batch (targets.Target.MatMulIntAt, MatMulHalfAt; nil where none does).
func ClassDefaults(t *targets.Target, fam *tuned.Family, def Candidate, f *formats.Format) []Candidate {
	out := make([]Candidate, len(fam.Classes))
	if fam.MatMul() {
		for j, c := range fam.Classes {
			var m targets.MatMulIntTuning
			var ok bool
			if fam == tuned.MatMulHalf {
				m, ok = t.MatMulHalfAt(c.Batch)
			} else {
				m, ok = t.MatMulIntAt(c.Batch, f.HasIntOffset() && f.IntZero == 0)
			}
			if ok {
				m.SplitK = max(1, m.SplitK) // 0 and 1 are the same kernel: no split
				out[j] = Candidate(m.Knobs())
			}
		}
		return out
	}
	d := FormatDefault(fam, def, f)
	for j := range out {
		out[j] = d
	}
	return out
}

// Lacks says why format f has no kernel of fam to tune ("" when it has
// one): matvec_x8 and matmul_int run on a format's integer form,
// matmul_half on a format stored as plain binary16.
func Lacks(fam *tuned.Family, f *formats.Format) string {
	switch {
	case fam.IntForm && !f.HasIntForm():
		return "has no integer form"
	case fam.Half && f.IEEE != "binary16":
		return "is not stored as plain binary16 (matmul's mma.sync f16 path is F16's)"
	}
	return ""
}

// FormatCandidates are the candidates of space that f can compile on t,
// in Enumerate's order, and a line for each one left out saying why
// (targets.Target.FormatKnobProblems: matvec_x8's threads must be a
// multiple of a block's 32-element groups).
func FormatCandidates(t *targets.Target, fam *tuned.Family, space Space, f *formats.Format) (cands []Candidate, skipped []string) {
	for _, c := range Enumerate(fam, space) {
		if ps := t.FormatKnobProblems(fam.Name, f.BlockElems, c); len(ps) > 0 {
			skipped = append(skipped, c.String(fam)+": "+ps[0].Msg)
			continue
		}
		cands = append(cands, c)
	}
	return cands, skipped
}

// Builder builds the kernel library of one candidate.
type Builder interface {
	// Fingerprint identifies everything about format's build but the
	// knobs: the generated sources' bytes, the compiler and its version,
	// the flags. It is part of every cache key.
	Fingerprint(format string) (string, error)
	// Build returns the path of a library in which format's family
	// kernels are built with c. A *CompileError says the candidate does
	// not compile (a static_assert on an invalid combination): it is
	// skipped; any other error stops the run.
	Build(ctx context.Context, format string, c Candidate) (string, error)
}

// CompileError is a candidate that does not compile.
type CompileError struct{ Output string }

func (e *CompileError) Error() string { return "does not compile: " + e.Output }

// Opener opens a kernel library on the device and names the device.
type Opener func(lib string) (b backend.Backend, device string, err error)

// Runner checks and times one family's kernel.
type Runner interface {
	// Check runs the kernel of f on small, odd shapes against the Go
	// reference; an error says why it fails.
	Check(b backend.Backend, f *formats.Format) error
	// Time is the median µs per launch at class's shape.
	Time(b backend.Backend, f *formats.Format, class *tuned.Class, weights backend.WeightMode, reps int) (float64, error)
}

// Config is one tuning run.
type Config struct {
	Target  *targets.Target
	Family  *tuned.Family
	Formats []*formats.Format
	Space   Space
	Default Candidate // nil: per format, FormatDefault
	// Baked is the winners file the run will update (nil: none): every
	// winner it holds for a format and class being tuned is timed too, so
	// that a narrowed space (--space) never replaces a winner it did not
	// beat.
	Baked    *tuned.File
	Builder  Builder
	Open     Opener
	Runner   Runner
	Weights  backend.WeightMode // backend.WeightsRotate unless set
	Reps     int                // timed repetitions per candidate and class (median); 0: 7
	Jobs     int                // compiles at once; 0: 8
	CacheDir string             // "" : no cache
	NoCache  bool               // ignore cached results (still write new ones)
	Log      io.Writer          // progress; nil: none
	Now      func() time.Time   // nil: time.Now
	Rev      string             // forge's git revision, if known
}

// Timing is one candidate's result for one (format, class).
type Timing struct {
	Knobs  Candidate `json:"knobs"`
	Config string    `json:"config"`
	US     float64   `json:"us,omitempty"` // median µs per launch
	OK     bool      `json:"ok"`
	Note   string    `json:"note,omitempty"` // why it was dropped
	Cached bool      `json:"cached"`
}

// Group is the result for one format and class.
type Group struct {
	Format    string   `json:"format"`
	Class     string   `json:"class"`
	Shape     string   `json:"shape"`
	Timed     []Timing `json:"timed"` // fastest first
	Dropped   []Timing `json:"dropped,omitempty"`
	Winner    *Timing  `json:"winner,omitempty"`
	Worst     *Timing  `json:"worst,omitempty"`
	Spread    float64  `json:"spread,omitempty"`     // worst / best
	DefaultUS float64  `json:"default_us,omitempty"` // the spec default's time, when it was timed
	Speedup   float64  `json:"speedup,omitempty"`    // default / winner
}

// Result is a whole run.
type Result struct {
	Target  string  `json:"target"`
	Family  string  `json:"family"`
	Device  string  `json:"device"`
	Date    string  `json:"date"`
	Rev     string  `json:"rev,omitempty"`
	Weights string  `json:"weights"`
	Cached  int     `json:"cached"` // results reused from the cache
	Fresh   int     `json:"fresh"`  // results measured in this run
	Groups  []Group `json:"groups"`
}

// cacheEntry is one cached Timing.
type cacheEntry struct {
	Key  string  `json:"key"`
	US   float64 `json:"us,omitempty"`
	OK   bool    `json:"ok"`
	Note string  `json:"note,omitempty"`
}

// CacheKey hashes everything that determines a candidate's result.
func CacheKey(fingerprint string, fam *tuned.Family, c Candidate, device string, class *tuned.Class, shape string, weights backend.WeightMode) string {
	h := sha256.New()
	fmt.Fprintf(h, "forge tune v1\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s", fingerprint, fam.Name, c.String(fam), device, class.Name, shape, weights)
	return hex.EncodeToString(h.Sum(nil))
}

// DefaultCacheDir is $XDG_CACHE_HOME/forge/tune, else ~/.cache/forge/tune.
func DefaultCacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "forge", "tune")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "forge", "tune")
	}
	return filepath.Join(os.TempDir(), "forge-tune-cache")
}

func (cfg *Config) cachePath(key string) string {
	return filepath.Join(cfg.CacheDir, "results", key[:2], key+".json")
}

func (cfg *Config) cacheGet(key string) (cacheEntry, bool) {
	if cfg.CacheDir == "" || cfg.NoCache {
		return cacheEntry{}, false
	}
	data, err := os.ReadFile(cfg.cachePath(key))
	if err != nil {
		return cacheEntry{}, false
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Key != key {
		return cacheEntry{}, false
	}
	return e, true
}

func (cfg *Config) cachePut(e cacheEntry) error {
	if cfg.CacheDir == "" {
		return nil
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	p := cfg.cachePath(e.Key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, data, 0o644)
}

// ClassDims is the shape class is timed at for f: the class's ([rows,
// cols], or [rows, cols, batch] for matmul), cols rounded down to whole
// blocks.
func ClassDims(f *formats.Format, class *tuned.Class) []int {
	return suite.WholeBlockShapes(f, []suite.BenchShape{{Name: "", Dims: class.Dims()}})[0].Dims
}

// ClassShape is ClassDims's rows and cols.
func ClassShape(f *formats.Format, class *tuned.Class) (rows, cols int) {
	d := ClassDims(f, class)
	return d[0], d[1]
}

func (cfg *Config) logf(format string, args ...any) {
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, format, args...)
	}
}

// Run tunes every format of cfg and returns the result; Winners turns it
// into winners file entries.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Weights == "" {
		cfg.Weights = backend.WeightsRotate
	}
	if cfg.Reps <= 0 {
		cfg.Reps = 7
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = 8
	}
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	if len(cfg.Formats) == 0 {
		return nil, errors.New("tune: no formats")
	}
	fam := cfg.Family
	all := Enumerate(fam, cfg.Space)
	if len(all) == 0 {
		return nil, fmt.Errorf("tune: target %s: the %s tuning space is empty", cfg.Target.Name, fam.Name)
	}
	// go generate rejects a winner the target cannot compile, by the same
	// rules: refuse such a candidate before spending time on it. (Rules
	// that depend on the format only leave candidates out of that format's
	// list: FormatCandidates.)
	var defaults [][]Candidate // [format][class]
	// matmul_int's (matmul_half's) space is of values each valid alone whose combinations
	// may not be (tiles the warps cannot cover): FormatCandidates leaves
	// those out, saying why (the space itself is checked with the target
	// spec, targets.MatMulIntSpace.Problems).
	var checked []Candidate
	if !fam.MatMul() {
		checked = slices.Clone(all)
	}
	for _, f := range cfg.Formats {
		if why := Lacks(fam, f); why != "" {
			return nil, fmt.Errorf("tune: %s %s, so no %s kernel to tune", f.Name, why, fam.Name)
		}
		defs := ClassDefaults(cfg.Target, fam, cfg.Default, f)
		for j, d := range defs {
			if d == nil {
				return nil, fmt.Errorf("tune: %s: no default configuration for %s at class %s", fam.Name, f.Name, fam.Classes[j].Name)
			}
		}
		defaults = append(defaults, defs)
		checked = append(checked, defs...)
	}
	for _, c := range checked {
		if err := check.Err("tune: target "+cfg.Target.Name+": candidate "+c.String(fam), cfg.Target.KnobProblems(fam.Name, c)); err != nil {
			return nil, err
		}
	}

	// The device's name is part of every cache key: open the default
	// candidate of the first format (its last class's) to learn it.
	first := defaults[0][len(defaults[0])-1]
	lib, err := cfg.Builder.Build(ctx, cfg.Formats[0].Name, first)
	if err != nil {
		return nil, fmt.Errorf("tune: the spec default (%s) of %s: %w", first.String(fam), cfg.Formats[0].Name, err)
	}
	_, device, err := cfg.Open(lib)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	res := &Result{Target: cfg.Target.Name, Family: fam.Name, Device: device, Date: now().UTC().Format(time.RFC3339),
		Rev: cfg.Rev, Weights: string(cfg.Weights)}
	cfg.logf("forgebench tune: %s %s on %s: up to %d candidates per format, %d formats, classes %s\n",
		cfg.Target.Name, fam.Name, device, len(all)+1, len(cfg.Formats), strings.Join(fam.ClassNames(), ", "))

	for i, f := range cfg.Formats {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		cands, skipped := FormatCandidates(cfg.Target, fam, cfg.Space, f)
		for _, why := range skipped {
			cfg.logf("%s: left out %s\n", f.Name, why)
		}
		for _, d := range defaults[i] {
			if !slices.ContainsFunc(cands, d.equal) {
				// The defaults are always timed, so that the report can say what tuning gained.
				cands = append(cands, d)
			}
		}
		for _, d := range cfg.baked(f) {
			if !slices.ContainsFunc(cands, d.equal) {
				cands = append(cands, d)
			}
		}
		groups, err := cfg.tuneFormat(ctx, f, cands, defaults[i], device, res)
		if err != nil {
			return res, err
		}
		res.Groups = append(res.Groups, groups...)
	}
	return res, nil
}

// baked is f's winners in cfg.Baked, one per class that has one, less
// those the target cannot compile any more (each said in the log).
func (cfg *Config) baked(f *formats.Format) []Candidate {
	fam := cfg.Family
	var out []Candidate
	for _, class := range fam.Classes {
		e := cfg.Baked.Entry(fam.Name, f.Name, class.Name)
		if e == nil {
			continue
		}
		c := Candidate(maps.Clone(e.Knobs))
		ps := cfg.Target.KnobProblems(fam.Name, c)
		if len(ps) == 0 {
			ps = cfg.Target.FormatKnobProblems(fam.Name, f.BlockElems, c)
		}
		if len(ps) > 0 {
			cfg.logf("%s: the %s winner in the winners file (%s) is not timed: %s\n", f.Name, class.Name, c.String(fam), ps[0].Msg)
			continue
		}
		out = append(out, c)
	}
	return out
}

func (cfg *Config) tuneFormat(ctx context.Context, f *formats.Format, cands []Candidate, defs []Candidate, device string, res *Result) ([]Group, error) {
	fam := cfg.Family
	fp, err := cfg.Builder.Fingerprint(f.Name)
	if err != nil {
		return nil, fmt.Errorf("tune: %s: %w", f.Name, err)
	}
	nc := len(fam.Classes)
	timings := make([][]Timing, len(cands)) // [candidate][class]
	keys := make([][]string, len(cands))
	var need []int
	for i, c := range cands {
		timings[i] = make([]Timing, nc)
		keys[i] = make([]string, nc)
		all := true
		for j := range fam.Classes {
			class := &fam.Classes[j]
			keys[i][j] = CacheKey(fp, fam, c, device, class, suite.ShapeName(ClassDims(f, class)...), cfg.Weights)
			t := Timing{Knobs: c, Config: c.String(fam)}
			if e, ok := cfg.cacheGet(keys[i][j]); ok {
				t.US, t.OK, t.Note, t.Cached = e.US, e.OK, e.Note, true
			} else {
				all = false
			}
			timings[i][j] = t
		}
		if !all {
			need = append(need, i)
		}
	}
	cfg.logf("%s: %d of %d candidates cached, building %d\n", f.Name, len(cands)-len(need), len(cands), len(need))

	// Build in parallel.
	libs := make([]string, len(cands))
	errs := make([]error, len(cands))
	var wg sync.WaitGroup
	sem := make(chan struct{}, cfg.Jobs)
	for _, i := range need {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			libs[i], errs[i] = cfg.Builder.Build(ctx, f.Name, cands[i])
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Check and time, one at a time on the device.
	for _, i := range need {
		c := cands[i]
		fail := func(note string) {
			for j := range fam.Classes {
				timings[i][j] = Timing{Knobs: c, Config: c.String(fam), Note: note}
			}
		}
		var ce *CompileError
		switch {
		case errors.As(errs[i], &ce):
			fail("does not compile: " + firstLine(ce.Output))
		case errs[i] != nil:
			return nil, fmt.Errorf("tune: %s %s: %w", f.Name, c.String(fam), errs[i])
		default:
			b, _, err := cfg.Open(libs[i])
			if err != nil {
				return nil, fmt.Errorf("tune: %s %s: %w", f.Name, c.String(fam), err)
			}
			if err := cfg.Runner.Check(b, f); err != nil {
				fail("fails the correctness check: " + firstLine(err.Error()))
			} else {
				for j := range fam.Classes {
					us, err := cfg.Runner.Time(b, f, &fam.Classes[j], cfg.Weights, cfg.Reps)
					t := Timing{Knobs: c, Config: c.String(fam), US: us, OK: err == nil}
					if err != nil {
						t.US, t.Note = 0, "timing failed: "+firstLine(err.Error())
					}
					timings[i][j] = t
				}
			}
			if cl, ok := b.(io.Closer); ok {
				cl.Close()
			}
		}
		for j := range fam.Classes {
			t := timings[i][j]
			if err := cfg.cachePut(cacheEntry{Key: keys[i][j], US: t.US, OK: t.OK, Note: t.Note}); err != nil {
				cfg.logf("forgebench tune: cache: %v\n", err)
			}
		}
		cfg.logf("  %s %-28s %s\n", f.Name, c.String(fam), summary(timings[i], fam))
	}

	var groups []Group
	for j := range fam.Classes {
		class := &fam.Classes[j]
		g := Group{Format: f.Name, Class: class.Name, Shape: suite.ShapeName(ClassDims(f, class)...)}
		for i, c := range cands {
			t := timings[i][j]
			if t.Cached {
				res.Cached++
			} else {
				res.Fresh++
			}
			if t.OK {
				g.Timed = append(g.Timed, t)
				if c.equal(defs[j]) {
					g.DefaultUS = t.US
				}
			} else {
				g.Dropped = append(g.Dropped, t)
			}
		}
		sort.SliceStable(g.Timed, func(a, b int) bool { return g.Timed[a].US < g.Timed[b].US })
		if n := len(g.Timed); n > 0 {
			g.Winner, g.Worst = &g.Timed[0], &g.Timed[n-1]
			if g.Winner.US > 0 {
				g.Spread = g.Worst.US / g.Winner.US
				if g.DefaultUS > 0 {
					g.Speedup = g.DefaultUS / g.Winner.US
				}
			}
		}
		groups = append(groups, g)
	}
	return groups, nil
}

func summary(ts []Timing, fam *tuned.Family) string {
	var parts []string
	for j, t := range ts {
		if !t.OK {
			return "dropped: " + t.Note
		}
		parts = append(parts, fmt.Sprintf("%s %.2f µs", fam.Classes[j].Name, t.US))
	}
	return strings.Join(parts, ", ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	for _, l := range strings.Split(s, "\n") {
		// The compiler's first error line says most.
		if strings.Contains(l, "error") {
			return strings.TrimSpace(l)
		}
	}
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Winners records r's winners in f (creating it when nil): one entry per
// (format, class) that has a winner; other entries are kept.
func Winners(f *tuned.File, r *Result) *tuned.File {
	if f == nil {
		f = &tuned.File{Target: r.Target}
	}
	for _, g := range r.Groups {
		if g.Winner == nil {
			continue
		}
		f.Set(r.Family, g.Format, g.Class, &tuned.Entry{
			Knobs: g.Winner.Knobs, Device: r.Device, Date: r.Date, Rev: r.Rev, Shape: g.Shape, Weights: r.Weights,
			WinnerUS: round2(g.Winner.US), DefaultUS: round2(g.DefaultUS), Candidates: len(g.Timed),
		})
	}
	return f
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// Report writes r as text: per (format, class) the candidates by time,
// the winner, the worst, the spread and the default's time.
func Report(w io.Writer, r *Result) {
	fmt.Fprintf(w, "forgebench tune: %s %s on %s (weights %s)\n", r.Target, r.Family, r.Device, r.Weights)
	if r.Cached > 0 {
		fmt.Fprintf(w, "%d of %d results reused from the cache (--no-cache measures them again)\n", r.Cached, r.Cached+r.Fresh)
	}
	for _, g := range r.Groups {
		fmt.Fprintf(w, "\n%s %s (%s): %d timed, %d dropped\n", g.Format, g.Class, g.Shape, len(g.Timed), len(g.Dropped))
		for k, t := range g.Timed {
			mark := ""
			if t.Cached {
				mark = " (cached)"
			}
			fmt.Fprintf(w, "  %3d  %-28s %9.2f µs  %5.2f×%s\n", k+1, t.Config, t.US, t.US/g.Timed[0].US, mark)
		}
		for _, t := range g.Dropped {
			fmt.Fprintf(w, "   --  %-28s dropped: %s\n", t.Config, t.Note)
		}
		if g.Winner == nil {
			fmt.Fprintf(w, "  no candidate passed: no winner\n")
			continue
		}
		fmt.Fprintf(w, "  winner %s %.2f µs; worst %s %.2f µs; spread %.2f×\n", g.Winner.Config, g.Winner.US, g.Worst.Config, g.Worst.US, g.Spread)
		if g.DefaultUS > 0 {
			fmt.Fprintf(w, "  spec default %.2f µs: the winner is %.2f× faster\n", g.DefaultUS, g.Speedup)
		} else {
			fmt.Fprintf(w, "  spec default: not timed (dropped)\n")
		}
	}
}
