// forge_portability.h: the one header every generated HIP file includes. It
// lets the same kernel source build with hipcc for AMD GPUs and with nvcc for
// NVIDIA GPUs (CUDA 12 and 13), and it holds the scalar intrinsics that
// translated format specs call.
//
// On NVIDIA it maps straight onto the CUDA runtime rather than through HIP's
// NVIDIA headers: those (Debian's among them) do not build against CUDA 13.
//
// Build requirements, both vendors:
//   - No floating-point contraction: dequant results must be bit-identical to
//     the Go specs. clang honours the `fp contract(off)` pragma below (hipcc's
//     default is -ffp-contract=fast-honor-pragmas); pass -ffp-contract=off as
//     well, and --fmad=false to nvcc, which has no such pragma.
//   - No denormal flushing (-fgpu-flush-denormals-to-zero, nvcc -ftz=true, fast
//     math): E8M0 scales and products reach float32 subnormals.
//   - C++11 or later (hipcc 5.2 defaults to -std=c++11).
//
// Generated files define FORGE_TARGET (the target's name, a string) and
// FORGE_TARGET_WAVE_SIZE (its spec's wave size) before including this
// header; the device pass checks the compiler's wave size against the spec.
//
// hipgen copies this file to generated/hip/forge_portability.h with the
// generated-file header prepended: edit the original, templates/hip/forge_portability.h.
#ifndef FORGE_PORTABILITY_H
#define FORGE_PORTABILITY_H

// FORGE_ABI_VERSION is what every library's forge_abi_version() returns; the
// Go wrappers refuse a library whose version differs. Bump it whenever a
// launcher's signature or meaning changes.
#define FORGE_ABI_VERSION 2

// Launcher results: 0 is success, FORGE_ERR_INVALID an argument the launcher
// refused before touching the GPU; anything else is the runtime's error code.
//
// Launchers (extern "C", the same names in every target's library; each
// family's template documents its own):
//   int forge_dequant_f32_<fmt>(const void* src, float* dst, int64_t n_blocks, forge_stream_t stream);
//   int forge_dequant_f16_<fmt>(const void* src, uint16_t* dst, int64_t n_blocks, forge_stream_t stream);
//   int forge_matvec_f32_<fmt>(const void* w, const float* x, float* y, int64_t rows, int64_t cols,
//                              forge_stream_t stream);
//     y = W·x, W rows rows of cols elements (cols/BlockElems whole blocks per
//     row, rows contiguous), float32 accumulation; 1 for negative counts, cols
//     not a multiple of BlockElems, or (rows > 0) null or misaligned pointers;
//     rows == 0 returns 0 without a launch.
//   int forge_matmul_f32_<fmt>(const void* w, const float* x, float* y, int64_t rows, int64_t cols,
//                              int64_t batch, forge_stream_t stream);
//     Y = W·X for batch vectors: W as matvec's, x[b*cols + k], y[b*rows + r];
//     refuses as matvec does, and negative batch; rows == 0 or batch == 0
//     returns 0 without a launch.
//   int forge_attention_<f16|f32>_d<D>(const void* q, const void* k, const void* v, void* o,
//                                      int64_t batch, int64_t heads, int64_t heads_kv, int64_t seq_q,
//                                      int64_t seq_kv, float scale, int32_t causal, forge_stream_t stream);
//     flash attention, [batch, heads, seq, D] (templates/hip/attention.hip.tmpl
//     has the contract): one file per target, not per format.
// Adding a family adds symbols without changing existing ones, so it keeps the
// ABI version: a library built before it lacks the new symbols, which Bind
// reports by name.
#define FORGE_OK 0
#define FORGE_ERR_INVALID 1

// ---------------------------------------------------------------------------
// Vendor selection and includes.
// clang's HIP mode defines __HIP__ and, through hipcc, __HIP_PLATFORM_AMD__;
// nvcc defines __CUDACC__. A HIP build for NVIDIA (__HIP_PLATFORM_NVIDIA__)
// is compiled by nvcc and takes the CUDA branch.
#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define FORGE_AMD 1
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__)
#define FORGE_CUDA 1
#include <cuda_runtime.h>
#else
#error "forge_portability.h: compile with hipcc (AMD) or nvcc (NVIDIA)"
#endif

#include <stddef.h> // size_t, offsetof (the translator's layout static_asserts)
#include <stdint.h> // fixed-width integers: Go's int8..uint32 map onto them

#if defined(FORGE_AMD)
// Bit-exactness must not depend on the build line (see above).
#pragma clang fp contract(off)
#endif

// ---------------------------------------------------------------------------
// Function qualifiers.
// FORGE_DEVICE: device functions (translated helpers and Dequant).
// FORGE_HOST_DEVICE: the scalar intrinsics, which are pure bit manipulation,
//   so they also compile for the host; a host test checks them against the
//   Go specs bit for bit on every input that matters.
// FORGE_GLOBAL: kernels. FORGE_LAUNCH_BOUNDS(n): the most threads per block a
//   kernel is launched with, so the compiler may budget registers for it;
//   FORGE_LAUNCH_BOUNDS_SM(n, m): and at least m blocks an SM on NVIDIA
//   (a register count fixed at entry, which setmaxnreg needs; AMD ignores m).
// FORGE_EXPORT: the extern "C" launchers and forge_abi_version, visible even
//   when a library is built with -fvisibility=hidden.
#define FORGE_DEVICE __device__ __forceinline__
#define FORGE_HOST_DEVICE __host__ __device__ __forceinline__
#define FORGE_GLOBAL __global__
#define FORGE_LAUNCH_BOUNDS(n) __launch_bounds__(n)
#if defined(FORGE_CUDA)
#define FORGE_LAUNCH_BOUNDS_SM(n, m) __launch_bounds__(n, m)
#else
#define FORGE_LAUNCH_BOUNDS_SM(n, m) __launch_bounds__(n)
#endif
#define FORGE_EXPORT extern "C" __attribute__((visibility("default")))

// FORGE_SHARED declares workgroup (LDS / shared) memory; forge_syncthreads()
// is the workgroup barrier, making earlier shared and global writes visible
// to the workgroup. (matvec and matmul stage tiles through them.) On AMD it
// is the barrier between workgroup-scope release and acquire fences, which
// is what HIP's __syncthreads does, spelled with clang builtins: ROCm 5.2's
// __syncthreads calls into the device library (see the indices below).
#define FORGE_SHARED __shared__
// FORGE_DYNAMIC_SHARED(name) declares a kernel's dynamic shared memory, 16-byte
// aligned bytes, as many as its launch gives (FORGE_LAUNCH's shared_bytes).
#define FORGE_DYNAMIC_SHARED(name) extern __shared__ __align__(16) uint8_t name[]
#if defined(FORGE_AMD)
#define forge_syncthreads()                                 \
	do {                                                    \
		__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
		__builtin_amdgcn_s_barrier();                       \
		__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); \
	} while (0)
#else
#define forge_syncthreads() __syncthreads()
#endif

// ---------------------------------------------------------------------------
// Streams, launches and errors.
// FORGE_LAUNCH(kernel, grid, block, shared_bytes, stream, args...) launches
// kernel; forge_last_error() returns and clears the calling thread's last
// runtime error as an int (0 = success), which is what launchers return.
#if defined(FORGE_AMD)
typedef hipStream_t forge_stream_t;
#define FORGE_LAUNCH(kernel, grid, block, shared_bytes, stream, ...) \
	hipLaunchKernelGGL(kernel, grid, block, shared_bytes, stream, __VA_ARGS__)
#define forge_last_error() ((int)hipGetLastError())
#else
typedef cudaStream_t forge_stream_t;
#define FORGE_LAUNCH(kernel, grid, block, shared_bytes, stream, ...) \
	kernel<<<(grid), (block), (shared_bytes), (stream)>>>(__VA_ARGS__)
#define forge_last_error() ((int)cudaGetLastError())
#endif

// FORGE_LAUNCH_AFTER launches like FORGE_LAUNCH a kernel that reads what the
// stream's previous kernel wrote, and calls forge_dependency_wait() before
// it does. On NVIDIA (the sm_90 target) it is a programmatic dependent
// launch: the kernel's workgroups are scheduled while the previous kernel
// drains, instead of after, and forge_dependency_wait waits until that
// kernel has finished and its writes are visible (a no-op when there was
// none). A kernel that a dependent launch follows may call
// forge_dependents_launch() to let it start earlier still. Elsewhere these
// are a plain launch and no-ops.
#if defined(FORGE_CUDA)
template <typename... Params, typename... Args>
static inline void forge_launch_after(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream, Args... args) {
	cudaLaunchConfig_t config = {};
	config.gridDim = grid;
	config.blockDim = block;
	config.dynamicSmemBytes = shared_bytes;
	config.stream = stream;
	cudaLaunchAttribute attr[1];
	attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr[0].val.programmaticStreamSerializationAllowed = 1;
	config.attrs = attr;
	config.numAttrs = 1;
	(void)cudaLaunchKernelEx(&config, kernel, ((Params)args)...);
}
#define FORGE_LAUNCH_AFTER(kernel, grid, block, shared_bytes, stream, ...) \
	forge_launch_after(kernel, (grid), (block), (shared_bytes), (stream), __VA_ARGS__)
#else
#define FORGE_LAUNCH_AFTER FORGE_LAUNCH
#endif
// forge_scratch(bytes, stream) returns device memory for a launcher's
// intermediate results, ordered on stream: usable by the launches that
// follow on it, and given back by forge_scratch_free(p, stream) once they
// are queued. nullptr (the runtime's error cleared) when there is none;
// a launcher then takes a path without scratch. Stream-ordered allocation
// needs no synchronisation and can be captured in a graph. On NVIDIA the
// memory comes from a pool per device that keeps up to 256 MiB between
// calls (an inline function's statics: one pool per library, shared by its
// files); on AMD from the device's default pool (hipMallocAsync).
#if defined(FORGE_CUDA)
inline void* forge_scratch(size_t bytes, cudaStream_t stream) {
	static cudaMemPool_t pools[256]; // by device ordinal, created once each under the lock
	static int lock = 0;
	int dev = 0;
	if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 256) {
		(void)cudaGetLastError();
		return nullptr;
	}
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {
	}
	if (!pools[dev]) {
		cudaMemPoolProps props = {};
		props.allocType = cudaMemAllocationTypePinned;
		props.location.type = cudaMemLocationTypeDevice;
		props.location.id = dev;
		if (cudaMemPoolCreate(&pools[dev], &props) == cudaSuccess) {
			uint64_t keep = (uint64_t)256 << 20;
			(void)cudaMemPoolSetAttribute(pools[dev], cudaMemPoolAttrReleaseThreshold, &keep);
		} else {
			pools[dev] = nullptr;
			(void)cudaGetLastError();
		}
	}
	cudaMemPool_t pool = pools[dev];
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
	void* p = nullptr;
	if (!pool || cudaMallocFromPoolAsync(&p, bytes, pool, stream) != cudaSuccess) {
		(void)cudaGetLastError();
		return nullptr;
	}
	return p;
}
inline void forge_scratch_free(void* p, cudaStream_t stream) { (void)cudaFreeAsync(p, stream); }
// forge_zero_async(p, bytes, stream) zeroes device memory, ordered on stream.
inline void forge_zero_async(void* p, size_t bytes, cudaStream_t stream) { (void)cudaMemsetAsync(p, 0, bytes, stream); }
#else
inline void* forge_scratch(size_t bytes, hipStream_t stream) {
	void* p = nullptr;
	if (hipMallocAsync(&p, bytes, stream) != hipSuccess) {
		(void)hipGetLastError();
		return nullptr;
	}
	return p;
}
inline void forge_scratch_free(void* p, hipStream_t stream) { (void)hipFreeAsync(p, stream); }
inline void forge_zero_async(void* p, size_t bytes, hipStream_t stream) { (void)hipMemsetAsync(p, 0, bytes, stream); }
#endif

