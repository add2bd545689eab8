//go:build cgo

// The whole file opens libraries: without cgo, Open returns ErrNoCgo first
// (nocgo_test.go).

package gpu_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/device/timing"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// fakes caches one fake library per options key: building one takes a
// compiler run.
var (
	fakesMu sync.Mutex
	fakes   = map[string]string{}
)

func fake(t *testing.T, key string, o gputest.Options) string {
	t.Helper()
	fakesMu.Lock()
	defer fakesMu.Unlock()
	if p, ok := fakes[key]; ok {
		return p
	}
	gputest.Compiler(t)
	dir, err := os.MkdirTemp("", "forge-gputest-")
	if err != nil {
		t.Fatal(err)
	}
	o.Target = cmpOr(o.Target, "sm_90")
	p := filepath.Join(dir, "libforge_"+o.Target+".so")
	gputest.BuildAt(t, p, o)
	fakes[key] = p
	return p
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range fakes {
		os.RemoveAll(filepath.Dir(p))
	}
	os.Exit(code)
}

// open opens the shared default fake, closing it when the test ends.
func open(t *testing.T) *gpu.Device {
	t.Helper()
	return openAt(t, fake(t, "default", gputest.Options{MemLimit: 64 << 20, L2Bytes: 2 << 20}))
}

// openFresh opens a fake library built for this test alone. dlopen loads a
// path once per process, so every device opened from the same fake shares
// one memory counter; a test that checks absolute free memory, or that leaks
// a block on purpose, needs a library of its own to run any number of times,
// in any order.
func openFresh(t *testing.T) *gpu.Device {
	t.Helper()
	return openAt(t, gputest.Build(t, gputest.Options{MemLimit: 64 << 20, L2Bytes: 2 << 20}))
}

func openAt(t *testing.T, lib string) *gpu.Device {
	t.Helper()
	d, err := gpu.Open(lib, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

func TestOpenAndInfo(t *testing.T) {
	d := open(t)
	info := d.Info()
	want := gpu.Info{
		Library: d.Path(), Device: 0, Name: "forge fake GPU", Arch: "sm_90", Vendor: "nvidia", Target: "sm_90",
		WaveSize: 32, ComputeUnits: 2, ClockKHz: 1500000, MemClockKHz: 1000000, MemBusWidthBits: 64,
		RuntimeVersion: 12000, DriverVersion: 12010, TotalMem: 64 << 20, L2Bytes: 2 << 20,
	}
	if info != want {
		t.Errorf("Info = %+v\nwant   %+v", info, want)
	}
	if bw := info.PeakBandwidth(); bw != 16e9 {
		t.Errorf("PeakBandwidth = %v, want 16e9", bw)
	}
	for _, s := range []string{"forge fake GPU", "nvidia sm_90", "target sm_90", "wave32", "64.0 MiB memory", "16 GB/s peak", "L2 2.0 MiB"} {
		if !strings.Contains(info.String(), s) {
			t.Errorf("Info.String() = %q lacks %q", info, s)
		}
	}
	free, total, err := d.MemInfo()
	if err != nil || total != 64<<20 || free > total {
		t.Errorf("MemInfo = %d, %d, %v", free, total, err)
	}
	if d.Kernels() == nil || d.Memory() == nil {
		t.Error("no kernels or memory")
	}
	if got := d.ErrorString(2); got != "out of memory" {
		t.Errorf("ErrorString(2) = %q", got)
	}
	if n := len(gpu.RuntimeSymbols()); n != 22 {
		t.Errorf("%d runtime symbols, want 22", n)
	}
}

func TestOpenMissingLibrary(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "libforge_sm_90.so"), "libforge_sm_90.so does not exist; build it: run: go run ./cmd/forgegen build --target sm_90"},
		{filepath.Join(dir, "other.so"), "other.so does not exist; build it: run: go run ./cmd/forgegen build --target <target>"},
		{dir, "is a directory"},
		{"", "no kernel library named"},
	} {
		_, err := gpu.Open(tc.path, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q): %v, want an error containing %q", tc.path, err, tc.want)
		}
	}
	bad := filepath.Join(dir, "libforge_gfx1100.so")
	if err := os.WriteFile(bad, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := gpu.Open(bad, 0)
	if err == nil || !strings.Contains(err.Error(), "loading "+bad) || !strings.Contains(err.Error(), "LD_LIBRARY_PATH") {
		t.Errorf("Open of a non-library: %v", err)
	}
	if _, err := gpu.Open(bad, -1); err == nil {
		t.Error("Open with device -1 succeeded")
	}
}

