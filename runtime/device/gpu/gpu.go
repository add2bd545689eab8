// Package gpu is forge's GPU runtime: it loads a kernel library built by
// `forgegen build` (libforge_<target>.so, compiled by hipcc or nvcc from the
// same generated HIP) with dlopen through cgo, as ggml loads its backends,
// so one Go binary serves every backend and no GPU toolkit is needed to
// build it. It resolves the library's runtime ABI (the forge_rt_* functions
// and forge_copy) and its generated launchers (generated/kernels.Bind), and
// offers device info, raw and cached device memory (runtime/device/devmem),
// copies, streams, event timers (runtime/device/timing) and graphs: a
// stream's launches recorded once and replayed as one submission
// (Stream.Capture).
//
// Every failure is a Go error that says what to do: a missing library, one
// that lacks symbols (all named), one of another ABI version, device and
// runtime error codes (with the runtime's own message), and out-of-memory
// (errors.Is(err, ErrOutOfMemory)).
//
// The HIP and CUDA runtimes keep the current device per host thread, and
// goroutines move between threads: every call into the library first makes
// sure the calling thread has selected the Device's device (a thread-local
// check, calling forge_rt_init once per thread and device).
//
// Only cgo.go binds C: the Device's logic here drives a loaded library
// through the runtimeLib interface. A binary built without cgo
// (CGO_ENABLED=0) keeps the whole API, but Open returns ErrNoCgo, which
// says how to build one that can load libraries.
package gpu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/devmem"
)

// Indices of the runtime ABI's functions in rtSymbols.
const (
	rtABIVersion = iota
	rtInit
	rtErrorString
	rtDeviceInfo
	rtMemInfo
	rtMalloc
	rtFree
	rtH2D
	rtD2H
	rtMemset
	rtSynchronize
	rtStreamCreate
	rtStreamDestroy
	rtEventCreate
	rtEventDestroy
	rtEventRecord
	rtEventElapsed
	rtCopy
	rtGraphBegin
	rtGraphEnd
	rtGraphLaunch
	rtGraphDestroy
	rtN
)

// rtSymbols are the runtime ABI's functions.
var rtSymbols = [rtN]string{
	rtABIVersion:    abi.ABIVersionSymbol,
	rtInit:          "forge_rt_init",
	rtErrorString:   "forge_rt_error_string",
	rtDeviceInfo:    "forge_rt_device_info",
	rtMemInfo:       "forge_rt_mem_info",
	rtMalloc:        "forge_rt_malloc",
	rtFree:          "forge_rt_free",
	rtH2D:           "forge_rt_memcpy_h2d",
	rtD2H:           "forge_rt_memcpy_d2h",
	rtMemset:        "forge_rt_memset",
	rtSynchronize:   "forge_rt_synchronize",
	rtStreamCreate:  "forge_rt_stream_create",
	rtStreamDestroy: "forge_rt_stream_destroy",
	rtEventCreate:   "forge_rt_event_create",
	rtEventDestroy:  "forge_rt_event_destroy",
	rtEventRecord:   "forge_rt_event_record",
	rtEventElapsed:  "forge_rt_event_elapsed_ms",
	rtCopy:          "forge_copy",
	rtGraphBegin:    "forge_rt_graph_begin",
	rtGraphEnd:      "forge_rt_graph_end",
	rtGraphLaunch:   "forge_rt_graph_launch",
	rtGraphDestroy:  "forge_rt_graph_destroy",
}

// RuntimeSymbols lists the functions of the runtime ABI a kernel library
// must export besides its launchers (kernels.Kernels): forge_abi_version,
// the forge_rt_* functions and forge_copy.
func RuntimeSymbols() []string { return slices.Clone(rtSymbols[:]) }

// ErrOutOfMemory is what an allocation the device cannot satisfy wraps. It
// is devmem.ErrOutOfMemory, so the caching allocator retries after
// releasing its cache.
var ErrOutOfMemory = devmem.ErrOutOfMemory

// ErrNoCgo is Open's error in a binary built without cgo (abi.ErrNoCgo):
// loading a kernel library needs cgo, and the error says how to build a
// binary that has it.
var ErrNoCgo = abi.ErrNoCgo

