package devmem

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocmforge/forge/runtime/device/abi"
)

func TestDirect(t *testing.T) {
	h := NewHost(3 << 20)
	d := NewDirect(h)
	p1, err := d.Alloc(1000)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := d.Alloc(2 << 20)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{
		InUse: 1000 + 2<<20, PeakInUse: 1000 + 2<<20, Requested: 1000 + 2<<20, Reserved: 1000 + 2<<20,
		PeakReserved: 1000 + 2<<20, LiveBlocks: 2, Allocated: 1000 + 2<<20, Allocs: 2, CacheMisses: 2, DeviceAllocs: 2,
	}
	if got := d.Stats(); got != want {
		t.Fatalf("after 2 allocs (-want +got):\n%s", cmp.Diff(want, got))
	}
	if h.Used() != 1000+2<<20 {
		t.Errorf("the host holds %d bytes: Direct must not round", h.Used())
	}
	if _, err := d.Alloc(2 << 20); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("past the host's limit: %v", err)
	}
	if _, err := d.Alloc(0); err == nil {
		t.Error("a 0-byte allocation succeeded")
	}
	for _, p := range []uintptr{uintptr(p2), uintptr(p1)} {
		if err := d.Free(abi.DevicePtr(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Free(p1); !errors.Is(err, ErrUnknownPointer) {
		t.Errorf("double free: %v", err)
	}
	want = Stats{
		PeakInUse: 1000 + 2<<20, PeakReserved: 1000 + 2<<20, Allocated: 1000 + 2<<20,
		Allocs: 2, Frees: 2, Failures: 2, CacheMisses: 2, DeviceAllocs: 2, DeviceFrees: 2,
	}
	if got := d.Stats(); got != want {
		t.Fatalf("after freeing (-want +got):\n%s", cmp.Diff(want, got))
	}
	if h.Used() != 0 || h.Blocks() != 0 {
		t.Errorf("the host still holds %d bytes in %d blocks", h.Used(), h.Blocks())
	}
}
