// The state of rtstub.cc's stand-in HIP runtime, shared with runtime_main.hip.
#include <stddef.h>
#include <stdint.h>

extern "C" {

struct StubState {
	// Set by the test.
	int device_count;
	int device_count_error; // hipGetDeviceCount fails with it
	const char* name;
	const char* arch;
	uint64_t total_mem;
	int failing_attr;    // this hipDeviceAttribute_t fails
	size_t malloc_limit; // larger allocations are out of memory
	int memcpy_error;
	int sync_error;   // hipDeviceSynchronize's result
	int launch_error; // a launch fails with it
	int last_error;   // what hipGetLastError returns next
	int end_capture_error;  // hipStreamEndCapture fails with it (and still hands back a graph)
	int instantiate_error;  // hipGraphInstantiateWithFlags fails with it

	// Recorded by the stub.
	int set_device_calls;
	int props_device, attr_device, malloc_device, launch_device;
	int malloc_calls, free_calls, memcpy_calls, memcpy_kind, memset_calls;
	int stream_syncs, device_syncs;
	void* synced_stream;
	int live_streams, live_events;
	void *recorded_event, *recorded_stream, *synced_event;
	int launches;
	void* capturing_stream; // between hipStreamBeginCapture and hipStreamEndCapture
	int capture_mode;
	int graph_kernels, graph_others; // a captured graph's kernel nodes and other nodes
	int live_graphs, live_execs;
	void *launched_graph, *launched_graph_stream;
};

extern StubState stub;
extern thread_local int stub_current_device; // the calling thread's current device

// Defined by the test: performs a kernel launch on the host.
void stub_on_launch(const void* fn, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
	void** args, size_t shared, void* stream);
}
