// Package targets holds forge's target-architecture specs: each GPU
// architecture forge generates kernels for, its wave size and the tuning
// values the kernel templates take. Like the format specs, these are plain
// Go values; gen/load decodes them from source into these types (their
// fields must be constants) and reports Target.Problems at the fields'
// lines; a program holding a Target can call the same checks.
package targets

import "strings"

// Target is one architecture.
type Target struct {
	Name         string   // the compiler's name for it: "gfx1100", "sm_90"
	Vendor       string   // "amd" (compiled with hipcc) or "nvidia" (nvcc, through the portability header)
	WaveSize     int      // threads per wavefront (AMD) or warp (NVIDIA): 32 or 64
	Default      bool     // the target forge uses when none is named; exactly one
	CompileFlags []string // extra compiler flags for this target
	// WMMA (AMD only): the target's wave32 WMMA instructions (RDNA3, gfx11)
	// serve matmul's and attention's f16 tensor-core paths, through the
	// subset of nvcuda::wmma that forge_portability.h implements on them
	// (the generated files define FORGE_TARGET_WMMA). NVIDIA targets have
	// the paths through CUDA's own nvcuda::wmma and leave it false.
	WMMA bool
	// MFMA (AMD only): the target's wave64 MFMA instructions (CDNA1-2:
	// gfx908, gfx90a) serve matmul's and attention's f16 tensor-core paths
	// through the same subset (FORGE_TARGET_MFMA).
	MFMA bool
	// WGMMA (NVIDIA Hopper only): the warpgroup matrix products of sm_90a
	// serve F16's matmul at every batch, and through it the quantized
	// formats' route through f16 (the generated F16 matmul file defines
	// FORGE_MM_WGMMA unless the build defines FORGE_NO_MM_WGMMA). They exist
	// only in sm_90a's arch-specific instruction set, so CompileFlags must
	// name it (-arch=sm_90a): built for plain sm_90 with them, the first
	// product traps. (An #error on a device pass without
	// __CUDA_ARCH_FEAT_SM90_ALL also fired under -arch=sm_90a with CUDA
	// 13, whose nvcc has such a pass, so the check is the spec's.)
	WGMMA   bool
	Doc     string
	Dequant DequantTuning
	MatVec  MatVecTuning
	MatMul  MatMulTuning
	// MatMulBatches are matmul's configurations for small batches, where
	// MatMul's tiles would leave most of the GPU idle (a batch that fills
	// one tile column gets rows/TileRows workgroups): in increasing
	// MaxBatch, the first whose MaxBatch is at least the batch serves it,
	// and MatMul serves the batches above the last. None: MatMul serves
	// every batch.
	MatMulBatches []MatMulBatch
	// MatMulInt are the configurations of matmul's integer path (none: the
	// path is off), which a format with the integer form takes: X
	// quantized to 8 bits per 32 elements (the X8 layout) into a scratch
	// buffer, W decoded to int8 codes in shared memory (on NVIDIA from raw
	// blocks staged there by cp.async), int8 products scaled per sub-block
	// in float32. The products are IntProduct's: mma.sync on NVIDIA, the
	// matrix cores on AMD where the target has them (WMMA, MFMA), else
	// 4-way dot products. In increasing MaxBatch, the first
	// whose MaxBatch is at least the batch serves it; the last may have
	// MaxBatch 0, serving every batch above the class before. A batch no
	// class serves takes the f16 path (MatMul, MatMulBatches).
	MatMulInt []MatMulIntBatch
	// MatMulIntF16 (NVIDIA) is the largest batch that the integer path
	// serves with W's integer form decoded to f16 in the product's
	// fragments (mma.sync f16, X converted to f16, no scaling per
	// sub-block: the generated files' _mmh kernel) instead of int8
	// products (0: never), for every format with the integer form whose
	// class there does not keep them (MatMulIntTuning.Int8: a knob, so
	// that forgebench tune chooses it per format and class).
	// -DFORGE_MM_INT_F16=0 turns the fragments off in a file.
	MatMulIntF16 int
	// MatMulF16MinBatch (NVIDIA; 0: off) is the smallest batch at which a
	// quantized format's matmul dequantizes W once into an f16 copy
	// (forge_dequant_f16_<format>, into scratch) and multiplies it with
	// F16's matmul (mma.sync, f16 in, f32 accumulate) instead of the
	// integer path: past it the product is bound by the tensor cores,
	// where f16 products need no per-sub-block scaling.
	MatMulF16MinBatch int
	// MatMulHalf (NVIDIA) are the classes of matmul's mma.sync f16 path,
	// which F16 takes (its blocks are plain binary16: W arrives by cp.async
	// as it is) and with it the quantized formats' route through f16
	// (MatMulF16MinBatch): X converted to f16 into scratch, W and X staged
	// through a multi-stage cp.async pipeline, mma.sync m16n8k16 with f32
	// accumulation. As MatMulInt's: in increasing MaxBatch, the last may
	// have MaxBatch 0; OffsetWarpRows unused. A batch no class serves, or a
	// launch the path cannot take, takes the f16 path (MatMul,
	// MatMulBatches).
	MatMulHalf []MatMulIntBatch
	Attention  AttentionTuning
	// MatMulIntSpace is the integer matmul path's tuning space (forgebench
	// tune --family matmul_int; empty: not tuned on this target).
	MatMulIntSpace MatMulIntSpace
	// MatMulHalfSpace is the mma.sync f16 path's tuning space (forgebench
	// tune --family matmul_half; empty: not tuned on this target).
	MatMulHalfSpace MatMulIntSpace
	// MatVecSpace is the matvec family's tuning space: forgebench tune
	// times every combination (the cartesian product) and the winners it
	// writes to specs/tuned/<Name>.json override MatVec per format and
	// shape class. Each value must be valid as MatVec's field is.
	MatVecSpace MatVecSpace
}