// forge_dependency_wait_for(p) is forge_dependency_wait() that also returns
// p, passed through the wait, for the loads of what the previous kernel
// wrote: a load through a kernel's const __restrict__ parameter is one the
// compiler may treat as invariant (ld.global.nc) and move above the wait,
// memory clobber or not, and where the wait sat inside a loop after loads
// it does not order (matvec_x8 loaded its weights first) nvcc did so: a
// replayed decode step read its activations before the kernel that wrote
// them had finished (the model suite, 2026-11-25). A load through the
// returned pointer depends on the wait's output and cannot move above it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define forge_dependency_wait() asm volatile("griddepcontrol.wait;" ::: "memory")
#define forge_dependents_launch() asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
template <typename T>
FORGE_DEVICE T* forge_dependency_wait_for(T* p) {
	asm volatile("griddepcontrol.wait;" : "+l"(p) : : "memory");
	return p;
}
#else
#define forge_dependency_wait() ((void)0)
#define forge_dependents_launch() ((void)0)
template <typename T>
FORGE_DEVICE T* forge_dependency_wait_for(T* p) {
	return p;
}
#endif

// ---------------------------------------------------------------------------
// Thread and block indices, x dimension (forge's kernels are 1-D), as
// unsigned 32-bit values. On AMD they are clang's builtins rather than HIP's
// threadIdx and friends, which (ROCm 5.2) call into the ROCm device library:
// with the builtins, optimised device code that uses only this header needs
// no device library, so it builds to complete code objects even for targets
// the installed library lacks (Debian's ROCm 5.2 has no gfx1100). HIP
// launches whole workgroups, so the grid size in work-items divides exactly.
#if defined(FORGE_AMD)
#define forge_thread_idx() ((uint32_t)__builtin_amdgcn_workitem_id_x())
#define forge_block_idx() ((uint32_t)__builtin_amdgcn_workgroup_id_x())
#define forge_block_dim() ((uint32_t)__builtin_amdgcn_workgroup_size_x())
#define forge_grid_dim() ((uint32_t)__builtin_amdgcn_grid_size_x() / (uint32_t)__builtin_amdgcn_workgroup_size_x())
#else
#define forge_thread_idx() ((uint32_t)threadIdx.x)
#define forge_block_idx() ((uint32_t)blockIdx.x)
#define forge_block_dim() ((uint32_t)blockDim.x)
#define forge_grid_dim() ((uint32_t)gridDim.x)
#endif

// ---------------------------------------------------------------------------
// Wave size.
// FORGE_WAVE_SIZE is the wavefront (AMD) or warp (NVIDIA) width as an integer
// constant expression, usable in array bounds, static_asserts and unrolled
// loops. In an AMD device pass it is the compiler's (32 on gfx10/gfx11 by
// default, 64 on gfx9/CDNA): clang 19+ spells it __AMDGCN_WAVEFRONT_SIZE__,
// older clang __AMDGCN_WAVEFRONT_SIZE; where neither exists (clang has been
// retiring the constant) the target spec's value is used. In the host pass of
// a HIP build the device's width is unknown (HIP's headers claim 64 there
// whatever the target), so it is the spec's FORGE_TARGET_WAVE_SIZE, or 64
// when the file defines none; host code must not depend on it. CUDA warps
// are 32 wide on every architecture.
#if defined(FORGE_AMD) && defined(__HIP_DEVICE_COMPILE__)
#if defined(__AMDGCN_WAVEFRONT_SIZE__)
#define FORGE_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE__
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define FORGE_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE
#elif defined(FORGE_TARGET_WAVE_SIZE)
#define FORGE_WAVE_SIZE FORGE_TARGET_WAVE_SIZE
#else
#error "forge_portability.h: the compiler does not say its wave size; define FORGE_TARGET_WAVE_SIZE"
#endif
#elif defined(FORGE_AMD)
#if defined(FORGE_TARGET_WAVE_SIZE)
#define FORGE_WAVE_SIZE FORGE_TARGET_WAVE_SIZE
#else
#define FORGE_WAVE_SIZE 64
#endif
#else
#define FORGE_WAVE_SIZE 32
#endif

// A generated file is compiled for the target its spec names: a gfx1030 file
// built with -mwavefrontsize64, or a wave64 file built for a wave32 target,
// is an error here rather than a kernel whose shuffles and reductions are
// silently wrong.
#if defined(FORGE_TARGET_WAVE_SIZE) && (defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__))
static_assert(FORGE_WAVE_SIZE == FORGE_TARGET_WAVE_SIZE,
	"forge: the compiler's wave size differs from the target spec's; compile this file for its own target");
#endif

// ---------------------------------------------------------------------------
// Cross-lane operations (the reductions of matvec and matmul).
// Every lane of the wave must make the call (converged control flow): CUDA's
// *_sync forms are given the full-warp mask, and AMD's forms read lanes that
// must be active. width (a power of two, at most FORGE_WAVE_SIZE) splits the
// wave into independent groups, as in both runtimes.
//   forge_shfl_xor(v, m):  v from lane (lane ^ m)   (butterfly reductions)
//   forge_shfl_down(v, d): v from lane (lane + d), own v past the group end
//   forge_ballot(p):       bit i set iff lane i's p is nonzero; 64 bits on
//                          both vendors (the top 32 are 0 on wave32)
//   forge_lane_id():       this lane's index within its wave
//   forge_wave_sum(v):     the sum over the wave, in every lane (a butterfly,
//                          so wave32 and wave64 add in different orders:
//                          reductions agree with Go within a tolerance, not
//                          bit for bit)
#define FORGE_FULL_MASK 0xffffffffu
typedef uint64_t forge_lanemask_t;

#if defined(FORGE_AMD)
template <typename T>
FORGE_DEVICE T forge_shfl_xor(T v, int lane_mask, int width = FORGE_WAVE_SIZE) {
	return __shfl_xor(v, lane_mask, width);
}
template <typename T>
FORGE_DEVICE T forge_shfl_down(T v, unsigned int delta, int width = FORGE_WAVE_SIZE) {
	return __shfl_down(v, delta, width);
}
FORGE_DEVICE forge_lanemask_t forge_ballot(int predicate) { return (forge_lanemask_t)__ballot(predicate); }
FORGE_DEVICE uint32_t forge_lane_id(void) { return (uint32_t)__lane_id(); }
#else
template <typename T>
FORGE_DEVICE T forge_shfl_xor(T v, int lane_mask, int width = FORGE_WAVE_SIZE) {
	return __shfl_xor_sync(FORGE_FULL_MASK, v, lane_mask, width);
}
template <typename T>
FORGE_DEVICE T forge_shfl_down(T v, unsigned int delta, int width = FORGE_WAVE_SIZE) {
	return __shfl_down_sync(FORGE_FULL_MASK, v, delta, width);
}
FORGE_DEVICE forge_lanemask_t forge_ballot(int predicate) {
	return (forge_lanemask_t)__ballot_sync(FORGE_FULL_MASK, predicate);
}
FORGE_DEVICE uint32_t forge_lane_id(void) {
	uint32_t lane;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	return lane;
}
#endif

FORGE_DEVICE float forge_wave_sum(float v) {
#pragma unroll
	for (int m = FORGE_WAVE_SIZE / 2; m > 0; m >>= 1) {
		v += forge_shfl_xor(v, m);
	}
	return v;
}

// forge_fmaf(a, b, c) is a·b + c rounded once (a fused multiply-add), for
// the reductions of matmul; clang's builtin on AMD (no device library call),
// CUDA's intrinsic on NVIDIA. Explicit, so it is fused whatever the
// contraction setting.
#if defined(FORGE_AMD)
#define forge_fmaf(a, b, c) __builtin_fmaf((a), (b), (c))
#else
#define forge_fmaf(a, b, c) __fmaf_rn((a), (b), (c))
#endif

// forge_fmaxf(a, b) is the larger of a and b (the other if one is NaN), and
// forge_exp2f(x) is 2^x (0 for -inf), for attention's softmax: on AMD
// clang's builtins, which lower to v_max_f32 and v_exp_f32 with no device
// library call (v_exp_f32 is accurate to about 1 ulp and flushes results
// below 2^-126 to 0, which the softmax cannot tell from 0); CUDA's exp2f
// (2 ulp) on NVIDIA.
#if defined(FORGE_AMD)
#define forge_fmaxf(a, b) __builtin_fmaxf((a), (b))
#define forge_exp2f(x) __builtin_exp2f(x)
#else
#define forge_fmaxf(a, b) fmaxf((a), (b))
#define forge_exp2f(x) exp2f(x)
#endif

// FORGE_HAS_WMMA: the NVIDIA tensor cores through nvcuda::wmma (m16n16k16,
// half in, float accumulate; sm_70 and later), which matmul and attention
// use on NVIDIA targets. Define FORGE_NO_WMMA to build the generic path instead.
#if defined(FORGE_CUDA) && !defined(FORGE_NO_WMMA)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "forge_portability.h: the matmul tensor-core path needs sm_70 or later; define FORGE_NO_WMMA for older GPUs"
#endif
#include <cuda_fp16.h>
#include <mma.h>
#define FORGE_HAS_WMMA 1
#endif

#if defined(FORGE_CUDA)
#include <atomic>
// forge_func_attribute_once sets one of kernel's attributes
// (cudaFuncSetAttribute) once per device: done is the caller's record for
// this kernel and attribute (bit d % 64 of done[d / 64] for device d <
// 256). False, with the runtime's error cleared, when the runtime refuses
// (nothing recorded: a later call asks again).
template <typename K>
static inline bool forge_func_attribute_once(K kernel, cudaFuncAttribute attr, int value, std::atomic<uint64_t>* done) {
	int dev = 0;
	if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 256) {
		(void)cudaGetLastError();
		return false;
	}
	const uint64_t bit = (uint64_t)1 << (dev % 64);
	if (done[dev / 64].load(std::memory_order_acquire) & bit) {
		return true;
	}
	if (cudaFuncSetAttribute(kernel, attr, value) != cudaSuccess) {
		(void)cudaGetLastError();
		return false;
	}
	done[dev / 64].fetch_or(bit, std::memory_order_release);
	return true;
}
// forge_shared_opt_in lets kernel launch with more than the 48 KiB of
// dynamic shared memory that needs no opt-in (up to 227 KiB a workgroup on
// sm_90), once per device; false when the runtime refuses.
template <typename K>
static inline bool forge_shared_opt_in(K kernel, int bytes, std::atomic<uint64_t>* done) {
	return forge_func_attribute_once(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes, done);
}
// forge_prefer_shared asks that an SM running kernel keep its shared memory
// at the most its carveout allows (carveout 100), once per device: a
// kernel that uses none may otherwise have an SM's carveout shrunk for
// more L1, which a workgroup that needs most of the shared memory (the
// wgmma products) must then wait to be undone, an SM at a time, until the
// kernel's workgroups there have left. A refusal only costs the
// preference.
template <typename K>
static inline void forge_prefer_shared(K kernel, std::atomic<uint64_t>* done) {
	(void)forge_func_attribute_once(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100, done);
}
#endif

