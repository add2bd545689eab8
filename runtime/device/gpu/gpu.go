// Package gpu is forge's GPU runtime: it loads a kernel library built by
// `forgegen build` (libforge_<target>.so, compiled by hipcc or nvcc from the
// same generated HIP) with dlopen through cgo, as ggml loads its backends,
// so one Go binary serves every backend and no GPU toolkit is needed to
// build it. It resolves the library's runtime ABI (the forge_rt_* functions
// and forge_copy) and its generated launchers (generated/kernels.Bind), and
// offers device info, raw and cached device memory (runtime/device/devmem),
// copies, streams and event timers (runtime/device/timing).
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
package gpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The runtime ABI's device description (BRIEF4, forge_portability.h).
typedef struct forge_device_info {
	char name[256];
	char arch[64];
	char vendor[16];
	char target[32];
	int32_t wave_size;
	int32_t compute_units;
	int32_t clock_khz;
	int32_t mem_clock_khz;
	int32_t mem_bus_width_bits;
	int32_t runtime_version;
	int32_t driver_version;
	int32_t pad;
	uint64_t total_mem;
	uint64_t l2_bytes;
} forge_device_info;

_Static_assert(sizeof(forge_device_info) == 416, "forge_device_info is 416 bytes");
_Static_assert(offsetof(forge_device_info, wave_size) == 368, "forge_device_info.wave_size at 368");
_Static_assert(offsetof(forge_device_info, total_mem) == 400, "forge_device_info.total_mem at 400");

// Indices of the runtime ABI's functions in forge_rt.fn; rtSymbols in Go
// lists their names in this order.
enum {
	RT_ABI_VERSION, RT_INIT, RT_ERROR_STRING, RT_DEVICE_INFO, RT_MEM_INFO,
	RT_MALLOC, RT_FREE, RT_H2D, RT_D2H, RT_MEMSET, RT_SYNCHRONIZE,
	RT_STREAM_CREATE, RT_STREAM_DESTROY, RT_EVENT_CREATE, RT_EVENT_DESTROY,
	RT_EVENT_RECORD, RT_EVENT_ELAPSED, RT_COPY, RT_N
};

// forge_rt is one opened device of one library: its functions and device
// number. It lives in C memory and is never freed (a thread may still name
// it as its current one).
typedef struct forge_rt {
	void* fn[RT_N];
	int device;
} forge_rt;

// The forge_rt whose device this thread last selected.
static __thread const forge_rt* forge_current;

static int forge_select(const forge_rt* rt) {
	int rc = ((int (*)(int))rt->fn[RT_INIT])(rt->device);
	forge_current = rc == 0 ? rt : NULL;
	return rc;
}

static int forge_ensure(const forge_rt* rt) {
	return forge_current == rt ? 0 : forge_select(rt);
}

static forge_rt* forge_rt_new(int device) {
	forge_rt* rt = calloc(1, sizeof(forge_rt));
	if (rt) rt->device = device;
	return rt;
}

// dlopen and dlerror in one call: dlerror's state is the calling thread's.
static void* forge_dlopen(const char* path, char* err, size_t n) {
	void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char* e = dlerror();
		snprintf(err, n, "%s", e ? e : "dlopen failed");
	}
	return h;
}

static void* forge_dlsym(void* h, const char* name) {
	dlerror();
	return dlsym(h, name);
}

static void forge_rt_set(forge_rt* rt, int i, void* fn) { rt->fn[i] = fn; }

static int rt_abi_version(const forge_rt* rt) { return ((int (*)(void))rt->fn[RT_ABI_VERSION])(); }

static const char* rt_error_string(const forge_rt* rt, int code) {
	return ((const char* (*)(int))rt->fn[RT_ERROR_STRING])(code);
}

static int rt_device_info(const forge_rt* rt, forge_device_info* out) {
	int rc = forge_ensure(rt);
	if (rc) return rc;
	rc = ((int (*)(forge_device_info*))rt->fn[RT_DEVICE_INFO])(out);
	// The strings are fixed arrays: terminate them whatever the library wrote.
	out->name[sizeof out->name - 1] = 0;
	out->arch[sizeof out->arch - 1] = 0;
	out->vendor[sizeof out->vendor - 1] = 0;
	out->target[sizeof out->target - 1] = 0;
	return rc;
}

