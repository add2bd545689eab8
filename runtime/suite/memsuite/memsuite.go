// Package memsuite is forge's memory suite: the scenario
// constructors KVCache, Scratch and Allocator that gen/gogen registers,
// one suite per spec of specs/workloads (memory/kv_cache, memory/scratch,
// memory/allocator).
//
// Every scenario runs on every backend. On a GPU backend (one with a
// Device() *gpu.Device, as runtime/backend/gpu's) it allocates device
// memory through the runtime: devmem's caching Allocator, or devmem.Direct
// for direct allocation, over the device's forge_rt_malloc/forge_rt_free;
// it copies with the library's forge_copy kernel and fills with
// forge_rt_memset. On the cpu backend the same code runs against Go
// memory: devmem.Host is the raw allocator, copies and fills are Go's, and
// each case also reports Go's own accounting (runtime/metrics: bytes and
// objects the Go heap allocated during the case, garbage collections).
//
// Every figure comes from the allocators' statistics (devmem.Stats: peak,
// current, counts, CachedFraction and RoundingWaste), read before and
// after the work; the byte formulas of the design (bytes per token,
// paged-cache payload) are checked against them, and a scenario fails
// when a check does not hold. Each scenario has an "agreement" case that
// checks the statistics against an outside report within 1%: on a GPU the
// device's free-memory report (MemInfo), whose drop while the scenario's
// own buffers are allocated must match the allocator's Reserved growth,
// and whose rise after Release must match its fall; on the cpu Go's count
// of bytes its heap allocated. Drivers hand out memory in pages (2 MiB on
// NVIDIA and AMD for large allocations) and carve small requests out of
// shared pools, so the agreement cases allocate at least 256 MiB in
// buffers of at least 2 MiB, where a page's difference is under 1%.
//
// Allocations are timed with the host's clock (an allocation is a host
// call); fills (Memset) with device events on a GPU, wall time on the cpu;
// KV-cache growth runs, host-issued copy kernels, with the host's clock up
// to a synchronisation, since what they measure includes the launches.
package memsuite

import (
	"errors"
	"fmt"
	"math"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/devmem"
	"github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/suite"
)

// DeviceBackend is what the memory suite needs of a GPU backend: the
// device, whose raw allocator, copy kernel, memset and free-memory report
// it uses. runtime/backend/gpu's Backend has it.
type DeviceBackend interface {
	backend.Backend
	Device() *gpu.Device
}

// AgreementTolerance is the most the allocator's figures may differ from
// the device's free-memory report (or, on the cpu, Go's heap accounting),
// as a fraction of the bytes compared.
const AgreementTolerance = 0.01

// minAgreementBytes is the least an agreement case allocates.
const minAgreementBytes = 256 << 20

// allocator is what the scenarios allocate through: devmem's caching
// Allocator or its Direct one.
type allocator interface {
	Alloc(bytes uint64) (abi.DevicePtr, error)
	Free(p abi.DevicePtr) error
	Stats() devmem.Stats
}

var (
	_ allocator = (*devmem.Allocator)(nil)
	_ allocator = (*devmem.Direct)(nil)
)

// buffer is an allocated block: its pointer, the bytes asked for and, on
// the cpu, the bytes themselves.
type buffer struct {
	p    abi.DevicePtr
	n    uint64
	host []byte
}

// platform is the memory a scenario runs against: a GPU device's or Go's.
type platform struct {
	name  string
	dev   *gpu.Device  // nil on the cpu
	host  *devmem.Host // the cpu's raw allocator
	raw   devmem.Raw
	timer *gpu.Timer // device events on stream 0, on a GPU
}

// deviceRaw is the device's own allocator, uncached.
type deviceRaw struct{ d *gpu.Device }

func (r deviceRaw) Alloc(n uint64) (abi.DevicePtr, error) { return r.d.Malloc(n) }
func (r deviceRaw) Free(p abi.DevicePtr) error            { return r.d.Free(p) }

// newPlatform returns the platform of backend b: its device if it has
// one, else Go memory.
func newPlatform(b backend.Backend) (*platform, error) {
	if db, ok := b.(DeviceBackend); ok && db.Device() != nil {
		d := db.Device()
		t, err := d.NewTimer(0)
		if err != nil {
			return nil, fmt.Errorf("memsuite: device timer: %w", err)
		}
		return &platform{name: b.Name(), dev: d, raw: deviceRaw{d}, timer: t}, nil
	}
	h := devmem.NewHost(0)
	return &platform{name: b.Name(), host: h, raw: h}, nil
}

func (pl *platform) close() error {
	if pl.timer != nil {
		return pl.timer.Close()
	}
	return nil
}

// onDevice tells a GPU platform from the cpu's.
func (pl *platform) onDevice() bool { return pl.dev != nil }

// caching returns a new caching allocator over the platform's memory.
func (pl *platform) caching() *devmem.Allocator { return devmem.New(pl.raw) }

