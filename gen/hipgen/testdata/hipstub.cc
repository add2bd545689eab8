// A stand-in for the parts of the HIP runtime (libamdhip64) that a host
// object compiled with hipcc --cuda-host-only calls, so that the generated
// launchers can run on a machine without a GPU: it records each kernel
// launch instead of performing it. Declarations follow what clang emits for
// HIP kernel registration and <<<>>> launches (ROCm 5.x); dim3 is passed by
// value, three uint32_t, as in HIP's headers.
#include <stddef.h>
#include <stdint.h>

struct dim3 {
	uint32_t x, y, z;
};

extern "C" {

// Recorded by the stub; read by launcher_main.cc.
int stub_launches;
dim3 stub_grid, stub_block;
size_t stub_shared;
void* stub_stream;
void** stub_args;
int64_t stub_n_blocks;
const void* stub_src;
const void* stub_dst;
int stub_last_error;   // what hipGetLastError returns next
int stub_launch_error; // the error a launch leaves

#include "hipreg_stub.h"

static dim3 pushed_grid, pushed_block;
static size_t pushed_shared;
static void* pushed_stream;

int __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
	pushed_grid = grid;
	pushed_block = block;
	pushed_shared = shared;
	pushed_stream = stream;
	return 0;
}

int __hipPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void** stream) {
	*grid = pushed_grid;
	*block = pushed_block;
	*shared = pushed_shared;
	*stream = pushed_stream;
	return 0;
}

int hipLaunchKernel(const void*, dim3 grid, dim3 block, void** args, size_t shared, void* stream) {
	stub_launches++;
	stub_grid = grid;
	stub_block = block;
	stub_shared = shared;
	stub_stream = stream;
	stub_src = *(const void* const*)args[0];
	stub_dst = *(const void* const*)args[1];
	stub_n_blocks = *(const int64_t*)args[2];
	// CUDA's rule, the stricter: an error stays until read, and a successful
	// call does not clear it. (ROCm's HIP records every call's result.)
	if (stub_launch_error != 0) {
		stub_last_error = stub_launch_error;
	}
	return stub_launch_error;
}

int hipGetLastError(void) {
	int e = stub_last_error;
	stub_last_error = 0;
	return e;
}

} // extern "C"
