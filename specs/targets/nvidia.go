package targets

// SM90 is NVIDIA Hopper (H100), reached through forge's portability header
// and nvcc.
var SM90 = register(Target{
	Name:         "sm_90",
	Vendor:       "nvidia",
	WaveSize:     32,
	CompileFlags: []string{"-arch=sm_90"},
	Doc:          "NVIDIA Hopper (H100), warp 32, via the portability header",
	Dequant:      DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 2},
	MatVec:       MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 4, Chunk: 8},
	// The wmma path: 8 warps as 2 × 4, each 32 rows × 32 columns (2 × 2 fragments).
	// On the H100 this beat 128 × 128 tiles (4 × 2 warps) by 1.35× at
	// 4096×14336×512 (128 workgroups for 132 SMs; see docs/PERFORMANCE.md).
	MatMul: MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 128, TileK: 32, ThreadRows: 8, WarpRows: 2},
	// Up to 64 batch columns, 32 × 64 tiles (8 warps as 2 × 4, one 16 × 16
	// fragment each), K steps of 64, and each tile's K split over 4
	// workgroups. On the H100 at 4096×14336 (docs/PERFORMANCE.md), Q4_0:
	// the tiles alone took batch 16 from 616 to 366 µs and 64 from 619 to
	// 377 (but 826 to 1360 at 512, hence the class; 32 × 128 and 64 × 64
	// tiles were slower at 16 and 64), the split to 191 and 195 (split 2:
	// 231, 8: 184, 16: 186).
	MatMulSmall:      MatMulTuning{ThreadsPerBlock: 256, TileRows: 32, TileCols: 64, TileK: 64, ThreadRows: 2, WarpRows: 2, SplitK: 4},
	MatMulSmallBatch: 64,
	// Generic path (f32): as the AMD targets. Tensor-core path (f16): 4
	// warps × 16 query rows, K/V tiles of 32 keys (the shared memory of
	// head dim 128 stays under 48 KiB: 2 K buffers, 1 V buffer, per-warp
	// scores and probabilities).
	// mma.sync 4 warps × 32 keys: the best at head dimension 128 of 4/8/16
	// warps × 32/64 keys on the H100 (docs/PERFORMANCE.md); wmma 4 × 32
	// likewise among its candidates.
	Attention: AttentionTuning{ThreadsPerBlock: 128, QueryRows: 16, KeysPerTile: 32, WmmaWarps: 4, WmmaKeysPerTile: 32, MmaWarps: 4, MmaKeysPerTile: 32},
	MatVecSpace: MatVecSpace{
		ThreadsPerBlock: []int{64, 128, 256, 512},
		RowsPerBlock:    []int{1, 2, 4, 8},
		Chunk:           []int{8, 16, 32},
	},
})
