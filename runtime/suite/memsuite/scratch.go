package memsuite

import (
	"errors"
	"fmt"
	"time"

	"github.com/rocmforge/forge/runtime/device/devmem"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/workloads"
)

// fillByte is what the scratch cases fill with.
const fillByte = 0x5a

// Scratch is the scratch-buffer scenario of spec s (see package doc and
// workloads.Scratch). Cases:
//
//   - single/<size> for each of Sizes (QuickSizes when quick): the
//     samples fill the buffer (forge_rt_memset, device-timed; the table's
//     GB/s is the fill's bandwidth); direct_alloc and cached_alloc are the
//     median times of allocating it directly from the device (devmem.Direct,
//     a device allocation each time) and through a caching allocator (a
//     cache hit after the first), alloc_speedup their ratio, hit_rate the
//     caching allocator's.
//   - fragmented/<total>/<chunk> for each of FragmentChunks and the whole
//     total as one chunk: FragmentTotal in chunks, the samples fill every
//     chunk (one memset each), with the same allocation figures for
//     allocating all the chunks.
//   - reuse/n<N> for each of Reuses (QuickReuses when quick): one direct
//     allocation of ReuseSize used (filled) N times, then freed; a sample
//     is the whole lifetime, so the table's GB/s is the effective bandwidth
//     with the allocation amortised; alloc, free and per_use (their cost
//     per use) are medians, fill_bw the fills' own bandwidth.
//   - agreement: buffers of the largest size (≥ 256 MiB in all) against
//     the device's free-memory report or Go's heap accounting.
//
// The allocators' counts are checked: one device allocation per direct
// Alloc, one in all for the caching allocator's repeated same-size Allocs,
// nothing left in use after each case.
func Scratch(spec workloads.Scratch) *suite.Scenario {
	doc := spec.Doc
	if doc == "" {
		doc = "scratch buffers: single, fragmented and reused allocations, allocation time and fill bandwidth"
	}
	return &suite.Scenario{Doc: doc, Run: func(env *suite.Env) (err error) {
		pl, err := newPlatform(env.Backend)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, pl.close()) }()
		sizes := quickOr(env, spec.Sizes, spec.QuickSizes)
		largest := 0
		for _, n := range sizes {
			if n <= 0 {
				return fmt.Errorf("scratch %s: size %d", spec.Name, n)
			}
			largest = max(largest, n)
			if err := scratchChunks(env, pl, fmt.Sprintf("single/%s", sizeName(n)), n, n); err != nil || stopped(env) {
				return err
			}
		}
		if spec.FragmentTotal > 0 {
			chunks := append([]int(nil), spec.FragmentChunks...)
			whole := false
			for _, c := range chunks {
				whole = whole || c == spec.FragmentTotal
			}
			if !whole {
				chunks = append(chunks, spec.FragmentTotal)
			}
			for _, c := range chunks {
				if c <= 0 || c > spec.FragmentTotal {
					return fmt.Errorf("scratch %s: chunk of %d bytes for a total of %d", spec.Name, c, spec.FragmentTotal)
				}
				name := fmt.Sprintf("fragmented/%s/%s", sizeName(spec.FragmentTotal), sizeName(c))
				if err := scratchChunks(env, pl, name, spec.FragmentTotal, c); err != nil || stopped(env) {
					return err
				}
			}
		}
		for _, n := range quickOr(env, spec.Reuses, spec.QuickReuses) {
			if n <= 0 || spec.ReuseSize <= 0 {
				return fmt.Errorf("scratch %s: %d uses of %d bytes", spec.Name, n, spec.ReuseSize)
			}
			if err := scratchReuse(env, pl, uint64(spec.ReuseSize), n); err != nil || stopped(env) {
				return err
			}
		}
		probe := uint64(max(largest, 2<<20))
		return pl.agreement(env, fmt.Sprintf("%s scratch buffers", devmem.FormatBytes(probe)), func(a allocator) ([]buffer, error) {
			var bufs []buffer
			for total := uint64(0); total < minAgreementBytes; total += probe {
				b, err := pl.alloc(a, probe)
				if err != nil {
					return bufs, err
				}
				bufs = append(bufs, b)
			}
			return bufs, nil
		})
	}}
}

// chunkSizes splits total into chunks of chunk bytes, the last shorter.
func chunkSizes(total, chunk int) []uint64 {
	var out []uint64
	for left := total; left > 0; left -= chunk {
		out = append(out, uint64(min(chunk, left)))
	}
	return out
}

// allocAll allocates the sizes from a, freeing what it got on an error.
func allocAll(pl *platform, a allocator, sizes []uint64) ([]buffer, error) {
	bufs := make([]buffer, 0, len(sizes))
	for _, n := range sizes {
		b, err := pl.alloc(a, n)
		if err != nil {
			return nil, errors.Join(err, freeAll(a, bufs))
		}
		bufs = append(bufs, b)
	}
	return bufs, nil
}

func freeAll(a allocator, bufs []buffer) error {
	var errs []error
	for _, b := range bufs {
		errs = append(errs, a.Free(b.p))
	}
	return errors.Join(errs...)
}

