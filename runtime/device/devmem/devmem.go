// Package devmem owns forge's device-memory allocation policy: a caching
// allocator, after PyTorch's CUDACachingAllocator, over any raw allocator
// (the GPU runtime's forge_rt_malloc/forge_rt_free, or Host, Go memory, for
// the cpu backend and for tests), with the statistics forgebench reports.
//
// Why cache: cudaMalloc/hipMalloc cost from tens of microseconds to
// milliseconds and cudaFree/hipFree synchronise the whole device, so a
// benchmark or suite that allocates its buffers per call would measure the
// driver. Freed blocks are kept, by size class, and handed out again to
// requests of the same class; Release returns them to the device, and an
// allocation the device refuses for lack of memory is retried once after a
// Release.
//
// Blocks know no streams: free a block only after the device work using it
// has completed (the GPU backends synchronise before they free), since the
// next Alloc of its class may hand it to other work at once.
package devmem

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/rocmforge/forge/runtime/device/abi"
)

// ErrOutOfMemory is what an allocation the device (or Host's limit) cannot
// satisfy wraps: errors.Is(err, ErrOutOfMemory). Raw allocators must wrap
// it for the caching allocator to retry after a Release; runtime/device/gpu's
// ErrOutOfMemory is this same value.
var ErrOutOfMemory = errors.New("out of memory")

// ErrUnknownPointer is what Free of a pointer that is not a live block of
// the allocator wraps: a double free, or a pointer from elsewhere.
var ErrUnknownPointer = errors.New("not a live block of this allocator")

// Raw is a device's own allocator. Alloc must return a non-zero pointer or
// an error, wrapping ErrOutOfMemory when memory is exhausted.
type Raw interface {
	Alloc(bytes uint64) (abi.DevicePtr, error)
	Free(p abi.DevicePtr) error
}

// Size classes.
//
// Small requests (up to SmallLimit) round up to MinBlock, then to a quarter
// of their power of two: 512, 640, 768, 896, 1024, 1280, …, 768 Ki, 896 Ki,
// 1 Mi. Large requests round up to a multiple of LargeStep.
//
// Why these: 512 bytes is PyTorch's kMinBlockSize, below the granularity
// at which drivers hand out memory anyway (every class is a multiple of 128
// bytes; a block's alignment is the raw allocator's, 256 bytes or more on
// GPUs). Unlike PyTorch, forge does not split
// segments into blocks (its buffers are few and large), so every request is
// its own device allocation and a block is only reused by a request of its
// own class: classes must be few for reuse to happen, yet fine enough to
// waste little. Quarter powers of two (PyTorch's roundup_power2_divisions=4)
// give 4 classes per octave, less than 25% rounding waste and 45 small classes
// in all. Above 1 MiB, 2 MiB steps are PyTorch's kRoundLarge and the GPU's
// large-page size, at which drivers map big allocations: rounding to it
// costs no device memory the driver would not have used, wastes under 1% of
// any buffer past 200 MiB (forge's benchmark buffers are 64 Mi elements),
// and maps buffers of nearly the same size (the inputs of one format at
// slightly different block counts) to one class.
const (
	MinBlock   = 512
	SmallLimit = 1 << 20
	LargeStep  = 2 << 20
	// MaxAlloc is the largest request Alloc accepts (1 PiB), far above any
	// device, so that rounding never overflows.
	MaxAlloc = 1 << 50
)

// RoundSize is the size class of a request of n bytes: the size of the
// block the allocator hands out for it. n must not exceed MaxAlloc.
func RoundSize(n uint64) uint64 {
	switch {
	case n <= MinBlock:
		return MinBlock
	case n <= SmallLimit:
		k := bits.Len64(n-1) - 1 // 2^k < n <= 2^(k+1), k >= 9
		step := uint64(1) << (k - 2)
		return (n + step - 1) &^ (step - 1)
	}
	return (n + LargeStep - 1) &^ (LargeStep - 1)
}

