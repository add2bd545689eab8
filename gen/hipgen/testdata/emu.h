// emu.h stands in for forge_portability.h so that a generated kernel file
// (matmul, matvec, attention, glue) runs on the host, compiled by a plain C++
// compiler (the host-emulation tests of gen/hipgen): a workgroup's threads
// are fibers of one OS thread that meet at barriers (emu_main.h runs them),
// FORGE_SHARED arrays are statics (one workgroup runs at a time, so its
// threads share them), and workgroups run one after another. The scalar
// intrinsics and forge_wave_sum are the real header's (appended by the test
// at the markers below).
//
// A fiber runs until it reaches a barrier, then the next one does, in
// thread order: so a missing barrier (a thread reading shared memory another
// has yet to write, or overwriting what another has yet to read) shows up
// deterministically, and a barrier that not every thread reaches is
// reported as a deadlock, where the GPU would hang.
#ifndef FORGE_PORTABILITY_H
#define FORGE_PORTABILITY_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#define FORGE_OK 0
#define FORGE_ERR_INVALID 1
#define FORGE_DEVICE inline
#define __device__
#define FORGE_HOST_DEVICE inline
#define FORGE_GLOBAL
#define FORGE_LAUNCH_BOUNDS(n)
#define FORGE_LAUNCH_BOUNDS_SM(n, m)
#define FORGE_EXPORT extern "C"
#define FORGE_SHARED static
#define __restrict__ __restrict
#define FORGE_WAVE_SIZE FORGE_TARGET_WAVE_SIZE
typedef void* forge_stream_t;
struct dim3 {
	uint32_t x;
	explicit dim3(uint32_t v) : x(v) {}
};

// The emulated GPU (defined in emu_main.h): the running thread's index in
// its workgroup, the workgroup's index and the grid's size; each thread's
// slot for exchanging values with its wave; and how many launches were made.
extern uint32_t forge_emu_tid;
// forge_emu_tid is the running fiber's index (in a cluster launch rank ·
// block + the thread's index in its workgroup); forge_emu_block_threads
// the workgroup's size, forge_emu_cluster the cluster's and
// forge_emu_cluster_rank the running workgroup's index in it.
extern uint32_t forge_emu_block_threads, forge_emu_cluster, forge_emu_cluster_rank;
extern uint32_t forge_emu_block, forge_emu_grid;
extern float forge_emu_slot[1024];
extern int forge_emu_islot[1024];
extern int forge_emu_launches;
// Barriers of the whole workgroup, and of the wave of wave_size threads the
// running thread belongs to (__syncwarp and the cross-lane operations below).
void forge_emu_sync_block();
// forge_emu_yield lets the other threads run before this one goes on;
// forge_emu_events counts arrivals and passed waits (a deadlock is a sweep
// of the workgroup without one).
void forge_emu_yield();
extern uint64_t forge_emu_events;
void forge_emu_sync_wave(uint32_t wave_size);
// forge_emu_launch runs body(arg) for every thread of every workgroup;
// forge_emu_launch_fn, the callable f. (Not std::function: <functional>
// would double the time it takes to compile a kernel file.)
void forge_emu_launch(uint32_t grid, uint32_t block, void (*body)(void*), void* arg);
template <typename F>
static inline void forge_emu_launch_fn(uint32_t grid, uint32_t block, F f) {
	forge_emu_launch(grid, block, [](void* p) { (*(F*)p)(); }, &f);
}
// forge_emu_launch_cluster runs the grid in clusters of n consecutive
// workgroups, a cluster's threads at once (forge_emu_sync_cluster is
// their barrier).
void forge_emu_launch_cluster(uint32_t grid, uint32_t block, uint32_t n, void (*body)(void*), void* arg);
void forge_emu_sync_cluster();
template <typename F>
static inline void forge_emu_launch_cluster_fn(uint32_t grid, uint32_t block, uint32_t n, F f) {
	forge_emu_launch_cluster(grid, block, n, [](void* p) { (*(F*)p)(); }, &f);
}

#define forge_thread_idx() (forge_emu_tid % forge_emu_block_threads)
#define forge_block_idx() forge_emu_block
#define forge_grid_dim() forge_emu_grid
#define forge_syncthreads() forge_emu_sync_block()
#define forge_fmaf(a, b, c) fmaf((a), (b), (c))
#define forge_fmaxf(a, b) fmaxf((a), (b))
#define forge_exp2f(x) exp2f(x)
#define forge_last_error() 0
#define FORGE_FULL_MASK 0xffffffffu
#define forge_emu_wave_sync() forge_emu_sync_wave(FORGE_WAVE_SIZE)

// forge_shfl_xor: every lane of the wave publishes v, then reads lane
// (lane ^ m)'s (width: as the real one, groups of width lanes; m < width).
template <typename T>
static inline T forge_shfl_xor(T v, int m, int width = FORGE_WAVE_SIZE) {
	(void)width;
	forge_emu_slot[forge_emu_tid] = (float)v;
	forge_emu_wave_sync();
	const T r = (T)forge_emu_slot[forge_emu_tid ^ (uint32_t)m];
	forge_emu_wave_sync();
	return r;
}

// forge_wave_sum: the real header's (appended by the test here), on the
// emulated shuffles.
// FORGE_EMU_WAVE_SUM