// timedAllocs samples allocating sizes from a (freeing them untimed) and
// returns the samples.
func timedAllocs(env *suite.Env, pl *platform, a allocator, sizes []uint64) ([]time.Duration, error) {
	return env.Sample(func() (time.Duration, error) {
		var bufs []buffer
		dt, err := timeHost(func() (err error) {
			bufs, err = allocAll(pl, a, sizes)
			return err
		})
		if err != nil {
			return 0, err
		}
		return dt, freeAll(a, bufs)
	})
}

// scratchChunks is a single (chunk == total) or fragmented case.
func scratchChunks(env *suite.Env, pl *platform, name string, total, chunk int) (err error) {
	sizes := chunkSizes(total, chunk)
	g0 := readGoMem()
	d := pl.direct()
	direct, err := timedAllocs(env, pl, d, sizes)
	if err != nil || direct == nil {
		return err
	}
	ds := d.Stats()
	if ds.DeviceAllocs != ds.Allocs || ds.Allocs%int64(len(sizes)) != 0 || ds.InUse != 0 || ds.PeakInUse != uint64(total) {
		return fmt.Errorf("scratch %s: direct allocation: %v; want one device allocation per Alloc, a peak of %d bytes, nothing in use", name, ds, total)
	}
	a := pl.caching()
	defer func() { err = errors.Join(err, a.Release()) }()
	cached, err := timedAllocs(env, pl, a, sizes)
	if err != nil || cached == nil {
		return err
	}
	cs := a.Stats()
	if cs.InUse != 0 || cs.DeviceAllocs != int64(len(sizes)) {
		return fmt.Errorf("scratch %s: caching allocator: %v; want %d device allocations (the first round's), nothing in use", name, cs, len(sizes))
	}
	bufs, err := allocAll(pl, a, sizes)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, freeAll(a, bufs)) }()
	fills, err := env.Sample(func() (time.Duration, error) {
		return pl.timeWork(func() error {
			for _, b := range bufs {
				if err := pl.fill(b, 0, b.n, fillByte); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if err != nil || fills == nil {
		return err
	}
	// The fill reached every byte: the first and last of each chunk.
	for _, b := range bufs {
		for _, off := range []uint64{0, b.n - 1} {
			got, err := pl.download(b, off, 1)
			if err != nil {
				return err
			}
			if got[0] != fillByte {
				return fmt.Errorf("scratch %s: byte %d of a %d-byte chunk is %#x after the fill, want %#x", name, off, b.n, got[0], fillByte)
			}
		}
	}
	cs = a.Stats()
	m := suite.Measurement{Case: name, Shape: []int{total, chunk}, BytesWritten: int64(total), Samples: fills}
	m.Add("chunks", float64(len(sizes)), "").
		Add("direct_alloc", seconds(median(direct)), "s").
		Add("cached_alloc", seconds(median(cached)), "s").
		Add("alloc_speedup", float64(median(direct))/float64(max(median(cached), 1)), "x").
		Add("hit_rate", 100*float64(cs.CacheHits)/float64(cs.Allocs), "%").
		Add("rounding_waste", 100*cs.RoundingWaste(), "%")
	pl.addGo(&m, g0)
	env.Report(m)
	return nil
}

// scratchReuse is the reuse/n<N> case: allocate (directly), N fills, free.
func scratchReuse(env *suite.Env, pl *platform, size uint64, uses int) error {
	d := pl.direct()
	var allocs, frees, fills []time.Duration
	samples, err := env.Sample(func() (time.Duration, error) {
		var b buffer
		ta, err := timeHost(func() (err error) {
			b, err = pl.alloc(d, size)
			return err
		})
		if err != nil {
			return 0, err
		}
		tf, err := pl.timeWork(func() error {
			for range uses {
				if err := pl.fill(b, 0, size, fillByte); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, errors.Join(err, d.Free(b.p))
		}
		tr, err := timeHost(func() error { return d.Free(b.p) })
		if err != nil {
			return 0, err
		}
		allocs, fills, frees = append(allocs, ta), append(fills, tf), append(frees, tr)
		return ta + tf + tr, nil
	})
	if err != nil || samples == nil {
		return err
	}
	ds := d.Stats()
	if ds.Allocs != int64(len(allocs)) || ds.DeviceFrees != ds.Allocs || ds.InUse != 0 || ds.PeakInUse != size {
		return fmt.Errorf("scratch reuse of %d bytes ×%d: %v; want one allocation per lifetime, a peak of %d bytes", size, uses, ds, size)
	}
	ma, mf, mr := median(allocs), median(fills), median(frees)
	m := suite.Measurement{Case: fmt.Sprintf("reuse/n%d", uses), Shape: []int{int(size), uses},
		BytesWritten: int64(size) * int64(uses), Samples: samples}
	m.Add("alloc", seconds(ma), "s").
		Add("free", seconds(mr), "s").
		Add("per_use", seconds(ma+mr)/float64(uses), "s").
		Add("fill_bw", float64(size)*float64(uses)/seconds(max(mf, 1)), "B/s").
		Add("alloc_share", 100*float64(ma+mr)/float64(max(ma+mf+mr, 1)), "%")
	env.Report(m)
	return nil
}
