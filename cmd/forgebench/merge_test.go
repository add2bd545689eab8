package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
)

// shardSelection is a small selection for the shard tests: dequant of
// three formats (f32 and f16 each) and matvec (f32 and x8) at two shapes: 18, so that
// shapes are split too.
var shardSelection = []string{"--family", "dequant,matvec", "--format", "Q4_0,Q8_0,Q4_K", "--shape", "64x256,128x256", "-q"}

func names(r *bench.Run) []string {
	var out []string
	for _, res := range r.Results {
		out = append(out, res.Name)
	}
	return out
}

// TestShardMergeEqualsUnsharded: the pieces of run --shard I/3, merged,
// hold the unsharded run's benchmarks, in its order; the merged run is a
// run that compare, report and baseline save take.
func TestShardMergeEqualsUnsharded(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.json")
	if code, _, errOut := forgebench(t, runArgs(append(shardSelection, "--json", full)...)...); code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errOut)
	}
	const n = 3
	var pieces []string
	total := 0
	for i := range n {
		p := filepath.Join(dir, "piece-"+string(rune('0'+i))+".json")
		code, _, errOut := forgebench(t, runArgs(append(shardSelection, "--shard", string(rune('0'+i))+"/3", "--json", p)...)...)
		if code != 0 {
			t.Fatalf("shard %d/3: exit %d: %s", i, code, errOut)
		}
		r := readRun(t, p)
		sh := r.Meta.Shard
		if sh == nil || sh.Index != i || sh.Count != n || sh.Selected != 18 || sh.Benchmarks != len(r.Results) || sh.Method != bench.ShardMethod {
			t.Fatalf("shard %d/3: meta.shard %+v, %d results", i, sh, len(r.Results))
		}
		if !strings.Contains(errOut, "shard "+string(rune('0'+i))+"/3: ") || len(r.Results) > 0 && r.Roofline == nil {
			t.Errorf("shard %d/3: roofline %v, stderr %s", i, r.Roofline, errOut)
		}
		for _, name := range names(r) {
			if bench.ShardOf(name, n) != i {
				t.Errorf("shard %d/3 ran %s, of shard %d", i, name, bench.ShardOf(name, n))
			}
		}
		total += len(r.Results)
		pieces = append(pieces, p)
	}
	if total != 18 {
		t.Errorf("the shards ran %d benchmarks, want 18", total)
	}

	merged := filepath.Join(dir, "merged.json")
	slices.Reverse(pieces) // any order
	code, stdout, errOut := forgebench(t, append([]string{"merge", "-o", merged}, pieces...)...)
	if code != 0 || stdout != "" || !strings.Contains(errOut, "merged 3 of 3 shards: 18 results") {
		t.Fatalf("merge: exit %d, stdout %q, stderr %s", code, stdout, errOut)
	}
	want, got := readRun(t, full), readRun(t, merged)
	if !slices.Equal(names(got), names(want)) {
		t.Errorf("merged benchmarks:\n%q\nthe unsharded run's:\n%q", names(got), names(want))
	}
	if m := got.Meta.Merged; m == nil || m.Count != n || len(m.Pieces) != n || got.Meta.Shard != nil || got.Roofline == nil {
		t.Errorf("merged meta %+v", got.Meta)
	}

	for _, args := range [][]string{
		{"compare", "--baseline-file", full, "--run", merged},
		{"report", "--html", filepath.Join(dir, "r.html"), "--baseline", full, merged},
		{"baseline", "save", "merged", "--from", merged, "--dir", filepath.Join(dir, "baselines")},
	} {
		if code, _, errOut := forgebench(t, args...); code != 0 {
			t.Errorf("%s: exit %d: %s", strings.Join(args[:2], " "), code, errOut)
		}
	}
}