// forge_vec16: 16 bytes, as uint4 on NVIDIA; uint4 and float4, HIP's and
// CUDA's 16-byte vector types, and uint2, the 8-byte one (matvec's vector
// loads).
struct alignas(16) forge_vec16 {
	uint32_t x, y, z, w;
};
struct alignas(16) uint4 {
	uint32_t x, y, z, w;
};
struct alignas(16) float4 {
	float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
struct alignas(8) uint2 {
	uint32_t x, y;
};
inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { return uint4{x, y, z, w}; }
inline uint2 make_uint2(uint32_t x, uint32_t y) { return uint2{x, y}; }
// forge_store_stream: the header's streaming store; here a plain store.
#define forge_store_stream(p, v) (*(p) = (v))
// forge_atomic_add_f32: the emulated threads switch only at barriers, so a
// plain add is atomic.
#define forge_atomic_add_f32(p, v) ((void)(*(p) += (v)))
// forge_load_stream16: the portability header's cache hint is NVIDIA's; here
// a plain 16-byte load.
inline forge_vec16 forge_load_stream16(const void* p) {
	return *(const forge_vec16*)p;
}

// FORGE_LAUNCH runs the kernel; the dynamic shared memory past the bytes
// the launch asks for is filled with a canary before and checked after, so
// that a kernel writing past its stages (which the GPU would let it do into
// unallocated shared memory, or fault) fails here.
inline void forge_emu_smem_guard(size_t shared_bytes, bool check, const char* kernel, uint32_t cluster = 1);
#define FORGE_LAUNCH(kernel, grid, block, shared_bytes, stream, ...) \
	((void)(stream), forge_emu_smem_guard((size_t)(shared_bytes), false, #kernel), \
		forge_emu_launch_fn((grid).x, (block).x, [&] { kernel(__VA_ARGS__); }), forge_emu_smem_guard((size_t)(shared_bytes), true, #kernel))
// forge_scratch: host memory (the emulated device's), freed at once by
// forge_scratch_free, since the emulated launches have already run.
#include <stdlib.h>
inline void* forge_scratch(size_t bytes, forge_stream_t) { return malloc(bytes ? bytes : 1); }
inline void forge_scratch_free(void* p, forge_stream_t) { free(p); }
inline void forge_zero_async(void* p, size_t bytes, forge_stream_t) { memset(p, 0, bytes); }
// The emulation runs kernels one after another: a dependent launch is a
// launch, and its waits are no-ops.
#define FORGE_LAUNCH_AFTER FORGE_LAUNCH
#define forge_dependency_wait() ((void)0)
#define forge_dependents_launch() ((void)0)
template <typename T>
static inline T* forge_dependency_wait_for(T* p) {
	return p;
}

// FORGE_EMU_INTRINSICS

// FORGE_MMA16_I8 (forge_portability.h): the AMD matrix instruction matmul's
// integer path computes its 16 × 16 × 16 int8 products with, here emulated
// from the layouts the header documents when FORGE_EMU_MMA16 names one (1:
// gfx11's WMMA, wave32; 2: CDNA's MFMA, wave64), else 0 (forge_dot4). Every
// lane of the wave publishes its operand words, then each computes its own
// entries from the whole of A and B. WMMA's half-waves must hold the same
// operands (the instruction reads one copy): a kernel whose half-waves
// differ is reported and stopped, as it would compute garbage on the GPU.
#if defined(FORGE_EMU_MMA16)
#include <stdio.h>
#include <stdlib.h>
#define FORGE_MMA16_I8 FORGE_EMU_MMA16
static_assert((FORGE_EMU_MMA16 == 1 && FORGE_WAVE_SIZE == 32) || (FORGE_EMU_MMA16 == 2 && FORGE_WAVE_SIZE == 64),
	"FORGE_EMU_MMA16: 1 (WMMA) emulates a wave32 file, 2 (MFMA) a wave64 one");
static uint32_t forge_emu_mma[1024][8]; // per thread: A's words, then B's
static inline int32_t forge_emu_i8(uint32_t w, int k) { return (int32_t)(int8_t)(uint8_t)(w >> (8 * k)); }
static inline void forge_mma16_i8(int32_t* c, const uint32_t* a, const uint32_t* b) {
	const uint32_t l = forge_emu_tid % FORGE_WAVE_SIZE, w0 = forge_emu_tid - l;
	const int words = FORGE_EMU_MMA16 == 1 ? 4 : 1;
	for (int u = 0; u < words; ++u) {
		forge_emu_mma[forge_emu_tid][u] = a[u];
		forge_emu_mma[forge_emu_tid][4 + u] = b[u];
	}
	forge_emu_wave_sync();
	const int entries = FORGE_EMU_MMA16 == 1 ? 8 : 4;
	int32_t out[8];
	for (int e = 0; e < entries; ++e) {
		const uint32_t row = FORGE_EMU_MMA16 == 1 ? 2 * e + l / 16 : 4 * (l / 16) + e, col = l % 16;
		uint32_t s = 0;
		for (int k = 0; k < 16; ++k) {
			// WMMA: row's lane holds all of k; MFMA: lane row + 16·(k/4) holds k's word
			const uint32_t aw = FORGE_EMU_MMA16 == 1 ? forge_emu_mma[w0 + row][k / 4] : forge_emu_mma[w0 + row + 16 * (k / 4)][0];
			const uint32_t bw = FORGE_EMU_MMA16 == 1 ? forge_emu_mma[w0 + col][4 + k / 4] : forge_emu_mma[w0 + col + 16 * (k / 4)][4];
			s += (uint32_t)(forge_emu_i8(aw, k % 4) * forge_emu_i8(bw, k % 4));
		}
		out[e] = (int32_t)s;
	}
	if (FORGE_EMU_MMA16 == 1 && l >= 16) {
		for (int u = 0; u < 8; ++u) {
			if (forge_emu_mma[forge_emu_tid][u] != forge_emu_mma[forge_emu_tid - 16][u]) {
				fprintf(stderr, "forge_mma16_i8: lane %u's operand word %d differs from lane %u's (WMMA's half-waves must hold the same)\n", l, u, l - 16);
				abort();
			}
		}
	}
	forge_emu_wave_sync();
	for (int e = 0; e < entries; ++e) {
		c[e] = (int32_t)((uint32_t)c[e] + (uint32_t)out[e]);
	}
}
#else
#define FORGE_MMA16_I8 0
#endif

#if defined(FORGE_EMU_WMMA) || defined(FORGE_EMU_AMD_WMMA)
// The tensor-core path, emulated. FORGE_EMU_WMMA: nvcuda::wmma as CUDA's
// (below: every lane of a warp holds a whole 16×16 fragment and does the
// whole collective operation, redundantly, with the same result).
// FORGE_EMU_AMD_WMMA=kind: the real header's nvcuda::wmma subset for AMD
// (its shim, pasted at FORGE_EMU_WMMA_SHIM), each lane holding only its
// share of a fragment, on gfx11's v_wmma_f32_16x16x16_f16 (1, wave32) or
// CDNA's v_mfma_f32_16x16x16f16 (2, wave64) emulated from the operand
// layouts the header documents. Either way __half rounds to nearest even
// through the header's forge_f32_to_half, __syncwarp is the wave's barrier,
// and __any_sync a vote through the wave's slots.
#define FORGE_HAS_WMMA 1
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __syncwarp() forge_emu_wave_sync()
#if defined(FORGE_EMU_AMD_WMMA) && FORGE_EMU_AMD_WMMA == 2
static_assert(FORGE_WAVE_SIZE == 64, "FORGE_EMU_AMD_WMMA=2 (CDNA's MFMA): compile a wave64 file");
#else
static_assert(FORGE_WAVE_SIZE == 32, "FORGE_EMU_WMMA, FORGE_EMU_AMD_WMMA=1: compile a wave32 file");
#endif
static inline int __any_sync(unsigned mask, int pred) {
	(void)mask;
	forge_emu_islot[forge_emu_tid] = pred != 0;
	forge_emu_wave_sync();
	int any = 0;
	for (uint32_t l = forge_emu_tid / FORGE_WAVE_SIZE * FORGE_WAVE_SIZE; l < forge_emu_tid / FORGE_WAVE_SIZE * FORGE_WAVE_SIZE + FORGE_WAVE_SIZE; ++l) {
		any |= forge_emu_islot[l];
	}
	forge_emu_wave_sync();
	return any;
}
struct __half {
	uint16_t bits;
};
struct __half2 {
	__half x, y;
};
static inline __half2 __floats2half2_rn(float a, float b) {
	return __half2{__half{forge_f32_to_half(a)}, __half{forge_f32_to_half(b)}};
}
static inline __half __float2half_rn(float a) { return __half{forge_f32_to_half(a)}; }
#endif
#if defined(FORGE_EMU_AMD_WMMA)
#define FORGE_WMMA_KIND FORGE_EMU_AMD_WMMA
static inline uint32_t forge_wmma_lane() { return forge_emu_tid % FORGE_WAVE_SIZE; }
static inline uint16_t forge_wmma_bits(__half h) { return h.bits; }
static uint16_t forge_emu_wmma[1024][32]; // per thread: its A operand, then its B operand (16 halves each at most)
// forge_wmma_f16: the instruction of FORGE_WMMA_KIND from its layouts
// (forge_portability.h). WMMA (1, wave32): lane l gives A's row l % 16 and
// B's column l % 16, k 0..15; entry i of lane l is row 2i + l / 16, column
// l % 16; half-waves that differ are reported. MFMA (2, wave64): lane l
// gives A's row l % 16 and B's column l % 16 at k 4·(l / 16) .. +3; entry i
// is row 4·(l / 16) + i, column l % 16. The products of halves are exact in
// float; they are added in k order.
static inline void forge_wmma_f16(float* c, const uint16_t* a, const uint16_t* b) {
	const uint32_t l = forge_emu_tid % FORGE_WAVE_SIZE, w0 = forge_emu_tid - l;
	const int ops = FORGE_WMMA_KIND == 1 ? 16 : 4, accs = FORGE_WMMA_KIND == 1 ? 8 : 4;
	for (int k = 0; k < ops; ++k) {
		forge_emu_wmma[forge_emu_tid][k] = a[k];
		forge_emu_wmma[forge_emu_tid][16 + k] = b[k];
	}
	forge_emu_wave_sync();
	float out[8];
	for (int i = 0; i < accs; ++i) {
		const uint32_t row = FORGE_WMMA_KIND == 1 ? 2 * i + l / 16 : 4 * (l / 16) + i, col = l % 16;
		float s = c[i];
		for (int k = 0; k < 16; ++k) {
			const uint32_t la = FORGE_WMMA_KIND == 1 ? row : row + 16 * (k / 4), lb = FORGE_WMMA_KIND == 1 ? col : col + 16 * (k / 4);
			const int ka = FORGE_WMMA_KIND == 1 ? k : k % 4;
			s += forge_half_to_f32(forge_emu_wmma[w0 + la][ka]) * forge_half_to_f32(forge_emu_wmma[w0 + lb][16 + ka]);
		}
		out[i] = s;
	}
	if (FORGE_WMMA_KIND == 1 && l >= 16) {
		for (int k = 0; k < 32; ++k) {
			if (forge_emu_wmma[forge_emu_tid][k] != forge_emu_wmma[forge_emu_tid - 16][k]) {
				fprintf(stderr, "forge_wmma_f16: lane %u's operand half %d differs from lane %u's (WMMA's half-waves must hold the same)\n", l, k, l - 16);
				abort();
			}
		}
	}
	forge_emu_wave_sync();
	for (int i = 0; i < accs; ++i) {
		c[i] = out[i];
	}
}
// FORGE_EMU_WMMA_SHIM
#endif
#if defined(FORGE_EMU_WMMA)
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
	float v[16][16]; // [row][col] of the 16×16 operand
};
template <typename Use, int M, int N, int K, typename T, typename Layout>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, float x) {
	for (int r = 0; r < 16; ++r)
		for (int c = 0; c < 16; ++c) f.v[r][c] = x;
}
template <int M, int N, int K>
inline void load_matrix_sync(fragment<matrix_a, M, N, K, __half, row_major>& f, const __half* p, unsigned ldm) {
	for (int r = 0; r < 16; ++r)
		for (int c = 0; c < 16; ++c) f.v[r][c] = forge_half_to_f32(p[r * ldm + c].bits);
}
template <int M, int N, int K>
inline void load_matrix_sync(fragment<matrix_b, M, N, K, __half, col_major>& f, const __half* p, unsigned ldm) {
	for (int r = 0; r < 16; ++r)
		for (int c = 0; c < 16; ++c) f.v[r][c] = forge_half_to_f32(p[c * ldm + r].bits);
}
template <int M, int N, int K>
inline void load_matrix_sync(fragment<matrix_b, M, N, K, __half, row_major>& f, const __half* p, unsigned ldm) {
	for (int r = 0; r < 16; ++r)
		for (int c = 0; c < 16; ++c) f.v[r][c] = forge_half_to_f32(p[r * ldm + c].bits);
}
template <int M, int N, int K, typename T>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const float* p, unsigned ldm, layout_t layout) {
	for (int r = 0; r < 16; ++r)
		for (int c = 0; c < 16; ++c) f.v[r][c] = layout == mem_col_major ? p[c * ldm + r] : p[r * ldm + c];
}
template <int M, int N, int K, typename T, typename La, typename Lb>
inline void mma_sync(fragment<accumulator, M, N, K, T>& d, const fragment<matrix_a, M, N, K, __half, La>& a,
	const fragment<matrix_b, M, N, K, __half, Lb>& b, const fragment<accumulator, M, N, K, T>& c) {
	float out[16][16];
	for (int r = 0; r < 16; ++r)
		for (int n = 0; n < 16; ++n) {
			float s = c.v[r][n];
			for (int k = 0; k < 16; ++k) s += a.v[r][k] * b.v[k][n];
			out[r][n] = s;
		}
	for (int r = 0; r < 16; ++r)
		for (int n = 0; n < 16; ++n) d.v[r][n] = out[r][n];
}
template <int M, int N, int K, typename T>
inline void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm, layout_t layout) {
	for (int r = 0; r < 16; ++r)
		for (int c = 0; c < 16; ++c) {
			if (layout == mem_col_major) {
				p[c * ldm + r] = f.v[r][c];
			} else {
				p[r * ldm + c] = f.v[r][c];
			}
		}
}
} // namespace wmma
} // namespace nvcuda
#endif