static int rt_mem_info(const forge_rt* rt, uint64_t* free_bytes, uint64_t* total_bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(uint64_t*, uint64_t*))rt->fn[RT_MEM_INFO])(free_bytes, total_bytes);
}

static int rt_malloc(const forge_rt* rt, uint64_t bytes, uintptr_t* out) {
	void* p = NULL;
	int rc = forge_ensure(rt);
	if (rc == 0) rc = ((int (*)(uint64_t, void**))rt->fn[RT_MALLOC])(bytes, &p);
	*out = (uintptr_t)p;
	return rc;
}

static int rt_free(const forge_rt* rt, uintptr_t p) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*))rt->fn[RT_FREE])((void*)p);
}

static int rt_h2d(const forge_rt* rt, uintptr_t dst, const void* src, uint64_t bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, const void*, uint64_t))rt->fn[RT_H2D])((void*)dst, src, bytes);
}

static int rt_d2h(const forge_rt* rt, void* dst, uintptr_t src, uint64_t bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, const void*, uint64_t))rt->fn[RT_D2H])(dst, (const void*)src, bytes);
}

static int rt_memset(const forge_rt* rt, uintptr_t p, int value, uint64_t bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, int, uint64_t))rt->fn[RT_MEMSET])((void*)p, value, bytes);
}

static int rt_synchronize(const forge_rt* rt) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void))rt->fn[RT_SYNCHRONIZE])();
}

static int rt_create(const forge_rt* rt, int i, uintptr_t* out) {
	void* h = NULL;
	int rc = forge_ensure(rt);
	if (rc == 0) rc = ((int (*)(void**))rt->fn[i])(&h);
	*out = (uintptr_t)h;
	return rc;
}

static int rt_destroy(const forge_rt* rt, int i, uintptr_t h) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*))rt->fn[i])((void*)h);
}

static int rt_event_record(const forge_rt* rt, uintptr_t e, uintptr_t stream) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, void*))rt->fn[RT_EVENT_RECORD])((void*)e, (void*)stream);
}

static int rt_event_elapsed(const forge_rt* rt, uintptr_t start, uintptr_t end, float* ms) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, void*, float*))rt->fn[RT_EVENT_ELAPSED])((void*)start, (void*)end, ms);
}

static int rt_copy(const forge_rt* rt, uintptr_t src, uintptr_t dst, uint64_t bytes, uintptr_t stream) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(const void*, void*, uint64_t, void*))rt->fn[RT_COPY])((const void*)src, (void*)dst, bytes, (void*)stream);
}
*/
import "C"

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

// rtSymbols are the runtime ABI's functions, in the order of the C enum.
var rtSymbols = [C.RT_N]string{
	C.RT_ABI_VERSION:    abi.ABIVersionSymbol,
	C.RT_INIT:           "forge_rt_init",
	C.RT_ERROR_STRING:   "forge_rt_error_string",
	C.RT_DEVICE_INFO:    "forge_rt_device_info",
	C.RT_MEM_INFO:       "forge_rt_mem_info",
	C.RT_MALLOC:         "forge_rt_malloc",
	C.RT_FREE:           "forge_rt_free",
	C.RT_H2D:            "forge_rt_memcpy_h2d",
	C.RT_D2H:            "forge_rt_memcpy_d2h",
	C.RT_MEMSET:         "forge_rt_memset",
	C.RT_SYNCHRONIZE:    "forge_rt_synchronize",
	C.RT_STREAM_CREATE:  "forge_rt_stream_create",
	C.RT_STREAM_DESTROY: "forge_rt_stream_destroy",
	C.RT_EVENT_CREATE:   "forge_rt_event_create",
	C.RT_EVENT_DESTROY:  "forge_rt_event_destroy",
	C.RT_EVENT_RECORD:   "forge_rt_event_record",
	C.RT_EVENT_ELAPSED:  "forge_rt_event_elapsed_ms",
	C.RT_COPY:           "forge_copy",
}

