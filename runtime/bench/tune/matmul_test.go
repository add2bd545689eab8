package tune

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// mmBuilder "builds" a library whose path holds the matmul_int candidate.
type mmBuilder struct {
	mu     sync.Mutex
	builds int
}

func (b *mmBuilder) Fingerprint(format string) (string, error) { return "mm" + format, nil }

func (b *mmBuilder) Build(_ context.Context, format string, c Candidate) (string, error) {
	b.mu.Lock()
	b.builds++
	b.mu.Unlock()
	return fmt.Sprintf("%s/%d/%d/%d/%d/%d/%d/%d", format, c["threads"], c["tm"], c["tn"], c["tk"], c["warp_rows"], c["split_k"], c["int8"]), nil
}

// mmRunner: the time is a function of the knobs and the class's batch,
// fastest at tn 16 with split 8 for b16, tn 64 split 4 for b64 and tm 128
// tn 128 unsplit for large; the int8 products (int8 1) are half a
// microsecond slower at b16 and faster at b64, and no different at large;
// split 1 with tk 128 fails the check.
type mmRunner struct{ shapes []string }

func mmKnobs(b backend.Backend) (c Candidate) {
	var th, tm, tn, tk, wr, sk, i8 int
	lib := b.(fakeBackend).lib
	fmt.Sscanf(lib[strings.Index(lib, "/")+1:], "%d/%d/%d/%d/%d/%d/%d", &th, &tm, &tn, &tk, &wr, &sk, &i8)
	return Candidate{"threads": th, "tm": tm, "tn": tn, "tk": tk, "warp_rows": wr, "split_k": sk, "int8": i8}
}

func (mmRunner) Check(b backend.Backend, f *formats.Format) error {
	if c := mmKnobs(b); c["split_k"] == 1 && c["tk"] == 128 {
		return fmt.Errorf("67×288×7: NMSE 0.9")
	}
	return nil
}

func (r *mmRunner) Time(b backend.Backend, f *formats.Format, class *tuned.Class, _ backend.WeightMode, _ int) (float64, error) {
	r.shapes = append(r.shapes, strings.Join([]string{class.Name, fmt.Sprint(ClassDims(f, class))}, " "))
	c := mmKnobs(b)
	want := map[string][3]int{"b16": {128, 16, 8}, "b64": {128, 64, 4}, "large": {128, 128, 1}}[class.Name]
	us := 100 + abs(c["tm"]-want[0]) + abs(c["tn"]-want[1]) + 10*abs(c["split_k"]-want[2]) + abs(c["tk"]-256)/64 + abs(c["warp_rows"]-2)/8
	return us + map[string]float64{"b16": 0.5, "b64": -0.5}[class.Name]*float64(c["int8"]), nil
}