// Stats are an allocator's counters. Byte counts are of size classes
// (RoundSize), except Requested.
type Stats struct {
	InUse        uint64 // bytes of live blocks (allocated, not freed): the current use
	PeakInUse    uint64 // the highest InUse so far
	Requested    uint64 // bytes the callers asked for, of the live blocks
	Cached       uint64 // bytes of freed blocks kept for reuse
	Reserved     uint64 // InUse + Cached: what the allocator holds of the device
	PeakReserved uint64 // the highest Reserved so far
	LiveBlocks   int64  // blocks in use
	CachedBlocks int64  // blocks cached
	// Allocated is the bytes (size classes) of every successful Alloc so
	// far, hits and misses: what the callers took in all, freed or not.
	Allocated uint64

	Allocs       int64 // successful Alloc calls: CacheHits + CacheMisses
	Frees        int64 // successful Free calls
	Failures     int64 // Alloc calls that failed (out of memory, bad size, raw errors)
	CacheHits    int64 // Allocs served from the cache
	CacheMisses  int64 // Allocs that needed a device allocation
	DeviceAllocs int64 // successful raw allocations (equal to CacheMisses)
	DeviceFrees  int64 // blocks returned to the raw allocator
	Releases     int64 // Release operations: explicit, and before an out-of-memory retry
	OOMRetries   int64 // allocations retried after the device ran out of memory
}

// CachedFraction is the fragmentation estimate forge reports: the share of
// the reserved memory held in cached blocks, which no request of another
// size class can use until a Release (external fragmentation, as PyTorch's
// "reserved but unallocated"). 0 when nothing is reserved.
func (s Stats) CachedFraction() float64 {
	if s.Reserved == 0 {
		return 0
	}
	return float64(s.Cached) / float64(s.Reserved)
}

// RoundingWaste is the share of the reserved memory lost to size-class
// rounding in live blocks (internal fragmentation): (InUse - Requested) /
// Reserved. 0 when nothing is reserved.
func (s Stats) RoundingWaste() float64 {
	if s.Reserved == 0 {
		return 0
	}
	return float64(s.InUse-s.Requested) / float64(s.Reserved)
}

// String summarises the stats on one line.
func (s Stats) String() string {
	return fmt.Sprintf("in use %s (peak %s, requested %s), reserved %s (peak %s, cached %s = %.1f%%, rounding waste %.1f%%); "+
		"%d allocs (%d hits, %d misses, %d failed), %d frees, %d device allocs, %d device frees, %d releases, %d OOM retries",
		FormatBytes(s.InUse), FormatBytes(s.PeakInUse), FormatBytes(s.Requested), FormatBytes(s.Reserved), FormatBytes(s.PeakReserved),
		FormatBytes(s.Cached), 100*s.CachedFraction(), 100*s.RoundingWaste(),
		s.Allocs, s.CacheHits, s.CacheMisses, s.Failures, s.Frees, s.DeviceAllocs, s.DeviceFrees, s.Releases, s.OOMRetries)
}

