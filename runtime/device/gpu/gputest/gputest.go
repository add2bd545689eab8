// Package gputest builds fake forge kernel libraries for tests of the GPU
// runtime on machines without a GPU: real shared objects, compiled with the
// C compiler from C source this package writes, that export the whole
// runtime ABI (forge_abi_version, forge_rt_*, forge_copy) and every
// generated launcher, over host memory. Loading one exercises the same
// dlopen, dlsym and cgo paths as a HIP or CUDA library.
//
// The fake behaves as a GPU runtime where tests need it to: allocations
// count against a memory limit and fail with the runtimes' out-of-memory
// code (2); every function fails with code 3 (initialization error) on a
// thread that has not called forge_rt_init, as the CUDA and HIP runtimes
// keep the current device per thread; events read the host's monotonic
// clock. Graphs follow the runtimes' thread-local capture: between
// forge_rt_graph_begin and forge_rt_graph_end on a thread, forge_copy on the
// capturing stream is recorded (not run) and forge_rt_graph_launch runs the
// recorded copies again; a synchronous call on that thread (copies, memset,
// malloc, free, synchronize), or a computing launcher on the capturing
// stream, fails with CodeCaptureUnsupported and breaks the capture, whose
// end then fails with CodeCaptureInvalidated. The Q4_0 launchers (forge_dequant_f32_q4_0, forge_dequant_f16_q4_0,
// forge_matvec_f32_q4_0, forge_matvec_x8_q4_0) and the activations'
// quantization for the latter (forge_glue_quantize_x8) really compute, in C
// written from the spec; every other launcher (with its family's signature)
// returns CodeNotImplemented.
package gputest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/gpu"
)

// Error codes of the fake, as the runtimes number them.
const (
	CodeOutOfMemory    = 2   // cudaErrorMemoryAllocation, hipErrorOutOfMemory
	CodeNotInitialized = 3   // cudaErrorInitializationError: no forge_rt_init on this thread
	CodeNoDevice       = 100 // cudaErrorNoDevice
	CodeInvalidDevice  = 101 // cudaErrorInvalidDevice
	CodeNotImplemented = 98  // the fake's own: a launcher it does not implement

	CodeCaptureUnsupported = 900 // cudaErrorStreamCaptureUnsupported: a synchronous call, or a launcher the fake cannot record, during a capture
	CodeCaptureInvalidated = 901 // cudaErrorStreamCaptureInvalidated: forge_rt_graph_end of a capture an earlier error broke
	CodeCaptureUnmatched   = 903 // cudaErrorStreamCaptureUnmatched: forge_rt_graph_end of a stream that is not capturing
	CodeIllegalState       = 401 // cudaErrorIllegalState: forge_rt_graph_begin while this thread captures
)

// HostKernels are the launchers the fake implements (forge_matvec_x8_q4_0
// where the generated library has it: where Q4_0's spec has an integer form).
var HostKernels = []string{"forge_dequant_f32_q4_0", "forge_dequant_f16_q4_0", "forge_matvec_f32_q4_0", "forge_glue_quantize_x8", "forge_matvec_x8_q4_0"}

// Options shape a fake library.
type Options struct {
	Vendor     string   // forge_device_info.vendor; default "nvidia"
	Target     string   // forge_device_info.target and the file name; default "sm_90"
	Arch       string   // default Target
	Name       string   // device name; default "forge fake GPU"
	ABIVersion int      // what forge_abi_version returns; default abi.ABIVersion
	Omit       []string // symbols the library does not export
	MemLimit   uint64   // bytes forge_rt_malloc hands out in all; default 256 MiB
	L2Bytes    uint64   // default 1 MiB
	Devices    int      // devices forge_rt_init accepts; default 1
	NoDevice   bool     // forge_rt_init fails with CodeNoDevice, as on a machine without a GPU
}