// FORGE_DYNAMIC_SHARED: a buffer a running workgroup (one, or a
// cluster's: emu_main.h switches forge_emu_dyn_smem with the running
// thread) as large as a workgroup's shared memory may be on any target
// (227 KiB on sm_90), 1024-byte aligned; its offsets are the emulated
// shared-window addresses (forge_smem_addr).
#define FORGE_EMU_SMEM_BYTES 232448
extern uint8_t forge_emu_smem_store[][FORGE_EMU_SMEM_BYTES];
extern uint8_t* forge_emu_dyn_smem;
#define FORGE_DYNAMIC_SHARED(name) uint8_t* const name = forge_emu_dyn_smem
inline void forge_emu_smem_guard(size_t shared_bytes, bool check, const char* kernel, uint32_t cluster) {
	const size_t n = FORGE_EMU_SMEM_BYTES;
	for (uint32_t r = 0; r < cluster; ++r) {
		uint8_t* const smem = forge_emu_smem_store[r];
		for (size_t i = shared_bytes < n ? shared_bytes : n; i < n; ++i) {
			if (!check) {
				smem[i] = 0xA5;
			} else if (smem[i] != 0xA5) {
				fprintf(stderr, "%s: wrote dynamic shared memory at byte %zu, past the %zu its launch asks for\n", kernel, i, shared_bytes);
				abort();
			}
		}
	}
}