// FORGE_HAS_MMA_SYNC: NVIDIA's warp-level PTX matrix product, shared-memory
// matrix loads and asynchronous copies (nvcc, sm_80 and later; define
// FORGE_NO_MMA_SYNC to leave them out), whose register layouts PTX
// documents, unlike wmma's fragments. Attention's and matmul's mma.sync
// paths use them. In a warp, lane l is (g = l / 4, t = l % 4):
//   forge_mma16816(c, a, b0, b1): c += A·B for one m16n8k16 tile, f16 in,
//     f32 accumulate. a[0..3] hold A's (row, k) pairs (g, 2t..2t+1),
//     (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..); b0 and b1 B's (k, column)
//     pairs (2t..2t+1, g) and (2t+8.., g); c[0..3] C's (g, 2t), (g, 2t+1),
//     (g+8, 2t), (g+8, 2t+1). (A pair's lower k is its low 16 bits.)
//   forge_ldsm_x4(r, row): four 8×8 matrices of 16-bit elements from
//     shared memory (ldmatrix .x4): lanes 8i..8i+7 give the addresses of
//     matrix i's rows 0..7 (16 bytes each), and r[i] receives row g,
//     elements 2t and 2t+1 of matrix i. forge_ldsm_x4_t (.trans): rows 2t
//     and 2t+1 of column g.
//   forge_cp_async16(dst, src, valid): 16 bytes from global to shared
//     memory without passing through registers (16 zero bytes when !valid:
//     src is then any valid address); forge_cp_async4(dst, src, n): the
//     first n ≤ 4 bytes of a 4-byte-aligned src, the rest of the 4 zero
//     (src any valid address when n is 0); forge_cp_async_commit() closes this
//     thread's group of copies, forge_cp_async_wait<N>() waits until at
//     most N of its groups are pending. Other threads' copies are visible
//     after a barrier that follows their wait.
//   forge_mma_s8_k32(c, a, b0, b1): c += A·B for one m16n8k32 tile of
//     int8, int32 accumulate (wrapping). a[0..3] hold A's four-byte k runs
//     (g, 4t..4t+3), (g+8, 4t..), (g, 16+4t..), (g+8, 16+4t..); b0 and b1
//     B's (4t..4t+3, g) and (16+4t.., g); c as forge_mma16816's. (A run's
//     lowest k is its low byte.) forge_mma_s8_k16(c, a0, a1, b0): the
//     m16n8k16 tile, the first two of A's runs and the first of B's.
// The host emulation (gen/hipgen's emu.h, FORGE_EMU_MMA_SYNC) defines the
// same functions, emulated from these layouts.
#if defined(FORGE_CUDA) && defined(FORGE_HAS_WMMA) && !defined(FORGE_NO_MMA_SYNC)
#define FORGE_HAS_MMA_SYNC 1
FORGE_DEVICE void forge_mma_s8_k32(int32_t* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
	asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		: "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
		: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
FORGE_DEVICE void forge_mma_s8_k16(int32_t* c, uint32_t a0, uint32_t a1, uint32_t b0) {
	asm("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
		: "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
		: "r"(a0), "r"(a1), "r"(b0));
}
FORGE_DEVICE void forge_mma16816(float* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
		: "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
FORGE_DEVICE void forge_ldsm_x4(uint32_t* r, const void* row) {
	const uint32_t addr = (uint32_t)__cvta_generic_to_shared(row);
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		: "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		: "r"(addr));
}
FORGE_DEVICE void forge_ldsm_x4_t(uint32_t* r, const void* row) {
	const uint32_t addr = (uint32_t)__cvta_generic_to_shared(row);
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
		: "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		: "r"(addr));
}
FORGE_DEVICE void forge_cp_async16(void* dst, const void* src, bool valid) {
	const uint32_t addr = (uint32_t)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(addr), "l"(src), "r"(valid ? 16 : 0));
}
FORGE_DEVICE void forge_cp_async4(void* dst, const void* src, uint32_t n) {
	const uint32_t addr = (uint32_t)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(addr), "l"(src), "r"(n));
}
FORGE_DEVICE void forge_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
FORGE_DEVICE void forge_cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
#endif

// FORGE_HAS_WGMMA (opt-in: -DFORGE_MM_WGMMA with -arch=sm_90a; Hopper's
// warpgroup matrix product, which sm_90 without the "a" lacks): matmul's
// experimental F16 path, whose operands the warpgroup reads from shared
// memory in the 128-byte-swizzled K-major layout, 64 f16 (128 bytes) a
// row, row r of a 1024-byte-aligned tile at r·128 with its 16-byte chunk c
// at chunk c ^ (r % 8) (the hardware's address bits 4–6 XOR bits 7–9).
//   forge_smem_addr(p): p's shared-window address.
//   forge_wgmma_desc(addr): the matrix descriptor of a K-major tile at
//     addr, 128-byte swizzle, 8-row groups 1024 bytes apart; addr + 32·i
//     is the i-th k16 slice of a 64-element row.
//   forge_wgmma_m64n128k16(d, a, b): d += A·Bᵀ, A 64 rows × 16 (K) at
//     descriptor a, B 128 rows × 16 at b (both K-major, f16), d f32: in
//     warp w of the warpgroup, lane (g = l/4, t = l%4) holds d[4j + 2h + e]
//     = D(16w + g + 8h, 8j + 2t + e), j < 16, h, e < 2.
//   forge_wgmma_m64n256k16(d, a, b): the same with B 256 rows and 128
//     accumulators, the same layout with j < 32.
//   forge_wgmma_fence() before the products (after the accumulators were
//   written by other instructions), forge_wgmma_commit() after them,
//   forge_wgmma_fence_operands(d) around them (see below),
//   forge_wgmma_wait<N>() until at most N committed groups are pending;
//   forge_fence_proxy_async() between cp.async (or plain) stores to shared
//   memory and the products that read it (after the wait, before the
//   barrier). The host emulation (emu.h, FORGE_EMU_WGMMA) defines the same.
#if defined(FORGE_HAS_MMA_SYNC) && defined(FORGE_MM_WGMMA)
#define FORGE_HAS_WGMMA 1
FORGE_DEVICE uint32_t forge_smem_addr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
FORGE_DEVICE uint64_t forge_wgmma_desc(uint32_t addr) {
	return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}
FORGE_DEVICE void forge_wgmma_fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
FORGE_DEVICE void forge_wgmma_commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N>
FORGE_DEVICE void forge_wgmma_wait() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
// forge_wgmma_fence_operands<N>(d) pins the N (64) accumulators in their
// registers around the asynchronous products (as CUTLASS's
// warpgroup_fence_operand does), so that the compiler neither reads nor
// moves them while a product may still write them.
template <int N = 64>
FORGE_DEVICE void forge_wgmma_fence_operands(float* d) {
#pragma unroll
	for (int i = 0; i < N; ++i) {
		asm volatile("" : "+f"(d[i])::"memory");
	}
}
FORGE_DEVICE void forge_fence_proxy_async() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
// Shared-memory barriers (mbarrier) for matmul's warp-specialized wgmma
// kernel, whose copying warps and multiplying warps meet through them
// instead of the workgroup's barrier:
//   forge_mbar_init(bar, n): a barrier that completes a phase when n
//     threads have arrived (one thread inits; a workgroup barrier after);
//   forge_mbar_arrive(bar): this thread's arrival (release: its shared
//     stores, and the copies it has waited for, before it);
//   forge_mbar_wait(bar, parity): until the phase of that parity (0 for the
//     first, 1 for the second, alternating) has completed (acquire);
//   forge_cp_async_mbar_arrive(bar): an arrival made when this thread's
//     cp.async copies issued so far have landed (the barrier's count
//     includes it: .noinc), as CUTLASS's cp.async pipelines signal a stage.
//   forge_setmaxnreg_dec<N>() / forge_setmaxnreg_inc<N>(): the calling
//     warpgroup gives up registers to N a thread, or takes them up to N
//     (the copying warpgroup needs few, the multiplying ones many).
FORGE_DEVICE void forge_mbar_init(uint64_t* bar, uint32_t n) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(forge_smem_addr(bar)), "r"(n) : "memory");
#else
	(void)bar, (void)n;
#endif
}
FORGE_DEVICE void forge_mbar_arrive(uint64_t* bar) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(forge_smem_addr(bar)) : "memory");
#else
	(void)bar;
#endif
}
FORGE_DEVICE void forge_mbar_wait(uint64_t* bar, uint32_t parity) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nFORGE_MBAR_WAIT:\n"
		"mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
		"@!p bra FORGE_MBAR_WAIT;\n}\n" ::"r"(forge_smem_addr(bar)), "r"(parity) : "memory");
#else
	(void)bar, (void)parity;
#endif
}
FORGE_DEVICE void forge_cp_async_mbar_arrive(uint64_t* bar) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(forge_smem_addr(bar)) : "memory");
#else
	(void)bar;
#endif
}
template <int N>
FORGE_DEVICE void forge_setmaxnreg_dec() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N>
FORGE_DEVICE void forge_setmaxnreg_inc() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
FORGE_DEVICE void forge_wgmma_m64n128k16(float* d, uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
		"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
		: "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
		  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
		  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
		  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
		  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		: "l"(a), "l"(b));
#else
	(void)d, (void)a, (void)b;
	__trap(); // -DFORGE_MM_WGMMA needs -arch=sm_90a
#endif
}
// forge_wgmma_m64n256k16(d, a, b): as m64n128k16 with B 256 rows, d 128
// accumulators (d[64 + i] the columns 128 further on): A is read once for
// both halves, where two m64n128k16 products read it twice.
FORGE_DEVICE void forge_wgmma_m64n256k16(float* d, uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
		"wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
		: "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
		  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
		  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
		  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
		  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
		  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
		  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
		  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
		  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
		  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
		  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
		  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
		  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		: "l"(a), "l"(b));
#else
	(void)d, (void)a, (void)b;
	__trap(); // -DFORGE_MM_WGMMA needs -arch=sm_90a
#endif
}
// forge_wgmma_m64n16k16, _m64n32k16, _m64n64k16: the same with B 16, 32 or
// 64 rows (8, 16, 32 accumulators); forge_wgmma_m64nNk16<N> picks one.
FORGE_DEVICE void forge_wgmma_m64n16k16(float* d, uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
		"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1, 0, 0;\n}\n"
		: "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
		: "l"(a), "l"(b));
#else
	(void)d, (void)a, (void)b;
	__trap(); // -DFORGE_MM_WGMMA needs -arch=sm_90a
#endif
}
FORGE_DEVICE void forge_wgmma_m64n32k16(float* d, uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
		"wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
		: "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
		: "l"(a), "l"(b));
#else
	(void)d, (void)a, (void)b;
	__trap(); // -DFORGE_MM_WGMMA needs -arch=sm_90a