func (o *Options) defaults() {
	if o.Vendor == "" {
		o.Vendor = "nvidia"
	}
	if o.Target == "" {
		o.Target = "sm_90"
	}
	if o.Arch == "" {
		o.Arch = o.Target
	}
	if o.Name == "" {
		o.Name = "forge fake GPU"
	}
	if o.ABIVersion == 0 {
		o.ABIVersion = abi.ABIVersion
	}
	if o.MemLimit == 0 {
		o.MemLimit = 256 << 20
	}
	if o.L2Bytes == 0 {
		o.L2Bytes = 1 << 20
	}
	if o.Devices <= 0 {
		o.Devices = 1
	}
	if o.NoDevice {
		o.Devices = 0
	}
}

// Compiler is the C compiler that builds fakes: $CC, else gcc, else cc.
// It skips the test when there is none.
func Compiler(tb testing.TB) string {
	tb.Helper()
	for _, c := range []string{os.Getenv("CC"), "gcc", "cc"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(strings.Fields(c)[0]); err == nil {
			return p
		}
	}
	tb.Skip("no C compiler (gcc, cc or $CC): cannot build a fake kernel library to dlopen")
	return ""
}

// Build compiles a fake library into a new temporary directory as
// libforge_<target>.so and returns its path.
func Build(tb testing.TB, o Options) string {
	tb.Helper()
	o.defaults()
	path := filepath.Join(tb.TempDir(), "libforge_"+o.Target+".so")
	BuildAt(tb, path, o)
	return path
}