#if defined(FORGE_EMU_MMA_SYNC)
// FORGE_HAS_MMA_SYNC (forge_portability.h): NVIDIA's mma.sync m16n8k16,
// ldmatrix .x4 (and .trans) and cp.async, emulated from the layouts the
// header documents: every lane of the warp publishes its operands (or its
// row address), then each computes its own registers from the whole
// warp's. A cp.async copy is made when its thread's forge_cp_async_wait
// lets its group be pending no more (its source read then; the emulated
// device's memory does not change under a kernel), so a stage read
// before its wait, or overwritten while another warp still reads it,
// reads wrong data here as it could on the GPU; with
// FORGE_EMU_CP_ASYNC_EARLY a copy is made when it is issued instead, so
// that a stage refilled before every warp is done reading it reads wrong
// data too. forge_shared_opt_in
// always succeeds.
#include <atomic>
#define FORGE_HAS_MMA_SYNC 1
static_assert(FORGE_WAVE_SIZE == 32, "FORGE_EMU_MMA_SYNC: compile an NVIDIA (wave32) file");
static const void* forge_emu_row[1024];
static uint32_t forge_emu_frag[1024][6];
static inline uint32_t forge_emu_pair(const void* row, uint32_t i) {
	uint16_t lo, hi;
	memcpy(&lo, (const uint8_t*)row + 2 * i, 2);
	memcpy(&hi, (const uint8_t*)row + 2 * i + 2, 2);
	return (uint32_t)lo | (uint32_t)hi << 16;
}
static inline void forge_emu_ldsm(uint32_t* r, const void* row, bool trans) {
	forge_emu_row[forge_emu_tid] = row;
	forge_emu_wave_sync();
	const uint32_t w0 = forge_emu_tid / 32 * 32, l = forge_emu_tid % 32, g = l / 4, t = l % 4;
	for (uint32_t i = 0; i < 4; ++i) {
		if (trans) {
			uint16_t lo, hi;
			memcpy(&lo, (const uint8_t*)forge_emu_row[w0 + 8 * i + 2 * t] + 2 * g, 2);
			memcpy(&hi, (const uint8_t*)forge_emu_row[w0 + 8 * i + 2 * t + 1] + 2 * g, 2);
			r[i] = (uint32_t)lo | (uint32_t)hi << 16;
		} else {
			r[i] = forge_emu_pair(forge_emu_row[w0 + 8 * i + g], 2 * t);
		}
	}
	forge_emu_wave_sync();
}
static inline void forge_ldsm_x4(uint32_t* r, const void* row) { forge_emu_ldsm(r, row, false); }
static inline void forge_ldsm_x4_t(uint32_t* r, const void* row) { forge_emu_ldsm(r, row, true); }
static inline float forge_emu_frag_half(uint32_t lane, uint32_t reg, uint32_t k) {
	return forge_half_to_f32((uint16_t)(forge_emu_frag[lane][reg] >> (16 * (k % 2))));
}
static inline void forge_mma16816(float* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
	for (int u = 0; u < 4; ++u) {
		forge_emu_frag[forge_emu_tid][u] = a[u];
	}
	forge_emu_frag[forge_emu_tid][4] = b0;
	forge_emu_frag[forge_emu_tid][5] = b1;
	forge_emu_wave_sync();
	const uint32_t w0 = forge_emu_tid / 32 * 32, l = forge_emu_tid % 32, g = l / 4, t = l % 4;
	float out[4];
	for (uint32_t e = 0; e < 4; ++e) {
		const uint32_t row = g + 8 * (e / 2), col = 2 * t + e % 2;
		float s = c[e];
		for (uint32_t k = 0; k < 16; ++k) {
			// A(row, k): lane (row % 8, k % 8 / 2), register row / 8 + 2 (k / 8);
			// B(k, col): lane (col, k % 8 / 2), register 4 + k / 8.
			const float av = forge_emu_frag_half(w0 + (row % 8) * 4 + (k % 8) / 2, row / 8 + 2 * (k / 8), k);
			const float bv = forge_emu_frag_half(w0 + col * 4 + (k % 8) / 2, 4 + k / 8, k);
			s += av * bv;
		}
		out[e] = s;
	}
	forge_emu_wave_sync();
	for (uint32_t e = 0; e < 4; ++e) {
		c[e] = out[e];
	}
}
// forge_mma_s8_k32 / _k16: A(row, k) is byte k % 4 of register row / 8 +
// 2 (k / 16) of lane (row % 8)·4 + (k % 16) / 4; B(k, col) byte k % 4 of
// register k / 16 of lane col·4 + (k % 16) / 4.
static inline void forge_emu_mma_s8(int32_t* c, const uint32_t* a, const uint32_t* b, uint32_t kk) {
	for (uint32_t u = 0; u < kk / 8; ++u) {
		forge_emu_frag[forge_emu_tid][u] = a[u];
	}
	for (uint32_t u = 0; u < kk / 16; ++u) {
		forge_emu_frag[forge_emu_tid][4 + u] = b[u];
	}
	forge_emu_wave_sync();
	const uint32_t w0 = forge_emu_tid / 32 * 32, l = forge_emu_tid % 32, g = l / 4, t = l % 4;
	int32_t out[4];
	for (uint32_t e = 0; e < 4; ++e) {
		const uint32_t row = g + 8 * (e / 2), col = 2 * t + e % 2;
		uint32_t s = (uint32_t)c[e]; // the hardware's int32 sum wraps
		for (uint32_t k = 0; k < kk; ++k) {
			const int8_t av = (int8_t)(forge_emu_frag[w0 + (row % 8) * 4 + (k % 16) / 4][row / 8 + 2 * (k / 16)] >> (8 * (k % 4)));
			const int8_t bv = (int8_t)(forge_emu_frag[w0 + col * 4 + (k % 16) / 4][4 + k / 16] >> (8 * (k % 4)));
			s += (uint32_t)((int32_t)av * (int32_t)bv);
		}
		out[e] = (int32_t)s;
	}
	forge_emu_wave_sync();
	for (uint32_t e = 0; e < 4; ++e) {
		c[e] = out[e];
	}
}
static inline void forge_mma_s8_k32(int32_t* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
	const uint32_t b[2] = {b0, b1};
	forge_emu_mma_s8(c, a, b, 32);
}
static inline void forge_mma_s8_k16(int32_t* c, uint32_t a0, uint32_t a1, uint32_t b0) {
	const uint32_t a[2] = {a0, a1};
	forge_emu_mma_s8(c, a, &b0, 16);
}
// Each thread's copies not yet made: destination, the bytes (16, or 4 for
// forge_cp_async4), and the group (0: still open; n: the n-th committed of
// this thread, counted across launches).
struct forge_emu_copy {
	void* dst;
	uint8_t data[16];
	uint32_t bytes;
	uint64_t group;
};
#define FORGE_EMU_MAX_COPIES 512 // pending a thread
static forge_emu_copy forge_emu_copies[1024][FORGE_EMU_MAX_COPIES];
static uint32_t forge_emu_ncopies[1024];
static uint64_t forge_emu_groups[1024]; // committed so far
static inline void forge_cp_async16(void* dst, const void* src, bool valid) {
	const uint32_t tid = forge_emu_tid;
#if defined(FORGE_EMU_CP_ASYNC_EARLY)
	// Copies land at once: a stage refilled while another warp still reads
	// it (the race that landing at the wait cannot show) reads wrong data.
	(void)tid;
	if (valid) {
		memcpy(dst, src, 16);
	} else {
		memset(dst, 0, 16);
	}
	return;
#endif
	if (forge_emu_ncopies[tid] == FORGE_EMU_MAX_COPIES) {
		fprintf(stderr, "forge_cp_async16: thread %u has %d copies pending (the emulation's limit)\n", tid, FORGE_EMU_MAX_COPIES);
		abort();
	}
	forge_emu_copy& c = forge_emu_copies[tid][forge_emu_ncopies[tid]++];
	c.dst = dst;
	c.group = 0;
	c.bytes = 16;
	if (valid) {
		memcpy(c.data, src, 16);
	} else {
		memset(c.data, 0, 16);
	}
}
// forge_cp_async16n: the first n ≤ 16 bytes of a 16-byte-aligned src, the
// rest of the 16 zero.
static inline void forge_cp_async16n(void* dst, const void* src, uint32_t n) {
	const uint32_t tid = forge_emu_tid;
	if (n > 16 || (n > 0 && (uintptr_t)src % 16 != 0)) {
		fprintf(stderr, "forge_cp_async16n: %u bytes from %p: want at most 16 from a 16-byte-aligned address\n", n, src);
		abort();
	}
#if defined(FORGE_EMU_CP_ASYNC_EARLY)
	(void)tid;
	memset(dst, 0, 16);
	memcpy(dst, src, n);
	return;
#endif
	if (forge_emu_ncopies[tid] == FORGE_EMU_MAX_COPIES) {
		fprintf(stderr, "forge_cp_async16n: thread %u has %d copies pending (the emulation's limit)\n", tid, FORGE_EMU_MAX_COPIES);
		abort();
	}
	forge_emu_copy& c = forge_emu_copies[tid][forge_emu_ncopies[tid]++];
	c.dst = dst;
	c.group = 0;
	c.bytes = 16;
	memset(c.data, 0, 16);
	memcpy(c.data, src, n);
}
static inline void forge_cp_async4(void* dst, const void* src, uint32_t n) {
	const uint32_t tid = forge_emu_tid;
	if (forge_emu_ncopies[tid] == FORGE_EMU_MAX_COPIES) {
		fprintf(stderr, "forge_cp_async4: thread %u has %d copies pending (the emulation's limit)\n", tid, FORGE_EMU_MAX_COPIES);
		abort();
	}
	if (n > 4 || (n > 0 && (uintptr_t)src % 4 != 0)) {
		fprintf(stderr, "forge_cp_async4: %u bytes from %p: want at most 4 from a 4-byte-aligned address\n", n, src);
		abort();
	}
#if defined(FORGE_EMU_CP_ASYNC_EARLY)
	memset(dst, 0, 4);
	memcpy(dst, src, n);
	return;
#endif
	forge_emu_copy& c = forge_emu_copies[tid][forge_emu_ncopies[tid]++];
	c.dst = dst;
	c.group = 0;
	c.bytes = 4;
	memset(c.data, 0, 4);
	memcpy(c.data, src, n);
}
static inline void forge_cp_async_commit() {
	const uint32_t tid = forge_emu_tid;
	++forge_emu_groups[tid];
	for (uint32_t i = 0; i < forge_emu_ncopies[tid]; ++i) {
		if (forge_emu_copies[tid][i].group == 0) {
			forge_emu_copies[tid][i].group = forge_emu_groups[tid];
		}
	}
}
template <int N>
static inline void forge_cp_async_wait() {
	// Groups up to the (committed − N)-th land; copies of an open group are
	// not waited for (as on the GPU) and stay pending.
	const uint32_t tid = forge_emu_tid;
	const uint64_t upto = forge_emu_groups[tid] > (uint64_t)N ? forge_emu_groups[tid] - N : 0;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < forge_emu_ncopies[tid]; ++i) {
		forge_emu_copy& c = forge_emu_copies[tid][i];
		if (c.group != 0 && c.group <= upto) {
			memcpy(c.dst, c.data, c.bytes);
		} else {
			forge_emu_copies[tid][kept++] = c;
		}
	}
	forge_emu_ncopies[tid] = kept;
}
#endif
#if defined(FORGE_EMU_MMA_SYNC) || defined(FORGE_EMU_WGMMA)
// Shared memory past 48 KiB: the emulated workgroup always has it.
#include <atomic>
template <typename K>
static inline bool forge_shared_opt_in(K, int, std::atomic<uint64_t>*) {
	return true;
}
template <typename K>
static inline void forge_prefer_shared(K, std::atomic<uint64_t>*) {}
#endif