#endif
}
FORGE_DEVICE void forge_wgmma_m64n64k16(float* d, uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
		"wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
		: "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		: "l"(a), "l"(b));
#else
	(void)d, (void)a, (void)b;
	__trap(); // -DFORGE_MM_WGMMA needs -arch=sm_90a
#endif
}
template <uint32_t N>
FORGE_DEVICE void forge_wgmma_m64nNk16(float* d, uint64_t a, uint64_t b) {
	static_assert(N == 16 || N == 32 || N == 64 || N == 128 || N == 256, "forge_wgmma_m64nNk16: N is 16, 32, 64, 128 or 256");
	if constexpr (N == 16) {
		forge_wgmma_m64n16k16(d, a, b);
	} else if constexpr (N == 32) {
		forge_wgmma_m64n32k16(d, a, b);
	} else if constexpr (N == 64) {
		forge_wgmma_m64n64k16(d, a, b);
	} else if constexpr (N == 128) {
		forge_wgmma_m64n128k16(d, a, b);
	} else {
		forge_wgmma_m64n256k16(d, a, b);
	}
}
// forge_wgmma_desc_mn(addr, lbo): the descriptor of an MN-major tile at
// addr (a B operand whose N elements are contiguous, as V's rows are for
// O += P·V): 128-byte swizzle, rows of 64 N elements (128 bytes, chunk c
// of row r at c ^ (r % 8)) for consecutive K, 8-row groups 1024 bytes
// apart, the next 64 N elements lbo bytes on; addr + 2048·i is the i-th
// k16 slice.
FORGE_DEVICE uint64_t forge_wgmma_desc_mn(uint32_t addr, uint32_t lbo) {
	return (uint64_t)((addr & 0x3FFFFu) >> 4) | (uint64_t)((lbo & 0x3FFFFu) >> 4) << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}
// forge_wgmma_m64n64k16_rs_mn(d, a, b), forge_wgmma_m64n128k16_rs_mn: d +=
// A·B with A (64 rows × 16, f16) from registers, in warp w of the
// warpgroup lane (g = l/4, t = l%4) holding in a[0..3] the pairs (low half
// first) A(16w + g, 2t..2t+1), A(16w + g + 8, 2t..), A(16w + g, 8 + 2t..),
// A(16w + g + 8, 8 + 2t..) (mma.sync's A fragment, and exactly the
// accumulator layout's entries of two 8-column groups), and B (16 × N)
// MN-major at descriptor b (forge_wgmma_desc_mn); d as
// forge_wgmma_m64n128k16's. a must not be written again until a
// forge_wgmma_wait has seen the product done. forge_wgmma_m64nNk16_rs_mn<N>
// picks one.
FORGE_DEVICE void forge_wgmma_m64n64k16_rs_mn(float* d, const uint32_t* a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
		"wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 1;\n}\n"
		: "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
#else
	(void)d, (void)a, (void)b;
	__trap(); // -DFORGE_MM_WGMMA needs -arch=sm_90a
#endif
}
FORGE_DEVICE void forge_wgmma_m64n128k16_rs_mn(float* d, const uint32_t* a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
		"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, p, 1, 1, 1;\n}\n"
		: "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
		  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
		  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
		  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
		  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
#else
	(void)d, (void)a, (void)b;
	__trap(); // -DFORGE_MM_WGMMA needs -arch=sm_90a
#endif
}
template <uint32_t N>
FORGE_DEVICE void forge_wgmma_m64nNk16_rs_mn(float* d, const uint32_t* a, uint64_t b) {
	static_assert(N == 64 || N == 128, "forge_wgmma_m64nNk16_rs_mn: N is 64 or 128");
	if constexpr (N == 64) {
		forge_wgmma_m64n64k16_rs_mn(d, a, b);
	} else {
		forge_wgmma_m64n128k16_rs_mn(d, a, b);
	}
}
// The tensor memory accelerator (TMA, sm_90), for matmul's wgmma kernel
// whose stages one thread fills (as cuBLAS's and CUTLASS's Hopper kernels
// are fed):
//   forge_tmap: a tensor map (the driver's CUtensorMap, 128 bytes), built
//     on the host and passed to a kernel by value as a
//     `const FORGE_GRID_CONSTANT forge_tmap` parameter;
//   forge_tmap_f16_2d(map, base, inner, outer, box_inner, box_outer) (host):
//     the map of a row-major f16 matrix of `outer` rows of `inner` elements
//     (base 16-byte aligned, inner a multiple of 8), read in boxes of
//     box_outer rows (at most 256) by box_inner = 64 elements that land in
//     shared memory in the 128-byte-swizzled layout wgmma reads (above),
//     elements outside the matrix read as zero. False, the runtime's error
//     cleared, where the driver lacks the entry point or refuses the map;
//   forge_tmap_f16_3d(map, base, d0, d1, d2, b0, b1, b2) (host): the same
//     for a 3-dimensional f16 tensor (d0 contiguous, b0 = 64), boxes of
//     b0 × b1 × b2 landing as b1·b2 rows of 128 bytes, zeros past every
//     dimension's end; forge_tma_load_3d(dst, map, c0, c1, c2, bar) its copy;
//   forge_tma_load_2d(dst, map, c_inner, c_outer, bar): the calling thread
//     copies the box whose first element is (row c_outer, element c_inner)
//     to dst (1024-byte aligned); when it has landed, bar's transaction
//     count falls by the box's bytes (out-of-range elements included);
//   forge_mbar_arrive_tx(bar, bytes): the calling thread's arrival, the
//     phase now also waiting for `bytes` of transactions;
//   forge_fence_mbar_init(): after forge_mbar_init and before the barrier
//     that publishes it, so the copies' (async) arrivals see it.
// The host emulation (emu.h, FORGE_EMU_WGMMA) defines the same: a copy
// lands as issued.
#include <cuda.h>
typedef CUtensorMap forge_tmap;
#define FORGE_GRID_CONSTANT __grid_constant__
// forge_tmap_f16 is forge_tmap_f16_2d and forge_tmap_f16_3d: rank 2 or 3,
// dims[0] the contiguous one.
static inline bool forge_tmap_f16(forge_tmap* map, const void* base, uint32_t rank, const uint64_t* dims, const uint32_t* boxes) {
	typedef CUresult (*encode_fn)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
		const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
	// The driver's entry point, looked up once through the runtime, so that
	// the library links no libcuda of its own.
	static std::atomic<encode_fn> encode{nullptr};
	encode_fn f = encode.load(std::memory_order_acquire);
	if (!f) {
		void* p = nullptr;
		cudaDriverEntryPointQueryResult found;
#if CUDART_VERSION >= 12050
		const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found);
#else
		const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &found);
#endif
		if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !p) {
			(void)cudaGetLastError();
			return false;
		}
		f = reinterpret_cast<encode_fn>(p);
		encode.store(f, std::memory_order_release);
	}
	if ((rank != 2 && rank != 3) || boxes[0] != 64 || dims[0] % 8 != 0 || (uintptr_t)base % 16 != 0) {
		return false;
	}
	cuuint64_t d[3], strides[2];
	cuuint32_t box[3], step[3] = {1, 1, 1};
	uint64_t pitch = 2;
	for (uint32_t i = 0; i < rank; ++i) {
		if (boxes[i] == 0 || boxes[i] > 256) {
			return false;
		}
		d[i] = dims[i];
		box[i] = boxes[i];
		if (i > 0) {
			strides[i - 1] = pitch;
		}
		pitch *= dims[i];
	}
	return f(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, rank, const_cast<void*>(base), d, strides, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
		CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}
static inline bool forge_tmap_f16_2d(forge_tmap* map, const void* base, uint64_t inner, uint64_t outer, uint32_t box_inner, uint32_t box_outer) {
	const uint64_t dims[2] = {inner, outer};
	const uint32_t boxes[2] = {box_inner, box_outer};
	return forge_tmap_f16(map, base, 2, dims, boxes);
}
static inline bool forge_tmap_f16_3d(forge_tmap* map, const void* base, uint64_t d0, uint64_t d1, uint64_t d2, uint32_t b0, uint32_t b1, uint32_t b2) {
	const uint64_t dims[3] = {d0, d1, d2};
	const uint32_t boxes[3] = {b0, b1, b2};
	return forge_tmap_f16(map, base, 3, dims, boxes);
}
FORGE_DEVICE void forge_tma_load_2d(void* dst, const forge_tmap* map, int32_t c_inner, int32_t c_outer, uint64_t* bar) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
		::"r"(forge_smem_addr(dst)), "l"(reinterpret_cast<uint64_t>(map)), "r"(c_inner), "r"(c_outer), "r"(forge_smem_addr(bar)) : "memory");
#else
	(void)dst, (void)map, (void)c_inner, (void)c_outer, (void)bar;
#endif
}
FORGE_DEVICE void forge_tma_load_3d(void* dst, const forge_tmap* map, int32_t c0, int32_t c1, int32_t c2, uint64_t* bar) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
		::"r"(forge_smem_addr(dst)), "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(forge_smem_addr(bar)) : "memory");
#else
	(void)dst, (void)map, (void)c0, (void)c1, (void)c2, (void)bar;
#endif
}
FORGE_DEVICE void forge_mbar_arrive_tx(uint64_t* bar, uint32_t bytes) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}\n" ::"r"(forge_smem_addr(bar)), "r"(bytes) : "memory");
#else
	(void)bar, (void)bytes;
#endif
}
FORGE_DEVICE void forge_fence_mbar_init() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
// Ready counters, for a kernel whose TMA copies read what a kernel still
// running writes (the f16 product launched as the dependent of X's
// conversion, which publishes X a K chunk at a time):
//   forge_flag_publish(f): after a workgroup barrier that follows the
//     workgroup's stores, one thread adds 1 to *f (release, GPU scope), so
//     that whoever sees the sum sees the stores;
//   forge_flag_wait(f, want): spins until *f is at least want (acquire,
//     GPU scope), then orders what it saw before the thread's later copies
//     by the async proxy (TMA), which otherwise need not see generic-proxy
//     stores.
// The counters must be zero before the publishing kernel starts
// (forge_zero_async), and every workgroup that publishes must be running
// before any that waits starts (a dependent launch of the publishing
// kernel, which releases its dependents from its first instruction).
FORGE_DEVICE void forge_flag_publish(uint32_t* f) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("fence.proxy.async.global;\nred.release.gpu.global.add.u32 [%0], 1;\n" ::"l"(f) : "memory");
#else
	(void)f;
#endif
}
FORGE_DEVICE void forge_flag_wait(const uint32_t* f, uint32_t want) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .pred p;\n.reg .b32 v;\nFORGE_FLAG_WAIT:\n"
		"ld.acquire.gpu.global.u32 v, [%0];\n"
		"setp.lt.u32 p, v, %1;\n"
		"@p bra FORGE_FLAG_WAIT;\n"
		"fence.proxy.async.global;\n}\n" ::"l"(f), "r"(want) : "memory");
#else
	(void)f, (void)want;