// TestFlowMatMulInt: matmul_int is tuned per batch class, each candidate
// timed at 4096×14336 with the class's batch, each class's default the
// target's MatMulInt class serving that batch (Q4_K's b64 with its
// OffsetWarpRows), and the winners round-trip through the winners file.
func TestFlowMatMulInt(t *testing.T) {
	space, def, ok := FamilySpace(targets.SM90, tuned.MatMulInt)
	if ok != nil || def != nil {
		t.Fatalf("space %v, default %v", space, def)
	}
	r := &mmRunner{}
	cfg := testConfig(t, &mmBuilder{}, r, t.TempDir())
	cfg.Family, cfg.Space, cfg.Default = tuned.MatMulInt, space, nil
	cfg.Formats = []*formats.Format{formats.Q4_0, formats.Q4_K}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 6 {
		t.Fatalf("%d groups", len(res.Groups))
	}
	by := map[string]*Group{}
	for i := range res.Groups {
		g := &res.Groups[i]
		by[g.Format+" "+g.Class] = g
	}
	for _, c := range []struct{ key, shape, winner string }{
		{"Q4_0 b16", "4096x14336x16", "threads=256 tm=128 tn=16 tk=256 warp_rows=8 split_k=8 int8=0"},
		{"Q4_K b64", "4096x14336x64", "threads=256 tm=128 tn=64 tk=256 warp_rows=2 split_k=4 int8=1"},
		{"Q4_K large", "4096x14336x512", "threads=256 tm=128 tn=128 tk=256 warp_rows=2 split_k=1 int8=0"},
	} {
		g := by[c.key]
		if g == nil || g.Shape != c.shape || g.Winner == nil || g.Winner.Config != c.winner {
			t.Errorf("%s: %+v", c.key, g)
		}
	}
	// The defaults: b16 128×16 split 8 (tk 128: 100 + 0 + 0 + 0 + 2 + 0.75),
	// Q4_K's b64 warp rows 2 (its OffsetWarpRows: 100 + 2), Q4_0's b64 warp
	// rows 8 (102.75), large 128×128 tk 256 unsplit, warp rows 2: 100.
	if g := by["Q4_0 b16"]; g.DefaultUS != 102.75 {
		t.Errorf("Q4_0 b16 default %v", g.DefaultUS)
	}
	if g, h := by["Q4_K b64"], by["Q4_0 b64"]; g.DefaultUS != 102 || h.DefaultUS != 102.75 {
		t.Errorf("b64 defaults: Q4_K %v, Q4_0 %v", g.DefaultUS, h.DefaultUS)
	}
	if g := by["Q4_0 large"]; g.DefaultUS != 100 {
		t.Errorf("large default %v", g.DefaultUS)
	}
	// Unsplit candidates with K steps of 128 fail the check.
	for _, d := range by["Q4_0 large"].Dropped {
		if d.Knobs["split_k"] != 1 || d.Knobs["tk"] != 128 || !strings.Contains(d.Note, "fails the correctness check") {
			t.Errorf("dropped %+v", d)
		}
	}
	data, err := Winners(&tuned.File{Target: "sm_90"}, res).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := tuned.Parse(data, "sm_90", []string{"Q4_0", "Q4_K"})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if e := back.Entry("matmul_int", "Q4_K", "b64"); e == nil || e.Knobs["tn"] != 64 || e.Knobs["split_k"] != 4 || e.Knobs["int8"] != 1 || e.Shape != "4096x14336x64" {
		t.Errorf("Q4_K b64 entry %+v", e)
	}
	if len(targets.SM90.KnobProblems("matmul_int", back.Entry("matmul_int", "Q4_0", "b16").Knobs)) > 0 {
		t.Error("a winner the target cannot compile")
	}
}

// A target without MatMulIntSpace has no matmul_int tuning space (every
// target of the specs has one); a candidate the target cannot compile
// names its knob, and gfx90a's candidates are of 64-lane waves.
func TestMatMulIntSpace(t *testing.T) {
	tg := *targets.GFX1100
	tg.MatMulIntSpace = targets.MatMulIntSpace{}
	if _, _, err := FamilySpace(&tg, tuned.MatMulInt); err == nil {
		t.Error("a target without MatMulIntSpace has a matmul_int space")
	}
	space, _, err := FamilySpace(targets.GFX90A, tuned.MatMulInt)
	if err != nil {
		t.Fatal(err)
	}
	cands, skipped := FormatCandidates(targets.GFX90A, tuned.MatMulInt, space, formats.Q4_K)
	if len(cands) != 100 || len(skipped) == 0 || !strings.Contains(strings.Join(skipped, "\n"), "must divide the 2 warps") {
		t.Errorf("gfx90a: %d candidates, %d skipped", len(cands), len(skipped))
	}
	ps := targets.SM90.KnobProblems("matmul_int", Candidate{"threads": 256, "tm": 48, "tn": 64, "tk": 128, "warp_rows": 2, "split_k": 1})
	if len(ps) == 0 || ps[0].Field != "tm" {
		t.Errorf("problems %v", ps)
	}
}

