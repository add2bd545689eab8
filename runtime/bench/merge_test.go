package bench_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

// shardBenches are dequant benchmarks of three formats (f32 and f16 each,
// as Measure orders them: a format's two together) and one of a suite
// this binary does not register.
func shardBenches() []benchtest.Bench {
	var out []benchtest.Bench
	for _, f := range []string{"Q4_0", "Q8_0", "Q4_K", "Q6_K"} {
		out = append(out,
			benchtest.Bench{Name: "dequant_f32/" + f, Center: 50 * time.Microsecond},
			benchtest.Bench{Name: "dequant_f16/" + f, Center: 60 * time.Microsecond})
	}
	// A scenario: one benchmark ("memory/kv_cache"), several results.
	out = append(out,
		benchtest.Bench{Name: "memory/kv_cache/alloc", Center: 10 * time.Microsecond},
		benchtest.Bench{Name: "memory/kv_cache/grow", Center: 10 * time.Microsecond},
		benchtest.Bench{Name: "memory/kv_cache/paged", Center: 10 * time.Microsecond})
	return append(out, benchtest.Bench{Name: "nosuch/suite", Center: 10 * time.Microsecond})
}

// benchmarkOf is the benchmark (a run target) a result of shardBenches
// belongs to.
func benchmarkOf(name string) string {
	if strings.HasPrefix(name, "memory/kv_cache/") {
		return "memory/kv_cache"
	}
	return name
}

// fullRun is an unsharded run of shardBenches, its results filled in as
// the engine does (format, elements).
func fullRun() *bench.Run {
	r := benchtest.Run(1, shardBenches()...)
	for i := range r.Results {
		res := &r.Results[i]
		if f, ok := strings.CutPrefix(res.Name, "dequant_f32/"); ok {
			res.Format = f
		} else if f, ok := strings.CutPrefix(res.Name, "dequant_f16/"); ok {
			res.Format = f
		}
		res.Elements = 4096
	}
	return r
}

// split cuts run into n pieces as run --shard would measure them, each on
// a host of its own with a roofline of its own.
func split(run *bench.Run, n int) []bench.MergePiece {
	var names []string
	order := map[string]int{}
	for _, r := range run.Results {
		if b := benchmarkOf(r.Name); !slices.Contains(names, b) {
			order[b] = len(names)
			names = append(names, b)
		}
	}
	sel := bench.SelectionFingerprint(names, "count=20")
	pieces := make([]bench.MergePiece, n)
	for i := range n {
		p := *run
		p.Results = nil
		p.Meta.Hostname = fmt.Sprintf("node%d", i)
		p.Roofline = &bench.Roofline{Bytes: 64 << 20, GBps: float64(20 + i), Method: "go copy, 8 goroutines"}
		p.Started = run.Started.Add(time.Duration(i) * time.Minute)
		p.Finished = p.Started.Add(time.Minute)
		positions := map[string]int{}
		for _, r := range run.Results {
			if b := benchmarkOf(r.Name); bench.ShardOf(b, n) == i {
				p.Results = append(p.Results, r)
				positions[b] = order[b]
			}
		}
		p.Meta.Shard = &bench.Shard{Index: i, Count: n, Selected: len(names), Benchmarks: len(positions), Selection: sel, Options: "count=20",
			Method: bench.ShardMethod, Positions: positions}
		pieces[i] = bench.MergePiece{Path: fmt.Sprintf("piece-%d.json", i), Run: &p}
	}
	return pieces
}

func resultNames(r *bench.Run) []string {
	var out []string
	for _, res := range r.Results {
		out = append(out, res.Name)
	}
	return out
}