#endif
}
// Thread-block clusters (sm_90), for the wgmma product whose workgroups
// share one operand's copies by TMA multicast:
//   FORGE_LAUNCH_CLUSTER(kernel, grid, block, bytes, stream, n, args...)
//     launches as FORGE_LAUNCH does, in clusters of n consecutive
//     workgroups (grid a multiple of n); the kernel's shared memory must
//     all be dynamic (the host emulation runs a cluster's workgroups at
//     once, each with its own dynamic shared memory);
//     FORGE_LAUNCH_CLUSTER_AFTER, the same as a dependent launch
//     (FORGE_LAUNCH_AFTER);
//   forge_cluster_rank(): the workgroup's index in its cluster;
//   forge_cluster_sync(): every thread of the cluster's workgroups arrives
//     and waits (release / acquire), so that barriers initialised before it
//     are seen by the cluster, and no workgroup leaves while another may
//     still write its shared memory;
//   forge_mbar_arrive_cluster(bar, rank): an arrival at the barrier at
//     bar's offset in workgroup rank's shared memory (this workgroup's
//     included), with the arrival's default release at the workgroup's
//     scope, as CUTLASS's consumers release a multicast stage (a release at
//     the cluster's scope would wait, at every step, for the warp's memory
//     operations to be seen by the whole cluster);
//   forge_tma_load_2d_multicast(dst, map, c_inner, c_outer, bar, mask):
//     forge_tma_load_2d's box landing at dst's offset in each workgroup of
//     the cluster whose bit is set in mask, each's barrier at bar's offset
//     taking the box's bytes.
template <typename... Params, typename... Args>
static inline void forge_launch_cluster(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream, uint32_t n, bool after,
	Args... args) {
	cudaLaunchConfig_t config = {};
	config.gridDim = grid;
	config.blockDim = block;
	config.dynamicSmemBytes = shared_bytes;
	config.stream = stream;
	cudaLaunchAttribute attr[2];
	attr[0].id = cudaLaunchAttributeClusterDimension;
	attr[0].val.clusterDim.x = n;
	attr[0].val.clusterDim.y = 1;
	attr[0].val.clusterDim.z = 1;
	attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr[1].val.programmaticStreamSerializationAllowed = 1;
	config.attrs = attr;
	config.numAttrs = after ? 2 : 1;
	(void)cudaLaunchKernelEx(&config, kernel, ((Params)args)...);
}
#define FORGE_LAUNCH_CLUSTER(kernel, grid, block, shared_bytes, stream, n, ...) \
	forge_launch_cluster(kernel, (grid), (block), (shared_bytes), (stream), (n), false, __VA_ARGS__)
#define FORGE_LAUNCH_CLUSTER_AFTER(kernel, grid, block, shared_bytes, stream, n, ...) \
	forge_launch_cluster(kernel, (grid), (block), (shared_bytes), (stream), (n), true, __VA_ARGS__)
FORGE_DEVICE uint32_t forge_cluster_rank() {
	uint32_t r = 0;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
	return r;
}
FORGE_DEVICE void forge_cluster_sync() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
#endif
}
FORGE_DEVICE void forge_mbar_arrive_cluster(uint64_t* bar, uint32_t rank) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
		"mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(forge_smem_addr(bar)), "r"(rank) : "memory");
#else
	(void)bar, (void)rank;
#endif
}
FORGE_DEVICE void forge_tma_load_2d_multicast(void* dst, const forge_tmap* map, int32_t c_inner, int32_t c_outer, uint64_t* bar, uint16_t mask) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n"
		::"r"(forge_smem_addr(dst)), "l"(reinterpret_cast<uint64_t>(map)), "r"(c_inner), "r"(c_outer), "r"(forge_smem_addr(bar)), "h"(mask) : "memory");
#else
	(void)dst, (void)map, (void)c_inner, (void)c_outer, (void)bar, (void)mask;
#endif
}
#endif

// FORGE_HAS_WMMA on AMD (a target spec with WMMA or MFMA; its generated
// files define FORGE_TARGET_WMMA or FORGE_TARGET_MFMA): the subset of
// nvcuda::wmma that matmul's and attention's tensor-core paths use
// (m16n16k16, __half operands, float accumulators; fill, load and store of
// row- and column-major tiles, mma_sync) on one wave's 16 × 16 × 16 f16
// instruction, FORGE_WMMA_KIND:
//   1: gfx11's wave32 v_wmma_f32_16x16x16_f16: lane l holds A's row l % 16
//      and B's column l % 16, k 0..15 (both half-waves the same), and the
//      accumulator's rows 2i + l / 16 (i < 8) of column l % 16;
//   2: CDNA's wave64 v_mfma_f32_16x16x16f16: lane l holds A's row l % 16
//      and B's column l % 16 at k 4·(l / 16) .. +3, and the accumulator's
//      rows 4·(l / 16) + i (i < 4) of column l % 16 (attention's tensor-core
//      kernel is written for 32-lane warps and stays off wave64 targets).
// Each lane loads its own values (the tiles are 16-byte aligned with a
// leading dimension of whole 16-byte pieces, as nvcuda::wmma requires of
// its own). __syncwarp orders a wave's shared memory accesses (a wave runs
// in lockstep); __any_sync is __any. The host emulation (gen/hipgen's
// emu.h, FORGE_EMU_AMD_WMMA=kind) runs the part between the shim markers
// with the instruction emulated from these layouts.
#if defined(__HIP__) && (defined(FORGE_TARGET_WMMA) || defined(FORGE_TARGET_MFMA)) && !defined(FORGE_NO_WMMA)
#include <hip/hip_fp16.h>
#define FORGE_HAS_WMMA 1
#if defined(FORGE_TARGET_WMMA)
#define FORGE_WMMA_KIND 1
static_assert(FORGE_TARGET_WAVE_SIZE == 32, "FORGE_TARGET_WMMA: gfx11's WMMA is used in wave32");
#else
#define FORGE_WMMA_KIND 2
static_assert(FORGE_TARGET_WAVE_SIZE == 64, "FORGE_TARGET_MFMA: CDNA's MFMA is used in wave64");
#endif
// The templates' CUDA spellings, as macros (after HIP's headers), so that
// they neither clash with nor depend on the warp-sync functions newer HIP
// versions declare.
FORGE_DEVICE void forge_syncwarp() {
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
	__builtin_amdgcn_wave_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
FORGE_DEVICE int forge_any_sync(int pred) { return __any(pred); }
#undef __syncwarp
#undef __any_sync
#define __syncwarp(...) forge_syncwarp()
#define __any_sync(mask, pred) forge_any_sync(pred)
FORGE_DEVICE uint32_t forge_wmma_lane() { return __lane_id(); }
FORGE_DEVICE uint16_t forge_wmma_bits(__half h) { return __half_as_ushort(h); }
// forge_wmma_f16(c, a, b): c += A·B, a and b this lane's f16 operands
// (bits: 16 each for WMMA, 4 for MFMA) and c its accumulator entries (8, 4),
// as the layouts above.
FORGE_DEVICE void forge_wmma_f16(float* c, const uint16_t* a, const uint16_t* b) {
#if defined(__HIP_DEVICE_COMPILE__)
	constexpr int n = FORGE_WMMA_KIND == 1 ? 16 : 4, m = FORGE_WMMA_KIND == 1 ? 8 : 4;
	typedef _Float16 vh __attribute__((ext_vector_type(n)));
	typedef float vf __attribute__((ext_vector_type(m)));
	vh av, bv;
	vf cv;
#pragma unroll
	for (int k = 0; k < n; ++k) {
		av[k] = __builtin_bit_cast(_Float16, a[k]);
		bv[k] = __builtin_bit_cast(_Float16, b[k]);
	}
#pragma unroll
	for (int i = 0; i < m; ++i) {
		cv[i] = c[i];
	}
#if FORGE_WMMA_KIND == 1
	cv = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(av, bv, cv);
#else
	cv = __builtin_amdgcn_mfma_f32_16x16x16f16(av, bv, cv, 0, 0, 0);
#endif
#pragma unroll
	for (int i = 0; i < m; ++i) {
		c[i] = cv[i];
	}
#else
	(void)c, (void)a, (void)b;
#endif
}
// FORGE_WMMA_SHIM_BEGIN
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };
// forge_ops values of k per lane of an operand, forge_accs entries per lane
// of an accumulator (FORGE_WMMA_KIND's layouts).
constexpr int forge_ops = FORGE_WMMA_KIND == 1 ? 16 : 4;
constexpr int forge_accs = FORGE_WMMA_KIND == 1 ? 8 : 4;
// forge_k0 is this lane's first k of an operand; forge_row(i), the row of
// its accumulator entry i (its column is lane % 16).
FORGE_DEVICE uint32_t forge_k0() { return FORGE_WMMA_KIND == 1 ? 0u : 4 * (forge_wmma_lane() % 64 / 16); }
FORGE_DEVICE uint32_t forge_row(int i) {
	return FORGE_WMMA_KIND == 1 ? 2 * (uint32_t)i + forge_wmma_lane() % 32 / 16 : 4 * (forge_wmma_lane() % 64 / 16) + (uint32_t)i;
}
// An operand fragment: this lane's values of k (f16 bits); an accumulator:
// its entries.
template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
	static_assert(M == 16 && N == 16 && K == 16, "forge's WMMA subset is m16n16k16");
	uint16_t h[forge_ops];
};
template <int M, int N, int K, typename T>
struct fragment<accumulator, M, N, K, T, void> {
	static_assert(M == 16 && N == 16 && K == 16, "forge's WMMA subset is m16n16k16");
	float x[forge_accs];
};
template <int M, int N, int K, typename T>
FORGE_DEVICE void fill_fragment(fragment<accumulator, M, N, K, T>& f, float v) {
#pragma unroll
	for (int i = 0; i < forge_accs; ++i) {
		f.x[i] = v;
	}
}
// forge_load_run copies this lane's forge_ops consecutive halves of a row
// (at its first k) to h.
FORGE_DEVICE void forge_load_run(uint16_t* h, const __half* row) {
	const uint16_t* q = (const uint16_t*)__builtin_assume_aligned(row, 8) + forge_k0();
#pragma unroll
	for (int k = 0; k < forge_ops; ++k) {
		h[k] = q[k];
	}
}
template <int M, int N, int K>
FORGE_DEVICE void load_matrix_sync(fragment<matrix_a, M, N, K, __half, row_major>& f, const __half* p, unsigned ldm) {
	forge_load_run(f.h, p + (forge_wmma_lane() % 16) * ldm); // A's row
}
template <int M, int N, int K>
FORGE_DEVICE void load_matrix_sync(fragment<matrix_b, M, N, K, __half, col_major>& f, const __half* p, unsigned ldm) {
	forge_load_run(f.h, p + (forge_wmma_lane() % 16) * ldm); // B's column, stored as a row
}
template <int M, int N, int K>
FORGE_DEVICE void load_matrix_sync(fragment<matrix_b, M, N, K, __half, row_major>& f, const __half* p, unsigned ldm) {
	const uint32_t n = forge_wmma_lane() % 16, k0 = forge_k0();
#pragma unroll
	for (int k = 0; k < forge_ops; ++k) {
		f.h[k] = forge_wmma_bits(p[(k0 + (uint32_t)k) * ldm + n]);
	}
}
template <int M, int N, int K, typename T>
FORGE_DEVICE void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const float* p, unsigned ldm, layout_t layout) {
	const uint32_t c = forge_wmma_lane() % 16;
#pragma unroll
	for (int i = 0; i < forge_accs; ++i) {
		const uint32_t r = forge_row(i);
		f.x[i] = layout == mem_col_major ? p[c * ldm + r] : p[r * ldm + c];
	}
}
template <int M, int N, int K, typename T>
FORGE_DEVICE void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm, layout_t layout) {
	const uint32_t c = forge_wmma_lane() % 16;
#pragma unroll
	for (int i = 0; i < forge_accs; ++i) {
		const uint32_t r = forge_row(i);
		if (layout == mem_col_major) {
			p[c * ldm + r] = f.x[i];
		} else {
			p[r * ldm + c] = f.x[i];
		}
	}
}
template <int M, int N, int K, typename T, typename La, typename Lb>
FORGE_DEVICE void mma_sync(fragment<accumulator, M, N, K, T>& d, const fragment<matrix_a, M, N, K, __half, La>& a,
	const fragment<matrix_b, M, N, K, __half, Lb>& b, const fragment<accumulator, M, N, K, T>& c) {
	float t[forge_accs];
#pragma unroll
	for (int i = 0; i < forge_accs; ++i) {
		t[i] = c.x[i];
	}
	forge_wmma_f16(t, a.h, b.h);
#pragma unroll
	for (int i = 0; i < forge_accs; ++i) {
		d.x[i] = t[i];
	}
}
} // namespace wmma
} // namespace nvcuda
// FORGE_WMMA_SHIM_END
#endif