// FormatBytes writes a byte count with a binary unit: "512 B", "1.5 MiB".
func FormatBytes(n uint64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

// block is a live block: its size class and what its caller asked for.
type block struct {
	size, requested uint64
}

// Allocator is a caching allocator. It is safe for concurrent use.
type Allocator struct {
	mu    sync.Mutex
	raw   Raw
	live  map[abi.DevicePtr]block
	cache map[uint64][]abi.DevicePtr // size class → cached blocks, most recently freed last
	stats Stats
}

// New returns a caching allocator over raw.
func New(raw Raw) *Allocator {
	return &Allocator{raw: raw, live: map[abi.DevicePtr]block{}, cache: map[uint64][]abi.DevicePtr{}}
}

// Alloc returns a block of at least bytes bytes (RoundSize(bytes), for a
// request of 0 bytes MinBlock): the most recently freed cached block of its
// size class, else a new device allocation. When the device is out of
// memory and blocks are cached, it releases them and tries once more; an
// allocation that still fails wraps ErrOutOfMemory.
func (a *Allocator) Alloc(bytes uint64) (abi.DevicePtr, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if bytes > MaxAlloc {
		a.stats.Failures++
		return 0, fmt.Errorf("devmem: allocating %d bytes: more than any device holds (%w)", bytes, ErrOutOfMemory)
	}
	size := RoundSize(bytes)
	if list := a.cache[size]; len(list) > 0 {
		p := list[len(list)-1]
		if len(list) == 1 {
			delete(a.cache, size)
		} else {
			a.cache[size] = list[:len(list)-1]
		}
		a.stats.Cached -= size
		a.stats.CachedBlocks--
		a.stats.CacheHits++
		a.use(p, size, bytes)
		return p, nil
	}
	p, err := a.raw.Alloc(size)
	if err != nil && errors.Is(err, ErrOutOfMemory) && a.stats.CachedBlocks > 0 {
		a.stats.OOMRetries++
		relErr := a.releaseLocked()
		if p, err = a.raw.Alloc(size); err != nil && relErr != nil {
			err = errors.Join(err, relErr)
		}
	}
	switch {
	case err != nil:
		a.stats.Failures++
		return 0, fmt.Errorf("devmem: allocating %s (%d bytes, class %s) with %s in use: %w",
			FormatBytes(bytes), bytes, FormatBytes(size), FormatBytes(a.stats.InUse), err)
	case p == 0:
		a.stats.Failures++
		return 0, fmt.Errorf("devmem: allocating %d bytes: the raw allocator returned a null pointer without an error", size)
	}
	if _, dup := a.live[p]; dup {
		// The raw allocator handed out a live block again: its bug, but
		// accepting it would corrupt two buffers.
		a.stats.Failures++
		return 0, fmt.Errorf("devmem: the raw allocator returned %#x, which is still in use", uintptr(p))
	}
	a.stats.CacheMisses++
	a.stats.DeviceAllocs++
	a.stats.Reserved += size
	a.stats.PeakReserved = max(a.stats.PeakReserved, a.stats.Reserved)
	a.use(p, size, bytes)
	return p, nil
}

// use records p as a live block.
func (a *Allocator) use(p abi.DevicePtr, size, requested uint64) {
	a.live[p] = block{size: size, requested: requested}
	a.stats.Allocs++
	a.stats.Allocated += size
	a.stats.LiveBlocks++
	a.stats.InUse += size
	a.stats.Requested += requested
	a.stats.PeakInUse = max(a.stats.PeakInUse, a.stats.InUse)
}

// Free returns a block to the cache. Freeing 0 does nothing; freeing a
// pointer that is not a live block is an error wrapping ErrUnknownPointer,
// and changes nothing.
func (a *Allocator) Free(p abi.DevicePtr) error {
	if p == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.live[p]
	if !ok {
		return fmt.Errorf("devmem: free of %#x: %w (a double free?)", uintptr(p), ErrUnknownPointer)
	}
	delete(a.live, p)
	a.stats.Frees++
	a.stats.LiveBlocks--
	a.stats.InUse -= b.size
	a.stats.Requested -= b.requested
	a.stats.Cached += b.size
	a.stats.CachedBlocks++
	a.cache[b.size] = append(a.cache[b.size], p)
	return nil
}

// BlockSize is the size of live block p (its size class), false if p is
// not a live block.
func (a *Allocator) BlockSize(p abi.DevicePtr) (uint64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.live[p]
	return b.size, ok
}

// Release returns every cached block to the raw allocator. Live blocks are
// untouched. Blocks the raw allocator fails to free are dropped from the
// accounting all the same (their state is the device's to report) and their
// errors returned.
func (a *Allocator) Release() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.releaseLocked()
}

func (a *Allocator) releaseLocked() error {
	a.stats.Releases++
	var errs []error
	sizes := make([]uint64, 0, len(a.cache))
	for size := range a.cache {
		sizes = append(sizes, size)
	}
	slices.Sort(sizes)
	for _, size := range sizes {
		for _, p := range a.cache[size] {
			if err := a.raw.Free(p); err != nil {
				errs = append(errs, fmt.Errorf("devmem: releasing %#x (%s): %w", uintptr(p), FormatBytes(size), err))
			} else {
				a.stats.DeviceFrees++
			}
			a.stats.Reserved -= size
		}
	}
	clear(a.cache)
	a.stats.Cached = 0
	a.stats.CachedBlocks = 0
	return errors.Join(errs...)
}

// Stats returns a snapshot of the counters.
func (a *Allocator) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stats
}