// DequantTuning is the dequant kernel family's tuning.
type DequantTuning struct {
	ThreadsPerBlock  int // threads per workgroup: a multiple of WaveSize, at most 1024
	VectorsPerThread int // 16-byte output vectors each thread writes per grid-stride step
}

// MatVecTuning is the matvec kernel family's tuning.
type MatVecTuning struct {
	ThreadsPerBlock int // threads per workgroup: a multiple of WaveSize, at most 1024
	RowsPerBlock    int // rows of W per workgroup, in [1, 16]: every thread works on all of them, reusing its x
	Chunk           int // consecutive elements a thread takes per step: a power of two in [4, 64], clamped to a block
}

// MatMulTuning is the matmul kernel family's tuning: a workgroup computes a
// TileRows × TileCols tile of Y (rows of W × batch columns), stepping through
// K TileK elements at a time. Each value can be overridden when a generated
// file is compiled (-DFORGE_TUNE_MATMUL_<KNOB>=v: THREADS, TM, TN, TK, RM,
// WARP_ROWS, SPLIT_K), which is how an autotuner compiles candidates.
type MatMulTuning struct {
	ThreadsPerBlock int // THREADS: a multiple of WaveSize, at most 1024
	TileRows        int // TM: rows of W (and of Y) per workgroup tile
	TileCols        int // TN: batch columns of X (and of Y) per workgroup tile
	TileK           int // TK: elements of K staged per step, in [1, 256]
	// ThreadRows (RM): the generic path's register tile is ThreadRows rows ×
	// TileCols/(ThreadsPerBlock/(TileRows/ThreadRows)) columns per thread.
	ThreadRows int
	// WarpRows (WARP_ROWS): the tensor-core path (NVIDIA only) lays its
	// warps out WarpRows × (warps/WarpRows) over the tile; 0 on targets
	// without that path.
	WarpRows int
	// SplitK (SPLIT_K): the tensor-core path splits each tile's K steps
	// over SplitK workgroups, which add their partial sums into Y (zeroed
	// first) atomically, so that a grid of few tiles fills the GPU; the
	// order of those additions varies from run to run. 0 or 1: no split.
	SplitK int
}

// MatMulBatch is a matmul configuration for batches of at most MaxBatch
// columns. Its knobs can be overridden as MatMul's, with the class in the
// name: -DFORGE_TUNE_MATMUL_UPTO<MaxBatch>_<KNOB>=v.
type MatMulBatch struct {
	MaxBatch int
	Tuning   MatMulTuning
}

// MatMulIntBatch is a configuration of matmul's integer tensor-core path
// for batches of at most MaxBatch columns (0: any batch). Its knobs can be
// overridden when a generated file is compiled:
// -DFORGE_TUNE_MATMUL_INT_UPTO<MaxBatch>_<KNOB>=v (FORGE_TUNE_MATMUL_INT_<KNOB>
// for MaxBatch 0), KNOB one of THREADS, TM, TN, TK, WARP_ROWS, SPLIT_K.
type MatMulIntBatch struct {
	MaxBatch int
	Tuning   MatMulIntTuning
}

// MatMulIntTuning is the integer path's tuning: a workgroup computes a
// TileRows × TileCols tile of Y, TileK elements of K per step, its warps
// (wavefronts on AMD: ThreadsPerBlock / WaveSize of them) laid out
// WarpRows × (warps/WarpRows), each warp's share a whole number of 16-row
// by 16-column pieces.
type MatMulIntTuning struct {
	ThreadsPerBlock int // THREADS: a multiple of WaveSize, at most 1024
	TileRows        int // TM: a multiple of 16·WarpRows
	TileCols        int // TN: a multiple of 16·(warps/WarpRows)
	// TileK (TK): elements of K per step, a multiple of 32 in [32, 256]
	// (NVIDIA: 512, the launcher halving a step past the shared memory);
	// a format whose blocks are longer steps one block at a time.
	TileK    int
	WarpRows int // WARP_ROWS: divides the warps
	// OffsetWarpRows is WarpRows for the formats whose integer form leaves
	// an offset term (Q4_1, Q5_1, Q2_K, Q4_K, Q5_K, …: forgegen explain
	// says which), the same WARP_ROWS knob in their files; 0: WarpRows.
	// Those formats hold X's sums beside its scales, which a warp
	// spanning many columns pays for in registers.
	OffsetWarpRows int
	// SplitK (SPLIT_K): as MatMulTuning's; 0 or 1: no split.
	SplitK int
	// Int8 (INT8; NVIDIA, the integer path only): 1 keeps the int8
	// products at the class's batches where the target's MatMulIntF16
	// would decode W's codes to f16 in the fragments instead; 0 takes the
	// fragments there. Past MatMulIntF16 (and on a target without it)
	// the products are int8 either way.
	Int8 int
}

