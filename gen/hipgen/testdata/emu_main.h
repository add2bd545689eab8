// emu_main.h: what every host-emulation main (matmul_emu_main.cc,
// matvec_emu_main.cc, attention_emu_main.cc, glue_emu_main.cc,
// dequant_emu_main.cc) shares: the emulated GPU that
// emu.h declares, files in and out, finding a launcher by name, and the
// report line the Go tests read ("rc=R launches=N").
//
// The GPU: a workgroup's threads are fibers (ucontext) of the one OS
// thread, each on its own stack, run in thread order, each until it reaches
// a barrier or returns; a barrier releases its threads once the last of
// them arrives. That is a GPU's semantics with one fixed interleaving,
// without an OS thread per emulated one or a kernel call per barrier.
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

// forge_emu_tid is the running fiber's index: in a cluster launch rank ·
// block + its thread's index (emu.h's forge_thread_idx() takes the
// remainder), so that every per-thread emulation array, indexed by it,
// keeps the cluster's workgroups apart.
uint32_t forge_emu_tid;
uint32_t forge_emu_block_threads = 1;
uint64_t forge_emu_events;
uint32_t forge_emu_block, forge_emu_grid;
uint32_t forge_emu_cluster = 1, forge_emu_cluster_rank;
// Dynamic shared memory: one buffer a workgroup of the cluster running
// (forge_emu_dyn_smem is the running one's).
alignas(1024) uint8_t forge_emu_smem_store[4][232448];
uint8_t* forge_emu_dyn_smem = forge_emu_smem_store[0];
float forge_emu_slot[1024];
int forge_emu_islot[1024];
int forge_emu_launches;

namespace {

// A barrier: arrivals in the current generation, which its waiters watch.
struct emu_barrier {
	uint32_t arrived = 0;
	uint64_t gen = 0;
};

// Switching fibers: on x86-64 a plain register switch (forge_emu_switch);
// elsewhere, or with -DFORGE_EMU_UCONTEXT, ucontext, whose swapcontext
// costs a system call per switch (the signal mask): ten times slower, as
// the emulation makes millions of switches.
#if defined(__x86_64__) && !defined(FORGE_EMU_UCONTEXT)
struct emu_context {
	void* sp;
};
// emu_switch saves the callee-saved registers on the running stack and its
// stack pointer in *from, then resumes the stack to points at.
extern "C" void forge_emu_switch(emu_context* from, emu_context* to);
asm(R"(
	.text
	.p2align 4
	.hidden forge_emu_switch
	.globl forge_emu_switch
	.type forge_emu_switch, @function
forge_emu_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq (%rsi), %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size forge_emu_switch, .-forge_emu_switch
)");
void emu_switch(emu_context& from, emu_context& to) { forge_emu_switch(&from, &to); }
#else
struct emu_context {
	ucontext_t uc;
};
void emu_switch(emu_context& from, emu_context& to) {
	if (swapcontext(&from.uc, &to.uc) != 0) {
		fprintf(stderr, "emulated GPU: swapcontext failed\n");
		exit(3);
	}
}
#endif

struct emu_fiber {
	emu_context ctx;
	emu_barrier* wait = nullptr; // the barrier it waits at, if any
	uint64_t gen = 0;            // the barrier's generation when it arrived
	bool done = false;
};

constexpr size_t emu_stack_bytes = 256 << 10; // the wmma fragments are 1 KiB each
constexpr uint32_t emu_max_threads = 1024;

emu_context emu_scheduler;
// forge_emu_events counts what can let a waiting thread on: arrivals,
// finished threads, threads let through a barrier or past a wait. A sweep
// of the threads in which it does not move is a deadlock.
emu_fiber emu_fibers[emu_max_threads];
emu_barrier emu_block_barriers[4]; // a cluster's workgroups'
emu_barrier emu_cluster_barrier;
emu_barrier emu_wave_barriers[emu_max_threads]; // by the wave's first fiber
uint32_t emu_block_size;
void (*emu_body)(void*);
void* emu_arg;

[[noreturn]] void emu_die(const char* what) {
	fprintf(stderr, "emulated GPU: %s\n", what);
	exit(3);
}

// emu_arrive waits at b, which n threads must reach: the last to arrive
// releases the others and runs on; the others give way to the next fiber.
void emu_arrive(emu_barrier& b, uint32_t n) {
	forge_emu_events++;
	if (++b.arrived == n) {
		b.arrived = 0;
		b.gen++;
		return;
	}
	emu_fiber& f = emu_fibers[forge_emu_tid];
	f.wait = &b;
	f.gen = b.gen;
	emu_switch(f.ctx, emu_scheduler);
}

// emu_run is where every fiber starts: the kernel's body, then back to the
// scheduler for good.
void emu_run() {
	emu_fiber& f = emu_fibers[forge_emu_tid];
	emu_body(emu_arg);
	f.done = true;
	forge_emu_events++;
	emu_switch(f.ctx, emu_scheduler);
	emu_die("a finished fiber was resumed");
}

// emu_start makes f start at emu_run on the stack [lo, lo+size).
void emu_start(emu_fiber& f, char* lo, size_t size) {
#if defined(__x86_64__) && !defined(FORGE_EMU_UCONTEXT)
	// What forge_emu_switch pops: six registers, then emu_run as the return
	// address, above which a zero return address keeps the ABI's alignment
	// (rsp + 8 a multiple of 16 at a function's entry).
	uintptr_t top = ((uintptr_t)(lo + size)) & ~(uintptr_t)15;
	void** sp = (void**)top;
	*--sp = nullptr;
	*--sp = (void*)&emu_run;
	for (int i = 0; i < 6; ++i) *--sp = nullptr;
	f.ctx.sp = sp;
#else
	if (getcontext(&f.ctx.uc) != 0) emu_die("getcontext failed");
	f.ctx.uc.uc_stack.ss_sp = lo;
	f.ctx.uc.uc_stack.ss_size = size;
	f.ctx.uc.uc_link = nullptr;
	makecontext(&f.ctx.uc, emu_run, 0);
#endif
}

} // namespace

