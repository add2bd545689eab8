package tune

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

func TestEnumerate(t *testing.T) {
	space, def, err := FamilySpace(targets.SM90, tuned.MatVec)
	if err != nil {
		t.Fatal(err)
	}
	cands := Enumerate(tuned.MatVec, space)
	if len(cands) != 4*4*3 {
		t.Fatalf("%d candidates, want 48", len(cands))
	}
	if got := cands[0].String(tuned.MatVec); got != "threads=64 rows=1 chunk=8" {
		t.Errorf("first %q", got)
	}
	if got := cands[len(cands)-1].String(tuned.MatVec); got != "threads=512 rows=8 chunk=32" {
		t.Errorf("last %q", got)
	}
	if got := strings.Join(def.Defines(tuned.MatVec), " "); got != "-DFORGE_TUNE_MATVEC_THREADS=256 -DFORGE_TUNE_MATVEC_ROWS=4 -DFORGE_TUNE_MATVEC_CHUNK=8" {
		t.Errorf("defines %q", got)
	}
	if n := len(Enumerate(tuned.MatVec, Space{"threads": {64}, "rows": {}, "chunk": {8}})); n != 0 {
		t.Errorf("an empty knob gave %d candidates", n)
	}
}

func TestCacheKeySensitivity(t *testing.T) {
	c := Candidate{"threads": 256, "rows": 4, "chunk": 8}
	class := &tuned.MatVec.Classes[0]
	base := CacheKey("src-a", tuned.MatVec, c, "H100", class, "14336x4096", backend.WeightsRotate)
	for name, k := range map[string]string{
		"source":  CacheKey("src-b", tuned.MatVec, c, "H100", class, "14336x4096", backend.WeightsRotate),
		"knob":    CacheKey("src-a", tuned.MatVec, Candidate{"threads": 128, "rows": 4, "chunk": 8}, "H100", class, "14336x4096", backend.WeightsRotate),
		"device":  CacheKey("src-a", tuned.MatVec, c, "H200", class, "14336x4096", backend.WeightsRotate),
		"class":   CacheKey("src-a", tuned.MatVec, c, "H100", &tuned.MatVec.Classes[1], "14336x4096", backend.WeightsRotate),
		"shape":   CacheKey("src-a", tuned.MatVec, c, "H100", class, "14336x4064", backend.WeightsRotate),
		"weights": CacheKey("src-a", tuned.MatVec, c, "H100", class, "14336x4096", backend.WeightsReuse),
	} {
		if k == base {
			t.Errorf("changing the %s keeps the key", name)
		}
	}
	if again := CacheKey("src-a", tuned.MatVec, Candidate{"chunk": 8, "rows": 4, "threads": 256}, "H100", class, "14336x4096", backend.WeightsRotate); again != base {
		t.Error("the same inputs give another key")
	}
}

// fakeBuilder "builds" a library whose path encodes the candidate; one
// configuration does not compile.
type fakeBuilder struct {
	source string
	mu     sync.Mutex // Run builds candidates concurrently
	builds int
}

func (b *fakeBuilder) Fingerprint(format string) (string, error) { return b.source + format, nil }

func (b *fakeBuilder) Build(_ context.Context, format string, c Candidate) (string, error) {
	b.mu.Lock()
	b.builds++
	b.mu.Unlock()
	if c["threads"] == 512 && c["rows"] == 8 {
		return "", &CompileError{Output: "matvec.hip:1: error: static_assert failed"}
	}
	return fmt.Sprintf("%s/%d/%d/%d/%d", format, c["threads"], c["rows"], c["chunk"], c["lanes"]), nil
}

type fakeBackend struct{ lib string }

func (fakeBackend) Name() string { return "fake" }
func (fakeBackend) Dequantize(*formats.Format, []float32, []byte) error {
	return errors.New("no")
}
func (fakeBackend) DequantizeF16(*formats.Format, []uint16, []byte) error {
	return errors.New("no")
}

// fakeRunner: chunk 32 fails the check; the time is a function of the
// knobs, fastest at threads=128 rows=2 chunk=16 for the narrow class and
// threads=64 rows=1 chunk=8 for the wide one.
type fakeRunner struct{ timed int }

func knobsOf(b backend.Backend) (th, r, ch int) {
	th, r, ch, _ = knobsLanesOf(b)
	return
}