// forge_store_stream(p, v) stores v to *p marked as streamed (not re-read
// soon), so a large dequant output does not evict its input from the cache.
// (For the dequant tuning; plain stores are correct everywhere.)
#if defined(FORGE_AMD)
#define forge_store_stream(p, v) __builtin_nontemporal_store((v), (p))
#else
#define forge_store_stream(p, v) __stcs((p), (v))
#endif

// forge_vec16 is a 16-byte vector of four uint32_t, 16-byte aligned: one
// load or store of it is a single 128-bit memory instruction on both vendors
// (global_load_dwordx4 / LDG.E.128), which is what a kernel at the memory
// roofline issues (forge_copy). On AMD a clang vector type rather than HIP's
// uint4, whose operators go through HIP's vector-type templates.
#if defined(FORGE_AMD)
typedef uint32_t forge_vec16 __attribute__((ext_vector_type(4)));
#else
typedef uint4 forge_vec16;
#endif
static_assert(sizeof(forge_vec16) == 16 && alignof(forge_vec16) == 16, "forge_vec16: 16 bytes, 16-byte aligned");

// forge_load_stream16 is the 16 bytes at p (16-byte aligned) of an input the
// kernel reads once and does not write (matvec's weights). On NVIDIA it
// skips L1, whose lines are then x's, and asks L2 to fetch 256 bytes
// (ld.global.nc.L1::no_allocate.L2::256B: F16's matvec at 4096×14336 on the
// H100 took 40.5 µs against 41.3 with a plain load); elsewhere a plain load.
FORGE_DEVICE forge_vec16 forge_load_stream16(const void* p) {
#if defined(__CUDA_ARCH__)
	forge_vec16 v;
	asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
		: "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		: "l"(p));
	return v;
#else
	return *(const forge_vec16*)p;
#endif
}

// forge_atomic_add_f32 adds v to *p atomically (device memory).
FORGE_DEVICE void forge_atomic_add_f32(float* p, float v) {
	(void)atomicAdd(p, v);
}

// FORGE_MMA16_I8 names the matrix instruction of one wave's 16 × 16 × 16
// int8 product (int32 accumulators) in AMD device code, which matmul's
// integer path (the target spec's MatMulInt) uses where it is not 0:
//   1: v_wmma_i32_16x16x16_iu8 (gfx11, RDNA3, wave32): lane l gives A's row
//      l % 16 and B's column l % 16, k 0..15 as four words (byte k % 4 of
//      word k / 4; both half-waves hold the same), and c holds 8 entries:
//      rows 2i + l / 16, column l % 16;
//   2: v_mfma_i32_16x16x16i8 (gfx908, gfx90a: CDNA1-2, wave64): lane l gives
//      A's row l % 16 and B's column l % 16, k 4·(l / 16) .. +3 as one word,
//      and c holds 4 entries: rows 4·(l / 16) + i, column l % 16;
//   0: none (gfx10: RDNA1-2, and any other target; the host): the kernel
//      uses forge_dot4.
// forge_mma16_i8(c, a, b) is c += A·B with both operands signed, called by
// every lane of the wave. Debian's hipcc (clang 15) accepts both builtins
// on their targets (gfx1100 compiled without the device library, which it
// lacks). The host emulation (gen/hipgen's emu.h) implements both from
// these layouts.
#if defined(__HIP_DEVICE_COMPILE__) && defined(__GFX11__)
#define FORGE_MMA16_I8 1
typedef int forge_v4i32 __attribute__((ext_vector_type(4)));
typedef int forge_v8i32 __attribute__((ext_vector_type(8)));
FORGE_DEVICE void forge_mma16_i8(int32_t* c, const uint32_t* a, const uint32_t* b) {
	const forge_v4i32 av = {(int)a[0], (int)a[1], (int)a[2], (int)a[3]};
	const forge_v4i32 bv = {(int)b[0], (int)b[1], (int)b[2], (int)b[3]};
	forge_v8i32 cv = {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]};
	cv = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, av, true, bv, cv, false);
#pragma unroll
	for (int i = 0; i < 8; ++i) {
		c[i] = cv[i];
	}
}
#elif defined(__HIP_DEVICE_COMPILE__) && (defined(__gfx908__) || defined(__gfx90a__))
#define FORGE_MMA16_I8 2
typedef int forge_v4i32 __attribute__((ext_vector_type(4)));
FORGE_DEVICE void forge_mma16_i8(int32_t* c, const uint32_t* a, const uint32_t* b) {
	forge_v4i32 cv = {c[0], c[1], c[2], c[3]};
	cv = __builtin_amdgcn_mfma_i32_16x16x16i8((int)a[0], (int)b[0], cv, 0, 0, 0);
#pragma unroll
	for (int i = 0; i < 4; ++i) {
		c[i] = cv[i];
	}
}
#else
#define FORGE_MMA16_I8 0
#endif

// ---------------------------------------------------------------------------
// Scalar types of the format specs, stored as their bits (Go's formats.Half,
// formats.BFloat16 and formats.E8M0).
typedef uint16_t forge_half;
typedef uint16_t forge_bfloat16;
typedef uint8_t forge_e8m0;

// Bit casts between float and its IEEE 754 encoding: CUDA's intrinsics in
// NVIDIA device code, else a fixed-size memcpy, which clang and GCC lower to
// a register move (and which, unlike a union, is defined C++).
FORGE_HOST_DEVICE float forge_f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
	return __uint_as_float(u);
#else
	float f;
	__builtin_memcpy(&f, &u, sizeof f);
	return f;
#endif
}

FORGE_HOST_DEVICE uint32_t forge_f32_bits(float f) {
#if defined(__CUDA_ARCH__)
	return __float_as_uint(f);
#else
	uint32_t u;
	__builtin_memcpy(&u, &f, sizeof u);
	return u;
#endif
}

// ---------------------------------------------------------------------------
// Scalar intrinsics: the translator maps the specs' scalar conversions onto
// these. Each is integer bit manipulation (plus one exact int→float
// conversion), so it is exact on every target and under any rounding or
// denormal mode, and matches specs/formats/scalar.go bit for bit.

// forge_half_to_f32 is Half.Float32: binary16 to float32, exact. A NaN keeps
// its payload and gains the quiet bit (0x7C01 → 0x7FC02000), as ggml's
// conversion through the FPU does.
FORGE_HOST_DEVICE float forge_half_to_f32(forge_half h) {
#if defined(__CUDA_ARCH__)
	// NVIDIA devices: every finite half (subnormals included) widens exactly
	// in one cvt instruction; inf and NaN are built from the bits, so a NaN's
	// payload is kept exactly as on the host. Straight-line code (a select,
	// no branch) so that the compiler can share one conversion among the
	// elements of a block that read the same scale.
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
	const uint32_t man16 = (uint32_t)h & 0x3ffu;
	const float special = forge_f32_from_bits((uint32_t)(h & 0x8000u) << 16 | 0x7f800000u | (man16 != 0 ? 0x00400000u : 0u) | man16 << 13);
	return (h & 0x7c00u) == 0x7c00u ? special : f;
#endif
	const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	const uint32_t exp = ((uint32_t)h >> 10) & 0x1fu;
	const uint32_t man = (uint32_t)h & 0x3ffu;
	if (exp == 0x1fu) {
		// inf stays inf; a NaN is quieted (a quiet NaN already has the bit).
		return forge_f32_from_bits(sign | 0x7f800000u | (man != 0 ? 0x00400000u : 0u) | man << 13);
	}
	if (exp == 0) {
		// Zero or subnormal: man·2^-24. (float)man is exact (man < 2^10) and
		// normal unless zero; subtracting 24 from its exponent field divides
		// it by 2^24 exactly, and the result (≥ 2^-24) is still normal.
		if (man == 0) {
			return forge_f32_from_bits(sign);
		}
		return forge_f32_from_bits(sign | (forge_f32_bits((float)man) - (24u << 23)));
	}
	return forge_f32_from_bits(sign | (exp + 112u) << 23 | man << 13);
}

// forge_half_to_f32_arith is forge_half_to_f32 for a value that only feeds
// float arithmetic: a Half.Float32 that gen/translate finds used only as an
// operand of + - * / (a block's scale, say), and matvec_f32's widening of a
// format whose Meta.IEEE is binary16.
// On NVIDIA one cvt: the payload forge_half_to_f32 keeps cannot reach a
// result there, since NVIDIA's float arithmetic returns the canonical NaN
// for any NaN operand; the exact widening measured ~10% slower at the
// memory limit (F16 matvec, 4096×14336, H100: 44.1 µs against 40.4).
// Elsewhere, where arithmetic may keep a payload, it is forge_half_to_f32.
FORGE_HOST_DEVICE float forge_half_to_f32_arith(forge_half h) {
#if defined(__CUDA_ARCH__)
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
	return f;
#else
	return forge_half_to_f32(h);
#endif
}

// forge_f32_to_half is formats.HalfFromFloat32 (ggml's GGML_FP32_TO_FP16):
// round to nearest, ties to even; overflow to ±inf; gradual underflow; every
// NaN becomes 0x7E00 with f's sign.
FORGE_HOST_DEVICE uint16_t forge_f32_to_half(float f) {
#if defined(__CUDA_ARCH__)
	// NVIDIA devices: the hardware conversion (cvt.rn: nearest even, gradual
	// underflow, overflow to inf) in one instruction, and ggml's NaN. The f16
	// suites check it bit for bit against the Go spec on the GPU, NaNs and
	// subnormals included. (AMD keeps the portable code below, which is
	// verified against Go on the host.)
	if (f != f) {
		return (uint16_t)(((forge_f32_bits(f) >> 16) & 0x8000u) | 0x7e00u);
	}
	unsigned short h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return (uint16_t)h;
#else
	const uint32_t bits = forge_f32_bits(f);
	const uint16_t sign = (uint16_t)(bits >> 16) & 0x8000u;
	const uint32_t abs = bits & 0x7fffffffu;
	if (abs > 0x7f800000u) { // NaN
		return (uint16_t)(sign | 0x7e00u);
	}
	if (abs >= 0x477ff000u) { // ≥ 65520 rounds to inf
		return (uint16_t)(sign | 0x7c00u);
	}
	if (abs >= 0x38800000u) { // normal in binary16 (≥ 2^-14)
		uint32_t r = abs - 0x38000000u; // rebias the exponent from 127 to 15
		r += 0xfffu + ((r >> 13) & 1u);
		return (uint16_t)(sign | (uint16_t)(r >> 13));
	}
	if (abs < 0x33000000u) { // ≤ 2^-25 (the tie at 2^-25 goes to even, 0)
		return sign;
	}
	// Subnormal: the value in units of 2^-24, rounded to nearest even.
	const uint32_t e = abs >> 23;
	const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
	const uint32_t shift = 126u - e; // in [14, 24]
	uint32_t q = m >> shift;
	const uint32_t rem = m & ((1u << shift) - 1u);
	const uint32_t half = 1u << (shift - 1u);
	if (rem > half || (rem == half && (q & 1u) == 1u)) {
		q++;
	}
	return (uint16_t)(sign | (uint16_t)q);
#endif
}