// direct returns a new direct allocator over the platform's memory.
func (pl *platform) direct() *devmem.Direct { return devmem.NewDirect(pl.raw) }

// alloc allocates n bytes from a.
func (pl *platform) alloc(a allocator, n uint64) (buffer, error) {
	p, err := a.Alloc(n)
	if err != nil {
		return buffer{}, err
	}
	b := buffer{p: p, n: n}
	if pl.host != nil {
		var ok bool
		if b.host, ok = pl.host.Bytes(p, n); !ok {
			return buffer{}, fmt.Errorf("memsuite: block %#x of %d bytes is not the host allocator's", uintptr(p), n)
		}
	}
	return b, nil
}

// copy copies n bytes from src at sOff to dst at dOff: the forge_copy
// kernel on the default stream on a GPU (asynchronous: sync waits for it),
// Go's copy on the cpu.
func (pl *platform) copy(dst buffer, dOff uint64, src buffer, sOff, n uint64) error {
	if dOff+n > dst.n || sOff+n > src.n {
		return fmt.Errorf("memsuite: copy of %d bytes from %d of %d to %d of %d: out of range", n, sOff, src.n, dOff, dst.n)
	}
	if pl.dev != nil {
		return pl.dev.Copy(dst.p+abi.DevicePtr(dOff), src.p+abi.DevicePtr(sOff), n, 0)
	}
	copy(dst.host[dOff:dOff+n], src.host[sOff:sOff+n])
	return nil
}

// fill sets n bytes of b from off to v: forge_rt_memset on a GPU
// (synchronous), on the cpu Go's copy doubling a filled prefix.
func (pl *platform) fill(b buffer, off, n uint64, v byte) error {
	if off+n > b.n {
		return fmt.Errorf("memsuite: fill of %d bytes at %d of %d: out of range", n, off, b.n)
	}
	if pl.dev != nil {
		return pl.dev.Memset(b.p+abi.DevicePtr(off), v, n)
	}
	fillBytes(b.host[off:off+n], v)
	return nil
}

func fillBytes(s []byte, v byte) {
	if v == 0 {
		clear(s)
		return
	}
	if len(s) == 0 {
		return
	}
	s[0] = v
	for k := 1; k < len(s); k *= 2 {
		copy(s[k:], s[:k])
	}
}

// upload copies host bytes to b at off.
func (pl *platform) upload(b buffer, off uint64, src []byte) error {
	if off+uint64(len(src)) > b.n {
		return fmt.Errorf("memsuite: upload of %d bytes at %d of %d: out of range", len(src), off, b.n)
	}
	if pl.dev != nil {
		return pl.dev.H2D(b.p+abi.DevicePtr(off), src)
	}
	copy(b.host[off:], src)
	return nil
}

// download copies n bytes of b at off to the host.
func (pl *platform) download(b buffer, off, n uint64) ([]byte, error) {
	if off+n > b.n {
		return nil, fmt.Errorf("memsuite: download of %d bytes at %d of %d: out of range", n, off, b.n)
	}
	out := make([]byte, n)
	if pl.dev != nil {
		return out, pl.dev.D2H(out, b.p+abi.DevicePtr(off))
	}
	copy(out, b.host[off:off+n])
	return out, nil
}

// sync waits for the device's work.
func (pl *platform) sync() error {
	if pl.dev != nil {
		return pl.dev.Synchronize()
	}
	return nil
}

// timeWork returns how long fn's device work took: device events around
// it on a GPU (fn's work must be on the default stream), the wall clock on
// the cpu.
func (pl *platform) timeWork(fn func() error) (time.Duration, error) {
	if pl.timer == nil {
		t0 := time.Now()
		err := fn()
		return time.Since(t0), err
	}
	if err := pl.timer.Start(); err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		pl.timer.Stop()
		return 0, err
	}
	return pl.timer.Stop()
}

// timeHost returns how long fn took on the host's clock.
func timeHost(fn func() error) (time.Duration, error) {
	t0 := time.Now()
	err := fn()
	return time.Since(t0), err
}

// goMem is Go's own accounting at one moment (runtime/metrics).
type goMem struct {
	allocBytes, allocObjects, heapLive, gcCycles uint64
}

var goMetricNames = []string{
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/memory/classes/heap/objects:bytes",
	"/gc/cycles/total:gc-cycles",
}

