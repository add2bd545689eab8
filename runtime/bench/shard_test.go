package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
	}{{"0/1", 0, 1}, {"0/4", 0, 4}, {"3/4", 3, 4}, {" 2 / 3 ", 2, 3}, {"4095/4096", 4095, 4096}} {
		i, n, err := ParseShard(tc.in)
		if err != nil || i != tc.i || n != tc.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d", tc.in, i, n, err, tc.i, tc.n)
		}
	}
	for _, in := range []string{"", "1", "4/4", "5/4", "-1/4", "0/0", "1/0", "0/-2", "a/b", "1/4/2", "0x1/4", "1.5/4", "0/4097",
		"9223372036854775807/9223372036854775807", "99999999999999999999/1"} {
		if _, _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("ParseShard(%q): %v, want an error naming --shard", in, err)
		}
	}
}

// TestShardOfPinned pins the assignment: changing the hash would move
// benchmarks between the machines of every existing split, breaking
// their histories.
func TestShardOfPinned(t *testing.T) {
	got := fmt.Sprint(ShardOf("dequant_f32/Q4_0", 4), ShardOf("dequant_f16/Q4_K", 4), ShardOf("matvec_f32/Q8_0/4096x14336", 7), ShardOf("", 3))
	if want := "3 0 6 2"; got != want {
		t.Errorf("ShardOf: %s, want %s", got, want)
	}
	// Names that differ in one byte by a multiple of 4 ('4' and '8') must
	// not be bound to one shard of 4: FNV-1a's low bits depend only on the
	// bytes' low bits, so plain FNV-1a put every such pair together.
	together := 0
	for i := range 100 {
		a, b := fmt.Sprintf("matvec_x8/Q4_0/%dx4096", 1024+i), fmt.Sprintf("matvec_x8/Q8_0/%dx4096", 1024+i)
		if ShardOf(a, 4) == ShardOf(b, 4) {
			together++
		}
	}
	if together > 50 {
		t.Errorf("%d of 100 Q4_0/Q8_0 name pairs share a shard of 4 (about 25 expected)", together)
	}
}

// allTargets is every registered suite as run targets, expanded into
// their shapes on the cpu.
func allTargets(t *testing.T) []Target {
	t.Helper()
	ts, err := ExpandShapes(cpu.New(0), SuiteTargets(suite.All()))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) < 100 {
		t.Fatalf("%d targets: are the generated suites registered?", len(ts))
	}
	return ts
}

func targetNames(ts []Target) []string {
	out := make([]string, len(ts))
	for i := range ts {
		out[i] = ts[i].name()
	}
	return out
}

// TestShardPartition: for every N, the shards of a selection are
// disjoint, their union is the selection, each holds about 1/N of it,
// and each records the same split.
func TestShardPartition(t *testing.T) {
	b := cpu.New(0)
	all := SuiteTargets(suite.All())
	want := targetNames(allTargets(t))
	slices.Sort(want)
	opts := Options{Count: 3}
	for _, n := range []int{1, 2, 3, 4, 7, 16} {
		var union []string
		var selection string
		for i := range n {
			kept, o, sh, err := ShardTargets(b, all, opts, i, n)
			if err != nil {
				t.Fatal(err)
			}
			if o.Shapes != nil || sh.Index != i || sh.Count != n || sh.Selected != len(want) || sh.Benchmarks != len(kept) || sh.Method != ShardMethod {
				t.Errorf("shard %d/%d: %+v", i, n, sh)
			}
			if i == 0 {
				selection = sh.Selection
			} else if sh.Selection != selection {
				t.Errorf("shard %d/%d: selection %s, shard 0's %s", i, n, sh.Selection, selection)
			}
			// Balanced in expectation (a binomial spread): with a hundred
			// benchmarks or more, a few shards hold each near 1/N.
			if share := float64(len(kept)) / float64(len(want)); n > 1 && n <= 4 && (share < 0.25/float64(n) || share > 2/float64(n)) {
				t.Errorf("shard %d/%d holds %d of %d benchmarks", i, n, len(kept), len(want))
			}
			for _, name := range targetNames(kept) {
				if ShardOf(name, n) != i {
					t.Errorf("shard %d/%d holds %s, of shard %d", i, n, name, ShardOf(name, n))
				}
				union = append(union, name)
			}
		}
		slices.Sort(union)
		if !slices.Equal(union, want) {
			t.Errorf("N=%d: the shards hold %d benchmarks (with repeats or gaps), the selection %d", n, len(union), len(want))
		}
	}
}

