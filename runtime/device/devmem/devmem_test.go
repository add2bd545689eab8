package devmem

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocmforge/forge/internal/longtest"
	"github.com/rocmforge/forge/runtime/device/abi"
)

// refClasses lists the small size classes the package doc promises, built
// by enumeration rather than RoundSize's bit arithmetic.
func refClasses() []uint64 {
	c := []uint64{512}
	for p := uint64(512); p < 1<<20; p *= 2 {
		for i := uint64(1); i <= 4; i++ {
			c = append(c, p+i*p/4)
		}
	}
	return c
}

var classes = refClasses()

// refRound is RoundSize by search.
func refRound(n uint64) uint64 {
	if n <= 1<<20 {
		for _, c := range classes {
			if c >= n {
				return c
			}
		}
	}
	return (n + 2<<20 - 1) / (2 << 20) * (2 << 20)
}

func TestRoundSize(t *testing.T) {
	if len(classes) != 45 {
		t.Errorf("%d small classes, the doc says 45", len(classes))
	}
	for _, tc := range []struct{ n, want uint64 }{
		{0, 512}, {1, 512}, {512, 512}, {513, 640}, {640, 640}, {641, 768}, {1024, 1024}, {1025, 1280},
		{3000, 3072}, {4096, 4096}, {4097, 5120}, {100000, 114688}, {1 << 20, 1 << 20},
		{1<<20 + 1, 2 << 20}, {2 << 20, 2 << 20}, {2<<20 + 1, 4 << 20}, {36 << 20, 36 << 20},
		{37748736 + 1, 38 << 20}, {MaxAlloc, MaxAlloc},
	} {
		if got := RoundSize(tc.n); got != tc.want {
			t.Errorf("RoundSize(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	check := func(n uint64) {
		got := RoundSize(n)
		if want := refRound(n); got != want {
			t.Fatalf("RoundSize(%d) = %d, want %d", n, got, want)
		}
		if RoundSize(got) != got {
			t.Fatalf("RoundSize(%d) = %d is not a fixed point", n, got)
		}
		if got%128 != 0 {
			t.Fatalf("RoundSize(%d) = %d is not a multiple of 128", n, got)
		}
		if n > MinBlock && n <= SmallLimit && 4*(got-n) >= n {
			t.Fatalf("RoundSize(%d) = %d wastes 25%% or more", n, got)
		}
		if n > SmallLimit && got-n >= LargeStep {
			t.Fatalf("RoundSize(%d) = %d wastes a whole large step", n, got)
		}
	}
	for n := uint64(0); n < 70000; n++ {
		check(n)
	}
	for range 200000 {
		check(r.Uint64N(64 << 20))
	}
	for _, c := range classes {
		check(c - 1)
		check(c)
		check(c + 1)
	}
}

// model is the reference the caching allocator is checked against: the
// documented behaviour written the plain way, over its own bookkeeping.
type model struct {
	limit uint64
	live  map[abi.DevicePtr]block
	cache map[uint64][]abi.DevicePtr // LIFO per class
	want  Stats
}

func newModel(limit uint64) *model {
	return &model{limit: limit, live: map[abi.DevicePtr]block{}, cache: map[uint64][]abi.DevicePtr{}}
}

func (m *model) release() {
	m.want.Releases++
	for _, list := range m.cache {
		m.want.DeviceFrees += int64(len(list))
	}
	m.want.Reserved -= m.want.Cached
	m.want.Cached, m.want.CachedBlocks = 0, 0
	clear(m.cache)
}

// alloc predicts an Alloc of n bytes: the pointer a hit must return (0 for
// a miss), and whether it fails.
func (m *model) alloc(n uint64) (hit abi.DevicePtr, fail bool) {
	size := refRound(n)
	if list := m.cache[size]; len(list) > 0 {
		hit = list[len(list)-1]
		m.cache[size] = list[:len(list)-1]
		m.want.Cached -= size
		m.want.CachedBlocks--
		m.want.CacheHits++
		return hit, false
	}
	fits := func() bool { return m.limit == 0 || m.want.Reserved+size <= m.limit }
	if !fits() && m.want.CachedBlocks > 0 {
		m.want.OOMRetries++
		m.release()
	}
	if !fits() {
		m.want.Failures++
		return 0, true
	}
	m.want.CacheMisses++
	m.want.DeviceAllocs++
	m.want.Reserved += size
	m.want.PeakReserved = max(m.want.PeakReserved, m.want.Reserved)
	return 0, false
}

// allocated records the block Alloc returned.
func (m *model) allocated(p abi.DevicePtr, n uint64) {
	size := refRound(n)
	m.live[p] = block{size, n}
	m.want.Allocs++
	m.want.Allocated += size
	m.want.LiveBlocks++
	m.want.InUse += size
	m.want.Requested += n
	m.want.PeakInUse = max(m.want.PeakInUse, m.want.InUse)
}

func (m *model) free(p abi.DevicePtr) {
	b := m.live[p]
	delete(m.live, p)
	m.want.Frees++
	m.want.LiveBlocks--
	m.want.InUse -= b.size
	m.want.Requested -= b.requested
	m.want.Cached += b.size
	m.want.CachedBlocks++
	m.cache[b.size] = append(m.cache[b.size], p)
}

// tag writes p's identity at both ends of its block, so that a block handed
// out twice, or memory freed under a live block, shows.
func tag(t *testing.T, h *Host, p abi.DevicePtr, size uint64) {
	buf, ok := h.Bytes(p, size)
	if !ok {
		t.Fatalf("Host.Bytes(%#x, %d) failed for a live block", p, size)
	}
	binary.LittleEndian.PutUint64(buf, uint64(p))
	binary.LittleEndian.PutUint64(buf[size-8:], ^uint64(p))
}

func checkTag(t *testing.T, h *Host, p abi.DevicePtr, size uint64) {
	buf, ok := h.Bytes(p, size)
	if !ok {
		t.Fatalf("Host.Bytes(%#x, %d) failed for a live block", p, size)
	}
	if binary.LittleEndian.Uint64(buf) != uint64(p) || binary.LittleEndian.Uint64(buf[size-8:]) != ^uint64(p) {
		t.Fatalf("block %#x (%d bytes) was overwritten while live", p, size)
	}
}

// TestModel runs random operations against the allocator over a limited
// Host and the model side by side, comparing every counter after every
// operation, the pointers of cache hits, and the Host's own bookkeeping.
// One seed by default, four with the long tests (each is seconds of the
// Host zeroing its blocks).
func TestModel(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			if seed > 0 {
				longtest.Skip(t, "the allocator against its model, more seeds")
			}
			const limit = 20 << 20
			h := NewHost(limit)
			a := New(h)
			m := newModel(limit)
			r := rand.New(rand.NewPCG(seed, 99))
			favourites := []uint64{0, 1000, 4096, 100000, 3 << 20, 5 << 20}
			size := func() uint64 {
				switch p := r.IntN(10); {
				case p < 3:
					return r.Uint64N(2048)
				case p < 5:
					return r.Uint64N(1<<20 + 4096)
				case p < 8:
					return favourites[r.IntN(len(favourites))]
				default:
					return 1<<20 + r.Uint64N(6<<20)
				}
			}
			var live []abi.DevicePtr
			for op := range 6000 {
				switch p := r.IntN(100); {
				case p < 48:
					n := size()
					hit, fail := m.alloc(n)
					got, err := a.Alloc(n)
					switch {
					case fail:
						if !errors.Is(err, ErrOutOfMemory) {
							t.Fatalf("op %d: Alloc(%d) = %#x, %v; the model expects out of memory", op, n, got, err)
						}
					case err != nil:
						t.Fatalf("op %d: Alloc(%d): %v", op, n, err)
					case hit != 0 && got != hit:
						t.Fatalf("op %d: Alloc(%d) = %#x, want the most recently freed block of its class %#x", op, n, got, hit)
					default:
						if _, dup := m.live[got]; dup || got == 0 {
							t.Fatalf("op %d: Alloc(%d) = %#x, a live or null block", op, n, got)
						}
						m.allocated(got, n)
						live = append(live, got)
						tag(t, h, got, refRound(n))
					}
				case p < 95 && len(live) > 0:
					i := r.IntN(len(live))
					ptr := live[i]
					live[i] = live[len(live)-1]
					live = live[:len(live)-1]
					checkTag(t, h, ptr, m.live[ptr].size)
					m.free(ptr)
					if err := a.Free(ptr); err != nil {
						t.Fatalf("op %d: Free(%#x): %v", op, ptr, err)
					}
				case p < 97:
					m.release()
					if err := a.Release(); err != nil {
						t.Fatalf("op %d: Release: %v", op, err)
					}
				default:
					if len(live) > 0 {
						// A double free must fail and change nothing.
						ptr := live[r.IntN(len(live))] + 1
						if err := a.Free(ptr); !errors.Is(err, ErrUnknownPointer) {
							t.Fatalf("op %d: Free of a non-block %#x: %v", op, ptr, err)
						}
					}
				}
				if got := a.Stats(); got != m.want {
					t.Fatalf("op %d: stats differ from the model (-model +allocator):\n%s", op, cmp.Diff(m.want, got))
				}
				if h.Used() != m.want.Reserved {
					t.Fatalf("op %d: the host holds %d bytes for the allocator, which reports %d reserved", op, h.Used(), m.want.Reserved)
				}
			}
			st := a.Stats()
			if st.CacheHits == 0 || st.OOMRetries == 0 || st.Failures == 0 || st.DeviceFrees == 0 {
				t.Errorf("the random run missed a path: %v", st)
			}
			for _, p := range live {
				checkTag(t, h, p, m.live[p].size)
				if err := a.Free(p); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Release(); err != nil {
				t.Fatal(err)
			}
			if st := a.Stats(); st.Reserved != 0 || st.InUse != 0 || h.Used() != 0 || h.Blocks() != 0 {
				t.Errorf("after freeing and releasing everything: %v; host holds %d bytes", st, h.Used())
			}
		})
	}
}