void forge_emu_sync_block() { emu_arrive(emu_block_barriers[forge_emu_tid / emu_block_size], emu_block_size); }
void forge_emu_sync_cluster() { emu_arrive(emu_cluster_barrier, emu_block_size * forge_emu_cluster); }

// forge_emu_yield gives way to the next thread: a thread spinning on a
// condition another thread makes true (an mbarrier's phase) runs again in
// the next sweep.
void forge_emu_yield() {
	emu_fiber& f = emu_fibers[forge_emu_tid];
	f.wait = nullptr;
	emu_switch(f.ctx, emu_scheduler);
}

void forge_emu_sync_wave(uint32_t wave_size) {
	if (emu_block_size % wave_size != 0) emu_die("a wave barrier in a workgroup of partial waves");
	emu_arrive(emu_wave_barriers[forge_emu_tid / wave_size * wave_size], wave_size);
}

// forge_emu_launch_cluster runs the grid a cluster of n workgroups at a
// time: their threads are one sweep's fibers (workgroup r's thread t is
// fiber r · block + t), each workgroup with its own dynamic shared memory
// and barrier; the workgroups of a cluster are n consecutive ones.
void forge_emu_launch_cluster(uint32_t grid, uint32_t block, uint32_t n, void (*body)(void*), void* arg) {
	forge_emu_launches++;
	if (n == 0 || n > 4 || grid % n != 0) emu_die("cluster size out of range, or not dividing the grid");
	if (block == 0 || block * n > emu_max_threads) emu_die("workgroup size out of range");
	forge_emu_grid = grid;
	forge_emu_cluster = n;
	forge_emu_block_threads = block;
	emu_block_size = block;
	emu_body = body;
	emu_arg = arg;
	const uint32_t fibers = block * n;
	// One mapping for every stack, each above a guard page, so that an
	// overflow faults instead of corrupting the neighbour's stack.
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), slot = emu_stack_bytes + page;
	char* stacks = (char*)mmap(nullptr, slot * fibers, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stacks == MAP_FAILED) emu_die("no memory for the fiber stacks");
	for (uint32_t t = 0; t < fibers; ++t) {
		mprotect(stacks + t * slot, page, PROT_NONE);
	}
	for (uint32_t g = 0; g < grid; g += n) {
		for (uint32_t r = 0; r < n; ++r) {
			emu_block_barriers[r] = emu_barrier{};
		}
		emu_cluster_barrier = emu_barrier{};
		for (uint32_t t = 0; t < fibers; ++t) {
			emu_wave_barriers[t] = emu_barrier{};
			emu_fibers[t].wait = nullptr;
			emu_fibers[t].done = false;
			emu_start(emu_fibers[t], stacks + t * slot + page, emu_stack_bytes);
		}
		// Sweep the threads in order, resuming each that is not finished
		// or waiting at a barrier still short of arrivals. In a cluster the
		// workgroups after the first run every other sweep only, so that
		// the first runs ahead of them (a workgroup that refills the
		// other's shared memory before that one is done with it shows).
		for (uint64_t sweep = 0, live = fibers; live > 0; ++sweep) {
			const bool all = n == 1 || sweep % 2 == 0;
			bool ran = false;
			const uint64_t events = forge_emu_events;
			for (uint32_t t = 0; t < (all ? fibers : block); ++t) {
				emu_fiber& f = emu_fibers[t];
				if (f.done || (f.wait != nullptr && f.wait->gen == f.gen)) continue;
				if (f.wait != nullptr) forge_emu_events++; // let through a barrier
				f.wait = nullptr;
				forge_emu_tid = t;
				forge_emu_cluster_rank = t / block;
				forge_emu_block = g + forge_emu_cluster_rank;
				forge_emu_dyn_smem = forge_emu_smem_store[forge_emu_cluster_rank];
				emu_switch(emu_scheduler, f.ctx);
				ran = true;
				live -= f.done;
			}
			if (!all) continue; // a sweep of some workgroups proves nothing
			if (!ran) emu_die("deadlock: a barrier that not every thread of the workgroup reaches");
			if (live > 0 && forge_emu_events == events) emu_die("deadlock: threads waiting on mbarriers whose phases no thread can complete");
		}
	}
	munmap(stacks, slot * fibers);
	forge_emu_cluster = 1;
	forge_emu_cluster_rank = 0;
	forge_emu_dyn_smem = forge_emu_smem_store[0];
}

