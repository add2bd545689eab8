package devmem

import (
	"errors"
	"fmt"
	"sync"

	"github.com/rocmforge/forge/runtime/device/abi"
)

// Direct is an allocator without a cache: every Alloc is an allocation of
// its raw allocator of exactly the bytes asked for (no size class), and
// every Free returns the block to the raw allocator at once. It keeps the
// caching Allocator's Stats, so that direct device allocation and caching
// compare on the same figures: every Alloc is a CacheMiss and a
// DeviceAlloc, every Free a DeviceFree, Cached is always 0, Reserved is
// InUse and Requested. It is also a Raw allocator itself: under a caching
// Allocator it counts the device allocations the cache makes. It is safe
// for concurrent use.
type Direct struct {
	mu    sync.Mutex
	raw   Raw
	live  map[abi.DevicePtr]uint64
	stats Stats
}

var _ Raw = (*Direct)(nil)

// NewDirect returns a direct allocator over raw.
func NewDirect(raw Raw) *Direct {
	return &Direct{raw: raw, live: map[abi.DevicePtr]uint64{}}
}

// Alloc allocates bytes bytes (at least 1) from the raw allocator.
func (d *Direct) Alloc(bytes uint64) (abi.DevicePtr, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if bytes == 0 || bytes > MaxAlloc {
		d.stats.Failures++
		if bytes == 0 {
			return 0, errors.New("devmem: direct allocation of 0 bytes")
		}
		return 0, fmt.Errorf("devmem: allocating %d bytes: more than any device holds (%w)", bytes, ErrOutOfMemory)
	}
	p, err := d.raw.Alloc(bytes)
	switch {
	case err != nil:
		d.stats.Failures++
		return 0, fmt.Errorf("devmem: direct allocation of %s (%d bytes) with %s in use: %w", FormatBytes(bytes), bytes, FormatBytes(d.stats.InUse), err)
	case p == 0:
		d.stats.Failures++
		return 0, fmt.Errorf("devmem: allocating %d bytes: the raw allocator returned a null pointer without an error", bytes)
	}
	if _, dup := d.live[p]; dup {
		d.stats.Failures++
		return 0, fmt.Errorf("devmem: the raw allocator returned %#x, which is still in use", uintptr(p))
	}
	d.live[p] = bytes
	s := &d.stats
	s.Allocs++
	s.CacheMisses++
	s.DeviceAllocs++
	s.Allocated += bytes
	s.LiveBlocks++
	s.InUse += bytes
	s.Requested += bytes
	s.Reserved += bytes
	s.PeakInUse = max(s.PeakInUse, s.InUse)
	s.PeakReserved = max(s.PeakReserved, s.Reserved)
	return p, nil
}

// Free returns block p to the raw allocator. Freeing 0 does nothing;
// freeing a pointer that is not a live block is an error wrapping
// ErrUnknownPointer. A block the raw allocator fails to free is dropped
// from the accounting all the same, and the error returned.
func (d *Direct) Free(p abi.DevicePtr) error {
	if p == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n, ok := d.live[p]
	if !ok {
		return fmt.Errorf("devmem: free of %#x: %w (a double free?)", uintptr(p), ErrUnknownPointer)
	}
	delete(d.live, p)
	s := &d.stats
	s.Frees++
	s.LiveBlocks--
	s.InUse -= n
	s.Requested -= n
	s.Reserved -= n
	if err := d.raw.Free(p); err != nil {
		return fmt.Errorf("devmem: direct free of %#x (%s): %w", uintptr(p), FormatBytes(n), err)
	}
	s.DeviceFrees++
	return nil
}

// Stats returns a snapshot of the counters.
func (d *Direct) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}
