//go:build cgo

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

// forge_rt is one opened device of one library: its forge_rt_init and
// device number. It lives in C memory and is never freed (a thread may
// still name it as its current one). Go passes every other function's
// address with the call, so only Go knows the runtime ABI's symbol list.
typedef struct forge_rt {
	void* init;
	int device;
} forge_rt;

// The forge_rt whose device this thread last selected.
static __thread const forge_rt* forge_current;

static int forge_select(const forge_rt* rt) {
	int rc = ((int (*)(int))rt->init)(rt->device);
	forge_current = rc == 0 ? rt : NULL;
	return rc;
}

static int forge_ensure(const forge_rt* rt) {
	return forge_current == rt ? 0 : forge_select(rt);
}

static forge_rt* forge_rt_new(void* init, int device) {
	forge_rt* rt = calloc(1, sizeof(forge_rt));
	if (rt) {
		rt->init = init;
		rt->device = device;
	}
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

static int rt_abi_version(void* fn) { return ((int (*)(void))fn)(); }

static const char* rt_error_string(void* fn, int code) {
	return ((const char* (*)(int))fn)(code);
}

static int rt_device_info(const forge_rt* rt, void* fn, forge_device_info* out) {
	int rc = forge_ensure(rt);
	if (rc) return rc;
	rc = ((int (*)(forge_device_info*))fn)(out);
	// The strings are fixed arrays: terminate them whatever the library wrote.
	out->name[sizeof out->name - 1] = 0;
	out->arch[sizeof out->arch - 1] = 0;
	out->vendor[sizeof out->vendor - 1] = 0;
	out->target[sizeof out->target - 1] = 0;
	return rc;
}

static int rt_mem_info(const forge_rt* rt, void* fn, uint64_t* free_bytes, uint64_t* total_bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(uint64_t*, uint64_t*))fn)(free_bytes, total_bytes);
}

static int rt_malloc(const forge_rt* rt, void* fn, uint64_t bytes, uintptr_t* out) {
	void* p = NULL;
	int rc = forge_ensure(rt);
	if (rc == 0) rc = ((int (*)(uint64_t, void**))fn)(bytes, &p);
	*out = (uintptr_t)p;
	return rc;
}

static int rt_free(const forge_rt* rt, void* fn, uintptr_t p) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*))fn)((void*)p);
}

static int rt_h2d(const forge_rt* rt, void* fn, uintptr_t dst, const void* src, uint64_t bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, const void*, uint64_t))fn)((void*)dst, src, bytes);
}

static int rt_d2h(const forge_rt* rt, void* fn, void* dst, uintptr_t src, uint64_t bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, const void*, uint64_t))fn)(dst, (const void*)src, bytes);
}

static int rt_memset(const forge_rt* rt, void* fn, uintptr_t p, int value, uint64_t bytes) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, int, uint64_t))fn)((void*)p, value, bytes);
}

static int rt_synchronize(const forge_rt* rt, void* fn) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void))fn)();
}

static int rt_create(const forge_rt* rt, void* fn, uintptr_t* out) {
	void* h = NULL;
	int rc = forge_ensure(rt);
	if (rc == 0) rc = ((int (*)(void**))fn)(&h);
	*out = (uintptr_t)h;
	return rc;
}

static int rt_destroy(const forge_rt* rt, void* fn, uintptr_t h) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*))fn)((void*)h);
}

static int rt_event_record(const forge_rt* rt, void* fn, uintptr_t e, uintptr_t stream) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, void*))fn)((void*)e, (void*)stream);
}

static int rt_event_elapsed(const forge_rt* rt, void* fn, uintptr_t start, uintptr_t end, float* ms) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, void*, float*))fn)((void*)start, (void*)end, ms);
}

static int rt_graph_begin(const forge_rt* rt, void* fn, uintptr_t stream) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*))fn)((void*)stream);
}

static int rt_graph_end(const forge_rt* rt, void* fn, uintptr_t stream, uintptr_t* out, uint64_t* kernels) {
	void* g = NULL;
	int rc = forge_ensure(rt);
	if (rc == 0) rc = ((int (*)(void*, void**, uint64_t*))fn)((void*)stream, &g, kernels);
	*out = (uintptr_t)g;
	return rc;
}

static int rt_graph_launch(const forge_rt* rt, void* fn, uintptr_t g, uintptr_t stream) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(void*, void*))fn)((void*)g, (void*)stream);
}

static int rt_copy(const forge_rt* rt, void* fn, uintptr_t src, uintptr_t dst, uint64_t bytes, uintptr_t stream) {
	int rc = forge_ensure(rt);
	return rc ? rc : ((int (*)(const void*, void*, uint64_t, void*))fn)((const void*)src, (void*)dst, bytes, (void*)stream);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/runtime/device/abi"
)

const haveCgo = true