// forge_f32_finite says that f is neither infinite nor NaN.
FORGE_HOST_DEVICE bool forge_f32_finite(float f) {
	return (forge_f32_bits(f) & 0x7f800000u) != 0x7f800000u;
}

// forge_f32x2_to_half2_nonan is forge_f32_to_half(lo) |
// forge_f32_to_half(hi) << 16 for lo and hi that are not NaN (the caller
// knows). On NVIDIA one instruction converts both (cvt.rn.f16x2.f32:
// nearest even, gradual underflow, overflow to inf, as cvt.rn.f16.f32),
// with no NaN test: a dequant kernel's → f16 output is instruction-bound.
FORGE_HOST_DEVICE uint32_t forge_f32x2_to_half2_nonan(float lo, float hi) {
#if defined(__CUDA_ARCH__)
	uint32_t r;
	asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo)); // d = {a: upper half, b: lower}
	return r;
#else
	return (uint32_t)forge_f32_to_half(lo) | (uint32_t)forge_f32_to_half(hi) << 16;
#endif
}

// forge_f32x2_to_half2 is forge_f32_to_half(lo) | forge_f32_to_half(hi) <<
// 16 for any lo and hi: one test for both and, on NVIDIA, one conversion.
FORGE_HOST_DEVICE uint32_t forge_f32x2_to_half2(float lo, float hi) {
	if (lo != lo || hi != hi) {
		return (uint32_t)forge_f32_to_half(lo) | (uint32_t)forge_f32_to_half(hi) << 16;
	}
	return forge_f32x2_to_half2_nonan(lo, hi);
}

// forge_bf16_to_f32 is BFloat16.Float32: the bits shifted into the high half.
FORGE_HOST_DEVICE float forge_bf16_to_f32(forge_bfloat16 b) {
	return forge_f32_from_bits((uint32_t)b << 16);
}

// forge_e8m0_to_f32 is E8M0.Float32: 2^(e-127); e = 255 is NaN (0x7FC00000,
// the float32 NaN Go's float32(math.NaN()) gives); e = 0 is the float32
// subnormal 2^-127.
FORGE_HOST_DEVICE float forge_e8m0_to_f32(forge_e8m0 e) {
	if (e == 255) {
		return forge_f32_from_bits(0x7fc00000u);
	}
	if (e == 0) {
		return forge_f32_from_bits(0x00400000u); // 2^-127
	}
	return forge_f32_from_bits((uint32_t)e << 23);
}

// forge_e8m0_half_scale is E8M0.HalfScale (ggml's ggml_e8m0_to_fp32_half):
// 2^(e-128), with e = 255 read as 2^127 rather than NaN; e = 0 and 1 give the
// subnormals 2^-128 and 2^-127.
FORGE_HOST_DEVICE float forge_e8m0_half_scale(forge_e8m0 e) {
	if (e < 2) {
		return forge_f32_from_bits(0x00200000u << e); // 2^-128, 2^-127
	}
	return forge_f32_from_bits((uint32_t)(e - 1) << 23);
}

// ---------------------------------------------------------------------------
// Integer-form intrinsics: what the specs' Codes methods (Word32, Word16)
// and the integer kernels (Dot4) compile to. Host code (the emulation and
// the translator's tests) takes plain C; gen/translate's tests splice this
// section into their stand-in header and check it against the Go spec.

// forge_word32_aN(p) and forge_word16_aN(p) are the little-endian word at p
// (formats.Word32, formats.Word16), for p aligned to N bytes: one load for
// N = the word's size, 16-bit or byte loads otherwise. The translator picks
// N from the block's assumed alignment (ir.IntForm.Align: the largest power
// of two dividing the block size, at most 4), the field's offset and the
// index; a misaligned p faults on NVIDIA, so launchers check the weights'
// base pointer. (Every GPU forge targets, and its host, is little-endian.)
FORGE_HOST_DEVICE uint16_t forge_word16_a2(const void* p) {
#if defined(__CUDA_ARCH__)
	return *(const uint16_t*)p;
#else
	uint16_t u;
	__builtin_memcpy(&u, __builtin_assume_aligned(p, 2), 2);
	return u;
#endif
}

FORGE_HOST_DEVICE uint16_t forge_word16_a1(const void* p) {
	const uint8_t* b = (const uint8_t*)p;
	return (uint16_t)(b[0] | b[1] << 8);
}

FORGE_HOST_DEVICE uint32_t forge_word32_a4(const void* p) {
#if defined(__CUDA_ARCH__)
	return *(const uint32_t*)p;
#else
	uint32_t u;
	__builtin_memcpy(&u, __builtin_assume_aligned(p, 4), 4);
	return u;
#endif
}

FORGE_HOST_DEVICE uint32_t forge_word32_a2(const void* p) {
	const uint8_t* b = (const uint8_t*)p;
	return (uint32_t)forge_word16_a2(b) | (uint32_t)forge_word16_a2(b + 2) << 16;
}

FORGE_HOST_DEVICE uint32_t forge_word32_a1(const void* p) {
	const uint8_t* b = (const uint8_t*)p;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

// forge_dot4(a, b, c) is formats.Dot4: c plus the dot product of a and b
// read as four signed bytes each, wrapping in int32. One instruction where
// the target has one: __dp4a on NVIDIA (sm_61 and later); on AMD
// v_dot4_i32_i8 (__builtin_amdgcn_sdot4: gfx906, gfx908, gfx90a, gfx1011,
// gfx1012, gfx103x) or, on gfx11, which dropped it, v_dot4_i32_iu8 with both
// operands signed (__builtin_amdgcn_sudot4); Debian's hipcc (clang 15)
// accepts each only on those targets (sdot4 crashes it on gfx1100). Plain C
// elsewhere, and on the host.
FORGE_HOST_DEVICE int32_t forge_dot4(uint32_t a, uint32_t b, int32_t c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 610
	return __dp4a((int)a, (int)b, c);
#elif defined(__HIP_DEVICE_COMPILE__) && (defined(__gfx906__) || defined(__gfx908__) || defined(__gfx90a__) || \
	defined(__gfx1011__) || defined(__gfx1012__) || defined(__gfx1030__) || defined(__gfx1031__) ||            \
	defined(__gfx1032__) || defined(__gfx1033__) || defined(__gfx1034__) || defined(__gfx1035__) ||            \
	defined(__gfx1036__))
	return __builtin_amdgcn_sdot4((int)a, (int)b, c, false);
#elif defined(__HIP_DEVICE_COMPILE__) && defined(__GFX11__)
	return __builtin_amdgcn_sudot4(true, (int)a, true, (int)b, c, false);
#else
	// In uint32, where the products and sums wrap as the instructions do.
	uint32_t sum = (uint32_t)c;
	for (int k = 0; k < 32; k += 8) {
		sum += (uint32_t)((int32_t)(int8_t)(uint8_t)(a >> k) * (int32_t)(int8_t)(uint8_t)(b >> k));
	}
	return (int32_t)sum;
#endif
}

// forge_lut16(t0, t1, t2, t3, q) is formats.Lut16: byte k of the result is
// entry (q >> 8k) & 15 of a 16-byte table (the high nibble of each byte of
// q is ignored), the table held in four words, t0 = entries 0..3 with
// entry 0 in the low byte, ..., t3 = entries 12..15. The translator passes
// the table as constants, so a lookup reads no memory: a table in memory
// costs four dependent byte loads per word of codes, where the byte-permute
// instructions select from registers. Each instruction picks 4 bytes out
// of 8 (two words) by a 3-bit index per byte, so entries 0..7 and 8..15
// are looked up separately by the code's low 3 bits, and a third permute
// takes each byte from one result or the other by the code's bit 3.
//   NVIDIA: __byte_perm(x, y, s) (prmt): byte k is byte (s >> 4k) & 7 of
//     y:x (x the low word); the codes are gathered into nibbles first.
//   AMD: v_perm_b32 (__builtin_amdgcn_perm(s0, s1, sel), gfx8 and later,
//     which every AMD target has): byte k is byte (sel >> 8k) & 0xff of
//     s0:s1 (s1 the low word) for selectors 0..7 (8..15 select sign bits
//     and constants; none is used), so the masked codes serve as selectors
//     where they lie.
// Plain C elsewhere, and on the host. (hip_test.go checks both device
// forms on the host against the Go spec, with each instruction emulated as
// its vendor documents it.)
FORGE_HOST_DEVICE uint32_t forge_lut16(uint32_t t0, uint32_t t1, uint32_t t2, uint32_t t3, uint32_t q) {
#if defined(__CUDA_ARCH__)
	const uint32_t m = q & 0x0f0f0f0fu;
	const uint32_t t = m | (m >> 4);                      // codes 0,1 in byte 0; 2,3 in byte 2
	const uint32_t sel = (t & 0xffu) | ((t >> 8) & 0xff00u); // nibble k is code k
	const uint32_t lo = __byte_perm(t0, t1, sel & 0x7777u);  // entries 0..7
	const uint32_t hi = __byte_perm(t2, t3, sel & 0x7777u);  // entries 8..15
	return __byte_perm(lo, hi, 0x3210u | ((sel & 0x8888u) >> 1));
#elif defined(__HIP_DEVICE_COMPILE__)
	const uint32_t m = q & 0x0f0f0f0fu; // byte k is code k
	const uint32_t lo = __builtin_amdgcn_perm(t1, t0, m & 0x07070707u);
	const uint32_t hi = __builtin_amdgcn_perm(t3, t2, m & 0x07070707u);
	return __builtin_amdgcn_perm(hi, lo, 0x03020100u | ((m & 0x08080808u) >> 1));
#else
	const uint32_t w[4] = {t0, t1, t2, t3};
	uint32_t r = 0;
	for (int k = 0; k < 32; k += 8) {
		const uint32_t c = (q >> k) & 15u;
		r |= ((w[c >> 2] >> (8u * (c & 3u))) & 0xffu) << k;
	}
	return r;
#endif
}

// ---------------------------------------------------------------------------
// f16 fragments: an integer form's codes as f16 values, for matmul's
// f16-fragment path (the _mmh kernels, NVIDIA).