func knobsLanesOf(b backend.Backend) (th, r, ch, lanes int) {
	fmt.Sscanf(b.(fakeBackend).lib[strings.Index(b.(fakeBackend).lib, "/")+1:], "%d/%d/%d/%d", &th, &r, &ch, &lanes)
	return
}

func (fakeRunner) Check(b backend.Backend, f *formats.Format) error {
	if _, _, ch := knobsOf(b); ch == 32 {
		return errors.New("67×288: NMSE 0.5 (tolerance 0.0005), 67 bad rows")
	}
	return nil
}

func (r *fakeRunner) Time(b backend.Backend, f *formats.Format, class *tuned.Class, _ backend.WeightMode, _ int) (float64, error) {
	r.timed++
	th, rw, ch := knobsOf(b)
	if class.Name == "narrow" {
		return 10 + abs(th-128)/8.0 + float64(abs(rw-2)) + float64(abs(ch-16))/4, nil
	}
	return 20 + float64(th)/64 + float64(rw) + float64(ch)/8, nil
}

func abs(v int) float64 {
	if v < 0 {
		return float64(-v)
	}
	return float64(v)
}

func testConfig(t *testing.T, b Builder, r Runner, cache string) Config {
	space, def, _ := FamilySpace(targets.SM90, tuned.MatVec)
	return Config{
		Target: targets.SM90, Family: tuned.MatVec, Formats: []*formats.Format{formats.Q4_0}, Space: space, Default: def,
		Builder: b, Runner: r, CacheDir: cache,
		Open: func(lib string) (backend.Backend, string, error) { return fakeBackend{lib}, "Fake GPU", nil },
		Now:  func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) },
		Rev:  "abc123",
	}
}

// A space value the target cannot compile (go generate would reject it as
// a winner) stops the run before anything is built.
func TestRunRejectsInvalidCandidate(t *testing.T) {
	b := &fakeBuilder{source: "v1"}
	cfg := testConfig(t, b, &fakeRunner{}, "")
	cfg.Space = Space{"threads": {128, 100}, "rows": {2}, "chunk": {16}}
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "tune: target sm_90: candidate threads=100 rows=2 chunk=16: threads 100 must be a multiple of the wave size 32, at most 1024") {
		t.Fatalf("err = %v", err)
	}
	if b.builds != 0 {
		t.Errorf("%d builds before the check", b.builds)
	}
}

func TestFlow(t *testing.T) {
	cache := t.TempDir()
	b, r := &fakeBuilder{source: "v1"}, &fakeRunner{}
	res, err := Run(context.Background(), testConfig(t, b, r, cache))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 2 {
		t.Fatalf("%d groups", len(res.Groups))
	}
	narrow, wide := res.Groups[0], res.Groups[1]
	if narrow.Winner.Config != "threads=128 rows=2 chunk=16" || wide.Winner.Config != "threads=64 rows=1 chunk=8" {
		t.Errorf("winners %s, %s", narrow.Winner.Config, wide.Winner.Config)
	}
	// 48 candidates: 3 do not compile (threads 512, rows 8), 16 have chunk 32 and fail the check (1 of them does not compile).
	if len(narrow.Timed) != 30 || len(narrow.Dropped) != 18 {
		t.Errorf("timed %d, dropped %d", len(narrow.Timed), len(narrow.Dropped))
	}
	for _, d := range narrow.Dropped {
		if d.Knobs["chunk"] != 32 && d.Knobs["threads"] != 512 {
			t.Errorf("dropped %s: %s", d.Config, d.Note)
		}
	}
	if narrow.DefaultUS == 0 || narrow.Speedup <= 1 || narrow.Spread <= 1 {
		t.Errorf("default %v speedup %v spread %v", narrow.DefaultUS, narrow.Speedup, narrow.Spread)
	}
	var rep bytes.Buffer
	Report(&rep, res)
	for _, want := range []string{"Q4_0 narrow (14336x4096): 30 timed, 18 dropped", "winner threads=128 rows=2 chunk=16", "spread",
		"does not compile: matvec.hip:1: error: static_assert failed", "fails the correctness check", "spec default"} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, rep.String())
		}
	}
	f := Winners(nil, res)
	e := f.Entry("matvec", "Q4_0", "narrow")
	if e == nil || e.Knobs["threads"] != 128 || e.Device != "Fake GPU" || e.Rev != "abc123" || e.Candidates != 30 || e.Shape != "14336x4096" {
		t.Fatalf("entry %+v", e)
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := tuned.Parse(data, "sm_90", []string{"Q4_0"})
	if err != nil {
		t.Fatal(err)
	}
	if back.Entry("matvec", "Q4_0", "wide").Knobs["rows"] != 1 {
		t.Errorf("round trip: %s", data)
	}

	// A rerun reuses every result and builds only the default (for the device's name).
	b2, r2 := &fakeBuilder{source: "v1"}, &fakeRunner{}
	res2, err := Run(context.Background(), testConfig(t, b2, r2, cache))
	if err != nil {
		t.Fatal(err)
	}
	if b2.builds != 1 || r2.timed != 0 || res2.Fresh != 0 || res2.Groups[0].Winner.Config != narrow.Winner.Config {
		t.Errorf("rerun: %d builds, %d timed, %d fresh", b2.builds, r2.timed, res2.Fresh)
	}
	rep.Reset()
	Report(&rep, res2)
	if !strings.Contains(rep.String(), "reused from the cache") || !strings.Contains(rep.String(), "(cached)") {
		t.Errorf("rerun report:\n%s", rep.String())
	}
	// A changed source invalidates the cache; so does --no-cache.
	b3, r3 := &fakeBuilder{source: "v2"}, &fakeRunner{}
	if _, err := Run(context.Background(), testConfig(t, b3, r3, cache)); err != nil {
		t.Fatal(err)
	}
	if r3.timed == 0 {
		t.Error("a source change reused the cache")
	}
	cfg := testConfig(t, &fakeBuilder{source: "v1"}, &fakeRunner{}, cache)
	cfg.NoCache = true
	if res, err := Run(context.Background(), cfg); err != nil || res.Cached != 0 {
		t.Errorf("--no-cache: %v, %d cached", err, res.Cached)
	}
}