func readGoMem() goMem {
	s := make([]metrics.Sample, len(goMetricNames))
	for i, n := range goMetricNames {
		s[i].Name = n
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	return goMem{allocBytes: v(0), allocObjects: v(1), heapLive: v(2), gcCycles: v(3)}
}

// addGo adds, on the cpu, Go's figures of the interval from before to
// now: go_alloc (bytes the Go heap allocated), go_objects and go_gcs.
func (pl *platform) addGo(m *suite.Measurement, before goMem) {
	if pl.onDevice() {
		return
	}
	now := readGoMem()
	m.Add("go_alloc", float64(now.allocBytes-before.allocBytes), "B")
	m.Add("go_objects", float64(now.allocObjects-before.allocObjects), "")
	m.Add("go_gcs", float64(now.gcCycles-before.gcCycles), "")
}

// agreement is a scenario's agreement case: alloc allocates the
// scenario's own buffers (at least minAgreementBytes, in blocks of at
// least 2 MiB) from a new caching allocator; the allocator's Reserved
// growth is compared with the device's drop in free memory (GPU) or the
// bytes Go's heap allocated (cpu), and on a GPU, after freeing and
// releasing everything, the device's rise in free memory with the fall of
// Reserved. The case reports them and the relative differences, and it
// fails when one is past AgreementTolerance.
func (pl *platform) agreement(env *suite.Env, what string, alloc func(a allocator) ([]buffer, error)) (err error) {
	a := pl.caching()
	var bufs []buffer
	defer func() {
		for _, b := range bufs {
			err = errors.Join(err, a.Free(b.p))
		}
		err = errors.Join(err, a.Release())
	}()
	var free0, free1, free2 uint64
	var g0 goMem
	if pl.dev != nil {
		if err := pl.sync(); err != nil {
			return err
		}
		if free0, _, err = pl.dev.MemInfo(); err != nil {
			return err
		}
	} else {
		g0 = readGoMem()
	}
	before := a.Stats()
	bufs, err = alloc(a)
	if err != nil {
		return err
	}
	st := a.Stats()
	reserved := st.Reserved - before.Reserved
	if reserved < minAgreementBytes {
		return fmt.Errorf("agreement: %s reserved only %s; the check needs at least %s", what, devmem.FormatBytes(reserved), devmem.FormatBytes(minAgreementBytes))
	}
	m := suite.Measurement{Case: "agreement"}
	m.Add("reserved", float64(reserved), "B").Add("blocks", float64(st.LiveBlocks), "")
	var outside uint64
	if pl.dev != nil {
		if free1, _, err = pl.dev.MemInfo(); err != nil {
			return err
		}
		outside = sub(free0, free1)
		m.Add("device_delta", float64(outside), "B")
	} else {
		outside = readGoMem().allocBytes - g0.allocBytes
		m.Add("go_alloc", float64(outside), "B")
	}
	diff := relDiff(outside, reserved)
	m.Add("agreement_err", 100*diff, "%")
	var errs []error
	if diff > AgreementTolerance {
		src := "the device's free memory fell by"
		if pl.dev == nil {
			src = "Go's heap allocated"
		}
		errs = append(errs, fmt.Errorf("agreement: allocating %s: the allocator reserved %d bytes but %s %d bytes: %.2f%% apart, more than %.0f%%",
			what, reserved, src, outside, 100*diff, 100*AgreementTolerance))
	}
	if pl.dev != nil {
		for _, b := range bufs {
			if err := a.Free(b.p); err != nil {
				return err
			}
		}
		bufs = nil
		if err := a.Release(); err != nil {
			return err
		}
		released := st.Reserved - a.Stats().Reserved
		if free2, _, err = pl.dev.MemInfo(); err != nil {
			return err
		}
		back := sub(free2, free1)
		rdiff := relDiff(back, released)
		m.Add("release_err", 100*rdiff, "%")
		if rdiff > AgreementTolerance {
			errs = append(errs, fmt.Errorf("agreement: releasing %s: the allocator returned %d bytes but the device's free memory rose by %d bytes: %.2f%% apart, more than %.0f%%",
				what, released, back, 100*rdiff, 100*AgreementTolerance))
		}
	}
	env.Report(m)
	env.Logf("%s on %s: %s reserved %s; %s %s (%.3f%% apart)", what, pl.name, "the allocator", devmem.FormatBytes(reserved),
		map[bool]string{true: "device free memory fell by", false: "Go's heap allocated"}[pl.dev != nil], devmem.FormatBytes(outside), 100*diff)
	return errors.Join(errs...)
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// relDiff is |x - ref| / ref.
func relDiff(x, ref uint64) float64 {
	if ref == 0 {
		return math.Inf(1)
	}
	return math.Abs(float64(x)-float64(ref)) / float64(ref)
}

// median of samples (0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// seconds is d in seconds, for a metric in "s".
func seconds(d time.Duration) float64 { return d.Seconds() }

// sizeName spells a byte size for a case name: "64k", "1m", "256m".
func sizeName(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dg", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dm", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dk", n>>10)
	}
	return fmt.Sprintf("%db", n)
}

// quickOr returns quick when the run is quick and quick is not empty,
// else full.
func quickOr[T any](env *suite.Env, full, quick []T) []T {
	if env.Quick && len(quick) > 0 {
		return quick
	}
	return full
}

// stopped tells whether the run's context ended.
func stopped(env *suite.Env) bool { return env.Ctx != nil && env.Ctx.Err() != nil }