// AttentionTuning is the flash-attention family's tuning (see
// specs/families.Attention). Each value can be overridden when a generated
// file is compiled (-DFORGE_TUNE_ATTENTION_<KNOB>=v: THREADS, ROWS, KEYS,
// WMMA_WARPS, WMMA_KEYS).
//
// The generic path (every target; f32 everywhere and f16 on AMD): a
// workgroup of ThreadsPerBlock threads owns QueryRows query rows of one
// (batch, head), ThreadsPerBlock/QueryRows threads per row (a power of two,
// at most the wave size), and steps through the keys KeysPerTile at a
// time, staged in shared memory as float32: Q, K and V tiles and the
// probabilities take 4·(QueryRows·(D+1) + KeysPerTile·(2D+1) +
// QueryRows·(KeysPerTile+1)) bytes for the largest head dimension D, at most
// 48 KiB.
//
// The tensor-core path (NVIDIA, f16): WmmaWarps warps, each owning 16 query
// rows (so a workgroup owns 16·WmmaWarps rows), share K/V tiles of
// WmmaKeysPerTile keys (a multiple of 16); 0 on targets without the path.
type AttentionTuning struct {
	ThreadsPerBlock int // THREADS: a multiple of WaveSize, at most 1024
	QueryRows       int // ROWS: query rows per workgroup; ThreadsPerBlock/QueryRows a power of two ≤ WaveSize
	KeysPerTile     int // KEYS: keys per K/V tile, a multiple of ThreadsPerBlock/QueryRows
	WmmaWarps       int // WMMA_WARPS: warps per workgroup of the tensor-core path, in [1, 16]
	WmmaKeysPerTile int // WMMA_KEYS: keys per tile of the tensor-core path, a multiple of 16
	// The mma.sync tensor-core path (NVIDIA sm_80+, f16; the one the
	// launchers use, the wmma path being the fallback under
	// -DFORGE_NO_MMA_SYNC): MmaWarps warps of 16 query rows share K/V tiles
	// of MmaKeysPerTile keys (a multiple of 16; both tiles within 48 KiB of
	// shared memory at every head dimension); 0 on other targets.
	MmaWarps       int // MMA_WARPS: warps per workgroup, in [1, 16]
	MmaKeysPerTile int // MMA_KEYS: keys per tile
	// The split-KV decode path (every target; seq_q ≤ 8): DecodeThreads
	// threads take DecodeRows query rows of one key/value head over a split
	// of the keys, each group of lanes DecodeKeys keys per step; the keys
	// are split so that about DecodeWorkgroups workgroups run, each split
	// at least DecodeSplitKeys keys.
	DecodeThreads    int // DECODE_THREADS: a multiple of WaveSize, at most 1024
	DecodeRows       int // DECODE_ROWS: query rows per workgroup, in [1, 16]
	DecodeKeys       int // DECODE_KEYS: keys per lane group per step, in [1, 8]
	DecodeSplitKeys  int // DECODE_SPLIT: the fewest keys of a split, at least 1
	DecodeWorkgroups int // DECODE_WORKGROUPS: the workgroups a launch aims at, at least 1
}

// MatVecSpace lists the candidate values of each MatVecTuning knob.
type MatVecSpace struct {
	ThreadsPerBlock []int
	RowsPerBlock    []int
	Chunk           []int
}

var all []*Target

func register(t Target) *Target {
	p := &t
	all = append(all, p)
	return p
}

// All returns every target spec, in declaration order.
func All() []*Target { return append([]*Target(nil), all...) }

// ByName finds a target by name.
func ByName(name string) (*Target, bool) {
	for _, t := range all {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// TensorCores reports whether t has matmul's and attention's f16
// tensor-core paths (nvcuda::wmma): every NVIDIA target, and AMD targets
// with WMMA or MFMA.
func (t *Target) TensorCores() bool { return t.Vendor == "nvidia" || t.WMMA || t.MFMA }

// IntProduct names the instruction of matmul's integer path's int8
// products on t (the path runs where t has MatMulInt classes): mma.sync on
// NVIDIA; on AMD WMMA on RDNA3 (gfx11), MFMA on CDNA1-2 (gfx908, gfx90a),
// else 4-way dot products (forge_dot4), as forge_portability.h's
// FORGE_MMA16_I8 chooses.
func (t *Target) IntProduct() string {
	switch {
	case t.Vendor == "nvidia":
		return "mma.sync"
	case strings.HasPrefix(t.Name, "gfx11"):
		return "WMMA"
	case t.Name == "gfx908" || t.Name == "gfx90a":
		return "MFMA"
	default:
		return "dot4"
	}
}