// matvec_x8's candidates: the sweep's threads × rows × lanes for a
// 32-element format and a super-block format alike (64, 128 and 256
// threads are multiples of any real format's 32-element groups per block
// times two lanes), the format's default among them; a block of 128
// groups leaves 64 threads out, and 128 threads with two lanes.
func TestFormatCandidatesX8(t *testing.T) {
	space, def, err := FamilySpace(targets.SM90, tuned.MatVecX8)
	if err != nil || def != nil {
		t.Fatalf("space %v, default %v, %v: matvec_x8's default is per format", space, def, err)
	}
	for _, tc := range []struct {
		f       *formats.Format
		def     string
		n, skip int
	}{
		{formats.Q4_0, "threads=64 rows=2 lanes=1 groups=1", 18, 36},
		{formats.Q8_0, "threads=64 rows=1 lanes=1 groups=1", 18, 36},
		{formats.Q4_K, "threads=128 rows=1 lanes=1 groups=1", 54, 0},
		{formats.Q6_K, "threads=128 rows=1 lanes=2 groups=1", 54, 0},
		{&formats.Format{Meta: formats.Meta{Name: "BIG", BlockElems: 4096, BlockBytes: 2048}}, "threads=128 rows=1 lanes=1 groups=1", 42, 12},
	} {
		cands, skipped := FormatCandidates(targets.SM90, tuned.MatVecX8, space, tc.f)
		if len(cands) != tc.n || len(skipped) != tc.skip {
			t.Errorf("%s: %d candidates, %d left out (%v), want %d, %d", tc.f.Name, len(cands), len(skipped), skipped, tc.n, tc.skip)
		}
		for _, c := range cands {
			if ps := targets.SM90.FormatKnobProblems("matvec_x8", tc.f.BlockElems, c); len(ps) > 0 || (tc.f.BlockElems/32)%c["groups"] != 0 || c["threads"]%(tc.f.BlockElems/32/c["groups"]*c["lanes"]) != 0 {
				t.Errorf("%s: candidate %s: %v", tc.f.Name, c.String(tuned.MatVecX8), ps)
			}
		}
		for _, s := range skipped {
			switch {
			case tc.f.BlockElems == 32: // one group per lane only
				if strings.Contains(s, "groups=1:") || !strings.Contains(s, "per lane must divide the 1 32-element groups per block") {
					t.Errorf("%s: left out %q", tc.f.Name, s)
				}
			case !strings.Contains(s, "must be a multiple of the 128 32-element groups per block"):
				t.Errorf("%s: left out %q", tc.f.Name, s)
			}
		}
		d := FormatDefault(tuned.MatVecX8, nil, tc.f)
		if d.String(tuned.MatVecX8) != tc.def {
			t.Errorf("%s: default %s, want %s", tc.f.Name, d.String(tuned.MatVecX8), tc.def)
		}
		if tc.skip == 0 && !slices.ContainsFunc(cands, d.equal) {
			t.Errorf("%s: the default %s is not a candidate", tc.f.Name, d.String(tuned.MatVecX8))
		}
	}
	if got := strings.Join(Candidate{"threads": 256, "rows": 4, "lanes": 2, "groups": 4}.Defines(tuned.MatVecX8), " "); got != "-DFORGE_TUNE_MATVEC_X8_THREADS=256 -DFORGE_TUNE_MATVEC_X8_ROWS=4 -DFORGE_TUNE_MATVEC_X8_LANES=2 -DFORGE_TUNE_MATVEC_X8_GROUPS=4" {
		t.Errorf("defines %q", got)
	}
}

