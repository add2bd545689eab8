package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
)

// Sharding splits one selection of benchmarks across machines (CI matrix
// jobs, Slurm array tasks): `forgebench run --shard I/N` measures the
// benchmarks whose name hashes to I modulo N, and `forgebench merge` puts
// the N pieces back together into one run (merge.go).
//
// A benchmark's shard is a hash of its full name (ShardOf) modulo N: it
// depends on nothing but the name and N, so a benchmark stays on the same
// shard (the same machine in a fixed matrix) when others are added to or
// removed from the selection, which keeps its history on one machine.
// Shards are balanced in expectation, not exactly, and not by cost.

// MaxShards bounds N of --shard I/N: more pieces than this is a typo.
const MaxShards = 4096

// Shard says which part of a split selection a run measured
// (Meta.Shard).
type Shard struct {
	Index int `json:"index"` // 0-based: 0 ≤ Index < Count
	Count int `json:"count"`
	// Selected counts the benchmarks of the whole selection (every
	// shard's); Benchmarks those of this shard. A scenario benchmark
	// (memory, quantize, ...) is one benchmark of several results.
	Selected   int `json:"selected"`
	Benchmarks int `json:"benchmarks"`
	// Selection fingerprints the whole selection: the first 16 hex digits
	// of SHA-256 over its sorted benchmark names and Options. The pieces
	// of one split share it.
	Selection string `json:"selection"`
	// Options are the measuring options the selection ran with
	// (OptionsString), so that merge can name what differs.
	Options string `json:"options,omitempty"`
	// Method names how benchmarks are assigned to shards: ShardMethod.
	Method string `json:"method"`
	// Positions are this shard's benchmarks and where each runs in an
	// unsharded run of the whole selection (from 0), so that merge can
	// order the pieces' results as that run would.
	Positions map[string]int `json:"positions,omitempty"`
}

// ShardMethod is how ShardOf assigns a benchmark to a shard.
const ShardMethod = "fmix64(fnv1a64(name)) mod count"

// ParseShard reads --shard's "I/N": 0 ≤ I < N ≤ MaxShards, both decimal.
func ParseShard(s string) (index, count int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, errI := strconv.Atoi(strings.TrimSpace(a))
	n, errN := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case !ok || errI != nil || errN != nil:
		return 0, 0, fmt.Errorf("--shard %q: want I/N, this run's shard I (0-based) of N, e.g. --shard 0/4 ... --shard 3/4", s)
	case n < 1 || n > MaxShards:
		return 0, 0, fmt.Errorf("--shard %q: want N from 1 to %d", s, MaxShards)
	case i < 0 || i >= n:
		return 0, 0, fmt.Errorf("--shard %q: want 0 ≤ I < N (shards are 0-based: --shard 0/%d ... --shard %d/%d)", s, n, n-1, n)
	}
	return i, n, nil
}

// ShardOf is the shard of count (0-based) that the benchmark named name
// belongs to: FNV-1a 64 of the name, through murmur3's 64-bit finalizer,
// modulo count. FNV-1a alone is no good modulo a power of two: its low
// bit is the parity of the name's odd bytes, so dequant_f32/Q4_0,
// dequant_f16/Q4_0, dequant_f32/Q8_0 and dequant_f16/Q8_0 all fell in one
// of two shards.
func ShardOf(name string, count int) int {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := h.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return int(x % uint64(count))
}

// OptionsString spells the options that decide what a run measures and
// how, canonically: the pieces of one split must have run with the same.
// (Shapes are not in it: ShardTargets expands them into the names.)
func OptionsString(o Options) string {
	return fmt.Sprintf("count=%d warmup=%d min-time=%v auto=%t max-time=%v elems=%d launches-per-sample=%d weights=%s copy-bytes=%d quick=%t",
		o.Count, o.Warmup, o.MinTime, o.Auto, o.MaxTime, o.Elems, o.LaunchesPerSample, o.Weights, o.CopyBytes, o.Quick)
}

// SelectionFingerprint is Shard.Selection for benchmark names and
// options.
func SelectionFingerprint(names []string, options string) string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	h := sha256.New()
	for _, n := range sorted {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	h.Write([]byte(options))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ShardTargets keeps the targets of shard index of count. The targets
// are first expanded into one per shape (ExpandShapes, with opts.Shapes),
// so that each shape of a family is a benchmark of its own, and checked
// as Measure checks them (a target b cannot run is an error); the options
// returned have no Shapes left (the targets carry them) and are what
// Measure should run the targets with. The Shard describes the split
// (Meta.Shard).
func ShardTargets(b backend.Backend, targets []Target, opts Options, index, count int) ([]Target, Options, *Shard, error) {
	if count < 1 || count > MaxShards || index < 0 || index >= count {
		return nil, opts, nil, fmt.Errorf("shard %d/%d: want 0 ≤ I < N ≤ %d", index, count, MaxShards)
	}
	all, err := ExpandShapes(b, targets, opts.Shapes...)
	if err != nil {
		return nil, opts, nil, err
	}
	opts.Shapes = nil
	// The order an unsharded run would have (Measure's).
	elems := opts.Elems
	if elems <= 0 {
		elems = suite.DefaultElems(b)
	}
	plans := make([]plan, len(all))
	for i := range all {
		if plans[i], err = all[i].plan(b, elems); err != nil {
			return nil, opts, nil, err
		}
	}
	plans = groupByInput(plans)
	names := make([]string, len(plans))
	var kept []Target
	positions := map[string]int{}
	for i, p := range plans {
		names[i] = p.t.name()
		if ShardOf(names[i], count) == index {
			kept = append(kept, *p.t)
			positions[names[i]] = i
		}
	}
	if dup := firstDuplicate(names); dup != "" {
		return nil, opts, nil, fmt.Errorf("benchmark %q is selected twice: a split needs unique names", dup)
	}
	optStr := OptionsString(opts)
	return kept, opts, &Shard{
		Index: index, Count: count,
		Selected: len(all), Benchmarks: len(kept),
		Selection: SelectionFingerprint(names, optStr),
		Options:   optStr,
		Method:    ShardMethod,
		Positions: positions,
	}, nil
}

func firstDuplicate(names []string) string {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}