// Available is nil where this binary can load kernel libraries, and
// ErrNoCgo where it was built without cgo.
func Available() error {
	if !haveCgo {
		return ErrNoCgo
	}
	return nil
}

// ErrClosed is the error of a call on a closed Device.
var ErrClosed = errors.New("gpu: device is closed")

// codeOutOfMemory is the runtimes' out-of-memory code: cudaErrorMemoryAllocation
// and hipErrorOutOfMemory are both 2.
const codeOutOfMemory = 2

// Error is a non-zero return code of a runtime ABI function: the HIP or
// CUDA error code, with the runtime's message for it.
type Error struct {
	Op      string // the function: "forge_rt_malloc"
	Code    int    // hipError_t / cudaError_t, or abi.CodeInvalid
	Msg     string // forge_rt_error_string(Code)
	Context string // what was being done, if more than Op says: "allocating 1024 bytes on <device>"
}

func (e *Error) Error() string {
	if e.Context != "" {
		return fmt.Sprintf("gpu: %s: %s: error %d: %s", e.Context, e.Op, e.Code, e.Msg)
	}
	return fmt.Sprintf("gpu: %s: error %d: %s", e.Op, e.Code, e.Msg)
}

// Is makes an out-of-memory code match ErrOutOfMemory.
func (e *Error) Is(target error) bool {
	return target == ErrOutOfMemory && e.Code == codeOutOfMemory
}

// MissingSymbolsError is Open's error for a library that lacks functions
// of the runtime ABI or launchers.
type MissingSymbolsError struct {
	Path    string
	Symbols []string // every missing symbol: runtime ABI first, then launchers
}

func (e *MissingSymbolsError) Error() string {
	return fmt.Sprintf("gpu: %s is not a complete forge kernel library (built by another forge, or a failed build?): it lacks %d symbols: %s; rebuild it: %s",
		e.Path, len(e.Symbols), strings.Join(e.Symbols, ", "), buildHint(e.Path))
}

// ABIVersionError is Open's error for a library of another ABI version.
type ABIVersionError struct {
	Path string
	Have int // forge_abi_version()
	Want int // abi.ABIVersion
}

func (e *ABIVersionError) Error() string {
	return fmt.Sprintf("gpu: %s has kernel ABI version %d, but this build of forge needs %d: rebuild it with this forge: %s",
		e.Path, e.Have, e.Want, buildHint(e.Path))
}

// targetOf guesses a library's target from its file name.
func targetOf(path string) string {
	base := filepath.Base(path)
	if t, ok := strings.CutPrefix(base, "libforge_"); ok {
		if t, ok := strings.CutSuffix(t, ".so"); ok && t != "" {
			return t
		}
	}
	return "<target>"
}

// buildHint is the command that builds the library at path.
func buildHint(path string) string {
	return "run: go run ./cmd/forgegen build --target " + targetOf(path)
}

// Info describes a device and the library driving it.
type Info struct {
	Library         string // path of the kernel library
	Device          int    // device index
	Name            string // "NVIDIA H100 80GB HBM3"
	Arch            string // "sm_90", "gfx1100"
	Vendor          string // "nvidia" or "amd"
	Target          string // the forge target the library was built for
	WaveSize        int
	ComputeUnits    int // SMs on NVIDIA
	ClockKHz        int
	MemClockKHz     int
	MemBusWidthBits int
	RuntimeVersion  int
	DriverVersion   int
	TotalMem        uint64
	L2Bytes         uint64
}

// PeakBandwidth is the memory's theoretical bandwidth in bytes/s from its
// clock and bus width (double data rate), 0 if either is unknown. Real
// kernels reach less: forge compares them with the measured forge_copy.
func (i Info) PeakBandwidth() float64 {
	return 2 * float64(i.MemClockKHz) * 1e3 * float64(i.MemBusWidthBits) / 8
}

func (i Info) String() string {
	return fmt.Sprintf("%s (%s %s, target %s, wave%d, %d CUs at %d MHz, %s memory, %d-bit at %d MHz = %.0f GB/s peak, L2 %s; runtime %d, driver %d; %s device %d)",
		i.Name, i.Vendor, i.Arch, i.Target, i.WaveSize, i.ComputeUnits, i.ClockKHz/1000, devmem.FormatBytes(i.TotalMem),
		i.MemBusWidthBits, i.MemClockKHz/1000, i.PeakBandwidth()/1e9, devmem.FormatBytes(i.L2Bytes),
		i.RuntimeVersion, i.DriverVersion, i.Library, i.Device)
}