// editRun rewrites the run JSON at src into dst through change.
func editRun(t *testing.T, src, dst string, change func(r *bench.Run)) {
	t.Helper()
	r := readRun(t, src)
	change(r)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMergeRefusesCLI: merge exits 2 and says why on mixed hardware (or
// merges with --allow-mixed, warning), a benchmark in two pieces, a shard
// twice, a missing shard (or merges with --allow-partial), a run that is
// no shard, no output, and an output that is a piece.
func TestMergeRefusesCLI(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	sel := []string{"--family", "dequant", "--format", "Q4_0,Q8_0,Q4_K,Q6_K", "-q"}
	for i, s := range []string{"0/2", "1/2"} {
		if code, _, errOut := forgebench(t, runArgs(append(sel, "--shard", s, "--json", p("p"+string(rune('0'+i))+".json"))...)...); code != 0 {
			t.Fatalf("--shard %s: exit %d: %s", s, code, errOut)
		}
	}
	if code, _, errOut := forgebench(t, runArgs(append(sel, "--json", p("full.json"))...)...); code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, errOut)
	}
	editRun(t, p("p1.json"), p("p1-gpu.json"), func(r *bench.Run) { r.Meta.Device, r.Meta.Driver = "AMD Instinct MI300X", "6.2.41133" })
	editRun(t, p("p1.json"), p("p1-dup.json"), func(r *bench.Run) { r.Results = append(r.Results, readRun(t, p("p0.json")).Results[0]) })
	if err := os.WriteFile(p("p0-copy.json"), readBytes(t, p("p0.json")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := p("m.json")
	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"merge", "-o", out, p("p0.json"), p("p1-gpu.json")}, exitError,
			[]string{"the pieces differ (--allow-mixed merges them anyway): device differs: ", `"AMD Instinct MI300X" (shard 1)`}},
		{[]string{"merge", "--allow-mixed", "-o", out, p("p0.json"), p("p1-gpu.json")}, exitOK,
			[]string{"warning: device differs: ", "merged anyway (--allow-mixed)", "merged 2 of 2 shards"}},
		{[]string{"merge", "-o", out, p("p0.json"), p("p1-dup.json")}, exitError, []string{"is in two pieces: ", "p0.json (shard 0/2)", "p1-dup.json (shard 1/2)"}},
		{[]string{"merge", "-o", out, p("p0.json"), p("p0-copy.json"), p("p1.json")}, exitError, []string{"shard 0/2 is given twice: "}},
		{[]string{"merge", "-o", out, p("p1.json")}, exitError, []string{"1 of 2 shards missing: 0", "--allow-partial"}},
		{[]string{"merge", "--allow-partial", "-o", out, p("p1.json")}, exitOK, []string{"warning: 1 of 2 shards missing: 0", "merged 1 of 2 shards"}},
		{[]string{"merge", "-o", out, p("full.json")}, exitError, []string{"full.json is not a shard"}},
		{[]string{"merge", p("p0.json"), p("p1.json")}, exitError, []string{"merge: no output: give --json FILE"}},
		{[]string{"merge", "-o", out}, exitError, []string{"merge: want the pieces"}},
		{[]string{"merge", "-o", p("p0.json"), p("p0.json"), p("p1.json")}, exitError, []string{"would overwrite the piece"}},
		{[]string{"merge", "-o", out, p("nosuch.json")}, exitError, []string{"nosuch.json"}},
	} {
		code, _, errOut := forgebench(t, tc.args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d: %s", tc.args, code, tc.code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", tc.args, w, errOut)
			}
		}
	}
	// Flags after the pieces, and - for stdout.
	code, stdout, errOut := forgebench(t, "merge", p("p0.json"), p("p1.json"), "--json", "-")
	if code != 0 {
		t.Fatalf("merge --json -: exit %d: %s", code, errOut)
	}
	r, err := bench.DecodeRun(strings.NewReader(stdout))
	if err != nil || r.Meta.Merged == nil || len(r.Results) != 8 {
		t.Errorf("merge --json -: %v, %+v", err, r)
	}
}

