// A stand-in for the HIP runtime (libamdhip64) that the generated
// forge_runtime.hip calls, so that the runtime ABI can run on a machine
// without a GPU (runtime_test.go). It is compiled as plain C++ against HIP's
// own API header, so every function here has the signature the generated
// code was compiled against. "Device memory" is host memory; each call is
// counted, errors can be injected, and a kernel launch is handed to the test
// (stub_on_launch), which performs it on the host.
#include <hip/hip_runtime_api.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtstub.h"

extern "C" {

StubState stub;
thread_local int stub_current_device = 0; // the runtime's per-thread current device

#include "hipreg_stub.h"

static dim3 pushed_grid, pushed_block;
static size_t pushed_shared;
static hipStream_t pushed_stream;

hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared, hipStream_t stream) {
	pushed_grid = grid;
	pushed_block = block;
	pushed_shared = shared;
	pushed_stream = stream;
	return hipSuccess;
}

hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, hipStream_t* stream) {
	*grid = pushed_grid;
	*block = pushed_block;
	*shared = pushed_shared;
	*stream = pushed_stream;
	return hipSuccess;
}

// fail records e as the thread's last error, as the runtime does for every
// failing call; CUDA's rule, the stricter: success does not clear it.
static hipError_t fail(hipError_t e) {
	if (e != hipSuccess) {
		stub.last_error = e;
	}
	return e;
}

hipError_t hipLaunchKernel(const void* fn, dim3 grid, dim3 block, void** args, size_t shared, hipStream_t stream) {
	stub.launches++;
	stub.launch_device = stub_current_device;
	if (stub.launch_error != 0) {
		return fail((hipError_t)stub.launch_error);
	}
	stub_on_launch(fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, args, shared, (void*)stream);
	return hipSuccess;
}

hipError_t hipGetLastError(void) {
	hipError_t e = (hipError_t)stub.last_error;
	stub.last_error = 0;
	return e;
}

const char* hipGetErrorString(hipError_t e) {
	switch ((int)e) {
	case 0:
		return "stub: no error";
	case 1:
		return "stub: invalid argument";
	default:
		return "stub: some error";
	}
}

hipError_t hipGetDeviceCount(int* n) {
	if (stub.device_count_error) {
		return fail((hipError_t)stub.device_count_error);
	}
	*n = stub.device_count;
	return hipSuccess;
}

hipError_t hipSetDevice(int d) {
	stub.set_device_calls++;
	if (d < 0 || d >= stub.device_count) {
		return fail(hipErrorInvalidDevice);
	}
	stub_current_device = d;
	return hipSuccess;
}

hipError_t hipGetDevice(int* d) {
	*d = stub_current_device;
	return hipSuccess;
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t* p, int d) {
	stub.props_device = d;
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", stub.name);
	snprintf(p->gcnArchName, sizeof p->gcnArchName, "%s", stub.arch);
	p->totalGlobalMem = (size_t)stub.total_mem;
	p->warpSize = -1; // the runtime reads attributes, not these
	p->clockRate = -1;
	return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int* v, hipDeviceAttribute_t attr, int d) {
	stub.attr_device = d;
	if ((int)attr == stub.failing_attr) {
		return fail(hipErrorInvalidValue);
	}
	switch (attr) {
	case hipDeviceAttributeWarpSize:
		*v = 32;
		return hipSuccess;
	case hipDeviceAttributeMultiprocessorCount:
		*v = 48;
		return hipSuccess;
	case hipDeviceAttributeClockRate:
		*v = 2500000;
		return hipSuccess;
	case hipDeviceAttributeMemoryClockRate:
		*v = 1250000;
		return hipSuccess;
	case hipDeviceAttributeMemoryBusWidth:
		*v = 384;
		return hipSuccess;
	case hipDeviceAttributeL2CacheSize:
		*v = 6 << 20;
		return hipSuccess;
	default:
		return fail(hipErrorInvalidValue);
	}
}

hipError_t hipRuntimeGetVersion(int* v) {
	*v = 50221;
	return hipSuccess;
}

hipError_t hipDriverGetVersion(int* v) {
	*v = 60000;
	return hipSuccess;
}

hipError_t hipMemGetInfo(size_t* f, size_t* t) {
	*f = 1000;
	*t = 2000;
	return hipSuccess;
}