void forge_emu_launch(uint32_t grid, uint32_t block, void (*body)(void*), void* arg) {
	forge_emu_launch_cluster(grid, block, 1, body, arg);
}

namespace {

// emu_buf is a file's bytes in a 16-byte aligned buffer with 64 zero bytes
// to spare (a refused call may name more than the file holds), or a null
// pointer where the file is named "null".
struct emu_buf {
	std::vector<char> store;
	char* p = nullptr;
	size_t size = 0;
};

emu_buf emu_zeros(size_t n) {
	emu_buf b;
	b.store.assign(n + 64 + 16, 0);
	b.p = b.store.data() + (16 - (uintptr_t)b.store.data() % 16) % 16;
	b.size = n;
	return b;
}

emu_buf emu_read(const char* path) {
	if (!strcmp(path, "null")) return emu_buf{};
	FILE* f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	std::vector<char> bytes;
	char tmp[65536];
	for (size_t n; (n = fread(tmp, 1, sizeof tmp, f)) > 0;) bytes.insert(bytes.end(), tmp, tmp + n);
	fclose(f);
	emu_buf b = emu_zeros(bytes.size());
	memcpy(b.p, bytes.data(), bytes.size());
	return b;
}

// emu_write writes n bytes at p to path (nothing where path is "null" or p
// is null).
void emu_write(const char* path, const void* p, size_t n) {
	if (!strcmp(path, "null") || p == nullptr) return;
	FILE* f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

// emu_launcher finds an exported launcher of the executable (linked with
// -rdynamic) by name, so that one main serves every launcher of a family.
template <typename Fn>
Fn* emu_launcher(const char* name) {
	void* p = dlsym(RTLD_DEFAULT, name);
	if (!p) {
		fprintf(stderr, "no launcher %s in this executable\n", name);
		exit(2);
	}
	return (Fn*)p;
}

int emu_report(int rc) {
	printf("rc=%d launches=%d\n", rc, forge_emu_launches);
	return 0;
}

} // namespace