// TestMergeEqualsUnsharded: the pieces of every split, given in any
// order, merge into the unsharded run's benchmarks, in its order, with
// the pieces listed and the roofline their median.
func TestMergeEqualsUnsharded(t *testing.T) {
	full := fullRun()
	want := resultNames(full)
	for _, n := range []int{1, 2, 3, 4, 9} {
		pieces := split(full, n)
		slices.Reverse(pieces)
		merged, warnings, err := bench.Merge(pieces, bench.MergeOptions{})
		if err != nil || len(warnings) > 0 {
			t.Fatalf("N=%d: %v, warnings %q", n, err, warnings)
		}
		if got := resultNames(merged); !slices.Equal(got, want) {
			t.Errorf("N=%d: merged %q, want %q", n, got, want)
		}
		m := merged.Meta
		if m.Shard != nil || m.Merged == nil || m.Merged.Count != n || len(m.Merged.Pieces) != n || m.Merged.Selection == "" || merged.Interrupted {
			t.Fatalf("N=%d: meta %+v, merged %+v", n, m, m.Merged)
		}
		for i, p := range m.Merged.Pieces {
			if p.Shard != i || p.Path != fmt.Sprintf("piece-%d.json", i) || p.Hostname != fmt.Sprintf("node%d", i) || p.RooflineGBps != float64(20+i) {
				t.Errorf("N=%d: piece %d: %+v", n, i, p)
			}
		}
		hosts := make([]string, n)
		for i := range n {
			hosts[i] = fmt.Sprintf("node%d", i)
		}
		if m.Hostname != strings.Join(hosts, ", ") || m.Device != full.Meta.Device || m.CPUs != full.Meta.CPUs {
			t.Errorf("N=%d: merged meta %+v", n, m)
		}
		if wantRoof := 20 + float64(n-1)/2; merged.Roofline == nil || merged.Roofline.GBps != wantRoof {
			t.Errorf("N=%d: roofline %+v, want the median %g GB/s", n, merged.Roofline, wantRoof)
		}
		if !merged.Started.Equal(full.Started) || !merged.Finished.Equal(full.Started.Add(time.Duration(n)*time.Minute)) {
			t.Errorf("N=%d: started %v, finished %v", n, merged.Started, merged.Finished)
		}
		// A merged run is a run: it writes, reads back and compares.
		var buf bytes.Buffer
		if err := bench.EncodeRun(&buf, merged); err != nil {
			t.Fatal(err)
		}
		back, err := bench.DecodeRun(&buf)
		if err != nil {
			t.Fatalf("N=%d: the merged run does not read back: %v", n, err)
		}
		if back.Meta.Merged == nil || len(back.Meta.Merged.Pieces) != n {
			t.Errorf("N=%d: read back without its pieces: %+v", n, back.Meta.Merged)
		}
		if err := bench.CheckComparable(full, back, "full", "merged"); err != nil {
			t.Errorf("N=%d: %v", n, err)
		}
	}
}