// BuildAt compiles a fake library to path, creating its directory. It
// skips the test in a test binary built without cgo, which could not load
// the library.
func BuildAt(tb testing.TB, path string, o Options) {
	tb.Helper()
	if err := gpu.Available(); err != nil {
		tb.Skip("this test binary was built without cgo (CGO_ENABLED=0): the GPU runtime cannot load a fake kernel library; CGO_ENABLED=1 runs this test")
	}
	cc := Compiler(tb)
	o.defaults()
	dir := tb.TempDir()
	src := filepath.Join(dir, "fake.c")
	if err := os.WriteFile(src, []byte(Source(o)), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", path, src).CombinedOutput()
	if err != nil {
		tb.Fatalf("building the fake kernel library: %s: %v\n%s", cc, err, out)
	}
}

// Source is the fake library's C source.
func Source(o Options) string {
	o.defaults()
	var b strings.Builder
	fmt.Fprintf(&b, fakeHead, cString(o.Name), cString(o.Arch), cString(o.Vendor), cString(o.Target),
		o.MemLimit, o.L2Bytes, o.Devices, o.ABIVersion)
	emit := func(symbol, body string) {
		if !slices.Contains(o.Omit, symbol) {
			b.WriteString(body)
		}
	}
	for _, s := range gpu.RuntimeSymbols() {
		body, ok := fakeRuntime[s]
		if !ok {
			panic("gputest: no fake for " + s)
		}
		emit(s, body)
	}
	for _, k := range kernels.Kernels {
		switch k.Symbol {
		case "forge_dequant_f32_q4_0":
			emit(k.Symbol, fakeQ4_0F32)
		case "forge_dequant_f16_q4_0":
			emit(k.Symbol, fakeQ4_0F16)
		case "forge_matvec_f32_q4_0":
			emit(k.Symbol, fakeMatVecQ4_0)
		case "forge_matvec_x8_q4_0":
			emit(k.Symbol, fakeMatVecX8Q4_0)
		case "forge_glue_quantize_x8":
			emit(k.Symbol, fakeQuantizeX8)
		default:
			if k.Family == "matvec" {
				emit(k.Symbol, fmt.Sprintf("FAKE_EXPORT int %s(const void* w, const float* x, float* y, int64_t rows, int64_t cols, void* stream) {\n"+
					"\t(void)w; (void)x; (void)y; (void)rows; (void)cols; (void)stream;\n\tFAKE_CHECK_INIT;\n\treturn FAKE_NOT_IMPLEMENTED;\n}\n", k.Symbol))
				continue
			}
			out := "float"
			if k.Output == "f16" {
				out = "uint16_t"
			}
			emit(k.Symbol, fmt.Sprintf("FAKE_EXPORT int %s(const void* src, %s* dst, int64_t n, void* stream) {\n"+
				"\t(void)src; (void)dst; (void)n; (void)stream;\n\tFAKE_CHECK_INIT;\n\treturn FAKE_NOT_IMPLEMENTED;\n}\n", k.Symbol, out))
		}
	}
	return b.String()
}

func cString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

const fakeHead = `// A fake forge kernel library over host memory (runtime/device/gpu/gputest).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_EXPORT __attribute__((visibility("default")))
#define FAKE_NAME %s
#define FAKE_ARCH %s
#define FAKE_VENDOR %s
#define FAKE_TARGET %s
#define FAKE_MEM_LIMIT %dull
#define FAKE_L2_BYTES %dull
#define FAKE_DEVICES %d
#define FAKE_ABI_VERSION %d
#define FAKE_OUT_OF_MEMORY 2
#define FAKE_NOT_INITIALIZED 3
#define FAKE_NOT_IMPLEMENTED 98
#define FAKE_NO_DEVICE 100
#define FAKE_INVALID_DEVICE 101
#define FAKE_ILLEGAL_STATE 401
#define FAKE_CAPTURE_UNSUPPORTED 900
#define FAKE_CAPTURE_INVALIDATED 901
#define FAKE_CAPTURE_UNMATCHED 903
#define FAKE_GRAPH_OPS 64
#define FAKE_HEADER 256

typedef struct forge_device_info {
	char name[256]; char arch[64]; char vendor[16]; char target[32];
	int32_t wave_size, compute_units, clock_khz, mem_clock_khz;
	int32_t mem_bus_width_bits, runtime_version, driver_version, pad;
	uint64_t total_mem, l2_bytes;
} forge_device_info;

// The device this thread selected, as the CUDA and HIP runtimes keep it.
static __thread int fake_device = -1;
static uint64_t fake_used;

#define FAKE_CHECK_INIT do { if (fake_device < 0) return FAKE_NOT_INITIALIZED; } while (0)

// A graph: the copies a capture recorded. The capture in progress is the
// thread's, as in the runtimes' thread-local mode.
typedef struct { const void* src; void* dst; uint64_t bytes; } fake_op;
typedef struct { int n; fake_op ops[FAKE_GRAPH_OPS]; } fake_graph;
static __thread void* fake_capturing;
static __thread int fake_capture_broken;
static __thread fake_graph fake_capture;

// FAKE_NO_SYNC_IN_CAPTURE: a synchronous call on a capturing thread fails
// and breaks the capture; FAKE_NOT_CAPTURED(stream): so does a launcher the
// fake cannot record, on the capturing stream.
#define FAKE_NO_SYNC_IN_CAPTURE do { if (fake_capturing) { fake_capture_broken = 1; return FAKE_CAPTURE_UNSUPPORTED; } } while (0)
#define FAKE_NOT_CAPTURED(stream) do { if (fake_capturing && (stream) == fake_capturing) { fake_capture_broken = 1; return FAKE_CAPTURE_UNSUPPORTED; } } while (0)

static double fake_now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// Scalar conversions, bit for bit specs/formats/scalar.go.
static float fake_half_to_f32(uint16_t h) {
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
	float f;
	if (exp == 0x1f) {
		bits = sign | 0x7f800000 | (man ? 0x400000 | man << 13 : 0);
	} else if (exp == 0) {
		f = (float)man * (1.0f / 16777216.0f);
		memcpy(&bits, &f, 4);
		bits |= sign;
	} else {
		bits = sign | (exp + 112) << 23 | man << 13;
	}
	memcpy(&f, &bits, 4);
	return f;
}

static uint16_t fake_f32_to_half(float f) {
	uint32_t bits, abs, r, e, m, shift, q, rem, half;
	uint16_t sign;
	memcpy(&bits, &f, 4);
	sign = (uint16_t)(bits >> 16) & 0x8000;
	abs = bits & 0x7fffffff;
	if (abs > 0x7f800000) return sign | 0x7e00;
	if (abs >= 0x477ff000) return sign | 0x7c00;
	if (abs >= 0x38800000) {
		r = abs - 0x38000000;
		r += 0xfff + ((r >> 13) & 1);
		return sign | (uint16_t)(r >> 13);
	}
	if (abs < 0x33000000) return sign;
	e = abs >> 23;
	m = (abs & 0x7fffff) | 0x800000;
	shift = 126 - e;
	q = m >> shift;
	rem = m & ((1u << shift) - 1);
	half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1))) q++;
	return sign | (uint16_t)q;
}

// Q4_0: 18-byte blocks, an fp16 scale then 16 bytes of nibbles; element j
// is (nibble - 8) * d, the low nibbles first.
static float fake_q4_0(const uint8_t* b, int j) {
	uint16_t d = (uint16_t)(b[0] | b[1] << 8);
	uint8_t q = b[2 + (j & 15)];
	if (j >= 16) q >>= 4;
	return (float)((int)(q & 15) - 8) * fake_half_to_f32(d);
}
`

var fakeRuntime = map[string]string{
	"forge_abi_version": `
FAKE_EXPORT int forge_abi_version(void) { return FAKE_ABI_VERSION; }
`,
	"forge_rt_init": `
FAKE_EXPORT int forge_rt_init(int device) {
	if (FAKE_DEVICES == 0) return FAKE_NO_DEVICE;
	if (device < 0 || device >= FAKE_DEVICES) return FAKE_INVALID_DEVICE;
	fake_device = device;
	return 0;
}
`,
	"forge_rt_error_string": `
FAKE_EXPORT const char* forge_rt_error_string(int code) {
	switch (code) {
	case 0: return "no error";
	case 1: return "invalid argument";
	case FAKE_OUT_OF_MEMORY: return "out of memory";
	case FAKE_NOT_INITIALIZED: return "initialization error";
	case FAKE_NOT_IMPLEMENTED: return "fake: launcher not implemented";
	case FAKE_NO_DEVICE: return "no CUDA-capable device is detected";
	case FAKE_INVALID_DEVICE: return "invalid device ordinal";
	case FAKE_ILLEGAL_STATE: return "operation not permitted when stream is capturing";
	case FAKE_CAPTURE_UNSUPPORTED: return "operation not permitted when stream is capturing";
	case FAKE_CAPTURE_INVALIDATED: return "operation failed due to a previous error during capture";
	case FAKE_CAPTURE_UNMATCHED: return "capture was not initiated in this stream";
	}
	return "unrecognized error code";
}
`,
	"forge_rt_device_info": `
FAKE_EXPORT int forge_rt_device_info(forge_device_info* out) {
	FAKE_CHECK_INIT;
	if (out == NULL) return 1;
	memset(out, 0, sizeof *out);
	strncpy(out->name, FAKE_NAME, sizeof out->name - 1);
	strncpy(out->arch, FAKE_ARCH, sizeof out->arch - 1);
	strncpy(out->vendor, FAKE_VENDOR, sizeof out->vendor - 1);
	strncpy(out->target, FAKE_TARGET, sizeof out->target - 1);
	out->wave_size = 32;
	out->compute_units = 2;
	out->clock_khz = 1500000;
	out->mem_clock_khz = 1000000;
	out->mem_bus_width_bits = 64;
	out->runtime_version = 12000;
	out->driver_version = 12010;
	out->total_mem = FAKE_MEM_LIMIT;
	out->l2_bytes = FAKE_L2_BYTES;
	return 0;
}
`,
	"forge_rt_mem_info": `
FAKE_EXPORT int forge_rt_mem_info(uint64_t* free_bytes, uint64_t* total_bytes) {
	FAKE_CHECK_INIT;
	if (free_bytes == NULL || total_bytes == NULL) return 1;
	*total_bytes = FAKE_MEM_LIMIT;
	*free_bytes = FAKE_MEM_LIMIT - __atomic_load_n(&fake_used, __ATOMIC_SEQ_CST);
	return 0;
}
`,
	"forge_rt_malloc": `
FAKE_EXPORT int forge_rt_malloc(uint64_t bytes, void** out) {
	FAKE_CHECK_INIT;
	FAKE_NO_SYNC_IN_CAPTURE;
	if (out == NULL) return 1;
	*out = NULL;
	uint64_t used = __atomic_add_fetch(&fake_used, bytes, __ATOMIC_SEQ_CST);
	void* base = NULL;
	if (used > FAKE_MEM_LIMIT || posix_memalign(&base, FAKE_HEADER, FAKE_HEADER + bytes) != 0) {
		__atomic_sub_fetch(&fake_used, bytes, __ATOMIC_SEQ_CST);
		return FAKE_OUT_OF_MEMORY;
	}
	*(uint64_t*)base = bytes;
	*out = (char*)base + FAKE_HEADER;
	return 0;
}
`,
	"forge_rt_free": `
FAKE_EXPORT int forge_rt_free(void* p) {
	FAKE_CHECK_INIT;
	FAKE_NO_SYNC_IN_CAPTURE;
	if (p == NULL) return 0;
	char* base = (char*)p - FAKE_HEADER;
	__atomic_sub_fetch(&fake_used, *(uint64_t*)base, __ATOMIC_SEQ_CST);
	free(base);
	return 0;
}
`,
	"forge_rt_memcpy_h2d": `
FAKE_EXPORT int forge_rt_memcpy_h2d(void* dst, const void* src, uint64_t bytes) {
	FAKE_CHECK_INIT;
	FAKE_NO_SYNC_IN_CAPTURE;
	if (bytes && (dst == NULL || src == NULL)) return 1;
	memcpy(dst, src, bytes);
	return 0;
}
`,
	"forge_rt_memcpy_d2h": `
FAKE_EXPORT int forge_rt_memcpy_d2h(void* dst, const void* src, uint64_t bytes) {
	FAKE_CHECK_INIT;
	FAKE_NO_SYNC_IN_CAPTURE;
	if (bytes && (dst == NULL || src == NULL)) return 1;
	memcpy(dst, src, bytes);
	return 0;
}
`,
	"forge_rt_memset": `
FAKE_EXPORT int forge_rt_memset(void* p, int value, uint64_t bytes) {
	FAKE_CHECK_INIT;
	FAKE_NO_SYNC_IN_CAPTURE;
	if (bytes && p == NULL) return 1;
	memset(p, value, bytes);
	return 0;
}
`,
	"forge_rt_synchronize": `
FAKE_EXPORT int forge_rt_synchronize(void) {
	FAKE_CHECK_INIT;
	FAKE_NO_SYNC_IN_CAPTURE;
	return 0;
}
`,
	"forge_rt_stream_create": `
FAKE_EXPORT int forge_rt_stream_create(void** out) {
	FAKE_CHECK_INIT;
	if (out == NULL) return 1;
	*out = malloc(1);
	return *out ? 0 : FAKE_OUT_OF_MEMORY;
}
`,
	"forge_rt_stream_destroy": `
FAKE_EXPORT int forge_rt_stream_destroy(void* s) {
	FAKE_CHECK_INIT;
	free(s);
	return 0;
}
`,
	"forge_rt_event_create": `
FAKE_EXPORT int forge_rt_event_create(void** out) {
	FAKE_CHECK_INIT;
	if (out == NULL) return 1;
	*out = calloc(1, sizeof(double));
	return *out ? 0 : FAKE_OUT_OF_MEMORY;
}
`,
	"forge_rt_event_destroy": `
FAKE_EXPORT int forge_rt_event_destroy(void* e) {
	FAKE_CHECK_INIT;
	free(e);
	return 0;
}
`,
	"forge_rt_event_record": `
FAKE_EXPORT int forge_rt_event_record(void* e, void* stream) {
	(void)stream;
	FAKE_CHECK_INIT;
	if (e == NULL) return 1;
	*(double*)e = fake_now_ms();
	return 0;
}
`,
	"forge_rt_event_elapsed_ms": `
FAKE_EXPORT int forge_rt_event_elapsed_ms(void* start, void* end, float* ms) {
	FAKE_CHECK_INIT;
	if (start == NULL || end == NULL || ms == NULL) return 1;
	*ms = (float)(*(double*)end - *(double*)start);
	return 0;
}
`,
	"forge_copy": `
FAKE_EXPORT int forge_copy(const void* src, void* dst, uint64_t bytes, void* stream) {
	FAKE_CHECK_INIT;
	if (bytes && (src == NULL || dst == NULL)) return 1;
	if (fake_capturing && stream == fake_capturing) {
		if (fake_capture.n == FAKE_GRAPH_OPS) {
			fake_capture_broken = 1;
			return FAKE_CAPTURE_UNSUPPORTED;
		}
		fake_capture.ops[fake_capture.n++] = (fake_op){src, dst, bytes};
		return 0;
	}
	memmove(dst, src, bytes);
	return 0;
}
`,
	"forge_rt_graph_begin": `
FAKE_EXPORT int forge_rt_graph_begin(void* stream) {
	FAKE_CHECK_INIT;
	if (stream == NULL) return 1;
	if (fake_capturing) return FAKE_ILLEGAL_STATE;
	fake_capturing = stream;
	fake_capture_broken = 0;
	fake_capture.n = 0;
	return 0;
}
`,
	"forge_rt_graph_end": `
FAKE_EXPORT int forge_rt_graph_end(void* stream, void** out, uint64_t* kernels) {
	FAKE_CHECK_INIT;
	if (stream == NULL || out == NULL) return 1;
	*out = NULL;
	if (kernels) *kernels = 0;
	if (fake_capturing != stream) return FAKE_CAPTURE_UNMATCHED;
	fake_capturing = NULL;
	if (fake_capture_broken) return FAKE_CAPTURE_INVALIDATED;
	fake_graph* g = malloc(sizeof *g);
	if (g == NULL) return FAKE_OUT_OF_MEMORY;
	*g = fake_capture;
	*out = g;
	if (kernels) *kernels = (uint64_t)g->n;
	return 0;
}
`,
	"forge_rt_graph_launch": `
FAKE_EXPORT int forge_rt_graph_launch(void* graph, void* stream) {
	FAKE_CHECK_INIT;
	if (graph == NULL) return 1;
	FAKE_NOT_CAPTURED(stream);
	const fake_graph* g = graph;
	for (int i = 0; i < g->n; i++) memmove(g->ops[i].dst, g->ops[i].src, g->ops[i].bytes);
	return 0;
}
`,
	"forge_rt_graph_destroy": `
FAKE_EXPORT int forge_rt_graph_destroy(void* graph) {
	FAKE_CHECK_INIT;
	free(graph);
	return 0;
}
`,
}

const fakeQ4_0F32 = `
FAKE_EXPORT int forge_dequant_f32_q4_0(const void* src, float* dst, int64_t n, void* stream) {
	FAKE_CHECK_INIT;
	FAKE_NOT_CAPTURED(stream);
	if (n < 0 || (n > 0 && (src == NULL || dst == NULL))) return 1;
	for (int64_t i = 0; i < n * 32; i++) dst[i] = fake_q4_0((const uint8_t*)src + (i / 32) * 18, (int)(i % 32));
	return 0;
}
`

// fakeMatVecQ4_0 is y = W·x over Q4_0 rows, summed in float in column
// order (well within suite.MatVecTolerance of the reference).
const fakeMatVecQ4_0 = `
FAKE_EXPORT int forge_matvec_f32_q4_0(const void* w, const float* x, float* y, int64_t rows, int64_t cols, void* stream) {
	FAKE_CHECK_INIT;
	FAKE_NOT_CAPTURED(stream);
	if (rows < 0 || cols < 0 || cols % 32 != 0 || (rows > 0 && (w == NULL || x == NULL || y == NULL))) return 1;
	for (int64_t i = 0; i < rows; i++) {
		const uint8_t* row = (const uint8_t*)w + i * (cols / 32) * 18;
		float s = 0;
		for (int64_t k = 0; k < cols; k++) s += fake_q4_0(row + (k / 32) * 18, (int)(k % 32)) * x[k];
		y[i] = s;
	}
	return 0;
}
`

// fakeQuantizeX8 is formats.QuantizeX8 into the X8 device layout: n int8
// codes, n/32 float scales, n/16 float sums (round half away from zero,
// in double, where x/d is exact).
const fakeQuantizeX8 = `
FAKE_EXPORT int forge_glue_quantize_x8(const float* x, void* xq, int64_t n, void* stream) {
	FAKE_CHECK_INIT;
	FAKE_NOT_CAPTURED(stream);
	if (n < 0 || n % 32 != 0 || (n > 0 && (x == NULL || xq == NULL))) return 1;
	int8_t* q = (int8_t*)xq;
	float* d = (float*)(q + n);
	float* s = d + n / 32;
	for (int64_t g = 0; g < n / 32; g++) {
		float amax = 0;
		for (int i = 0; i < 32; i++) {
			float a = x[32 * g + i] < 0 ? -x[32 * g + i] : x[32 * g + i];
			if (a > amax) amax = a;
		}
		float dg = amax / 127.0f;
		int32_t sum[2] = {0, 0};
		for (int i = 0; i < 32; i++) {
			int32_t c = 0;
			if (amax != 0) {
				double t = (double)(x[32 * g + i] / dg);
				c = (int32_t)(t < 0 ? t - 0.5 : t + 0.5);
			}
			q[32 * g + i] = (int8_t)c;
			sum[i / 16] += c;
		}
		d[g] = dg;
		s[2 * g] = dg * (float)sum[0];
		s[2 * g + 1] = dg * (float)sum[1];
	}
	return 0;
}
`

// fakeMatVecX8Q4_0 is y = W·x on Q4_0's integer form against X8
// activations: per block, d·D·Σ nibble·Q + (−8d)·(S[2b] + S[2b+1]).
const fakeMatVecX8Q4_0 = `
FAKE_EXPORT int forge_matvec_x8_q4_0(const void* w, const void* xq, float* y, int64_t rows, int64_t cols, void* stream) {
	FAKE_CHECK_INIT;
	FAKE_NOT_CAPTURED(stream);
	if (rows < 0 || cols < 0 || cols % 32 != 0 || (rows > 0 && (w == NULL || xq == NULL || y == NULL))) return 1;
	const int8_t* q = (const int8_t*)xq;
	const float* d = (const float*)(q + cols);
	const float* s = d + cols / 32;
	for (int64_t r = 0; r < rows; r++) {
		const uint8_t* row = (const uint8_t*)w + r * (cols / 32) * 18;
		float acc = 0;
		for (int64_t b = 0; b < cols / 32; b++) {
			const uint8_t* blk = row + b * 18;
			float scale = fake_half_to_f32((uint16_t)(blk[0] | blk[1] << 8));
			int32_t dot = 0;
			for (int j = 0; j < 32; j++) {
				int code = j < 16 ? (blk[2 + j] & 15) : (blk[2 + j - 16] >> 4);
				dot += code * q[32 * b + j];
			}
			acc += scale * d[b] * (float)dot + (-8.0f * scale) * (s[2 * b] + s[2 * b + 1]);
		}
		y[r] = acc;
	}
	return 0;
}
`

const fakeQ4_0F16 = `
FAKE_EXPORT int forge_dequant_f16_q4_0(const void* src, uint16_t* dst, int64_t n, void* stream) {
	FAKE_CHECK_INIT;
	FAKE_NOT_CAPTURED(stream);
	if (n < 0 || (n > 0 && (src == NULL || dst == NULL))) return 1;
	for (int64_t i = 0; i < n * 32; i++) dst[i] = fake_f32_to_half(fake_q4_0((const uint8_t*)src + (i / 32) * 18, (int)(i % 32)));
	return 0;
}
`