// runtimeLib is the runtime ABI of one loaded library on one device, as
// cgo.go binds it: each method calls its forge_rt_* function (or
// forge_copy) and returns that function's code, 0 for success. Every
// method but selectDevice, ensure and errorString first makes sure the
// calling thread has selected the device.
type runtimeLib interface {
	selectDevice() int // forge_rt_init(device) on this thread
	ensure() int       // selectDevice, unless this thread's last selection was this one
	errorString(code int) (string, bool)
	deviceInfo() (Info, int) // all but Library and Device
	memInfo() (free, total uint64, code int)
	malloc(bytes uint64) (abi.DevicePtr, int)
	free(p abi.DevicePtr) int
	h2d(dst abi.DevicePtr, src []byte) int
	d2h(dst []byte, src abi.DevicePtr) int
	memset(p abi.DevicePtr, value byte, bytes uint64) int
	synchronize() int
	copy(dst, src abi.DevicePtr, bytes uint64, stream abi.Stream) int
	createHandle(k handleKind) (uintptr, int)
	destroyHandle(k handleKind, h uintptr) int
	recordEvent(e uintptr, stream abi.Stream) int
	elapsedMs(start, end uintptr) (float32, int)
	graphBegin(stream abi.Stream) int
	graphEnd(stream abi.Stream) (g uintptr, kernels uint64, code int)
	graphLaunch(g uintptr, stream abi.Stream) int
}

// Device is one device driven by one kernel library. It is safe for
// concurrent use.
type Device struct {
	path    string
	rt      runtimeLib
	info    Info
	kernels *kernels.Library
	mem     *devmem.Allocator

	mu     sync.Mutex
	closed bool
}

// Open loads the kernel library at path, checks it (every symbol of the
// runtime ABI and every launcher, the ABI version), selects device and
// reads its description. path is a file path (relative paths from the
// working directory), never a bare name for the loader to search for.
// Libraries stay loaded for the life of the process
// (unloading a GPU runtime mid-process is unsafe; dlopen of a loaded
// library is cheap), so a library may be opened many times.
func Open(path string, device int) (*Device, error) {
	if err := Available(); err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	if device < 0 {
		return nil, fmt.Errorf("gpu: device %d: want an index >= 0", device)
	}
	if path == "" {
		return nil, errors.New("gpu: no kernel library named: pass the path of a libforge_<target>.so (" + buildHint(path) + ")")
	}
	if fi, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("gpu: kernel library %s does not exist; build it: %s", path, buildHint(path))
		}
		return nil, fmt.Errorf("gpu: kernel library: %w", err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("gpu: kernel library %s is a directory, not a libforge_<target>.so", path)
	}
	// dlopen searches the library path for a name without a slash.
	if !strings.Contains(path, "/") {
		path = "./" + path
	}
	rt, lib, err := load(path, device)
	if err != nil {
		return nil, err
	}
	d := &Device{path: path, rt: rt, kernels: lib}
	if rc := rt.selectDevice(); rc != 0 {
		return nil, fmt.Errorf("gpu: %s: selecting device %d: %w", path, device, d.err("forge_rt_init", rc))
	}
	info, rc := rt.deviceInfo()
	if rc != 0 {
		return nil, fmt.Errorf("gpu: %s: %w", path, d.err("forge_rt_device_info", rc))
	}
	info.Library, info.Device = path, device
	d.info = info
	if v := d.info.Vendor; v != VendorNVIDIA && v != VendorAMD {
		return nil, fmt.Errorf("gpu: %s reports vendor %q, want %q or %q", path, v, VendorAMD, VendorNVIDIA)
	}
	d.mem = devmem.New(rawAllocator{d})
	return d, nil
}

// Vendors, as forge_device_info.vendor spells them.
const (
	VendorAMD    = "amd"
	VendorNVIDIA = "nvidia"
)

// Backend names and the vendor each accepts.
var backendVendors = map[string]string{"cuda": VendorNVIDIA, "hip": VendorAMD}