func mergeErr(t *testing.T, pieces []bench.MergePiece, opt bench.MergeOptions, wants ...string) {
	t.Helper()
	_, _, err := bench.Merge(pieces, opt)
	if err == nil {
		t.Fatalf("merged; want an error with %q", wants)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	full := fullRun()
	t.Run("not a shard", func(t *testing.T) {
		mergeErr(t, []bench.MergePiece{{Path: "full.json", Run: full}}, bench.MergeOptions{AllowMixed: true, AllowPartial: true},
			"full.json is not a shard", "--shard I/N")
	})
	t.Run("already merged", func(t *testing.T) {
		m, _, err := bench.Merge(split(full, 2), bench.MergeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m.Meta.Shard = &bench.Shard{Count: 2}
		mergeErr(t, []bench.MergePiece{{Path: "m.json", Run: m}}, bench.MergeOptions{}, "m.json is already a merged run")
	})
	t.Run("different splits", func(t *testing.T) {
		a, b := split(full, 2), split(full, 3)
		mergeErr(t, []bench.MergePiece{a[0], b[1]}, bench.MergeOptions{AllowMixed: true, AllowPartial: true},
			"different splits", "piece-0.json is shard 0/2", "piece-1.json is shard 1/3")
	})
	t.Run("shard twice", func(t *testing.T) {
		p := split(full, 3)
		again := p[1]
		again.Path = "again.json"
		mergeErr(t, append(p, again), bench.MergeOptions{AllowMixed: true, AllowPartial: true}, "shard 1/3 is given twice: piece-1.json and again.json")
	})
	t.Run("duplicate benchmark", func(t *testing.T) {
		p := split(full, 3)
		r := *p[2].Run
		r.Results = append(slices.Clone(r.Results), p[0].Run.Results[0])
		p[2].Run = &r
		mergeErr(t, p, bench.MergeOptions{AllowMixed: true, AllowPartial: true},
			fmt.Sprintf("benchmark %q is in two pieces: piece-0.json (shard 0/3) and piece-2.json (shard 2/3)", p[0].Run.Results[0].Name))
	})
	t.Run("missing shard", func(t *testing.T) {
		p := split(full, 4)
		p = append(p[:1], p[2:]...)
		mergeErr(t, p, bench.MergeOptions{AllowMixed: true}, "1 of 4 shards missing: 1", "--allow-partial")
		m, warnings, err := bench.Merge(p, bench.MergeOptions{AllowPartial: true})
		if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "1 of 4 shards missing") {
			t.Fatalf("--allow-partial: %v, %q", err, warnings)
		}
		if !slices.Equal(m.Meta.Merged.Missing, []int{1}) || len(m.Results) != len(full.Results)-len(split(full, 4)[1].Run.Results) {
			t.Errorf("--allow-partial: missing %v, %d results", m.Meta.Merged.Missing, len(m.Results))
		}
	})
	t.Run("interrupted piece", func(t *testing.T) {
		p := split(full, 2)
		r := *p[1].Run
		r.Interrupted, r.Results = true, r.Results[:1]
		p[1].Run = &r
		mergeErr(t, p, bench.MergeOptions{AllowMixed: true}, "piece-1.json (shard 1/2) was interrupted")
		m, _, err := bench.Merge(p, bench.MergeOptions{AllowPartial: true})
		if err != nil || !m.Interrupted {
			t.Errorf("--allow-partial: %v, interrupted %v", err, m != nil && m.Interrupted)
		}
	})
	t.Run("failed part-way", func(t *testing.T) {
		p := split(full, 2)
		r := *p[1].Run
		r.Results = nil // a run that failed at once writes what it has (nothing), not marked interrupted
		p[1].Run = &r
		mergeErr(t, p, bench.MergeOptions{AllowMixed: true}, fmt.Sprintf("piece-1.json (shard 1/2) holds 0 results for its %d benchmarks", r.Meta.Shard.Benchmarks))
	})
	t.Run("pieces that do not add up", func(t *testing.T) {
		p := split(full, 2)
		sh := *p[1].Run.Meta.Shard
		sh.Selected++ // a benchmark no piece says it has
		r := *p[1].Run
		r.Meta.Shard = &sh
		p[1].Run = &r
		p[0].Run.Meta.Shard.Selected++
		mergeErr(t, p, bench.MergeOptions{}, fmt.Sprintf("the pieces hold %d benchmarks, but their selection has %d", sh.Selected-1, sh.Selected))
	})
}

// TestMergeMixed: pieces of different hardware or software, selection or
// options are refused, every difference named with its shards, unless
// AllowMixed; unknown values (empty) are no difference.
func TestMergeMixed(t *testing.T) {
	full := fullRun()
	for _, tc := range []struct {
		change func(m *bench.Meta)
		want   string
	}{
		{func(m *bench.Meta) { m.Backend = "hip" }, `backend differs: "cpu" (shards 0, 1), "hip" (shard 2)`},
		{func(m *bench.Meta) { m.Device = "AMD Instinct MI300X" }, `device differs: "Synthetic CPU @ 3.0GHz" (shards 0, 1), "AMD Instinct MI300X" (shard 2)`},
		{func(m *bench.Meta) { m.Target = "gfx942" }, ""}, // unknown in the others: no difference
		{func(m *bench.Meta) { m.ForgeCommit = "fedcba9876543210" }, `forge commit differs`},
		{func(m *bench.Meta) { m.ForgeModified = true }, `forge commit differs: "0123456789abcdef" (shards 0, 1), "0123456789abcdef (modified)" (shard 2)`},
		{func(m *bench.Meta) { m.GoVersion = "go1.25.0" }, `go version differs`},
		{func(m *bench.Meta) { m.CPUs = 4 }, `CPUs (GOMAXPROCS) differs: "8" (shards 0, 1), "4" (shard 2)`},
		{func(m *bench.Meta) { m.Shard.Options = "count=5" }, `options differs: "count=20" (shards 0, 1), "count=5" (shard 2)`},
		{func(m *bench.Meta) { m.Shard.Selection = "0000000000000000" }, `selection differs`},
		{func(m *bench.Meta) { m.Hostname = "elsewhere"; m.DeviceIndex = new(3) }, ""}, // fleets are many hosts
	} {
		p := split(full, 3)
		r := *p[2].Run
		sh := *r.Meta.Shard
		r.Meta.Shard = &sh
		tc.change(&r.Meta)
		p[2].Run = &r
		if tc.want == "" {
			if _, _, err := bench.Merge(p, bench.MergeOptions{}); err != nil {
				t.Errorf("%+v: %v", r.Meta, err)
			}
			continue
		}
		mergeErr(t, p, bench.MergeOptions{}, "the pieces differ (--allow-mixed merges them anyway)", tc.want)
		m, warnings, err := bench.Merge(p, bench.MergeOptions{AllowMixed: true})
		if err != nil || len(warnings) == 0 || !strings.Contains(warnings[0], tc.want) || len(m.Meta.Merged.Mixed) == 0 {
			t.Errorf("--allow-mixed %q: %v, warnings %q", tc.want, err, warnings)
		}
	}

	// Mixed hardware, merged anyway: the metadata says both.
	p := split(full, 2)
	r := *p[1].Run
	r.Meta.Device, r.Meta.CPUs = "Other CPU", 16
	p[1].Run = &r
	m, _, err := bench.Merge(p, bench.MergeOptions{AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta.Device != "Synthetic CPU @ 3.0GHz, Other CPU" || m.Meta.CPUs != 0 {
		t.Errorf("mixed meta: device %q, CPUs %d", m.Meta.Device, m.Meta.CPUs)
	}
}
