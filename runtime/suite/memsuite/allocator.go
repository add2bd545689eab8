package memsuite

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rocmforge/forge/runtime/device/devmem"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/workloads"
)

// Allocator is the allocation-strategy scenario of spec s (see package doc
// and workloads.Allocator): devmem's caching allocator against direct
// device allocation (devmem.Direct) on the same pattern. Cases:
//
//   - repeated/direct, repeated/caching: Rounds (QuickRounds when quick)
//     rounds per sample of allocating every size of Sizes, then freeing
//     them all (a layer's temporaries, step after step). The caching
//     allocator is one for the case, so after the warm-up every Alloc is a
//     hit; its hit_rate counts the whole case. The table's elements/s is
//     Allocs per second.
//   - varying/direct, varying/caching: Steps (QuickSteps) steps per sample,
//     each at a sequence length drawn from SeqLens (QuickSeqLens) with a
//     fixed seed: q, k, v and o (heads·seq·head_dim) and the score matrix
//     (heads·seq·seq) of ElemBytes elements, allocated, then freed.
//     cached_frac is the mean share of the caching allocator's reserved
//     memory held in cached blocks while a step's buffers are live
//     (fragmentation), rounding_waste the mean share lost to size classes.
//
// The caching rows carry speedup (median direct time over median caching
// time), peak_overhead (the caching allocator's PeakReserved over the
// direct allocator's PeakInUse, less 1) and, for the repeated pattern,
// target (TargetSpeedup): on a GPU the caching allocator should be at
// least that much faster; a run that falls short says so on its log and
// in its figures but does not fail. A run fails when the allocators'
// counts are wrong: anything left in use, direct allocations that are not
// one device allocation each, a caching allocator that allocates from the
// device again in the repeated pattern's steady state.
//
//   - agreement: the varying workload's buffers at its largest sequence
//     length, step after step kept live until ≥ 256 MiB, against the
//     device's free-memory report or Go's heap accounting.
func Allocator(spec workloads.Allocator) *suite.Scenario {
	doc := spec.Doc
	if doc == "" {
		doc = "caching allocator vs direct device allocation: repeated and varying-shape patterns"
	}
	return &suite.Scenario{Doc: doc, Run: func(env *suite.Env) (err error) {
		pl, err := newPlatform(env.Backend)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, pl.close()) }()
		rounds, steps := spec.Rounds, spec.Steps
		if env.Quick {
			rounds, steps = orPositive(spec.QuickRounds, rounds), orPositive(spec.QuickSteps, steps)
		}
		if rounds <= 0 || steps <= 0 || len(spec.Sizes) == 0 {
			return fmt.Errorf("allocator %s: %d rounds of %d sizes, %d steps", spec.Name, rounds, len(spec.Sizes), steps)
		}
		sizes := make([]uint64, len(spec.Sizes))
		for i, n := range spec.Sizes {
			if n <= 0 {
				return fmt.Errorf("allocator %s: size %d", spec.Name, n)
			}
			sizes[i] = uint64(n)
		}
		repeated := func(pl *platform, a allocator, _ *rand.Rand, observe func(devmem.Stats)) error {
			for range rounds {
				bufs, err := allocAll(pl, a, sizes)
				if err != nil {
					return err
				}
				if err := freeAll(a, bufs); err != nil {
					return err
				}
			}
			return nil
		}
		if err := compareAllocators(env, pl, "repeated", int64(rounds*len(sizes)), spec.TargetSpeedup, repeated, func(cs devmem.Stats) error {
			if cs.DeviceAllocs != int64(len(sizes)) {
				return fmt.Errorf("the caching allocator made %d device allocations for a pattern of %d sizes; want one per size (every later round a hit)", cs.DeviceAllocs, len(sizes))
			}
			return nil
		}); err != nil || stopped(env) {
			return err
		}

		seqs := quickOr(env, spec.SeqLens, spec.QuickSeqLens)
		if len(seqs) == 0 || spec.Heads <= 0 || spec.HeadDim <= 0 || spec.ElemBytes <= 0 {
			return fmt.Errorf("allocator %s: sequence lengths %v, %d heads of %d, %d-byte elements", spec.Name, seqs, spec.Heads, spec.HeadDim, spec.ElemBytes)
		}
		attn := func(seq int) []uint64 {
			qkvo := uint64(spec.Heads * seq * spec.HeadDim * spec.ElemBytes)
			return []uint64{qkvo, qkvo, qkvo, qkvo, uint64(spec.Heads) * uint64(seq) * uint64(seq) * uint64(spec.ElemBytes)}
		}
		allocs := int64(0)
		rng := rand.New(rand.NewPCG(7, 7))
		for range steps {
			allocs += int64(len(attn(seqs[rng.IntN(len(seqs))])))
		}
		varying := func(pl *platform, a allocator, rng *rand.Rand, observe func(devmem.Stats)) error {
			for range steps {
				bufs, err := allocAll(pl, a, attn(seqs[rng.IntN(len(seqs))]))
				if err != nil {
					return err
				}
				if observe != nil {
					observe(a.Stats())
				}
				if err := freeAll(a, bufs); err != nil {
					return err
				}
			}
			return nil
		}
		if err := compareAllocators(env, pl, "varying", allocs, 0, varying, nil); err != nil || stopped(env) {
			return err
		}

		largest := seqs[0]
		for _, s := range seqs {
			largest = max(largest, s)
		}
		return pl.agreement(env, fmt.Sprintf("attention buffers at sequence length %d", largest), func(a allocator) ([]buffer, error) {
			var all []buffer
			for total := uint64(0); total < minAgreementBytes; {
				bufs, err := allocAll(pl, a, attn(largest))
				all = append(all, bufs...)
				if err != nil {
					return all, err
				}
				for _, b := range bufs {
					total += b.n
				}
			}
			return all, nil
		})
	}}
}