// forge_codes_h2z(c, s2, o2, lo, hi, zero) turns four int8 codes (c's bytes,
// the lowest first: a word of an integer form's Codes) into f16 values
// s·(code − zero) + o, rounded once (zero ≤ 127, a format's IntZero): *lo holds codes 0 and 1 (code 0 in the low
// half), *hi codes 2 and 3; s2 and o2 are f16 pairs with both halves the
// scale and the offset (forge_h2_splat_fast). On NVIDIA six instructions for
// the four: each byte, biased by 128, becomes the f16 1024 + byte by a byte
// permute under the exponent byte 0x64; subtracting 1152 + zero is exact
// (every code in [-128, 127]) and one f16 fma applies the scale and offset (the
// matmul's f16-fragment path, the _mmh kernels). Elsewhere (the host
// emulation) the same value through double: the product is exact and the
// sum rounded to double, then to float, then to f16, which can differ
// from one rounding only for terms more than 2^29 apart.
FORGE_HOST_DEVICE void forge_codes_h2z(uint32_t c, uint32_t s2, uint32_t o2, uint32_t* lo, uint32_t* hi, uint32_t zero) {
#if defined(__CUDA_ARCH__)
	const uint32_t u = c ^ 0x80808080u, bias = (0x6480u + zero) * 0x10001u; // 1152 + zero, exact in f16
	uint32_t l = __byte_perm(u, 0x64646464u, 0x5140u), h = __byte_perm(u, 0x64646464u, 0x5342u);
	asm("sub.f16x2 %0, %0, %1;" : "+r"(l) : "r"(bias));
	asm("sub.f16x2 %0, %0, %1;" : "+r"(h) : "r"(bias));
	asm("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(l) : "r"(s2), "r"(o2));
	asm("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(h) : "r"(s2), "r"(o2));
	*lo = l, *hi = h;
#else
	const double s = (double)forge_half_to_f32((forge_half)(s2 & 0xffffu)), o = (double)forge_half_to_f32((forge_half)(o2 & 0xffffu));
	uint32_t r[2];
	for (int p = 0; p < 2; ++p) {
		const double v0 = (double)(int8_t)(uint8_t)(c >> (16 * p)) - zero, v1 = (double)(int8_t)(uint8_t)(c >> (16 * p + 8)) - zero;
		r[p] = (uint32_t)forge_f32_to_half((float)(v0 * s + o)) | (uint32_t)forge_f32_to_half((float)(v1 * s + o)) << 16;
	}
	*lo = r[0], *hi = r[1];
#endif
}

// forge_h2_splat_fast is the f16 pair with both halves f rounded to f16
// (nearest even); on NVIDIA one cvt, whose NaN is the canonical one (the
// value only feeds products).
FORGE_HOST_DEVICE uint32_t forge_h2_splat_fast(float f) {
#if defined(__CUDA_ARCH__)
	uint32_t h2;
	asm("{\n\t.reg .b16 h;\n\tcvt.rn.f16.f32 h, %1;\n\tmov.b32 %0, {h, h};\n\t}" : "=r"(h2) : "f"(f));
	return h2;
#else
	const uint32_t h = forge_f32_to_half(f);
	return h | h << 16;
#endif
}

// ---------------------------------------------------------------------------
// The host runtime API (host code only: forge_runtime.hip).
// FORGE_API(Name) is hipName on AMD and cudaName on NVIDIA. The two runtimes
// spell the calls and constants forge uses alike and give them the same
// signatures and meanings: Malloc, Free, Memcpy (with MemcpyHostToDevice,
// MemcpyDeviceToHost), Memset, MemGetInfo, GetDeviceCount, SetDevice,
// GetDevice, DeviceSynchronize, StreamCreate, StreamDestroy,
// StreamSynchronize, EventCreate, EventDestroy, EventRecord,
// EventSynchronize, EventElapsedTime, RuntimeGetVersion, DriverGetVersion,
// GetErrorString, GetLastError, DeviceGetAttribute, GetDeviceProperties,
// StreamBeginCapture, StreamEndCapture, GraphGetNodes, GraphNodeGetType,
// GraphInstantiateWithFlags, GraphDestroy, GraphLaunch, GraphExecDestroy,
// the constants Success, ErrorInvalidDevice, StreamCaptureModeThreadLocal
// and GraphNodeTypeKernel, and the types Error_t, Stream_t, Event_t,
// Graph_t, GraphNode_t, GraphNodeType, GraphExec_t and MemcpyKind. Only calls
// that exist in CUDA 12 and 13 are used (CUDA 13 removed fields of
// cudaDeviceProp, clockRate among them: read attributes instead).
// Where the names differ they are spelled out below.
#if defined(FORGE_AMD)
#define FORGE_API(name) hip##name
typedef hipDeviceProp_t forge_device_prop_t;
typedef hipDeviceAttribute_t forge_device_attr_t;
#define FORGE_ATTR_WARP_SIZE hipDeviceAttributeWarpSize
#define FORGE_ATTR_COMPUTE_UNITS hipDeviceAttributeMultiprocessorCount
#define FORGE_ATTR_CLOCK_KHZ hipDeviceAttributeClockRate
#define FORGE_ATTR_MEM_CLOCK_KHZ hipDeviceAttributeMemoryClockRate
#define FORGE_ATTR_MEM_BUS_WIDTH hipDeviceAttributeMemoryBusWidth
#define FORGE_ATTR_L2_BYTES hipDeviceAttributeL2CacheSize
#else
#define FORGE_API(name) cuda##name
typedef cudaDeviceProp forge_device_prop_t;
typedef cudaDeviceAttr forge_device_attr_t;
#define FORGE_ATTR_WARP_SIZE cudaDevAttrWarpSize
#define FORGE_ATTR_COMPUTE_UNITS cudaDevAttrMultiProcessorCount
#define FORGE_ATTR_CLOCK_KHZ cudaDevAttrClockRate
#define FORGE_ATTR_MEM_CLOCK_KHZ cudaDevAttrMemoryClockRate
#define FORGE_ATTR_MEM_BUS_WIDTH cudaDevAttrGlobalMemoryBusWidth
#define FORGE_ATTR_L2_BYTES cudaDevAttrL2CacheSize
#endif
// FORGE_VENDOR is the vendor the file is compiled for, as the target specs
// name it.
#if defined(FORGE_AMD)
#define FORGE_VENDOR "amd"
#else
#define FORGE_VENDOR "nvidia"
#endif

// ---------------------------------------------------------------------------
// The library runtime ABI: besides its launchers and forge_abi_version, every
// kernel library exports these (defined once per library, in the generated
// <target>/forge_runtime.hip). The Go runtime (dlopen) declares the same
// functions and struct; the declarations here make the compiler hold the
// definitions to them (an extern "C" function defined with another
// signature is an error).
//
// Results: FORGE_OK, FORGE_ERR_INVALID for an argument refused before the
// runtime is called (a null out-pointer, a negative device), else the
// runtime's own error code (hipError_t / cudaError_t as int), which
// forge_rt_error_string describes. Calls are synchronous unless marked
// async. Pointers named dst/src/p are device pointers except where the name
// says host; streams and events are the runtime's handles as void* (NULL is
// the default stream).
//
// forge_device_info's layout is fixed (416 bytes, offsets asserted below):
// the Go side reads it by offset. Strings are NUL-terminated, truncated to
// fit; a field the runtime cannot report is 0.
typedef struct forge_device_info {
	char name[256];             // the runtime's device name: "NVIDIA H100 80GB HBM3", "AMD Radeon RX 7900 XTX"
	char arch[64];              // "sm_90", "gfx1100" (AMD feature suffixes such as ":xnack-" dropped)
	char vendor[16];            // "amd" or "nvidia": how the library was compiled
	char target[32];            // the forge target the library was built for (FORGE_TARGET)
	int32_t wave_size;          // wavefront / warp width
	int32_t compute_units;      // CUs (AMD) / SMs (NVIDIA)
	int32_t clock_khz;          // peak core clock
	int32_t mem_clock_khz;      // peak memory clock
	int32_t mem_bus_width_bits; // global memory bus width
	int32_t runtime_version;    // hipRuntimeGetVersion / cudaRuntimeGetVersion
	int32_t driver_version;     // hipDriverGetVersion / cudaDriverGetVersion
	int32_t pad;                // 0
	uint64_t total_mem;         // bytes of device memory
	uint64_t l2_bytes;          // bytes of L2 cache
} forge_device_info;

static_assert(sizeof(forge_device_info) == 416, "forge_device_info: 416 bytes");
static_assert(offsetof(forge_device_info, name) == 0 && offsetof(forge_device_info, arch) == 256 &&
	offsetof(forge_device_info, vendor) == 320 && offsetof(forge_device_info, target) == 336,
	"forge_device_info: string offsets");
static_assert(offsetof(forge_device_info, wave_size) == 368 && offsetof(forge_device_info, compute_units) == 372 &&
	offsetof(forge_device_info, clock_khz) == 376 && offsetof(forge_device_info, mem_clock_khz) == 380 &&
	offsetof(forge_device_info, mem_bus_width_bits) == 384 && offsetof(forge_device_info, runtime_version) == 388 &&
	offsetof(forge_device_info, driver_version) == 392 && offsetof(forge_device_info, pad) == 396,
	"forge_device_info: int32 offsets");
static_assert(offsetof(forge_device_info, total_mem) == 400 && offsetof(forge_device_info, l2_bytes) == 408,
	"forge_device_info: uint64 offsets");

FORGE_EXPORT int forge_rt_init(int device);                     // select the device (for every later call); call first
FORGE_EXPORT const char* forge_rt_error_string(int code);       // a code's description; never NULL
FORGE_EXPORT int forge_rt_device_info(forge_device_info* out);  // the current device
FORGE_EXPORT int forge_rt_mem_info(uint64_t* free_bytes, uint64_t* total_bytes);
FORGE_EXPORT int forge_rt_malloc(uint64_t bytes, void** out);   // *out = NULL on failure and for 0 bytes
FORGE_EXPORT int forge_rt_free(void* p);                        // NULL: nothing to do
FORGE_EXPORT int forge_rt_memcpy_h2d(void* dst, const void* host_src, uint64_t bytes);
FORGE_EXPORT int forge_rt_memcpy_d2h(void* host_dst, const void* src, uint64_t bytes);
FORGE_EXPORT int forge_rt_memset(void* p, int value, uint64_t bytes);
FORGE_EXPORT int forge_rt_synchronize(void);                    // waits for all work on the device
FORGE_EXPORT int forge_rt_stream_create(void** out);
FORGE_EXPORT int forge_rt_stream_destroy(void* stream);         // NULL: nothing to do
FORGE_EXPORT int forge_rt_event_create(void** out);
FORGE_EXPORT int forge_rt_event_destroy(void* event);           // NULL: nothing to do
FORGE_EXPORT int forge_rt_event_record(void* event, void* stream); // async
FORGE_EXPORT int forge_rt_event_elapsed_ms(void* start, void* end, float* ms); // waits for end
// Graphs: the launches a stream receives between forge_rt_graph_begin and
// forge_rt_graph_end are recorded, not run, into an executable graph that
// forge_rt_graph_launch replays as one submission (CUDA and HIP graphs),
// reading and writing the same buffers with the same arguments each time.
// The stream must be one of forge_rt_stream_create's: the default stream
// cannot be captured (FORGE_ERR_INVALID). The capture is the calling
// thread's (thread-local mode): that thread must not make synchronous calls
// (copies, memset, malloc, synchronize) until it ends. forge_rt_graph_end
// always ends the capture; on failure *out is NULL and nothing is kept.
// *kernels (unless NULL) is the graph's kernel nodes: the launches recorded.
FORGE_EXPORT int forge_rt_graph_begin(void* stream);
FORGE_EXPORT int forge_rt_graph_end(void* stream, void** out, uint64_t* kernels);
FORGE_EXPORT int forge_rt_graph_launch(void* graph, void* stream); // async
FORGE_EXPORT int forge_rt_graph_destroy(void* graph);              // NULL: nothing to do
// forge_copy: the device-to-device copy kernel (not the runtime's memcpy),
// the memory roofline runs are compared with. bytes from src to dst (device
// memory, not overlapping); any alignment. async, on stream; returns the
// launch error.
FORGE_EXPORT int forge_copy(const void* src, void* dst, uint64_t bytes, void* stream);

#endif // FORGE_PORTABILITY_H