// TestAccounting walks one scripted sequence through every counter.
func TestAccounting(t *testing.T) {
	h := NewHost(0)
	a := New(h)
	p1, _ := a.Alloc(1000)    // class 1024, miss
	p2, _ := a.Alloc(3 << 20) // class 4 MiB, miss
	_, _ = a.Alloc(4<<20 - 1) // class 4 MiB, miss
	want := Stats{
		InUse: 1024 + 8<<20, PeakInUse: 1024 + 8<<20, Requested: 1000 + 3<<20 + 4<<20 - 1,
		Reserved: 1024 + 8<<20, PeakReserved: 1024 + 8<<20, LiveBlocks: 3, Allocated: 1024 + 8<<20,
		Allocs: 3, CacheMisses: 3, DeviceAllocs: 3,
	}
	if got := a.Stats(); got != want {
		t.Fatalf("after 3 allocs (-want +got):\n%s", cmp.Diff(want, got))
	}
	if s, ok := a.BlockSize(p2); !ok || s != 4<<20 {
		t.Errorf("BlockSize(p2) = %d, %v", s, ok)
	}
	for _, p := range []abi.DevicePtr{p2, p1} {
		if err := a.Free(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Free(p1); !errors.Is(err, ErrUnknownPointer) || !strings.Contains(err.Error(), "double free") {
		t.Errorf("double free: %v", err)
	}
	if err := a.Free(0); err != nil {
		t.Errorf("Free(0): %v", err)
	}
	if _, ok := a.BlockSize(p1); ok {
		t.Error("BlockSize of a freed block succeeded")
	}
	q, _ := a.Alloc(900) // class 1024: hit, p1 again
	if q != p1 {
		t.Errorf("Alloc(900) = %#x, want the cached block %#x", q, p1)
	}
	want = Stats{
		InUse: 1024 + 4<<20, PeakInUse: 1024 + 8<<20, Requested: 900 + 4<<20 - 1,
		Cached: 4 << 20, Reserved: 1024 + 8<<20, PeakReserved: 1024 + 8<<20, LiveBlocks: 2, CachedBlocks: 1, Allocated: 2048 + 8<<20,
		Allocs: 4, Frees: 2, CacheHits: 1, CacheMisses: 3, DeviceAllocs: 3,
	}
	if got := a.Stats(); got != want {
		t.Fatalf("after frees and a hit (-want +got):\n%s", cmp.Diff(want, got))
	}
	if f, w := want.CachedFraction(), float64(4<<20)/float64(1024+8<<20); f != w {
		t.Errorf("CachedFraction = %v, want %v", f, w)
	}
	if f, w := want.RoundingWaste(), float64(124+1)/float64(1024+8<<20); f != w {
		t.Errorf("RoundingWaste = %v, want %v", f, w)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	want.Cached, want.CachedBlocks, want.Reserved = 0, 0, 1024+4<<20
	want.Releases, want.DeviceFrees = 1, 1
	if got := a.Stats(); got != want {
		t.Fatalf("after Release (-want +got):\n%s", cmp.Diff(want, got))
	}
	if h.Used() != want.Reserved {
		t.Errorf("host holds %d, want %d", h.Used(), want.Reserved)
	}
	for _, s := range []string{"in use 4.0 MiB", "peak 8.0 MiB", "4 allocs (1 hits, 3 misses, 0 failed)", "1 device frees", "1 releases"} {
		if !strings.Contains(a.Stats().String(), s) {
			t.Errorf("Stats.String() = %q lacks %q", a.Stats().String(), s)
		}
	}
	if (Stats{}).CachedFraction() != 0 || (Stats{}).RoundingWaste() != 0 {
		t.Error("fractions of empty stats are not 0")
	}
}

func TestOutOfMemory(t *testing.T) {
	h := NewHost(10 << 20)
	a := New(h)
	p, err := a.Alloc(6 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Free(p); err != nil {
		t.Fatal(err)
	}
	// 6 MiB cached; 8 MiB does not fit beside it: release, then retry.
	q, err := a.Alloc(8 << 20)
	if err != nil {
		t.Fatalf("Alloc after a release should succeed: %v", err)
	}
	st := a.Stats()
	if st.OOMRetries != 1 || st.Releases != 1 || st.DeviceFrees != 1 || st.Reserved != 8<<20 || st.Cached != 0 {
		t.Errorf("after the retry: %v", st)
	}
	// Nothing cached to release: fails, wrapping ErrOutOfMemory, and names the sizes.
	_, err = a.Alloc(4 << 20)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("Alloc past the limit: %v, want ErrOutOfMemory", err)
	}
	for _, s := range []string{"allocating 4.0 MiB", "8.0 MiB in use", "out of memory"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if st := a.Stats(); st.Failures != 1 || st.OOMRetries != 1 || st.Allocs != 2 {
		t.Errorf("after the failure: %v", st)
	}
	if _, err := a.Alloc(MaxAlloc + 1); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("Alloc(MaxAlloc+1): %v", err)
	}
	if err := a.Free(q); err != nil {
		t.Fatal(err)
	}
}

// faultyRaw fails what it is told to.
type faultyRaw struct {
	*Host
	allocErr, freeErr error
	null              bool
	repeat            abi.DevicePtr
}

func (f *faultyRaw) Alloc(n uint64) (abi.DevicePtr, error) {
	switch {
	case f.allocErr != nil:
		return 0, f.allocErr
	case f.null:
		return 0, nil
	case f.repeat != 0:
		return f.repeat, nil
	}
	return f.Host.Alloc(n)
}

func (f *faultyRaw) Free(p abi.DevicePtr) error {
	if f.freeErr != nil {
		return f.freeErr
	}
	return f.Host.Free(p)
}

func TestRawFaults(t *testing.T) {
	raw := &faultyRaw{Host: NewHost(0)}
	a := New(raw)
	p, err := a.Alloc(100)
	if err != nil {
		t.Fatal(err)
	}
	other := errors.New("device lost")
	raw.allocErr = other
	if _, err := a.Alloc(5000); !errors.Is(err, other) || errors.Is(err, ErrOutOfMemory) {
		t.Errorf("raw error: %v", err)
	}
	raw.allocErr = nil
	raw.null = true
	if _, err := a.Alloc(5000); err == nil || !strings.Contains(err.Error(), "null pointer") {
		t.Errorf("null from raw: %v", err)
	}
	raw.null = false
	raw.repeat = p
	if _, err := a.Alloc(5000); err == nil || !strings.Contains(err.Error(), "still in use") {
		t.Errorf("live pointer from raw: %v", err)
	}
	raw.repeat = 0
	if st := a.Stats(); st.Failures != 3 || st.Allocs != 1 || st.Reserved != 512 {
		t.Errorf("after raw faults: %v", st)
	}
	if err := a.Free(p); err != nil {
		t.Fatal(err)
	}
	raw.freeErr = other
	if err := a.Release(); !errors.Is(err, other) {
		t.Errorf("Release with a failing raw Free: %v", err)
	}
	if st := a.Stats(); st.Reserved != 0 || st.Cached != 0 || st.DeviceFrees != 0 || st.Releases != 1 {
		t.Errorf("after a failed release: %v", st)
	}
}

// TestConcurrent hammers one allocator from several goroutines (run it
// with -race) and checks the books balance afterwards.
func TestConcurrent(t *testing.T) {
	h := NewHost(0)
	a := New(h)
	sizes := []uint64{0, 700, 4096, 50000, 1 << 20, 3 << 20}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			var mine []abi.DevicePtr
			for range 2000 {
				if len(mine) > 0 && r.IntN(2) == 0 {
					i := r.IntN(len(mine))
					if err := a.Free(mine[i]); err != nil {
						t.Error(err)
						return
					}
					mine = append(mine[:i], mine[i+1:]...)
					continue
				}
				if r.IntN(50) == 0 {
					if err := a.Release(); err != nil {
						t.Error(err)
						return
					}
				}
				p, err := a.Alloc(sizes[r.IntN(len(sizes))])
				if err != nil {
					t.Error(err)
					return
				}
				mine = append(mine, p)
			}
			for _, p := range mine {
				if err := a.Free(p); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	st := a.Stats()
	switch {
	case st.Allocs != st.Frees || st.InUse != 0 || st.Requested != 0 || st.LiveBlocks != 0:
		t.Errorf("live blocks remain: %v", st)
	case st.CacheHits+st.CacheMisses != st.Allocs || st.DeviceAllocs != st.CacheMisses:
		t.Errorf("hit/miss counts do not add up: %v", st)
	case st.Reserved != st.Cached || h.Used() != st.Reserved:
		t.Errorf("reserved %d, cached %d, host %d", st.Reserved, st.Cached, h.Used())
	case st.DeviceAllocs-st.DeviceFrees != st.CachedBlocks:
		t.Errorf("device allocs %d - frees %d != cached blocks %d", st.DeviceAllocs, st.DeviceFrees, st.CachedBlocks)
	}
	if err := a.Release(); err != nil || h.Used() != 0 || h.Blocks() != 0 {
		t.Errorf("Release: %v; host still holds %d bytes", err, h.Used())
	}
}

func TestHost(t *testing.T) {
	h := NewHost(4096)
	p, err := h.Alloc(1000)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := h.Bytes(p, 1000)
	if !ok || len(b) != 1000 {
		t.Fatalf("Bytes: %d, %v", len(b), ok)
	}
	b[999] = 7
	if _, ok := h.Bytes(p, 1001); ok {
		t.Error("Bytes past the block succeeded")
	}
	if _, err := h.Alloc(3097); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("Alloc past the limit: %v", err)
	}
	if _, err := h.Alloc(1 << 62); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("huge Alloc: %v", err)
	}
	z, err := h.Alloc(0)
	if err != nil || z == 0 || z == p {
		t.Errorf("Alloc(0) = %#x, %v", z, err)
	}
	if h.Used() != 1000 || h.Blocks() != 2 {
		t.Errorf("Used %d, Blocks %d", h.Used(), h.Blocks())
	}
	for _, q := range []abi.DevicePtr{p, z} {
		if err := h.Free(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Free(p); !errors.Is(err, ErrUnknownPointer) {
		t.Errorf("double free: %v", err)
	}
	if h.Used() != 0 {
		t.Errorf("Used after frees: %d", h.Used())
	}
	if got := FormatBytes(1536); got != "1.5 KiB" {
		t.Errorf("FormatBytes(1536) = %q", got)
	}
	if got := FormatBytes(3 << 40); got != "3.0 TiB" {
		t.Errorf("FormatBytes(3 TiB) = %q", got)
	}
}