func orPositive(x, otherwise int) int {
	if x > 0 {
		return x
	}
	return otherwise
}

// pattern runs one sample's allocations from a; rng draws its shapes
// (the same seed for every sample and allocator); observe, when not nil,
// sees the allocator's stats while a step's buffers are live.
type pattern func(pl *platform, a allocator, rng *rand.Rand, observe func(devmem.Stats)) error

// compareAllocators runs pattern through a direct and a caching allocator
// and reports <name>/direct and <name>/caching.
func compareAllocators(env *suite.Env, pl *platform, name string, allocsPerSample int64, target float64, run pattern, checkCaching func(devmem.Stats) error) (err error) {
	sample := func(a allocator, observe func(devmem.Stats)) ([]time.Duration, error) {
		return env.Sample(func() (time.Duration, error) {
			rng := rand.New(rand.NewPCG(7, 7))
			return timeHost(func() error { return run(pl, a, rng, observe) })
		})
	}
	g0 := readGoMem()
	d := pl.direct()
	direct, err := sample(d, nil)
	if err != nil || direct == nil {
		return err
	}
	ds := d.Stats()
	if ds.InUse != 0 || ds.LiveBlocks != 0 || ds.DeviceAllocs != ds.Allocs || ds.DeviceFrees != ds.Allocs || ds.Allocs%allocsPerSample != 0 {
		return fmt.Errorf("%s/direct: %v; want every Alloc a device allocation, freed, %d per sample", name, ds, allocsPerSample)
	}
	dm := suite.Measurement{Case: name + "/direct", Elements: allocsPerSample, Samples: direct}
	dm.Add("allocs", float64(ds.Allocs), "").
		Add("device_allocs", float64(ds.DeviceAllocs), "").
		Add("per_alloc", seconds(median(direct))/float64(allocsPerSample), "s").
		Add("peak_in_use", float64(ds.PeakInUse), "B").
		Add("peak_reserved", float64(ds.PeakReserved), "B")
	pl.addGo(&dm, g0)
	env.Report(dm)

	g0 = readGoMem()
	a := pl.caching()
	defer func() { err = errors.Join(err, a.Release()) }()
	var cachedSum, wasteSum float64
	observed := 0
	cached, err := sample(a, func(s devmem.Stats) {
		cachedSum += s.CachedFraction()
		wasteSum += s.RoundingWaste()
		observed++
	})
	if err != nil || cached == nil {
		return err
	}
	cs := a.Stats()
	if cs.InUse != 0 || cs.LiveBlocks != 0 || cs.Allocs != cs.CacheHits+cs.CacheMisses || cs.Allocs != ds.Allocs {
		return fmt.Errorf("%s/caching: %v; want nothing in use and as many Allocs (%d) as the direct run", name, cs, ds.Allocs)
	}
	if checkCaching != nil {
		if err := checkCaching(cs); err != nil {
			return fmt.Errorf("%s/caching: %w", name, err)
		}
	}
	speedup := float64(median(direct)) / float64(max(median(cached), 1))
	cm := suite.Measurement{Case: name + "/caching", Elements: allocsPerSample, Samples: cached}
	cm.Add("allocs", float64(cs.Allocs), "").
		Add("device_allocs", float64(cs.DeviceAllocs), "").
		Add("per_alloc", seconds(median(cached))/float64(allocsPerSample), "s").
		Add("peak_in_use", float64(cs.PeakInUse), "B").
		Add("peak_reserved", float64(cs.PeakReserved), "B").
		Add("hit_rate", 100*float64(cs.CacheHits)/float64(cs.Allocs), "%").
		Add("speedup", speedup, "x").
		Add("peak_overhead", 100*(float64(cs.PeakReserved)/float64(ds.PeakInUse)-1), "%")
	if observed > 0 {
		cm.Add("cached_frac", 100*cachedSum/float64(observed), "%").
			Add("rounding_waste", 100*wasteSum/float64(observed), "%")
	}
	if target > 0 {
		cm.Add("target", target, "x")
		if pl.onDevice() && speedup < target {
			env.Logf("memsuite: %s on %s: the caching allocator is %.2f× faster than direct allocation, short of the %.0f× target by %.2f×",
				name, pl.name, speedup, target, target/speedup)
		}
	}
	pl.addGo(&cm, g0)
	env.Report(cm)
	return nil
}