// TestShardStableUnderAdding: adding a benchmark to the selection moves no
// other benchmark to another shard, though it changes the selection's
// fingerprint.
func TestShardStableUnderAdding(t *testing.T) {
	b := cpu.New(0)
	all := SuiteTargets(suite.All())
	without := slices.DeleteFunc(slices.Clone(all), func(t Target) bool { return t.Suite.Name == "dequant_f32/Q4_K" })
	if len(without) != len(all)-1 {
		t.Fatal("dequant_f32/Q4_K not registered")
	}
	const n = 5
	for i := range n {
		before, _, shBefore, err := ShardTargets(b, without, Options{}, i, n)
		if err != nil {
			t.Fatal(err)
		}
		after, _, shAfter, err := ShardTargets(b, all, Options{}, i, n)
		if err != nil {
			t.Fatal(err)
		}
		added := slices.DeleteFunc(targetNames(after), func(s string) bool { return slices.Contains(targetNames(before), s) })
		if want := ShardOf("dequant_f32/Q4_K", n) == i; len(added) != map[bool]int{true: 1, false: 0}[want] || len(after)-len(added) != len(before) {
			t.Errorf("shard %d/%d: %d benchmarks before, %d after, added %q", i, n, len(before), len(after), added)
		}
		if shBefore.Selection == shAfter.Selection {
			t.Errorf("shard %d/%d: the selection's fingerprint did not change with a benchmark added", i, n)
		}
	}
}

func TestSelectionFingerprint(t *testing.T) {
	a := SelectionFingerprint([]string{"x", "y"}, "count=1")
	if b := SelectionFingerprint([]string{"y", "x"}, "count=1"); a != b {
		t.Errorf("order matters: %s vs %s", a, b)
	}
	if b := SelectionFingerprint([]string{"x", "y"}, "count=2"); a == b {
		t.Error("options do not matter")
	}
	if b := SelectionFingerprint([]string{"xy"}, "count=1"); a == b {
		t.Error("names are not delimited")
	}
	if len(a) != 16 {
		t.Errorf("fingerprint %q: want 16 hex digits", a)
	}
}

// TestShardTargetsShapes: --shape sweeps are split by shape, and Measure
// runs the shard's targets as they are.
func TestShardTargetsShapes(t *testing.T) {
	s, ok := suite.ByName("matvec_f32/Q8_0")
	if !ok {
		t.Fatal("matvec_f32/Q8_0 not registered")
	}
	opts := Options{Shapes: [][]int{{64, 256}, {128, 256}, {96, 512}}}
	seen := map[string]int{}
	for i := range 2 {
		kept, o, sh, err := ShardTargets(cpu.New(0), SuiteTargets([]suite.Suite{s}), opts, i, 2)
		if err != nil {
			t.Fatal(err)
		}
		if sh.Selected != 3 || o.Shapes != nil {
			t.Errorf("shard %d/2: %+v, shapes %v", i, sh, o.Shapes)
		}
		for _, name := range targetNames(kept) {
			seen[name]++
		}
	}
	if len(seen) != 3 || seen["matvec_f32/Q8_0/64x256"] != 1 || seen["matvec_f32/Q8_0/96x512"] != 1 {
		t.Errorf("shapes across shards: %v", seen)
	}
	if _, _, _, err := ShardTargets(cpu.New(0), SuiteTargets([]suite.Suite{s}), Options{Shapes: [][]int{{1, 2, 3}}}, 0, 2); err == nil {
		t.Error("a shape no benchmark takes: no error")
	}
	if _, _, _, err := ShardTargets(cpu.New(0), nil, Options{}, 2, 2); err == nil {
		t.Error("shard 2/2: no error")
	}
}