#if defined(FORGE_EMU_WGMMA)
// FORGE_HAS_WGMMA (forge_portability.h): Hopper's wgmma.mma_async
// m64nNk16, N 16 to 256 (f16 in, f32 accumulate) on 128-byte-swizzled K-major
// descriptors, emulated from the layout the header documents: each thread
// of the warpgroup computes its own 64 accumulators from shared memory, the
// descriptor's address decoded (bits 0–13, in 16 bytes) and swizzled as
// the hardware does (address bits 4–6 XOR bits 7–9), its 8-row groups the
// descriptor's stride (bits 32–45) apart; LBO and the swizzle mode are
// checked to be the ones the header sets. The fences are no-ops; a
// product is made at the wait that lets it complete (below).
#define FORGE_MM_WGMMA 1
#define FORGE_HAS_WGMMA 1
static inline uint32_t forge_smem_addr(const void* p) { return (uint32_t)((const uint8_t*)p - forge_emu_dyn_smem); }
static inline uint64_t forge_wgmma_desc(uint32_t addr) {
	return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}
static inline void forge_wgmma_fence() {}
static inline void forge_fence_proxy_async() {}
template <int N = 64>
static inline void forge_wgmma_fence_operands(float*) {}
// forge_emu_wgmma_elem is element (row, k) of the K-major tile at desc.
static inline float forge_emu_wgmma_elem(uint64_t desc, uint32_t row, uint32_t k) {
	if (((desc >> 16) & 0x3FFF) != 1 || (desc >> 62) != 1 || ((desc >> 49) & 7) != 0) {
		fprintf(stderr, "forge_wgmma: descriptor %#llx: want LBO 1, base offset 0, 128-byte swizzle\n", (unsigned long long)desc);
		abort();
	}
	const uint32_t start = (uint32_t)(desc & 0x3FFF) << 4, sbo = (uint32_t)((desc >> 32) & 0x3FFF) << 4;
	const uint32_t addr = start + (row / 8) * sbo + (row % 8) * 128 + 2 * k;
	const uint32_t phys = addr ^ (((addr >> 7) & 7) << 4);
	uint16_t h;
	memcpy(&h, forge_emu_dyn_smem + phys, 2);
	return forge_half_to_f32(h);
}
static inline uint64_t forge_wgmma_desc_mn(uint32_t addr, uint32_t lbo) {
	return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)((lbo & 0x3FFFFu) >> 4) << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}