func TestOpenMissingSymbols(t *testing.T) {
	p := fake(t, "missing", gputest.Options{Omit: []string{"forge_rt_malloc", "forge_copy", "forge_dequant_f32_q4_k", "forge_dequant_f16_mxfp4"}})
	_, err := gpu.Open(p, 0)
	var me *gpu.MissingSymbolsError
	if !errors.As(err, &me) {
		t.Fatalf("Open: %v, want a *MissingSymbolsError", err)
	}
	want := []string{"forge_rt_malloc", "forge_copy", "forge_dequant_f32_q4_k", "forge_dequant_f16_mxfp4"}
	if strings.Join(me.Symbols, ",") != strings.Join(want, ",") {
		t.Errorf("missing %v, want %v", me.Symbols, want)
	}
	for _, s := range append(want, "lacks 4 symbols", "go run ./cmd/forgegen build --target sm_90") {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestOpenABIMismatch(t *testing.T) {
	// Another ABI version is the error even when symbols are missing too.
	p := fake(t, "abi", gputest.Options{ABIVersion: abi.ABIVersion + 1, Omit: []string{"forge_rt_free"}})
	_, err := gpu.Open(p, 0)
	var ae *gpu.ABIVersionError
	if !errors.As(err, &ae) || ae.Have != abi.ABIVersion+1 || ae.Want != abi.ABIVersion {
		t.Fatalf("Open: %v, want an *ABIVersionError", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("kernel ABI version %d, but this build of forge needs %d", abi.ABIVersion+1, abi.ABIVersion)) {
		t.Errorf("error: %v", err)
	}
}

func TestOpenDeviceErrors(t *testing.T) {
	_, err := gpu.Open(fake(t, "nodevice", gputest.Options{NoDevice: true}), 0)
	var ge *gpu.Error
	if !errors.As(err, &ge) || ge.Code != gputest.CodeNoDevice || ge.Op != "forge_rt_init" ||
		!strings.Contains(err.Error(), "no CUDA-capable device is detected") {
		t.Errorf("Open without a device: %v", err)
	}
	_, err = gpu.Open(fake(t, "default", gputest.Options{MemLimit: 64 << 20, L2Bytes: 2 << 20}), 3)
	if !errors.As(err, &ge) || ge.Code != gputest.CodeInvalidDevice || !strings.Contains(err.Error(), "selecting device 3") {
		t.Errorf("Open of device 3: %v", err)
	}
	if errors.Is(err, gpu.ErrOutOfMemory) {
		t.Error("an invalid device is out of memory")
	}
}

func TestOpenBackend(t *testing.T) {
	nv := fake(t, "default", gputest.Options{MemLimit: 64 << 20, L2Bytes: 2 << 20})
	amd := fake(t, "amd", gputest.Options{Vendor: "amd", Target: "gfx1100", Name: "fake RX 7900"})
	for _, tc := range []struct{ backend, path, err string }{
		{"cuda", nv, ""},
		{"hip", amd, ""},
		{"hip", nv, "backend hip drives amd GPUs, but " + nv + " is a nvidia library (target sm_90, forge fake GPU): use backend cuda"},
		{"cuda", amd, "use backend hip"},
		{"metal", nv, `unknown GPU backend "metal"`},
	} {
		d, err := gpu.OpenBackend(tc.backend, tc.path, 0)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("OpenBackend(%s, %s): %v", tc.backend, tc.path, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("OpenBackend(%s, %s): %v, want an error containing %q", tc.backend, tc.path, err, tc.err)
		}
		if d != nil {
			d.Close()
		}
	}
}

func TestMemory(t *testing.T) {
	// Its own library: the free-memory figures below are absolute.
	d := openFresh(t)
	p, err := d.Malloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	if free, _, _ := d.MemInfo(); free != 64<<20-4096 {
		t.Errorf("free after a 4 KiB Malloc: %d", free)
	}
	src := make([]float32, 1024)
	for i := range src {
		src[i] = float32(i) * 1.5
	}
	if err := gpu.Upload(d, p, src); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 1024)
	if err := gpu.Download(d, got, p); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != src[i] {
			t.Fatalf("round trip: element %d is %v, want %v", i, got[i], src[i])
		}
	}
	if err := d.Memset(p, 0xab, 16); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 20)
	if err := d.D2H(b, p); err != nil {
		t.Fatal(err)
	}
	if b[15] != 0xab || b[16] == 0xab {
		t.Errorf("after Memset of 16 bytes: % x", b)
	}
	if err := d.H2D(p, nil); err != nil {
		t.Error(err)
	}
	if err := d.Synchronize(); err != nil {
		t.Error(err)
	}
	if err := d.Free(p); err != nil {
		t.Fatal(err)
	}

	// Out of memory: the raw allocation, then the caching allocator.
	_, err = d.Malloc(65 << 20)
	var ge *gpu.Error
	if !errors.Is(err, gpu.ErrOutOfMemory) || !errors.As(err, &ge) || ge.Code != 2 || ge.Op != "forge_rt_malloc" {
		t.Fatalf("Malloc past the memory: %v, want ErrOutOfMemory", err)
	}
	for _, s := range []string{"allocating 68157440 bytes on forge fake GPU", "error 2: out of memory"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	mem := d.Memory()
	q, err := mem.Alloc(40 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Free(q); err != nil {
		t.Fatal(err)
	}
	// 40 MiB cached; 30 MiB more does not fit until the cache is released.
	q, err = mem.Alloc(30 << 20)
	if err != nil {
		t.Fatalf("Alloc with a release: %v", err)
	}
	if st := mem.Stats(); st.OOMRetries != 1 || st.DeviceFrees != 1 || st.Reserved != 30<<20 {
		t.Errorf("after the retry: %v", st)
	}
	if _, err := mem.Alloc(40 << 20); !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Errorf("Alloc past the memory: %v", err)
	}
	if err := mem.Free(q); err != nil {
		t.Fatal(err)
	}
}

func TestStreamsEventsTimer(t *testing.T) {
	d := open(t)
	s, err := d.NewStream()
	if err != nil || s.Handle() == 0 {
		t.Fatalf("NewStream: %v", err)
	}
	const n = 8 << 20
	src, err := d.Memory().Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := d.Memory().Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Memset(src, 7, n); err != nil {
		t.Fatal(err)
	}
	var tm timing.Timer
	dt, err := d.NewTimer(s.Handle())
	if err != nil {
		t.Fatal(err)
	}
	tm = dt
	if _, err := tm.Stop(); !errors.Is(err, timing.ErrNotStarted) {
		t.Errorf("Stop before Start: %v", err)
	}
	if err := tm.Start(); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := d.Copy(dst, src, n, s.Handle()); err != nil {
			t.Fatal(err)
		}
	}
	el, err := tm.Stop()
	if err != nil || el <= 0 || el > time.Minute {
		t.Errorf("timer: %v, %v", el, err)
	}
	b := make([]byte, 3)
	if err := d.D2H(b, dst+n-3); err != nil || b[0] != 7 || b[2] != 7 {
		t.Errorf("after forge_copy: % x, %v", b, err)
	}
	if err := d.Copy(0, src, n, 0); err == nil || !strings.Contains(err.Error(), "forge_copy: error 1: invalid argument") {
		t.Errorf("forge_copy to null: %v", err)
	}
	e1, _ := d.NewEvent()
	e2, _ := d.NewEvent()
	if err := e1.Record(0); err != nil {
		t.Fatal(err)
	}
	if err := e2.Record(0); err != nil {
		t.Fatal(err)
	}
	if el, err := gpu.Elapsed(e1, e2); err != nil || el < 0 {
		t.Errorf("Elapsed: %v, %v", el, err)
	}
	for _, c := range []interface{ Close() error }{e1, e2, tm, s} {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
	d.Memory().Free(src)
	d.Memory().Free(dst)
}

// q4_0Blocks is nBlocks reference-quantized Q4_0 blocks.
func q4_0Blocks(t *testing.T, nBlocks int) []byte {
	src, err := suite.QuantizedBlocks(formats.Q4_0, nBlocks, 1)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestLaunch(t *testing.T) {
	d := open(t)
	const nBlocks = 100
	src := q4_0Blocks(t, nBlocks)
	dsrc, _ := d.Memory().Alloc(uint64(len(src)))
	ddst, _ := d.Memory().Alloc(nBlocks * 32 * 4)
	defer d.Memory().Free(dsrc)
	defer d.Memory().Free(ddst)
	if err := d.H2D(dsrc, src); err != nil {
		t.Fatal(err)
	}
	fn, ok := d.Kernels().Blocks("dequant_f32", "Q4_0")
	if !ok {
		t.Fatal("no dequant_f32/Q4_0")
	}
	if err := d.Launch(func() error { return fn(dsrc, ddst, nBlocks, 0) }); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, nBlocks*32)
	if err := gpu.Download(d, got, ddst); err != nil {
		t.Fatal(err)
	}
	want := make([]float32, nBlocks*32)
	if err := formats.Q4_0.Dequantize(want, src); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("element %d: %v, want %v", i, got[i], want[i])
		}
	}
	// A launcher the fake does not implement: its code, with the runtime's message.
	fn, _ = d.Kernels().Blocks("dequant_f32", "Q4_K")
	err := d.Launch(func() error { return fn(dsrc, ddst, 1, 0) })
	var le *abi.LaunchError
	if !errors.As(err, &le) || le.Code != gputest.CodeNotImplemented || !strings.Contains(err.Error(), "fake: launcher not implemented") {
		t.Errorf("unimplemented launcher: %v", err)
	}
}