// RuntimeSymbols lists the functions of the runtime ABI a kernel library
// must export besides its launchers (kernels.Kernels): forge_abi_version,
// the forge_rt_* functions and forge_copy.
func RuntimeSymbols() []string { return slices.Clone(rtSymbols[:]) }

// ErrOutOfMemory is what an allocation the device cannot satisfy wraps. It
// is devmem.ErrOutOfMemory, so the caching allocator retries after
// releasing its cache.
var ErrOutOfMemory = devmem.ErrOutOfMemory

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

// Device is one device driven by one kernel library. It is safe for
// concurrent use.
type Device struct {
	path    string
	rt      *C.forge_rt
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
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr [1024]C.char
	h := C.forge_dlopen(cpath, &cerr[0], C.size_t(len(cerr)))
	if h == nil {
		return nil, fmt.Errorf("gpu: loading %s: %s (a library needs the HIP or CUDA runtime it was built against on the loader's path, e.g. LD_LIBRARY_PATH)",
			path, C.GoString(&cerr[0]))
	}
	rt := C.forge_rt_new(C.int(device))
	if rt == nil {
		return nil, errors.New("gpu: out of host memory")
	}
	lookup := func(symbol string) unsafe.Pointer {
		cs := C.CString(symbol)
		defer C.free(unsafe.Pointer(cs))
		return C.forge_dlsym(h, cs)
	}
	var missing []string
	for i, s := range rtSymbols {
		p := lookup(s)
		if p == nil {
			missing = append(missing, s)
		}
		C.forge_rt_set(rt, C.int(i), p)
	}
	// A library of another ABI version may lack symbols too; its version
	// is the error.
	if rt.fn[C.RT_ABI_VERSION] != nil {
		if v := int(C.rt_abi_version(rt)); v != abi.ABIVersion {
			return nil, &ABIVersionError{Path: path, Have: v, Want: abi.ABIVersion}
		}
	}
	lib, bindErr := kernels.Bind(func(symbol string) (unsafe.Pointer, error) {
		if p := lookup(symbol); p != nil {
			return p, nil
		}
		if symbol != abi.ABIVersionSymbol { // already listed
			missing = append(missing, symbol)
		}
		return nil, fmt.Errorf("undefined symbol: %s", symbol)
	})
	if len(missing) > 0 {
		return nil, &MissingSymbolsError{Path: path, Symbols: missing}
	}
	if bindErr != nil {
		return nil, fmt.Errorf("gpu: %s: %w", path, bindErr)
	}
	d := &Device{path: path, rt: rt, kernels: lib}
	if rc := C.forge_select(rt); rc != 0 {
		return nil, fmt.Errorf("gpu: %s: selecting device %d: %w", path, device, d.err("forge_rt_init", rc))
	}
	var ci C.forge_device_info
	if rc := C.rt_device_info(rt, &ci); rc != 0 {
		return nil, fmt.Errorf("gpu: %s: %w", path, d.err("forge_rt_device_info", rc))
	}
	d.info = Info{
		Library:         path,
		Device:          device,
		Name:            C.GoString(&ci.name[0]),
		Arch:            C.GoString(&ci.arch[0]),
		Vendor:          C.GoString(&ci.vendor[0]),
		Target:          C.GoString(&ci.target[0]),
		WaveSize:        int(ci.wave_size),
		ComputeUnits:    int(ci.compute_units),
		ClockKHz:        int(ci.clock_khz),
		MemClockKHz:     int(ci.mem_clock_khz),
		MemBusWidthBits: int(ci.mem_bus_width_bits),
		RuntimeVersion:  int(ci.runtime_version),
		DriverVersion:   int(ci.driver_version),
		TotalMem:        uint64(ci.total_mem),
		L2Bytes:         uint64(ci.l2_bytes),
	}
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
func (d *Device) err(op string, code C.int) error {
	return &Error{Op: op, Code: int(code), Msg: d.ErrorString(int(code))}
}

// ErrorString is the runtime's message for an error code.
func (d *Device) ErrorString(code int) string {
	if d.rt.fn[C.RT_ERROR_STRING] == nil {
		return "unknown error"
	}
	s := C.rt_error_string(d.rt, C.int(code))
	if s == nil {
		return "unknown error"
	}
	return C.GoString(s)
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
	if rc := C.forge_ensure(d.rt); rc != 0 {
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
	var f, t C.uint64_t
	if rc := C.rt_mem_info(d.rt, &f, &t); rc != 0 {
		return 0, 0, d.err("forge_rt_mem_info", rc)
	}
	return uint64(f), uint64(t), nil
}

// Malloc allocates device memory directly (no cache): prefer Memory().
// Out of memory is an error wrapping ErrOutOfMemory.
func (d *Device) Malloc(bytes uint64) (abi.DevicePtr, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	var p C.uintptr_t
	if rc := C.rt_malloc(d.rt, C.uint64_t(bytes), &p); rc != 0 {
		e := d.err("forge_rt_malloc", rc).(*Error)
		e.Context = fmt.Sprintf("allocating %d bytes on %s", bytes, d.info.Name)
		return 0, e
	}
	if p == 0 {
		return 0, fmt.Errorf("gpu: forge_rt_malloc(%d) returned a null pointer without an error", bytes)
	}
	return abi.DevicePtr(p), nil
}

// Free releases memory from Malloc.
func (d *Device) Free(p abi.DevicePtr) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := C.rt_free(d.rt, C.uintptr_t(p)); rc != 0 {
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
	if rc := C.rt_h2d(d.rt, C.uintptr_t(dst), unsafe.Pointer(&src[0]), C.uint64_t(len(src))); rc != 0 {
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
	if rc := C.rt_d2h(d.rt, unsafe.Pointer(&dst[0]), C.uintptr_t(src), C.uint64_t(len(dst))); rc != 0 {
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
	if rc := C.rt_memset(d.rt, C.uintptr_t(p), C.int(value), C.uint64_t(bytes)); rc != 0 {
		return d.err("forge_rt_memset", rc)
	}
	return nil
}

// Synchronize waits for all work on the device.
func (d *Device) Synchronize() error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := C.rt_synchronize(d.rt); rc != 0 {
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
	if rc := C.rt_copy(d.rt, C.uintptr_t(src), C.uintptr_t(dst), C.uint64_t(bytes), C.uintptr_t(stream)); rc != 0 {
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
)

var handleFns = [...]struct {
	create, destroy C.int
	createOp        string
	destroyOp       string
}{
	streamHandle: {C.RT_STREAM_CREATE, C.RT_STREAM_DESTROY, "forge_rt_stream_create", "forge_rt_stream_destroy"},
	eventHandle:  {C.RT_EVENT_CREATE, C.RT_EVENT_DESTROY, "forge_rt_event_create", "forge_rt_event_destroy"},
}

func (d *Device) createHandle(k handleKind) (uintptr, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	var h C.uintptr_t
	if rc := C.rt_create(d.rt, handleFns[k].create, &h); rc != 0 {
		return 0, d.err(handleFns[k].createOp, rc)
	}
	return uintptr(h), nil
}

func (d *Device) destroyHandle(k handleKind, h uintptr) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := C.rt_destroy(d.rt, handleFns[k].destroy, C.uintptr_t(h)); rc != 0 {
		return d.err(handleFns[k].destroyOp, rc)
	}
	return nil
}

func (d *Device) recordEvent(e uintptr, s abi.Stream) error {
	if err := d.check(); err != nil {
		return err
	}
	if rc := C.rt_event_record(d.rt, C.uintptr_t(e), C.uintptr_t(s)); rc != 0 {
		return d.err("forge_rt_event_record", rc)
	}
	return nil
}

func (d *Device) elapsedMs(start, end uintptr) (float32, error) {
	if err := d.check(); err != nil {
		return 0, err
	}
	var ms C.float
	if rc := C.rt_event_elapsed(d.rt, C.uintptr_t(start), C.uintptr_t(end), &ms); rc != 0 {
		return 0, d.err("forge_rt_event_elapsed_ms", rc)
	}
	return float32(ms), nil
}