// load dlopens the library at path, resolves the runtime ABI and checks
// its version, and binds the launchers (kernels.Bind). Every missing
// symbol is named in one error.
func load(path string, device int) (runtimeLib, *kernels.Library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr [1024]C.char
	h := C.forge_dlopen(cpath, &cerr[0], C.size_t(len(cerr)))
	if h == nil {
		return nil, nil, fmt.Errorf("gpu: loading %s: %s (a library needs the HIP or CUDA runtime it was built against on the loader's path, e.g. LD_LIBRARY_PATH)",
			path, C.GoString(&cerr[0]))
	}
	lookup := func(symbol string) unsafe.Pointer {
		cs := C.CString(symbol)
		defer C.free(unsafe.Pointer(cs))
		return C.forge_dlsym(h, cs)
	}
	r := &cRuntime{}
	var missing []string
	for i, s := range rtSymbols {
		if r.fn[i] = lookup(s); r.fn[i] == nil {
			missing = append(missing, s)
		}
	}
	// A library of another ABI version may lack symbols too; its version
	// is the error.
	if v := r.fn[rtABIVersion]; v != nil {
		if have := int(C.rt_abi_version(v)); have != abi.ABIVersion {
			return nil, nil, &ABIVersionError{Path: path, Have: have, Want: abi.ABIVersion}
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
		return nil, nil, &MissingSymbolsError{Path: path, Symbols: missing}
	}
	if bindErr != nil {
		return nil, nil, fmt.Errorf("gpu: %s: %w", path, bindErr)
	}
	if r.rt = C.forge_rt_new(r.fn[rtInit], C.int(device)); r.rt == nil {
		return nil, nil, errors.New("gpu: out of host memory")
	}
	return r, lib, nil
}

// cRuntime is runtimeLib over a loaded library: the C forge_rt, and the
// address of every function of the runtime ABI.
type cRuntime struct {
	rt *C.forge_rt
	fn [rtN]unsafe.Pointer
}

func (r *cRuntime) selectDevice() int { return int(C.forge_select(r.rt)) }
func (r *cRuntime) ensure() int       { return int(C.forge_ensure(r.rt)) }

func (r *cRuntime) errorString(code int) (string, bool) {
	if r.fn[rtErrorString] == nil {
		return "", false
	}
	s := C.rt_error_string(r.fn[rtErrorString], C.int(code))
	if s == nil {
		return "", false
	}
	return C.GoString(s), true
}

func (r *cRuntime) deviceInfo() (Info, int) {
	var ci C.forge_device_info
	if rc := C.rt_device_info(r.rt, r.fn[rtDeviceInfo], &ci); rc != 0 {
		return Info{}, int(rc)
	}
	return Info{
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
	}, 0
}

func (r *cRuntime) memInfo() (free, total uint64, code int) {
	var f, t C.uint64_t
	rc := C.rt_mem_info(r.rt, r.fn[rtMemInfo], &f, &t)
	return uint64(f), uint64(t), int(rc)
}

func (r *cRuntime) malloc(bytes uint64) (abi.DevicePtr, int) {
	var p C.uintptr_t
	rc := C.rt_malloc(r.rt, r.fn[rtMalloc], C.uint64_t(bytes), &p)
	return abi.DevicePtr(p), int(rc)
}

func (r *cRuntime) free(p abi.DevicePtr) int {
	return int(C.rt_free(r.rt, r.fn[rtFree], C.uintptr_t(p)))
}

func (r *cRuntime) h2d(dst abi.DevicePtr, src []byte) int {
	return int(C.rt_h2d(r.rt, r.fn[rtH2D], C.uintptr_t(dst), unsafe.Pointer(&src[0]), C.uint64_t(len(src))))
}

func (r *cRuntime) d2h(dst []byte, src abi.DevicePtr) int {
	return int(C.rt_d2h(r.rt, r.fn[rtD2H], unsafe.Pointer(&dst[0]), C.uintptr_t(src), C.uint64_t(len(dst))))
}

func (r *cRuntime) memset(p abi.DevicePtr, value byte, bytes uint64) int {
	return int(C.rt_memset(r.rt, r.fn[rtMemset], C.uintptr_t(p), C.int(value), C.uint64_t(bytes)))
}

func (r *cRuntime) synchronize() int { return int(C.rt_synchronize(r.rt, r.fn[rtSynchronize])) }

func (r *cRuntime) copy(dst, src abi.DevicePtr, bytes uint64, stream abi.Stream) int {
	return int(C.rt_copy(r.rt, r.fn[rtCopy], C.uintptr_t(src), C.uintptr_t(dst), C.uint64_t(bytes), C.uintptr_t(stream)))
}

func (r *cRuntime) createHandle(k handleKind) (uintptr, int) {
	var h C.uintptr_t
	rc := C.rt_create(r.rt, r.fn[handleFns[k].create], &h)
	return uintptr(h), int(rc)
}

func (r *cRuntime) destroyHandle(k handleKind, h uintptr) int {
	return int(C.rt_destroy(r.rt, r.fn[handleFns[k].destroy], C.uintptr_t(h)))
}

func (r *cRuntime) recordEvent(e uintptr, stream abi.Stream) int {
	return int(C.rt_event_record(r.rt, r.fn[rtEventRecord], C.uintptr_t(e), C.uintptr_t(stream)))
}

func (r *cRuntime) elapsedMs(start, end uintptr) (float32, int) {
	var ms C.float
	rc := C.rt_event_elapsed(r.rt, r.fn[rtEventElapsed], C.uintptr_t(start), C.uintptr_t(end), &ms)
	return float32(ms), int(rc)
}

func (r *cRuntime) graphBegin(stream abi.Stream) int {
	return int(C.rt_graph_begin(r.rt, r.fn[rtGraphBegin], C.uintptr_t(stream)))
}

func (r *cRuntime) graphEnd(stream abi.Stream) (uintptr, uint64, int) {
	var g C.uintptr_t
	var k C.uint64_t
	rc := C.rt_graph_end(r.rt, r.fn[rtGraphEnd], C.uintptr_t(stream), &g, &k)
	return uintptr(g), uint64(k), int(rc)
}

func (r *cRuntime) graphLaunch(g uintptr, stream abi.Stream) int {
	return int(C.rt_graph_launch(r.rt, r.fn[rtGraphLaunch], C.uintptr_t(g), C.uintptr_t(stream)))
}