// TestThreads calls the library from many fresh OS threads: the fake, like
// the GPU runtimes, fails every call on a thread that has not selected the
// device, so this passes only if every call selects it first.
func TestThreads(t *testing.T) {
	d := open(t)
	fn, _ := d.Kernels().Blocks("dequant_f16", "Q4_0")
	src := q4_0Blocks(t, 4)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			// Never unlocked: the thread exits with the goroutine, so
			// every goroutine starts on a thread of its own.
			runtime.LockOSThread()
			p, err := d.Malloc(uint64(len(src)) + 1024)
			if err != nil {
				t.Errorf("goroutine %d: %v", g, err)
				return
			}
			defer d.Free(p)
			if err := d.H2D(p, src); err != nil {
				t.Errorf("goroutine %d: %v", g, err)
			}
			if err := d.Launch(func() error { return fn(p, p+abi.DevicePtr(len(src)), 4, 0) }); err != nil {
				t.Errorf("goroutine %d: %v", g, err)
			}
		})
	}
	wg.Wait()
	// A launcher called directly on a fresh thread, without Launch, fails
	// on the fake: the reason Launch exists.
	var direct error
	wg.Go(func() {
		runtime.LockOSThread()
		direct = fn(1, 1, 0, 0) // no blocks: no call
		if direct == nil {
			direct = fn(1, 1, 1, 0)
		}
	})
	wg.Wait()
	var le *abi.LaunchError
	if !errors.As(direct, &le) || le.Code != gputest.CodeNotInitialized {
		t.Errorf("a launcher on a thread that never selected the device: %v", direct)
	}
}