// x8Runner: 128 threads, 2 rows and 1 lane is fastest for 32-element
// blocks, 256 threads (64 in the narrow class), 1 row and 2 lanes for
// super-blocks; 4 rows fails the check.
type x8Runner struct{ timed int }

func (x8Runner) Check(b backend.Backend, f *formats.Format) error {
	if _, rw, _ := knobsOf(b); rw == 4 {
		return errors.New("67×288: NMSE 0.5 (tolerance 0.0005), 67 rows past their quantization bound")
	}
	return nil
}

func (r *x8Runner) Time(b backend.Backend, f *formats.Format, class *tuned.Class, _ backend.WeightMode, _ int) (float64, error) {
	r.timed++
	if class.Name != "narrow" && class.Name != "wide" {
		return 0, fmt.Errorf("class %s", class.Name)
	}
	th, rw, _, lanes := knobsLanesOf(b)
	if f.BlockElems == 32 {
		return 10 + abs(th-128)/64 + abs(rw-2) + float64(lanes-1)/2, nil
	}
	best := 256 // narrow: 64 threads for super-blocks
	if class.Name == "narrow" {
		best = 64
	}
	return 20 + abs(th-best)/64 + abs(rw-1) + float64(2-lanes)/2, nil
}

// The tuner over matvec_x8: per format its own default, per shape class
// its own winner, the winners written beside the existing matvec ones and
// read back.
func TestFlowX8(t *testing.T) {
	space, _, _ := FamilySpace(targets.SM90, tuned.MatVecX8)
	b, r := &fakeBuilder{source: "v1"}, &x8Runner{}
	cfg := testConfig(t, b, r, t.TempDir())
	cfg.Family, cfg.Space, cfg.Default = tuned.MatVecX8, space, nil
	cfg.Formats = []*formats.Format{formats.Q4_0, formats.Q4_K}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Family != "matvec_x8" || len(res.Groups) != 4 {
		t.Fatalf("family %s, %d groups", res.Family, len(res.Groups))
	}
	var q40, q4k, q4kNarrow *Group
	for i := range res.Groups {
		switch g := &res.Groups[i]; {
		case g.Format == "Q4_0" && g.Class == "wide":
			q40 = g
		case g.Format == "Q4_K" && g.Class == "wide":
			q4k = g
		case g.Format == "Q4_K" && g.Class == "narrow":
			q4kNarrow = g
		}
	}
	if q40 == nil || q4k == nil || q4kNarrow == nil {
		t.Fatalf("groups %+v", res.Groups)
	}
	if q40.Shape != "4096x14336" || q4k.Shape != "4096x14336" || q4kNarrow.Shape != "14336x4096" {
		t.Errorf("shapes %s %s %s", q40.Shape, q4k.Shape, q4kNarrow.Shape)
	}
	if q40.Winner.Config != "threads=128 rows=2 lanes=1 groups=1" || q4k.Winner.Config != "threads=256 rows=1 lanes=2 groups=1" || q4kNarrow.Winner.Config != "threads=64 rows=1 lanes=2 groups=1" {
		t.Errorf("winners %s, %s, %s", q40.Winner.Config, q4k.Winner.Config, q4kNarrow.Winner.Config)
	}
	// 18 candidates for Q4_0 (one group per lane) and 54 for Q4_K, those
	// with 4 rows failing the check.
	if len(q40.Timed) != 12 || len(q40.Dropped) != 6 || len(q4k.Timed) != 36 {
		t.Errorf("Q4_0 timed %d dropped %d, Q4_K timed %d", len(q40.Timed), len(q40.Dropped), len(q4k.Timed))
	}
	// Each format's default is its own (64×2×1 for Q4_0, 128×1×1 for Q4_K).
	if q40.DefaultUS != 11 || q4k.DefaultUS != 22.5 {
		t.Errorf("defaults %v µs, %v µs", q40.DefaultUS, q4k.DefaultUS)
	}
	existing := &tuned.File{Target: "sm_90"}
	existing.Set("matvec", "Q4_0", "narrow", &tuned.Entry{Knobs: map[string]int{"threads": 128, "rows": 8, "chunk": 32}})
	data, err := Winners(existing, res).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := tuned.Parse(data, "sm_90", []string{"Q4_0", "Q4_K"})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if e := back.Entry("matvec_x8", "Q4_K", "narrow"); e == nil || e.Knobs["threads"] != 64 {
		t.Errorf("Q4_K narrow entry %+v", e)
	}
	if e := back.Entry("matvec_x8", "Q4_K", "wide"); e == nil || e.Knobs["threads"] != 256 || e.Knobs["rows"] != 1 || e.Knobs["lanes"] != 2 || e.Knobs["groups"] != 1 || e.Candidates != 36 || e.DefaultUS != 22.5 {
		t.Errorf("Q4_K entry %+v", e)
	}
	if e := back.Entry("matvec", "Q4_0", "narrow"); e == nil || e.Knobs["rows"] != 8 {
		t.Errorf("the matvec entry was lost: %s", data)
	}
	if !strings.Contains(string(data), `"matvec_x8": {`) || strings.Contains(string(data), `"chunk": 0`) {
		t.Errorf("file:\n%s", data)
	}

	// A format without an integer form is refused before anything is built.
	b2 := &fakeBuilder{source: "v1"}
	cfg = testConfig(t, b2, &x8Runner{}, "")
	cfg.Family, cfg.Space, cfg.Default = tuned.MatVecX8, space, nil
	cfg.Formats = []*formats.Format{formats.F16}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "F16 has no integer form, so no matvec_x8 kernel to tune") || b2.builds != 0 {
		t.Errorf("F16: %v, %d builds", err, b2.builds)
	}
	// So is a thread count the wave64 target cannot compile.
	cfg.Target, cfg.Formats, cfg.Space = targets.GFX90A, []*formats.Format{formats.Q4_0}, Space{"threads": {64, 96}, "rows": {1}, "lanes": {1}, "groups": {1}}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "candidate threads=96 rows=1 lanes=1 groups=1: threads 96 must be a multiple of the wave size 64") {
		t.Errorf("threads 96 on gfx90a: %v", err)
	}
}