hipError_t hipMalloc(void** p, size_t n) {
	stub.malloc_calls++;
	stub.malloc_device = stub_current_device;
	if (n > stub.malloc_limit) {
		*p = NULL;
		return fail(hipErrorOutOfMemory);
	}
	*p = aligned_alloc(256, (n + 255) / 256 * 256);
	return hipSuccess;
}

hipError_t hipFree(void* p) {
	stub.free_calls++;
	free(p);
	return hipSuccess;
}

hipError_t hipMemcpy(void* dst, const void* src, size_t n, hipMemcpyKind kind) {
	stub.memcpy_calls++;
	stub.memcpy_kind = (int)kind;
	if (stub.memcpy_error) {
		return fail((hipError_t)stub.memcpy_error);
	}
	memcpy(dst, src, n);
	return hipSuccess;
}

hipError_t hipMemset(void* p, int v, size_t n) {
	stub.memset_calls++;
	memset(p, v, n);
	return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t s) {
	stub.stream_syncs++;
	stub.synced_stream = (void*)s;
	return hipSuccess;
}

hipError_t hipDeviceSynchronize(void) {
	stub.device_syncs++;
	return fail((hipError_t)stub.sync_error);
}

hipError_t hipStreamCreate(hipStream_t* s) {
	*s = (hipStream_t)malloc(1);
	stub.live_streams++;
	return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t s) {
	free((void*)s);
	stub.live_streams--;
	return hipSuccess;
}

hipError_t hipEventCreate(hipEvent_t* e) {
	*e = (hipEvent_t)malloc(1);
	stub.live_events++;
	return hipSuccess;
}

hipError_t hipEventDestroy(hipEvent_t e) {
	free((void*)e);
	stub.live_events--;
	return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) {
	stub.recorded_event = (void*)e;
	stub.recorded_stream = (void*)s;
	return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t e) {
	stub.synced_event = (void*)e;
	return hipSuccess;
}

hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t end) {
	if ((void*)end != stub.synced_event) {
		return fail(hipErrorNotReady); // the runtime must wait for end first
	}
	(void)start;
	*ms = 1.25f;
	return hipSuccess;
}

hipError_t hipStreamBeginCapture(hipStream_t s, hipStreamCaptureMode mode) {
	if (stub.capturing_stream) {
		return fail(hipErrorIllegalState);
	}
	stub.capturing_stream = (void*)s;
	stub.capture_mode = (int)mode;
	return hipSuccess;
}

hipError_t hipStreamEndCapture(hipStream_t s, hipGraph_t* g) {
	if (stub.capturing_stream != (void*)s) {
		return fail(hipErrorStreamCaptureUnmatched);
	}
	stub.capturing_stream = NULL;
	*g = (hipGraph_t)malloc(1);
	stub.live_graphs++;
	return fail((hipError_t)stub.end_capture_error);
}

hipError_t hipGraphGetNodes(hipGraph_t g, hipGraphNode_t* nodes, size_t* n) {
	(void)g;
	const size_t all = (size_t)(stub.graph_kernels + stub.graph_others);
	if (nodes) {
		for (size_t i = 0; i < all && i < *n; i++) {
			nodes[i] = (hipGraphNode_t)(uintptr_t)(i + 1); // the others first, then the kernels
		}
	}
	*n = all;
	return hipSuccess;
}

hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType* t) {
	*t = (uintptr_t)node > (uintptr_t)stub.graph_others ? hipGraphNodeTypeKernel : hipGraphNodeTypeMemset;
	return hipSuccess;
}

hipError_t hipGraphDestroy(hipGraph_t g) {
	free((void*)g);
	stub.live_graphs--;
	return hipSuccess;
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* e, hipGraph_t g, unsigned long long flags) {
	(void)g;
	(void)flags;
	if (stub.instantiate_error) {
		return fail((hipError_t)stub.instantiate_error);
	}
	*e = (hipGraphExec_t)malloc(1);
	stub.live_execs++;
	return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t e, hipStream_t s) {
	stub.launched_graph = (void*)e;
	stub.launched_graph_stream = (void*)s;
	return hipSuccess;
}

hipError_t hipGraphExecDestroy(hipGraphExec_t e) {
	free((void*)e);
	stub.live_execs--;
	return hipSuccess;
}

} // extern "C"