// TestFlowMatMulHalf: matmul_half is tuned per batch class for F16 only
// (the formats not stored as plain binary16 have no mma.sync f16 path of
// their own), each class's default the target's MatMulHalf class serving
// its batch, and the winners round-trip through the winners file.
func TestFlowMatMulHalf(t *testing.T) {
	space, def, err := FamilySpace(targets.SM90, tuned.MatMulHalf)
	if err != nil || def != nil {
		t.Fatalf("space %v, default %v, %v", space, def, err)
	}
	if why := Lacks(tuned.MatMulHalf, formats.Q4_0); why == "" {
		t.Error("Q4_0 has a matmul_half kernel")
	}
	if why := Lacks(tuned.MatMulHalf, formats.F16); why != "" {
		t.Errorf("F16 lacks a matmul_half kernel: %s", why)
	}
	cands, _ := FormatCandidates(targets.SM90, tuned.MatMulHalf, space, formats.F16)
	if len(cands) != 88 {
		t.Errorf("%d candidates, want the 88 of sm_90's MatMulHalfSpace its warps can cover", len(cands))
	}
	defs := ClassDefaults(targets.SM90, tuned.MatMulHalf, nil, formats.F16)
	for j, c := range tuned.MatMulHalf.Classes {
		m, ok := targets.SM90.MatMulHalfAt(c.Batch)
		if !ok || defs[j] == nil || defs[j]["tm"] != m.TileRows || defs[j]["tk"] != m.TileK || defs[j]["split_k"] != max(1, m.SplitK) {
			t.Errorf("class %s: default %v, the spec's %+v", c.Name, defs[j], m)
		}
	}
	r := &mmRunner{}
	cfg := testConfig(t, &mmBuilder{}, r, t.TempDir())
	cfg.Family, cfg.Space, cfg.Default = tuned.MatMulHalf, space, nil
	cfg.Formats = []*formats.Format{formats.Q4_0}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "not stored as plain binary16") {
		t.Errorf("Q4_0 tuned as matmul_half: %v", err)
	}
	cfg.Formats = []*formats.Format{formats.F16}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 4 {
		t.Fatalf("%d groups, want one per class", len(res.Groups))
	}
	data, err := Winners(&tuned.File{Target: "sm_90"}, res).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := tuned.Parse(data, "sm_90", []string{"F16"})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for _, c := range tuned.MatMulHalf.Classes {
		e := back.Entry("matmul_half", "F16", c.Name)
		if e == nil || e.Shape != fmt.Sprintf("4096x14336x%d", c.Batch) {
			t.Errorf("F16 %s entry %+v", c.Name, e)
			continue
		}
		if ps := targets.SM90.KnobProblems("matmul_half", e.Knobs); len(ps) > 0 {
			t.Errorf("F16 %s: a winner the target cannot compile: %v", c.Name, ps)
		}
	}
}

// TestNarrow: --space keeps the named values of the named knobs and every
// value of the rest, so the candidates are the narrowed product.
func TestNarrow(t *testing.T) {
	space, _, err := FamilySpace(targets.SM90, tuned.MatMulInt)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Narrow(tuned.MatMulInt, space, "tn=16,64 warp_rows=8,8")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n["tn"], []int{16, 64}) || !slices.Equal(n["warp_rows"], []int{8}) || !slices.Equal(n["tm"], space["tm"]) {
		t.Errorf("narrowed space %v from %v", n, space)
	}
	if len(space["tn"]) < 3 {
		t.Fatalf("sm_90's matmul_int space has tn %v; the test wants a value to leave out", space["tn"])
	}
	all, some := Enumerate(tuned.MatMulInt, space), Enumerate(tuned.MatMulInt, n)
	want := len(all) / len(space["tn"]) / len(space["warp_rows"]) * 2
	if len(some) != want {
		t.Errorf("%d candidates narrowed, want %d (of %d)", len(some), want, len(all))
	}
	for _, c := range some {
		if c["warp_rows"] != 8 || (c["tn"] != 16 && c["tn"] != 64) {
			t.Errorf("candidate %v outside the narrowed space", c)
		}
	}
	if _, err := Narrow(tuned.MatMulInt, space, "tn=24"); err == nil {
		t.Error("a value outside the target's space was accepted")
	}
}