// TestShardAndDeviceFlags: --shard and --device are checked before
// anything runs; an empty shard is an empty run; the cpu is device 0.
func TestShardAndDeviceFlags(t *testing.T) {
	sel := []string{"--suite", "dequant_f32/Q4_0", "-q"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "4/4"}, `--shard "4/4": want 0 ≤ I < N (shards are 0-based: --shard 0/4 ... --shard 3/4)`},
		{[]string{"--shard", "-1/4"}, `--shard "-1/4": want 0 ≤ I < N`},
		{[]string{"--shard", "0/0"}, `--shard "0/0": want N from 1 to 4096`},
		{[]string{"--shard", "1"}, `--shard "1": want I/N`},
		{[]string{"--shard", ""}, `--shard "": want I/N`},
		{[]string{"--device", "-1"}, "--device -1: want a GPU index from 0 to 1023"},
		{[]string{"--device", "1"}, "--device 1: backend cpu, which runs on the host's CPUs: device 0 only"},
	} {
		code, _, errOut := forgebench(t, runArgs(append(sel, tc.args...)...)...)
		if code != exitError || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// compare and baseline save --from measure nothing, and still check them.
	if code, _, errOut := forgebench(t, "compare", "--baseline-file", "x.json", "--run", "y.json", "--device", "-2"); code != exitError || !strings.Contains(errOut, "--device -2") {
		t.Errorf("compare --device -2: exit %d, %q", code, errOut)
	}

	dir := t.TempDir()
	j := filepath.Join(dir, "run.json")
	if code, _, errOut := forgebench(t, runArgs(append(sel, "--device", "0", "--json", j)...)...); code != 0 {
		t.Errorf("--device 0 on the cpu: exit %d: %s", code, errOut)
	} else if r := readRun(t, j); r.Meta.DeviceIndex != nil || r.Meta.Shard != nil {
		t.Errorf("the cpu run has a device index %v or a shard %+v", r.Meta.DeviceIndex, r.Meta.Shard)
	}

	// A shard that holds none of the selection: an empty piece, exit 0.
	empty := 0
	for bench.ShardOf("dequant_f32/Q4_0", 8) == empty {
		empty++
	}
	code, _, errOut := forgebench(t, runArgs(append(sel, "--shard", string(rune('0'+empty))+"/8", "--json", j)...)...)
	if code != 0 || !strings.Contains(errOut, "holds none of the 1 selected benchmarks") {
		t.Fatalf("an empty shard: exit %d: %s", code, errOut)
	}
	if r := readRun(t, j); len(r.Results) != 0 || r.Meta.Shard == nil || r.Meta.Shard.Benchmarks != 0 || r.Meta.Shard.Selected != 1 {
		t.Errorf("an empty shard: %d results, shard %+v", len(r.Results), r.Meta.Shard)
	}
}

// TestDeviceFlagGPU: --device N opens GPU N of a kernel library (a fake
// one of two devices, over host memory) and the run records it; a device
// the library does not have is an error, as is asking for another device
// of a library this process already opened.
func TestDeviceFlagGPU(t *testing.T) {
	// The registry keeps each library's opening (or failure) for the
	// process: a library per case.
	lib, other := gputest.Build(t, gputest.Options{Name: "Fake H100", Devices: 2}), gputest.Build(t, gputest.Options{Devices: 2})
	dir := t.TempDir()
	j := filepath.Join(dir, "run.json")
	gpuRun := func(lib string, extra ...string) (int, string) {
		args := append([]string{"run", "--backend", "cuda", "--lib", lib, "--suite", "dequant_f32/Q4_0", "--elems", "4096", "--count", "2",
			"--warmup", "1", "--copy-bytes", "1048576", "-q"}, extra...)
		code, _, errOut := forgebench(t, args...)
		return code, errOut
	}
	if code, errOut := gpuRun(other, "--device", "2"); code != exitError || !strings.Contains(errOut, "selecting device 2") {
		t.Errorf("--device 2 of 2: exit %d, %s", code, errOut)
	}
	code, errOut := gpuRun(lib, "--device", "1", "--shard", "0/1", "--json", j)
	if code != 0 {
		t.Fatalf("--device 1: exit %d: %s", code, errOut)
	}
	r := readRun(t, j)
	if r.Meta.DeviceIndex == nil || *r.Meta.DeviceIndex != 1 || r.Meta.Device != "Fake H100" || r.Meta.Shard == nil || len(r.Results) != 1 {
		t.Errorf("meta: device %q index %v, shard %+v, %d results", r.Meta.Device, r.Meta.DeviceIndex, r.Meta.Shard, len(r.Results))
	}
	if _, set := os.LookupEnv("FORGE_DEVICE"); set {
		t.Error("--device left $FORGE_DEVICE set")
	}
	// Backends are opened once per process and library: device 1's stays.
	if code, errOut := gpuRun(lib, "--device", "0"); code != exitError || !strings.Contains(errOut, "is already open on device 1 in this process") {
		t.Errorf("--device 0 after 1: exit %d, %s", code, errOut)
	}
}