func TestClosed(t *testing.T) {
	// Its own library: the block it leaves allocated would otherwise stay
	// on the shared fake for the rest of the process. (The cleanup's Close
	// is a second Close: nil.)
	d := openFresh(t)
	p, err := d.Memory().Alloc(100)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err == nil || !strings.Contains(err.Error(), "1 blocks (512 B) still allocated") {
		t.Errorf("Close with a live block: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := d.Malloc(1); !errors.Is(err, gpu.ErrClosed) {
		t.Errorf("Malloc after Close: %v", err)
	}
	if err := d.Launch(func() error { return nil }); !errors.Is(err, gpu.ErrClosed) {
		t.Errorf("Launch after Close: %v", err)
	}
	_ = p
}

// TestGraph captures forge_copy launches into a graph and replays it: the
// capture runs nothing, each replay copies what the buffers hold then, a
// synchronous call inside a capture breaks it (and the stream is usable
// again after), and the default stream cannot be captured.
func TestGraph(t *testing.T) {
	d, err := gpu.Open(fake(t, "default", gputest.Options{}), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, _ := d.Malloc(8)
	b, _ := d.Malloc(8)
	c, _ := d.Malloc(8)
	defer d.Free(a)
	defer d.Free(b)
	defer d.Free(c)
	put := func(p abi.DevicePtr, v byte) {
		t.Helper()
		if err := d.H2D(p, []byte{v, v, v, v, v, v, v, v}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(p abi.DevicePtr) byte {
		t.Helper()
		h := make([]byte, 8)
		if err := d.D2H(h, p); err != nil {
			t.Fatal(err)
		}
		return h[7]
	}
	put(a, 1)
	put(b, 0)
	put(c, 0)
	g, err := s.Capture(func() error {
		if err := d.Copy(b, a, 8, s.Handle()); err != nil {
			return err
		}
		return d.Copy(c, b, 8, s.Handle())
	})
	if err != nil {
		t.Fatal(err)
	}
	if get(b) != 0 || get(c) != 0 {
		t.Fatal("the capture ran its copies")
	}
	if g.Kernels() != 2 {
		t.Errorf("the graph has %d kernels, want 2", g.Kernels())
	}
	for _, v := range []byte{1, 7} {
		put(a, v)
		if err := g.Launch(s.Handle()); err != nil {
			t.Fatal(err)
		}
		if err := d.Synchronize(); err != nil {
			t.Fatal(err)
		}
		if get(b) != v || get(c) != v {
			t.Errorf("replay with a = %d: b = %d, c = %d", v, get(b), get(c))
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Launch(s.Handle()); err == nil {
		t.Error("a closed graph launched")
	}

	// A synchronous call breaks the capture: its own error, then the end's.
	_, err = s.Capture(func() error { return d.Synchronize() })
	var ge *gpu.Error
	if !errors.As(err, &ge) || ge.Code != gputest.CodeCaptureUnsupported || !strings.Contains(err.Error(), "capture") {
		t.Errorf("Synchronize inside a capture: %v", err)
	}
	_, err = s.Capture(func() error { d.Memset(a, 0, 8); return nil })
	if !errors.As(err, &ge) || ge.Code != gputest.CodeCaptureInvalidated || ge.Op != "forge_rt_graph_end" {
		t.Errorf("a capture broken by Memset ended: %v", err)
	}
	if get(a) != 7 {
		t.Error("the Memset inside the capture ran")
	}
	// The stream is usable again: an empty capture.
	g, err = s.Capture(func() error { return nil })
	if err != nil {
		t.Fatalf("capture after a broken one: %v", err)
	}
	g.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture(func() error { return nil }); err == nil || !strings.Contains(err.Error(), "default stream cannot be captured") {
		t.Errorf("capture of a closed stream: %v", err)
	}
}
