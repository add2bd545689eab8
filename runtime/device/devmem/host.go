package devmem

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/rocmforge/forge/runtime/device/abi"
)

// Host is a Raw allocator over Go memory, for the cpu backend and for
// tests of the caching allocator: each block is a []byte that Host keeps
// referenced until it is freed (Go's heap does not move objects, so the
// address stays valid), and Bytes gives it back as a slice. An optional
// limit makes allocations past it fail with ErrOutOfMemory, as a device
// runs out. It is safe for concurrent use.
type Host struct {
	mu    sync.Mutex
	limit uint64
	used  uint64
	bufs  map[abi.DevicePtr][]byte
}

// NewHost returns a host allocator that hands out at most limit bytes at a
// time; 0 means no limit.
func NewHost(limit uint64) *Host {
	return &Host{limit: limit, bufs: map[abi.DevicePtr][]byte{}}
}

// Alloc returns n zeroed bytes (at least 1, so that every block has its
// own address).
func (h *Host) Alloc(n uint64) (abi.DevicePtr, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.limit > 0 && (n > h.limit || h.used > h.limit-n) {
		return 0, fmt.Errorf("devmem: host allocator: %d bytes requested with %d of its %d in use: %w", n, h.used, h.limit, ErrOutOfMemory)
	}
	if n > MaxAlloc {
		return 0, fmt.Errorf("devmem: host allocator: %d bytes requested: %w", n, ErrOutOfMemory)
	}
	buf := make([]byte, max(n, 1))
	p := abi.DevicePtr(uintptr(unsafe.Pointer(&buf[0])))
	h.bufs[p] = buf[:n]
	h.used += n
	return p, nil
}

// Free releases a block from Alloc.
func (h *Host) Free(p abi.DevicePtr) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	buf, ok := h.bufs[p]
	if !ok {
		return fmt.Errorf("devmem: host allocator: free of %#x: %w", uintptr(p), ErrUnknownPointer)
	}
	delete(h.bufs, p)
	h.used -= uint64(len(buf))
	return nil
}

// Bytes returns the first n bytes of block p, false if p is not a block of
// h or is shorter than n. The slice is valid until p is freed.
func (h *Host) Bytes(p abi.DevicePtr, n uint64) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	buf, ok := h.bufs[p]
	if !ok || uint64(len(buf)) < n {
		return nil, false
	}
	return buf[:n:n], true
}

// Used is the number of bytes allocated and not freed.
func (h *Host) Used() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.used
}

// Blocks is the number of blocks allocated and not freed.
func (h *Host) Blocks() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bufs)
}