// forge_emu_wgmma_elem_mn is element (k, n) of the MN-major tile at desc:
// rows of 64 N elements (128 bytes, swizzled) for consecutive K, 8-row
// groups SBO apart, 64-element N blocks LBO apart.
static inline float forge_emu_wgmma_elem_mn(uint64_t desc, uint32_t n, uint32_t k) {
	if ((desc >> 62) != 1 || ((desc >> 49) & 7) != 0) {
		fprintf(stderr, "forge_wgmma: MN-major descriptor %#llx: want base offset 0, 128-byte swizzle\n", (unsigned long long)desc);
		abort();
	}
	const uint32_t start = (uint32_t)(desc & 0x3FFF) << 4, lbo = (uint32_t)((desc >> 16) & 0x3FFF) << 4, sbo = (uint32_t)((desc >> 32) & 0x3FFF) << 4;
	const uint32_t addr = start + (n / 64) * lbo + (k / 8) * sbo + (k % 8) * 128 + 2 * (n % 64);
	const uint32_t phys = addr ^ (((addr >> 7) & 7) << 4);
	uint16_t h;
	memcpy(&h, forge_emu_dyn_smem + phys, 2);
	return forge_half_to_f32(h);
}
// Register-A products (forge_wgmma_m64nNk16_rs_mn): each thread's fragment
// is kept by its count of such products, so that a product made later (at
// the wait) reads what every thread of the warpgroup held when it issued
// it; a fragment not yet issued by its thread is waited for, one
// overwritten (too far behind) stops the emulation.
#define FORGE_EMU_WGMMA_RS_RING 256
struct forge_emu_wgmma_frag {
	uint64_t seq; // 1 + the count, 0: never written
	uint32_t a[4];
};
static forge_emu_wgmma_frag forge_emu_wgmma_frags[1024][FORGE_EMU_WGMMA_RS_RING];
static uint64_t forge_emu_wgmma_rs_issued[1024];
// forge_emu_wgmma_afrag is A(row, k) of the register-A product seq of the
// warpgroup whose first thread is fiber wg0.
static inline float forge_emu_wgmma_afrag(uint32_t wg0, uint64_t seq, uint32_t row, uint32_t k) {
	const uint32_t w = row / 16, g = row % 8, h = row % 16 / 8, t = k % 8 / 2;
	const forge_emu_wgmma_frag* f = &forge_emu_wgmma_frags[wg0 + 32 * w + 4 * g + t][(seq - 1) % FORGE_EMU_WGMMA_RS_RING];
	while (f->seq != seq) {
		if (f->seq > seq) {
			fprintf(stderr, "forge_wgmma_rs: fragment %llu of thread %u overwritten before it was read\n", (unsigned long long)seq, wg0 + 32 * w + 4 * g + t);
			abort();
		}
		forge_emu_yield();
	}
	const uint32_t word = f->a[h + 2 * (k / 8)];
	return forge_half_to_f32((uint16_t)(k % 2 ? word >> 16 : word & 0xFFFF));
}
// forge_emu_wgmma is m64nNk16: N/8 column groups of accumulators, as the
// hardware lays them out (d[4j + 2h + e] is column 8j + 2q + e).
static inline void forge_emu_wgmma(float* d, uint64_t a, uint64_t b, uint32_t n, uint64_t rs = 0) {
	const uint32_t t = forge_thread_idx() % 128, w = t / 32, l = t % 32, g = l / 4, q = l % 4, wg0 = forge_emu_tid - t;
	for (uint32_t j = 0; j < n / 8; ++j) {
		for (uint32_t h = 0; h < 2; ++h) {
			for (uint32_t e = 0; e < 2; ++e) {
				const uint32_t row = 16 * w + g + 8 * h, col = 8 * j + 2 * q + e;
				float s = d[4 * j + 2 * h + e];
				for (uint32_t k = 0; k < 16; ++k) {
					if (rs) { // A from registers, B MN-major
						s += forge_emu_wgmma_afrag(wg0, rs, row, k) * forge_emu_wgmma_elem_mn(b, col, k);
					} else {
						s += forge_emu_wgmma_elem(a, row, k) * forge_emu_wgmma_elem(b, col, k);
					}
				}
				d[4 * j + 2 * h + e] = s;
			}
		}
	}
}
// The products are asynchronous, as the hardware's: a thread's products
// are queued as issued, grouped by forge_wgmma_commit, and made (reading
// shared memory then) when forge_wgmma_wait lets fewer groups be pending,
// so that a stage refilled while a product that reads it is in flight
// (released before its wait) shows up as a wrong result.
struct forge_emu_wgmma_op {
	float* d;
	uint64_t a, b, group; // group 0: not yet committed
	uint32_t n;
	uint64_t rs; // 0: A at descriptor a; else 1 + the issuing thread's count of register-A products before this one
};
#define FORGE_EMU_WGMMA_QUEUE 64 // products pending a thread
static forge_emu_wgmma_op forge_emu_wgmma_ops[1024][FORGE_EMU_WGMMA_QUEUE];
static uint32_t forge_emu_wgmma_nops[1024];
static uint64_t forge_emu_wgmma_groups[1024]; // committed so far
static inline void forge_emu_wgmma_issue(float* d, uint64_t a, uint64_t b, uint32_t n) {
	const uint32_t tid = forge_emu_tid;
	if (forge_emu_wgmma_nops[tid] == FORGE_EMU_WGMMA_QUEUE) {
		fprintf(stderr, "forge_wgmma: thread %u has %d products pending (the emulation's limit)\n", tid, FORGE_EMU_WGMMA_QUEUE);
		abort();
	}
	forge_emu_wgmma_ops[tid][forge_emu_wgmma_nops[tid]++] = forge_emu_wgmma_op{d, a, b, 0, n, 0};
}
template <uint32_t N>
static inline void forge_wgmma_m64nNk16_rs_mn(float* d, const uint32_t* a, uint64_t b) {
	static_assert(N == 64 || N == 128, "forge_wgmma_m64nNk16_rs_mn: N is 64 or 128");
	const uint32_t tid = forge_emu_tid;
	const uint64_t seq = ++forge_emu_wgmma_rs_issued[tid];
	forge_emu_wgmma_frag& f = forge_emu_wgmma_frags[tid][(seq - 1) % FORGE_EMU_WGMMA_RS_RING];
	f.seq = seq;
	memcpy(f.a, a, sizeof f.a);
	forge_emu_wgmma_issue(d, 0, b, N);
	forge_emu_wgmma_ops[tid][forge_emu_wgmma_nops[tid] - 1].rs = seq;
	forge_emu_events++;
}
static inline void forge_wgmma_m64n64k16_rs_mn(float* d, const uint32_t* a, uint64_t b) { forge_wgmma_m64nNk16_rs_mn<64>(d, a, b); }
static inline void forge_wgmma_m64n128k16_rs_mn(float* d, const uint32_t* a, uint64_t b) { forge_wgmma_m64nNk16_rs_mn<128>(d, a, b); }
static inline void forge_wgmma_commit() {
	const uint32_t tid = forge_emu_tid;
	const uint64_t g = ++forge_emu_wgmma_groups[tid];
	for (uint32_t i = 0; i < forge_emu_wgmma_nops[tid]; ++i) {
		if (forge_emu_wgmma_ops[tid][i].group == 0) {
			forge_emu_wgmma_ops[tid][i].group = g;
		}
	}
}
template <int N>
static inline void forge_wgmma_wait() {
	const uint32_t tid = forge_emu_tid;
	const uint64_t done = forge_emu_wgmma_groups[tid] > (uint64_t)N ? forge_emu_wgmma_groups[tid] - N : 0;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < forge_emu_wgmma_nops[tid]; ++i) {
		const forge_emu_wgmma_op op = forge_emu_wgmma_ops[tid][i];
		if (op.group != 0 && op.group <= done) {
			forge_emu_wgmma(op.d, op.a, op.b, op.n, op.rs);
		} else {
			forge_emu_wgmma_ops[tid][kept++] = op;
		}
	}
	forge_emu_wgmma_nops[tid] = kept;
}
static inline void forge_wgmma_m64n128k16(float* d, uint64_t a, uint64_t b) { forge_emu_wgmma_issue(d, a, b, 128); }
static inline void forge_wgmma_m64n256k16(float* d, uint64_t a, uint64_t b) { forge_emu_wgmma_issue(d, a, b, 256); }
static inline void forge_wgmma_m64n16k16(float* d, uint64_t a, uint64_t b) { forge_emu_wgmma_issue(d, a, b, 16); }
static inline void forge_wgmma_m64n32k16(float* d, uint64_t a, uint64_t b) { forge_emu_wgmma_issue(d, a, b, 32); }
static inline void forge_wgmma_m64n64k16(float* d, uint64_t a, uint64_t b) { forge_emu_wgmma_issue(d, a, b, 64); }
template <uint32_t N>
static inline void forge_wgmma_m64nNk16(float* d, uint64_t a, uint64_t b) { forge_emu_wgmma_issue(d, a, b, N); }
// mbarriers: the 64-bit word holds the arrivals still due this phase (bits
// 0–15), the count it was initialised with (16–31) and the phases
// completed (32–63); the transaction bytes still due this phase (TMA's,
// forge_mbar_arrive_tx) are kept beside it, by its shared-memory offset. A
// phase completes when both reach zero. A wait gives way to the other
// threads until its phase completes; a barrier never initialised, or
// arrived at more often than a phase takes, stops the emulation.
static int64_t forge_emu_mbar_tx[4 * FORGE_EMU_SMEM_BYTES / 8]; // by the barrier's offset in forge_emu_smem_store
static inline int64_t& forge_emu_tx(uint64_t* bar) {
	const size_t off = (size_t)((const uint8_t*)bar - forge_emu_smem_store[0]);
	if (off >= 4 * FORGE_EMU_SMEM_BYTES || off % 8 != 0) {
		fprintf(stderr, "mbarrier at %p: not an 8-byte-aligned word of dynamic shared memory\n", (void*)bar);
		abort();
	}
	return forge_emu_mbar_tx[off / 8];
}
static inline void forge_mbar_init(uint64_t* bar, uint32_t n) {
	if (n == 0 || n > 0xFFFF) {
		fprintf(stderr, "forge_mbar_init: count %u\n", n);
		abort();
	}
	*bar = (uint64_t)n | (uint64_t)n << 16;
	forge_emu_tx(bar) = 0;
}
static inline void forge_fence_mbar_init() {}
// forge_emu_mbar_settle completes the phase whose arrivals and
// transactions are all in.
static inline void forge_emu_mbar_settle(uint64_t* bar) {
	const uint64_t b = *bar, n = (b >> 16) & 0xFFFF;
	if ((b & 0xFFFF) == 0 && forge_emu_tx(bar) == 0) {
		*bar = ((b >> 32) + 1) << 32 | n << 16 | n;
	}
}
static inline void forge_mbar_arrive(uint64_t* bar) {
	const uint64_t b = *bar, due = b & 0xFFFF, n = (b >> 16) & 0xFFFF;
	if (n == 0 || due == 0) {
		fprintf(stderr, "forge_mbar_arrive: thread %u at a barrier never initialised, or arrived at once too often (%#llx)\n", forge_emu_tid, (unsigned long long)b);
		abort();
	}
	*bar = b - 1;
	forge_emu_mbar_settle(bar);
	forge_emu_events++;
}
static inline void forge_mbar_arrive_tx(uint64_t* bar, uint32_t bytes) {
	forge_emu_tx(bar) += bytes;
	forge_mbar_arrive(bar);
}
static inline void forge_mbar_wait(uint64_t* bar, uint32_t parity) {
	if (((*bar >> 16) & 0xFFFF) == 0) {
		fprintf(stderr, "forge_mbar_wait: thread %u at a barrier never initialised\n", forge_emu_tid);
		abort();
	}
	while (((*bar >> 32) & 1) == (parity & 1)) {
		forge_emu_yield();
	}
	forge_emu_events++;
}
// TMA: a tensor map is the matrix's address, extent and box; a copy lands
// as it is issued (so a stage refilled before its readers released it is
// caught), swizzled as the hardware swizzles it (address bits 4–6 XOR bits
// 7–9 of the 1024-byte-aligned destination), zeros outside the matrix, and
// then takes the box's bytes off its barrier's transactions.
#define FORGE_GRID_CONSTANT
struct forge_tmap {
	const uint8_t* base;
	uint64_t inner, outer, depth; // a 2-dimensional map's depth is 1
	uint32_t box_inner, box_outer, box_depth;
};
// -DFORGE_EMU_NO_TMA: a driver without TMA maps, which refuses every one.
static inline bool forge_tmap_f16_3d(forge_tmap* map, const void* base, uint64_t d0, uint64_t d1, uint64_t d2, uint32_t b0, uint32_t b1, uint32_t b2) {
#if defined(FORGE_EMU_NO_TMA)
	return false;
#endif
	if (b0 != 64 || b1 == 0 || b1 > 256 || b2 == 0 || b2 > 256 || d0 % 8 != 0 || (uintptr_t)base % 16 != 0) {
		return false;
	}
	*map = forge_tmap{(const uint8_t*)base, d0, d1, d2, b0, b1, b2};
	return true;
}
// A 2-dimensional map is one of depth 1.
static inline bool forge_tmap_f16_2d(forge_tmap* map, const void* base, uint64_t inner, uint64_t outer, uint32_t box_inner, uint32_t box_outer) {
	return forge_tmap_f16_3d(map, base, inner, outer, 1, box_inner, box_outer, 1);
}
// forge_emu_tma_box lands map's box at (c_inner, c_outer) at offset `at`
// of workgroup rank's shared memory and takes its bytes off the barrier at
// offset `bar` there.
static inline void forge_emu_tma_box(uint32_t rank, uint32_t at, const forge_tmap* map, int32_t c_inner, int32_t c_outer, uint32_t bar, int32_t c_depth = 0) {
	const uint32_t rows = map->box_outer * map->box_depth;
	if (at % 1024 != 0 || at + rows * 128 > FORGE_EMU_SMEM_BYTES) {
		fprintf(stderr, "forge_tma_load: destination %#x: want a 1024-byte-aligned box inside shared memory\n", at);
		abort();
	}
	uint8_t* const smem = forge_emu_smem_store[rank];
	for (uint32_t z = 0; z < map->box_depth; ++z) {
		for (uint32_t r = 0; r < map->box_outer; ++r) {
			for (uint32_t e = 0; e < 64; ++e) {
				const int64_t dep = (int64_t)c_depth + z, row = (int64_t)c_outer + r, col = (int64_t)c_inner + e;
				uint16_t h = 0;
				if (dep >= 0 && row >= 0 && col >= 0 && (uint64_t)dep < map->depth && (uint64_t)row < map->outer && (uint64_t)col < map->inner) {
					memcpy(&h, map->base + 2 * (((uint64_t)dep * map->outer + (uint64_t)row) * map->inner + (uint64_t)col), 2);
				}
				const uint32_t addr = at + (z * map->box_outer + r) * 128 + 2 * e;
				memcpy(smem + (addr ^ (((addr >> 7) & 7) << 4)), &h, 2);
			}
		}
	}
	uint64_t* const b = reinterpret_cast<uint64_t*>(smem + bar);
	forge_emu_tx(b) -= (int64_t)rows * 128;
	forge_emu_mbar_settle(b);
	forge_emu_events++;
}
static inline void forge_tma_load_2d(void* dst, const forge_tmap* map, int32_t c_inner, int32_t c_outer, uint64_t* bar) {
	forge_emu_tma_box(forge_emu_cluster_rank, forge_smem_addr(dst), map, c_inner, c_outer, forge_smem_addr(bar));
}
static inline void forge_tma_load_3d(void* dst, const forge_tmap* map, int32_t c0, int32_t c1, int32_t c2, uint64_t* bar) {
	forge_emu_tma_box(forge_emu_cluster_rank, forge_smem_addr(dst), map, c0, c1, forge_smem_addr(bar), c2);
}
// Ready counters: the emulation runs the publishing kernel before the
// waiting one, so a counter short of what is waited for is a chunk whose
// units were not all published.
static inline void forge_flag_publish(uint32_t* f) { ++*f; }
static inline void forge_flag_wait(const uint32_t* f, uint32_t want) {
	if (*f < want) {
		fprintf(stderr, "forge_flag_wait: counter %p is %u, want %u: not all published\n", (const void*)f, *f, want);
		abort();
	}
}
// Clusters: a launch's workgroups run a cluster at a time (emu_main.h);
// the multicast copy lands in every workgroup of mask at once, a remote
// arrival is an arrival at the barrier at the same offset of the other
// workgroup's shared memory.
template <typename... Params, typename... Args>
static inline void forge_emu_launch_cluster_kernel(void (*kernel)(Params...), uint32_t grid, uint32_t block, size_t shared_bytes, uint32_t n, const char* name, Args... args) {
	forge_emu_smem_guard(shared_bytes, false, name, n);
	forge_emu_launch_cluster_fn(grid, block, n, [&] { kernel(((Params)args)...); });
	forge_emu_smem_guard(shared_bytes, true, name, n);
}
#define FORGE_LAUNCH_CLUSTER(kernel, grid, block, shared_bytes, stream, n, ...) \
	((void)(stream), forge_emu_launch_cluster_kernel(kernel, (grid).x, (block).x, (size_t)(shared_bytes), (n), #kernel, __VA_ARGS__))
#define FORGE_LAUNCH_CLUSTER_AFTER FORGE_LAUNCH_CLUSTER
static inline uint32_t forge_cluster_rank() { return forge_emu_cluster_rank; }
static inline void forge_cluster_sync() { forge_emu_sync_cluster(); }
static inline void forge_mbar_arrive_cluster(uint64_t* bar, uint32_t rank) {
	if (rank >= forge_emu_cluster) {
		fprintf(stderr, "forge_mbar_arrive_cluster: rank %u of a cluster of %u\n", rank, forge_emu_cluster);
		abort();
	}
	forge_mbar_arrive(reinterpret_cast<uint64_t*>(forge_emu_smem_store[rank] + forge_smem_addr(bar)));
}
static inline void forge_tma_load_2d_multicast(void* dst, const forge_tmap* map, int32_t c_inner, int32_t c_outer, uint64_t* bar, uint16_t mask) {
	if (mask == 0 || (mask >> forge_emu_cluster) != 0) {
		fprintf(stderr, "forge_tma_load_2d_multicast: mask %#x for a cluster of %u\n", mask, forge_emu_cluster);
		abort();
	}
	for (uint32_t r = 0; r < forge_emu_cluster; ++r) {
		if (mask >> r & 1) {
			forge_emu_tma_box(r, forge_smem_addr(dst), map, c_inner, c_outer, forge_smem_addr(bar));
		}
	}
}
#if defined(FORGE_EMU_MMA_SYNC) // (the attention file's wgmma path runs without it: its other paths are then the wmma ones)
// forge_cp_async_mbar_arrive lands every copy this thread has issued (as
// the hardware's arrival waits for them) and arrives.
static inline void forge_cp_async_mbar_arrive(uint64_t* bar) {
	const uint32_t tid = forge_emu_tid;
	for (uint32_t i = 0; i < forge_emu_ncopies[tid]; ++i) {
		memcpy(forge_emu_copies[tid][i].dst, forge_emu_copies[tid][i].data, forge_emu_copies[tid][i].bytes);
	}
	forge_emu_ncopies[tid] = 0;
	forge_mbar_arrive(bar);
}
#endif
template <int N>
static inline void forge_setmaxnreg_dec() {}
template <int N>
static inline void forge_setmaxnreg_inc() {}
#endif
#endif