// A narrowed space times the winners file's entries too: the narrow
// class's recorded winner, outside the space, stays the winner; an entry
// the target can no longer compile is left out, saying why.
func TestBakedWinnersTimed(t *testing.T) {
	cfg := testConfig(t, &fakeBuilder{source: "v1"}, &fakeRunner{}, "")
	cfg.Space = Space{"threads": {256}, "rows": {4}, "chunk": {8}}
	baked := &tuned.File{Target: "sm_90"}
	baked.Set("matvec", "Q4_0", "narrow", &tuned.Entry{Knobs: map[string]int{"threads": 128, "rows": 2, "chunk": 16}})
	baked.Set("matvec", "Q4_0", "wide", &tuned.Entry{Knobs: map[string]int{"threads": 100, "rows": 1, "chunk": 8}})
	cfg.Baked = baked
	var log bytes.Buffer
	cfg.Log = &log
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	narrow := res.Groups[0]
	if narrow.Winner == nil || narrow.Winner.Config != "threads=128 rows=2 chunk=16" {
		t.Fatalf("narrow winner %+v, want the winners file's", narrow.Winner)
	}
	if !strings.Contains(log.String(), "Q4_0: the wide winner in the winners file (threads=100 rows=1 chunk=8) is not timed: threads 100") {
		t.Errorf("log:\n%s", log.String())
	}
	for _, g := range res.Groups {
		for _, tm := range append(g.Timed, g.Dropped...) {
			if tm.Knobs["threads"] == 100 {
				t.Errorf("%s: timed %s", g.Class, tm.Config)
			}
		}
	}
	// Without the file, the narrowed space's best wins.
	cfg.Baked = nil
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Groups[0].Winner; w == nil || w.Config == "threads=128 rows=2 chunk=16" {
		t.Errorf("without the file the narrow winner is %+v", w)
	}
}