// BackendNames lists the GPU backends: "cuda" and "hip".
func BackendNames() []string { return []string{"cuda", "hip"} }

// VendorOf is the vendor whose libraries backend ("cuda", "hip") drives.
func VendorOf(backend string) (string, bool) {
	v, ok := backendVendors[backend]
	return v, ok
}

// OpenBackend opens a library for backend "cuda" (NVIDIA libraries only)
// or "hip" (AMD only).
func OpenBackend(backend, path string, device int) (*Device, error) {
	vendor, ok := VendorOf(backend)
	if !ok {
		return nil, fmt.Errorf("gpu: unknown GPU backend %q; want cuda or hip", backend)
	}
	d, err := Open(path, device)
	if err != nil {
		return nil, err
	}
	if d.info.Vendor != vendor {
		d.Close()
		other := "hip"
		if d.info.Vendor == VendorNVIDIA {
			other = "cuda"
		}
		return nil, fmt.Errorf("gpu: backend %s drives %s GPUs, but %s is a %s library (target %s, %s): use backend %s",
			backend, vendor, path, d.info.Vendor, d.info.Target, d.info.Name, other)
	}
	return d, nil
}

// err turns a non-zero code of op into an *Error.
func (d *Device) err(op string, code int) error {
	return &Error{Op: op, Code: code, Msg: d.ErrorString(code)}
}

// ErrorString is the runtime's message for an error code.
func (d *Device) ErrorString(code int) string {
	if s, ok := d.rt.errorString(code); ok {
		return s
	}
	return "unknown error"
}

// DescribeLaunch adds the runtime's message to a launcher's *abi.LaunchError.
func (d *Device) DescribeLaunch(err error) error {
	var le *abi.LaunchError
	if errors.As(err, &le) && le.Code != abi.CodeInvalid {
		return fmt.Errorf("%w: %s", err, d.ErrorString(le.Code))
	}
	return err
}

func (d *Device) check() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	return nil
}

// Launch runs fn, which calls the library's launchers (Kernels), on an OS
// thread that has selected the device, and adds the runtime's message to a
// launcher's error. The launchers, unlike the forge_rt_* calls, do not
// select the device themselves: a launch on a thread that never selected
// one would go to device 0 (CUDA, HIP) or fail.
func (d *Device) Launch(fn func() error) error {
	if err := d.check(); err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if rc := d.rt.ensure(); rc != 0 {
		return fmt.Errorf("gpu: selecting device %d: %w", d.info.Device, d.err("forge_rt_init", rc))
	}
	return d.DescribeLaunch(fn())
}

// Info describes the device.
func (d *Device) Info() Info { return d.info }

// Path is the library's path.
func (d *Device) Path() string { return d.path }

// Kernels is the library's bound launchers.
func (d *Device) Kernels() *kernels.Library { return d.kernels }

// Memory is the device's caching allocator (over Malloc and Free).
func (d *Device) Memory() *devmem.Allocator { return d.mem }

// MemInfo is the device's free and total memory.
func (d *Device) MemInfo() (free, total uint64, err error) {
	if err := d.check(); err != nil {
		return 0, 0, err
	}
	free, total, rc := d.rt.memInfo()
	if rc != 0 {
		return 0, 0, d.err("forge_rt_mem_info", rc)
	}
	return free, total, nil
}

// Malloc allocates device memory directly (no cache): prefer Memory().
// Out of memory is an error wrapping ErrOutOfMemory.
func (d *Device) Malloc(bytes uint64) (abi.DevicePtr, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	p, rc := d.rt.malloc(bytes)
	if rc != 0 {
		e := d.err("forge_rt_malloc", rc).(*Error)
		e.Context = fmt.Sprintf("allocating %d bytes on %s", bytes, d.info.Name)
		return 0, e
	}
	if p == 0 {
		return 0, fmt.Errorf("gpu: forge_rt_malloc(%d) returned a null pointer without an error", bytes)
	}
	return p, nil
}

// Free releases memory from Malloc.
func (d *Device) Free(p abi.DevicePtr) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.free(p); rc != 0 {
		return d.err("forge_rt_free", rc)
	}
	return nil
}

// rawAllocator is the Device as the caching allocator's raw allocator.
type rawAllocator struct{ d *Device }

