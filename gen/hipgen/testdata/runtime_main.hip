// Runs a generated forge_runtime.hip on the host against rtstub.cc's
// stand-in HIP runtime (runtime_test.go): every forge_rt_* function and
// forge_copy, whose launches the stub hands back here to be performed by
// running the kernel's own forge_copy_part for every thread of the grid.
// Compiled host-only (hipcc --cuda-host-only) with FORGE_RUNTIME_HIP naming
// the generated file. Prints one line per failed check and, last,
// "PASS <checks>" or "FAIL <failures> of <checks>".
#include FORGE_RUNTIME_HIP

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thread>
#include <vector>

#include "rtstub.h"

static int checks, failures;

#define CHECK(cond, ...)                                   \
	do {                                                   \
		checks++;                                          \
		if (!(cond)) {                                     \
			failures++;                                    \
			printf("%s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                           \
			printf("\n");                                  \
		}                                                  \
	} while (0)

// ---------------------------------------------------------------------------
// Launches.

static bool emulate = true; // perform forge_copy launches (false: only record them)
static uint32_t last_grid, last_block;
static forge_copy_plan last_plan;

void stub_on_launch(const void* fn, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
	void** args, size_t shared, void* stream) {
	(void)stream;
	CHECK(fn == (const void*)forge_copy_kernel, "a launch of something other than forge_copy_kernel");
	CHECK(gy == 1 && gz == 1 && by == 1 && bz == 1 && shared == 0, "grid %u,%u,%u block %u,%u,%u shared %zu", gx, gy,
		gz, bx, by, bz, shared);
	CHECK(gx >= 1 && gx <= forge_copy_grid_cap, "grid %u", gx);
	CHECK(bx == forge_copy_threads, "block %u", bx);
	const uint8_t* src = *(const uint8_t* const*)args[0];
	uint8_t* dst = *(uint8_t* const*)args[1];
	const forge_copy_plan p = *(const forge_copy_plan*)args[2];
	last_grid = gx;
	last_block = bx;
	last_plan = p;
	if (!emulate) {
		return;
	}
	const uint64_t threads = (uint64_t)gx * bx;
	for (uint64_t t = 0; t < threads; t++) {
		forge_copy_part(src, dst, p, t, threads);
	}
}

// ---------------------------------------------------------------------------
// forge_copy on every relative alignment and many sizes.

static void check_plan(uintptr_t s, uintptr_t d, uint64_t n, forge_copy_plan p) {
	const uint64_t tail = n - p.head - 16 * p.vecs;
	CHECK(p.bytes == n, "plan bytes %llu, want %llu", (unsigned long long)p.bytes, (unsigned long long)n);
	CHECK(p.head + 16 * p.vecs <= n, "plan overruns");
	if ((s % 16) == (d % 16)) {
		CHECK(p.head < 16 && (p.head == n || (s + p.head) % 16 == 0), "s%%16=%u head=%llu n=%llu", (unsigned)(s % 16),
			(unsigned long long)p.head, (unsigned long long)n);
		CHECK(tail < 16, "tail %llu", (unsigned long long)tail);
	} else {
		CHECK(p.head == 0 && p.vecs == 0, "vectors planned for mutually misaligned pointers");
	}
}

static void test_copy_sizes(void) {
	const size_t cap = (size_t)3 << 20;
	uint8_t* src = (uint8_t*)aligned_alloc(256, cap + 256);
	uint8_t* dst = (uint8_t*)aligned_alloc(256, cap + 256);
	for (size_t i = 0; i < cap + 256; i++) {
		src[i] = (uint8_t)(i * 131 + (i >> 8) * 7 + 1);
	}
	std::vector<uint64_t> sizes;
	for (uint64_t n = 1; n <= 100; n++) {
		sizes.push_back(n);
	}
	for (uint64_t n : {127, 128, 129, 255, 256, 257, 1000, 4095, 4096, 4097, 16383, 16384 + 15, 65536 + 1}) {
		sizes.push_back(n);
	}
	// A grid of several workgroups with whole and partial unrolled rounds.
	for (uint64_t n : {(uint64_t)forge_copy_threads * forge_copy_unroll * 16 * 3 + 16 * 5 + 3, (uint64_t)(1 << 20) + 9,
		     (uint64_t)(3 << 20) - 1}) {
		sizes.push_back(n);
	}
	int cases = 0;
	for (uint64_t n : sizes) {
		for (unsigned so = 0; so < 17; so++) {
			for (unsigned dso = 0; dso < 17; dso++) {
				if (n > 4096 && so % 4 != 0 && dso % 5 != 0) {
					continue; // the large sizes on fewer offsets
				}
				const unsigned dof = (so + dso) % 17;
				memset(dst, 0xA5, n + 64);
				int before = stub.launches;
				int rc = forge_copy(src + so, dst + dof, n, (void*)0x5000);
				cases++;
				CHECK(rc == 0, "forge_copy rc %d", rc);
				CHECK(stub.launches == before + 1, "no launch");
				check_plan((uintptr_t)(src + so), (uintptr_t)(dst + dof), n, last_plan);
				CHECK(memcmp(dst + dof, src + so, n) == 0, "n=%llu src+%u dst+%u: bytes differ", (unsigned long long)n, so,
					dof);
				bool guard = true;
				for (unsigned i = 0; i < dof; i++) {
					guard = guard && dst[i] == 0xA5;
				}
				for (unsigned i = 0; i < 32; i++) {
					guard = guard && dst[dof + n + i] == 0xA5;
				}
				CHECK(guard, "n=%llu src+%u dst+%u: wrote outside dst", (unsigned long long)n, so, dof);
			}
		}
	}
	printf("forge_copy: %d copies emulated\n", cases);
	free(src);
	free(dst);
}

static void test_copy_args(void) {
	uint8_t* buf = (uint8_t*)aligned_alloc(256, 4096);
	int before = stub.launches;
	CHECK(forge_copy(buf, buf + 2048, 0, 0) == 0, "0 bytes");
	CHECK(forge_copy(NULL, NULL, 0, 0) == 0, "0 bytes, null");
	CHECK(stub.launches == before, "0 bytes launched");
	CHECK(forge_copy(NULL, buf, 1, 0) == FORGE_ERR_INVALID, "null src");
	CHECK(forge_copy(buf, NULL, 1, 0) == FORGE_ERR_INVALID, "null dst");
	CHECK(forge_copy(buf, buf + 10, 11, 0) == FORGE_ERR_INVALID, "overlap forward");
	CHECK(forge_copy(buf + 10, buf, 11, 0) == FORGE_ERR_INVALID, "overlap backward");
	CHECK(forge_copy(buf, buf, 1, 0) == FORGE_ERR_INVALID, "same");
	CHECK(forge_copy(buf, (void*)(UINTPTR_MAX - 3), 8, 0) == FORGE_ERR_INVALID, "wraps");
	CHECK(stub.launches == before, "refused copies launched");
	CHECK(forge_copy(buf, buf + 10, 10, 0) == 0, "adjacent");
	CHECK(forge_copy(buf + 10, buf, 10, 0) == 0, "adjacent backward");

	// The grid: capped, and sized by vectors (4 per thread) or by scalars.
	emulate = false;
	const uintptr_t a = (uintptr_t)1 << 40, b = (uintptr_t)1 << 44;
	CHECK(forge_copy((void*)a, (void*)b, (uint64_t)1 << 40, 0) == 0, "1 TiB");
	CHECK(last_grid == forge_copy_grid_cap && last_plan.vecs == ((uint64_t)1 << 36), "1 TiB: grid %u", last_grid);
	CHECK(forge_copy((void*)a, (void*)b, 16 * 4 * 256 * 10, 0) == 0 && last_grid == 10, "10 rounds: grid %u", last_grid);
	CHECK(forge_copy((void*)a, (void*)b, 16 * 4 * 256 * 10 + 16, 0) == 0 && last_grid == 11, "+1 vector: grid %u", last_grid);
	CHECK(forge_copy((void*)(a + 1), (void*)b, 256 * 7, 0) == 0 && last_grid == 7 && last_plan.vecs == 0,
		"scalar: grid %u", last_grid);
	CHECK(forge_copy((void*)(a + 1), (void*)(b + 1), 15, 0) == 0 && last_grid == 1 && last_plan.head == 15,
		"head only: grid %u", last_grid);
	emulate = true;

	// Launch errors: this launch's is returned; an earlier one is not.
	stub.launch_error = 98;
	CHECK(forge_copy(buf, buf + 2048, 100, 0) == 98, "launch error");
	stub.launch_error = 0;
	CHECK(stub.last_error == 0, "the launch error was left behind for the next call");
	stub.last_error = 7;
	CHECK(forge_copy(buf, buf + 2048, 100, 0) == 0, "a stale error was returned");
	free(buf);
}

// ---------------------------------------------------------------------------
// The rest of the runtime ABI.

static void reset_stub(void) {
	memset(&stub, 0, sizeof stub);
	stub.device_count = 2;
	stub.name = "Stub GPU";
	stub.arch = "gfx1100:sramecc-:xnack-";
	stub.total_mem = (uint64_t)24 << 30;
	stub.failing_attr = -1;
	stub.malloc_limit = (size_t)1 << 30;
}

static void test_device(void) {
	CHECK(forge_abi_version() == FORGE_ABI_VERSION, "forge_abi_version %d", forge_abi_version());
	CHECK(strcmp(forge_rt_error_string(0), "stub: no error") == 0, "%s", forge_rt_error_string(0));
	CHECK(strcmp(forge_rt_error_string(FORGE_ERR_INVALID), "stub: invalid argument") == 0, "%s",
		forge_rt_error_string(1));

	// Before forge_rt_init: the thread's current device, no switching.
	void* p = NULL;
	CHECK(forge_rt_malloc(64, &p) == 0 && p != NULL, "malloc before init");
	CHECK(stub.set_device_calls == 0 && stub.malloc_device == 0, "switched device before init");
	CHECK(forge_rt_free(p) == 0, "free");

	CHECK(forge_rt_init(-1) == FORGE_ERR_INVALID, "init(-1)");
	CHECK(forge_rt_init(2) == (int)hipErrorInvalidDevice, "init(2) of 2 devices: %d", forge_rt_init(2));
	stub.device_count_error = (int)hipErrorNoDevice;
	CHECK(forge_rt_init(0) == (int)hipErrorNoDevice, "init with no device");
	stub.device_count_error = 0;
	int frees = stub.free_calls;
	CHECK(forge_rt_init(1) == 0, "init(1)");
	CHECK(stub.free_calls == frees + 1, "init did not create the context (hipFree(0))");

	// After init(1): every call switches to device 1, on any thread.
	stub_current_device = 0;
	CHECK(forge_rt_malloc(64, &p) == 0 && stub.malloc_device == 1, "malloc on device %d", stub.malloc_device);
	CHECK(forge_rt_free(p) == 0, "free");
	std::thread([] {
		void* q = NULL;
		CHECK(forge_rt_malloc(64, &q) == 0 && stub.malloc_device == 1, "another thread: malloc on device %d",
			stub.malloc_device);
		forge_device_info info;
		CHECK(forge_rt_device_info(&info) == 0 && stub.props_device == 1 && stub.attr_device == 1,
			"another thread: info of device %d", stub.props_device);
		CHECK(forge_rt_free(q) == 0, "free");
	}).join();

	forge_device_info info;
	memset(&info, 0x5A, sizeof info);
	CHECK(forge_rt_device_info(NULL) == FORGE_ERR_INVALID, "info(NULL)");
	CHECK(forge_rt_device_info(&info) == 0, "info");
	CHECK(strcmp(info.name, "Stub GPU") == 0, "name %s", info.name);
	CHECK(strcmp(info.arch, "gfx1100") == 0, "arch %s", info.arch);
	CHECK(strcmp(info.vendor, "amd") == 0, "vendor %s", info.vendor);
	CHECK(strcmp(info.target, "gfx1100") == 0, "target %s", info.target);
	CHECK(info.wave_size == 32 && info.compute_units == 48 && info.clock_khz == 2500000 &&
		      info.mem_clock_khz == 1250000 && info.mem_bus_width_bits == 384,
		"ints %d %d %d %d %d", info.wave_size, info.compute_units, info.clock_khz, info.mem_clock_khz,
		info.mem_bus_width_bits);
	CHECK(info.runtime_version == 50221 && info.driver_version == 60000 && info.pad == 0, "versions %d %d pad %d",
		info.runtime_version, info.driver_version, info.pad);
	CHECK(info.total_mem == ((uint64_t)24 << 30) && info.l2_bytes == (6u << 20), "mem %llu l2 %llu",
		(unsigned long long)info.total_mem, (unsigned long long)info.l2_bytes);
	CHECK(info.name[sizeof info.name - 1] == 0 && info.arch[sizeof info.arch - 1] == 0, "not NUL-filled");

	// A long name is truncated; an attribute the runtime cannot give reads 0
	// and leaves no error behind.
	static char longname[400];
	memset(longname, 'x', sizeof longname - 1);
	stub.name = longname;
	stub.arch = "gfx90a";
	stub.failing_attr = (int)hipDeviceAttributeMemoryClockRate;
	CHECK(forge_rt_device_info(&info) == 0, "info, long name");
	CHECK(strlen(info.name) == 255 && strcmp(info.arch, "gfx90a") == 0, "name %zu arch %s", strlen(info.name), info.arch);
	CHECK(info.mem_clock_khz == 0 && info.clock_khz == 2500000, "failing attribute: %d", info.mem_clock_khz);
	CHECK(stub.last_error == 0, "a failed attribute left error %d", stub.last_error);
	stub.name = "Stub GPU";
	stub.failing_attr = -1;

	uint64_t f = 0, t = 0;
	CHECK(forge_rt_mem_info(&f, &t) == 0 && f == 1000 && t == 2000, "mem_info %llu %llu", (unsigned long long)f,
		(unsigned long long)t);
	CHECK(forge_rt_mem_info(NULL, &t) == FORGE_ERR_INVALID && forge_rt_mem_info(&f, NULL) == FORGE_ERR_INVALID,
		"mem_info(NULL)");
}

static void test_memory(void) {
	void* p = (void*)1;
	int mallocs = stub.malloc_calls;
	CHECK(forge_rt_malloc(64, NULL) == FORGE_ERR_INVALID, "malloc(NULL)");
	CHECK(forge_rt_malloc(0, &p) == 0 && p == NULL && stub.malloc_calls == mallocs, "malloc(0)");
	p = (void*)1;
	CHECK(forge_rt_malloc((uint64_t)2 << 30, &p) == (int)hipErrorOutOfMemory && p == NULL, "out of memory");
	CHECK(stub.last_error == 0, "out of memory left error %d behind", stub.last_error);
	int frees = stub.free_calls;
	CHECK(forge_rt_free(NULL) == 0 && stub.free_calls == frees, "free(NULL)");

	void* d = NULL;
	CHECK(forge_rt_malloc(1000, &d) == 0 && d != NULL, "malloc");
	unsigned char host[1000], back[1000];
	for (int i = 0; i < 1000; i++) {
		host[i] = (unsigned char)(i * 7);
	}
	int syncs = stub.stream_syncs;
	CHECK(forge_rt_memcpy_h2d(d, host, 1000) == 0 && stub.memcpy_kind == (int)hipMemcpyHostToDevice, "h2d");
	CHECK(stub.stream_syncs == syncs + 1 && stub.synced_stream == NULL, "h2d did not wait");
	memset(back, 0, sizeof back);
	CHECK(forge_rt_memcpy_d2h(back, d, 1000) == 0 && stub.memcpy_kind == (int)hipMemcpyDeviceToHost, "d2h");
	CHECK(memcmp(host, back, 1000) == 0, "round trip");
	syncs = stub.stream_syncs;
	CHECK(forge_rt_memset(d, 0x3C, 500) == 0 && stub.stream_syncs == syncs + 1, "memset");
	CHECK(forge_rt_memcpy_d2h(back, d, 1000) == 0 && back[0] == 0x3C && back[499] == 0x3C && back[500] == host[500],
		"memset bytes");

	int copies = stub.memcpy_calls;
	CHECK(forge_rt_memcpy_h2d(NULL, host, 1) == FORGE_ERR_INVALID && forge_rt_memcpy_h2d(d, NULL, 1) == FORGE_ERR_INVALID,
		"h2d(NULL)");
	CHECK(forge_rt_memcpy_d2h(NULL, d, 1) == FORGE_ERR_INVALID && forge_rt_memcpy_d2h(back, NULL, 1) == FORGE_ERR_INVALID,
		"d2h(NULL)");
	CHECK(forge_rt_memcpy_h2d(NULL, NULL, 0) == 0 && forge_rt_memcpy_d2h(NULL, NULL, 0) == 0, "0 bytes");
	CHECK(forge_rt_memset(NULL, 0, 1) == FORGE_ERR_INVALID && forge_rt_memset(NULL, 0, 0) == 0, "memset(NULL)");
	CHECK(stub.memcpy_calls == copies, "refused copies reached the runtime");
	stub.memcpy_error = 700;
	CHECK(forge_rt_memcpy_d2h(back, d, 10) == 700, "d2h error");
	stub.memcpy_error = 0;
	CHECK(forge_rt_free(d) == 0, "free");

	CHECK(forge_rt_synchronize() == 0 && stub.device_syncs == 1, "synchronize");
	stub.sync_error = 719;
	CHECK(forge_rt_synchronize() == 719, "synchronize error");
	stub.sync_error = 0;
	stub.last_error = 0;
}

static void test_streams_events(void) {
	void *s = NULL, *e0 = NULL, *e1 = NULL;
	CHECK(forge_rt_stream_create(NULL) == FORGE_ERR_INVALID, "stream_create(NULL)");
	CHECK(forge_rt_stream_create(&s) == 0 && s != NULL && stub.live_streams == 1, "stream_create");
	CHECK(forge_rt_event_create(NULL) == FORGE_ERR_INVALID, "event_create(NULL)");
	CHECK(forge_rt_event_create(&e0) == 0 && forge_rt_event_create(&e1) == 0 && stub.live_events == 2, "event_create");
	CHECK(forge_rt_event_record(NULL, s) == FORGE_ERR_INVALID, "record(NULL)");
	CHECK(forge_rt_event_record(e0, s) == 0 && stub.recorded_event == e0 && stub.recorded_stream == s, "record");
	CHECK(forge_rt_event_record(e1, NULL) == 0 && stub.recorded_event == e1 && stub.recorded_stream == NULL,
		"record on the default stream");
	float ms = -1;
	CHECK(forge_rt_event_elapsed_ms(NULL, e1, &ms) == FORGE_ERR_INVALID &&
		      forge_rt_event_elapsed_ms(e0, NULL, &ms) == FORGE_ERR_INVALID &&
		      forge_rt_event_elapsed_ms(e0, e1, NULL) == FORGE_ERR_INVALID,
		"elapsed(NULL)");
	CHECK(forge_rt_event_elapsed_ms(e0, e1, &ms) == 0 && ms == 1.25f && stub.synced_event == e1, "elapsed %g", ms);
	CHECK(forge_rt_event_destroy(e0) == 0 && forge_rt_event_destroy(e1) == 0 && forge_rt_event_destroy(NULL) == 0 &&
		      stub.live_events == 0,
		"event_destroy");
	CHECK(forge_rt_stream_destroy(s) == 0 && forge_rt_stream_destroy(NULL) == 0 && stub.live_streams == 0,
		"stream_destroy");
}

static void test_graphs(void) {
	void *s = NULL, *g = (void*)1;
	uint64_t kernels = 99;
	CHECK(forge_rt_stream_create(&s) == 0, "stream_create");
	CHECK(forge_rt_graph_begin(NULL) == FORGE_ERR_INVALID && stub.capturing_stream == NULL,
		"the default stream cannot be captured");
	CHECK(forge_rt_graph_begin(s) == 0 && stub.capturing_stream == s &&
		      stub.capture_mode == (int)hipStreamCaptureModeThreadLocal,
		"begin: thread-local capture of s");
	CHECK(forge_rt_graph_end(NULL, &g, NULL) == FORGE_ERR_INVALID && forge_rt_graph_end(s, NULL, NULL) == FORGE_ERR_INVALID,
		"end(NULL)");
	stub.graph_kernels = 5;
	stub.graph_others = 2;
	CHECK(forge_rt_graph_end(s, &g, &kernels) == 0 && g != NULL && stub.capturing_stream == NULL &&
		      stub.live_graphs == 0 && stub.live_execs == 1 && kernels == 5,
		"end: an executable graph of %d kernels, the captured one destroyed", (int)kernels);
	CHECK(forge_rt_graph_launch(NULL, s) == FORGE_ERR_INVALID, "launch(NULL)");
	CHECK(forge_rt_graph_launch(g, s) == 0 && stub.launched_graph == g && stub.launched_graph_stream == s, "launch");
	CHECK(forge_rt_graph_destroy(g) == 0 && forge_rt_graph_destroy(NULL) == 0 && stub.live_execs == 0, "destroy");

	// A capture that fails at its end, or at instantiation, keeps nothing.
	stub.end_capture_error = hipErrorStreamCaptureInvalidated;
	g = (void*)1;
	CHECK(forge_rt_graph_begin(s) == 0 && forge_rt_graph_end(s, &g, NULL) == (int)hipErrorStreamCaptureInvalidated &&
		      g == NULL && stub.live_graphs == 0 && stub.live_execs == 0 && stub.capturing_stream == NULL,
		"an invalidated capture");
	stub.end_capture_error = 0;
	stub.instantiate_error = hipErrorOutOfMemory;
	g = (void*)1;
	CHECK(forge_rt_graph_begin(s) == 0 && forge_rt_graph_end(s, &g, &kernels) == (int)hipErrorOutOfMemory && g == NULL &&
		      stub.live_graphs == 0 && stub.live_execs == 0,
		"instantiation fails");
	stub.instantiate_error = 0;
	stub.last_error = 0;
	CHECK(forge_rt_graph_end(s, &g, &kernels) == (int)hipErrorStreamCaptureUnmatched && g == NULL && kernels == 0,
		"end without a capture");
	stub.last_error = 0;
	CHECK(forge_rt_stream_destroy(s) == 0, "stream_destroy");
}

int main(void) {
	reset_stub();
	test_device();
	test_memory();
	test_streams_events();
	test_graphs();
	test_copy_args();
	test_copy_sizes();
	if (failures) {
		printf("FAIL %d of %d\n", failures, checks);
		return 1;
	}
	printf("PASS %d\n", checks);
	return 0;
}