func (r rawAllocator) Alloc(bytes uint64) (abi.DevicePtr, error) { return r.d.Malloc(bytes) }
func (r rawAllocator) Free(p abi.DevicePtr) error                { return r.d.Free(p) }

// H2D copies src to device memory at dst, synchronously.
func (d *Device) H2D(dst abi.DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.h2d(dst, src); rc != 0 {
		return d.err("forge_rt_memcpy_h2d", rc)
	}
	return nil
}

// D2H copies len(dst) bytes of device memory at src to dst, synchronously.
func (d *Device) D2H(dst []byte, src abi.DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.d2h(dst, src); rc != 0 {
		return d.err("forge_rt_memcpy_d2h", rc)
	}
	return nil
}

// Elem is an element type Upload and Download move.
type Elem interface {
	~uint8 | ~int8 | ~uint16 | ~int16 | ~uint32 | ~int32 | ~float32 | ~uint64 | ~int64 | ~float64
}

// bytesOf views a slice's memory as bytes.
func bytesOf[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(z)))
}

// Upload copies a host slice to device memory at dst.
func Upload[T Elem](d *Device, dst abi.DevicePtr, src []T) error { return d.H2D(dst, bytesOf(src)) }

// Download fills a host slice from device memory at src.
func Download[T Elem](d *Device, dst []T, src abi.DevicePtr) error { return d.D2H(bytesOf(dst), src) }

// Memset sets bytes bytes at p to value, synchronously.
func (d *Device) Memset(p abi.DevicePtr, value byte, bytes uint64) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.memset(p, value, bytes); rc != 0 {
		return d.err("forge_rt_memset", rc)
	}
	return nil
}

// Synchronize waits for all work on the device.
func (d *Device) Synchronize() error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.synchronize(); rc != 0 {
		return d.err("forge_rt_synchronize", rc)
	}
	return nil
}

// Copy enqueues the library's forge_copy kernel: bytes bytes from src to
// dst, device to device, on stream. It is the memory roofline forge
// compares kernels with, not a runtime memcpy.
func (d *Device) Copy(dst, src abi.DevicePtr, bytes uint64, stream abi.Stream) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.copy(dst, src, bytes, stream); rc != 0 {
		return d.err("forge_copy", rc)
	}
	return nil
}

// Close releases the device's cached memory; the Device must not be used
// afterwards. Memory still allocated from Memory() stays allocated (and is
// reported): close after freeing it.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.mu.Unlock()
	var err error
	if d.mem != nil {
		err = d.mem.Release()
		if st := d.mem.Stats(); st.LiveBlocks > 0 && err == nil {
			err = fmt.Errorf("gpu: closing %s with %d blocks (%s) still allocated", d.info.Name, st.LiveBlocks, devmem.FormatBytes(st.InUse))
		}
	}
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	return err
}

// handleKind selects the create and destroy functions of a runtime handle.
type handleKind int

const (
	streamHandle handleKind = iota
	eventHandle
	graphHandle // created by capture (graphEnd), not by createHandle
)

// handleFns are the indices in rtSymbols of each kind's functions.
var handleFns = [...]struct{ create, destroy int }{
	streamHandle: {rtStreamCreate, rtStreamDestroy},
	eventHandle:  {rtEventCreate, rtEventDestroy},
	graphHandle:  {-1, rtGraphDestroy},
}

func (d *Device) createHandle(k handleKind) (uintptr, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	h, rc := d.rt.createHandle(k)
	if rc != 0 {
		return 0, d.err(rtSymbols[handleFns[k].create], rc)
	}
	return h, nil
}

func (d *Device) destroyHandle(k handleKind, h uintptr) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.destroyHandle(k, h); rc != 0 {
		return d.err(rtSymbols[handleFns[k].destroy], rc)
	}
	return nil
}

func (d *Device) recordEvent(e uintptr, s abi.Stream) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := d.rt.recordEvent(e, s); rc != 0 {
		return d.err("forge_rt_event_record", rc)
	}
	return nil
}

func (d *Device) elapsedMs(start, end uintptr) (float32, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	ms, rc := d.rt.elapsedMs(start, end)
	if rc != 0 {
		return 0, d.err("forge_rt_event_elapsed_ms", rc)
	}
	return ms, nil
}
