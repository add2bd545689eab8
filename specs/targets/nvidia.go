package targets

// SM90 is NVIDIA Hopper (H100), reached through forge's portability header
// and nvcc.
var SM90 = register(Target{
	Name:         "sm_90",
	Vendor:       "nvidia",
	WaveSize:     32,
	CompileFlags: []string{"-arch=sm_90a"}, // Hopper's arch-specific instructions (wgmma) besides sm_90's: the code runs on sm_90 devices only
	WGMMA:        true,
	Doc:          "NVIDIA Hopper (H100), warp 32, via the portability header",
	Dequant:      DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 2},
	MatVec:       MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 4, Chunk: 8},
	// The wmma path: 8 warps as 2 × 4, each 32 rows × 32 columns (2 × 2 fragments).
	// On the H100 this beat 128 × 128 tiles (4 × 2 warps) by 1.35× at
	// 4096×14336×512 (128 workgroups for 132 SMs; see docs/PERFORMANCE.md).
	MatMul: MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 128, TileK: 32, ThreadRows: 8, WarpRows: 2},
	// Small batches: tiles that give them more workgroups, each tile's K
	// split over several workgroups that add into Y. On the H100 at
	// 4096×14336 (docs/PERFORMANCE.md), Q4_0 with MatMul's tiles alone:
	// 616 µs at batch 16 and 619 at 64. Up to 64: 32 × 64 tiles, K step 64
	// took them to 366 and 377 (but 1360 at 512), split 4 ways to 191 and
	// 195 (2: 231; 8: 184; 16: 186), 64 × 64 tiles, K step 32, split 4 to
	// 162 and 191. Up to 16: 128 × 16 tiles (8 warps as 8 × 1), split 8
	// ways: 112 (but 289 at 64).
	MatMulBatches: []MatMulBatch{
		{MaxBatch: 16, Tuning: MatMulTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 16, TileK: 32, ThreadRows: 8, WarpRows: 8, SplitK: 8}},
		{MaxBatch: 64, Tuning: MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 32, ThreadRows: 4, WarpRows: 2, SplitK: 4}},
	},
	// The integer tensor-core path (formats with the integer form). Chosen
	// on the H100 at 4096×14336 among 6 tilings per class with a
	// prototype of the path, then 5 per small class with the generated
	// kernels (docs/PERFORMANCE.md): up to 16, 128 × 16 tiles (8 warps as
	// 8 × 1) split 8 ways (Q4_K 88 → 68 µs against 64 × 16 with 4 warps);
	// up to 64, 128 × 64 split 4 ways, 8 warps as 8 × 1 (each lane decodes
	// its own fragments; Q4_0 85 → 79 µs, Q3_K 118 → 103, MXFP4 96 → 81
	// against 2 × 4) but 2 × 4 for the formats with an offset term (Q4_K
	// 91 against 129 as 8 × 1, Q5_K 96 against 136); above,
	// 128 × 128 (2 × 4), no split, K steps of 256 (Q4_0 at 512: 519 → 413
	// µs against steps of 128, Q8_0 529 → 410: whole 16-byte copies of
	// 32-element blocks and half the barriers; 64 × 128 tiles, 4 × 2 or
	// 8 × 1 warps and 16 warps as 4 × 4 were slower for Q4_K or Q8_0).
	// Up to batch 64 the integer form decoded to f16 in the fragments
	// (Marlin's design) beat the int8 products on the H200 (2026-11-29,
	// 4096×14336 and 4096×4096 at batch 16 and 64, one weight buffer, the
	// classes' tiles): Q4_1 0.68–0.80 of their time, Q4_0 0.68–0.89, Q8_0
	// 0.61–0.89, Q5_0/Q5_1 0.66–0.90, MXFP4 0.84–0.98, Q2_K 0.78–0.95, Q4_K
	// and Q5_K 0.85–0.91 at batch 64 and ×4096 (within 1.02 at ×14336×16
	// before the scales' pass was changed); Q3_K (1.2–1.6) and Q6_K
	// (1.0–1.35), whose codes take two loads a word from 2-byte-aligned
	// blocks, keep the int8 products: their tuned classes say so (int8 1
	// in specs/tuned/sm_90.json; the space below lets forgebench tune
	// choose per format and class).
	MatMulIntF16: 64,
	MatMulInt: []MatMulIntBatch{
		{MaxBatch: 16, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 16, TileK: 128, WarpRows: 8, SplitK: 8}},
		{MaxBatch: 64, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 64, TileK: 128, WarpRows: 8, OffsetWarpRows: 2, SplitK: 4}},
		{MaxBatch: 0, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 128, TileK: 256, WarpRows: 2}},
	},
	// F16's mma.sync path. H100, 4096×14336 (docs/PERFORMANCE.md): up to
	// 16, 128 × 16 tiles, K step 64, split 4 (56 µs; K step 32, split 8:
	// 72); up to 64, 64 × 64, K step 64, split 4 (68; K step 32: 82); up to
	// 256, 128 × 128 split 4 ways (98 µs at 128, 139 at 256, where one
	// tile column unsplit took 221 and 226); above, 128 × 128 split 2 ways:
	// unsplit, 128 workgroups (one an SM) took 338 µs at 512, 2.4 times
	// the split class's 139 at 256; 64 × 128 tiles 365, warp tiles of 64
	// × 64 (128 × 256, 256 × 128) 526, K steps of 64 374.
	MatMulHalf: []MatMulIntBatch{
		{MaxBatch: 16, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 16, TileK: 64, WarpRows: 8, SplitK: 4}},
		{MaxBatch: 64, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 64, WarpRows: 2, SplitK: 4}},
		{MaxBatch: 256, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 128, TileK: 32, WarpRows: 2, SplitK: 4}},
		{MaxBatch: 0, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 128, TileK: 32, WarpRows: 2, SplitK: 2}},
	},
	// Batches above the integer path's small classes: W dequantized to f16
	// once, then F16's mma.sync matmul (see MatMulF16MinBatch). H100,
	// 4096×14336×256: Q4_0 198 µs against the integer path's 336, Q8_0 207
	// / 366, Q4_K 204 / 481, Q6_K 205 / 684 (at 128 the integer path's one
	// unsplit tile column took 338–685 µs, where F16 took 98).
	MatMulF16MinBatch: 65,
	// forgebench tune --family matmul_half: 8 warps, tiles of 64 or 128
	// rows by 16, 64 or 128 columns, K steps of 32 or 64, splits of 1 to
	// 8 (88 combinations its warps can cover).
	MatMulHalfSpace: MatMulIntSpace{
		ThreadsPerBlock: []int{256},
		TileRows:        []int{64, 128},
		TileCols:        []int{16, 64, 128},
		TileK:           []int{32, 64},
		WarpRows:        []int{2, 4, 8},
		SplitK:          []int{1, 2, 4, 8},
	},
	// forgebench tune --family matmul_int: 8 warps, the tiles and splits the
	// hand sweeps above ranged over (84 valid combinations; a winner per
	// format and batch class replaces the class above of its MaxBatch).
	MatMulIntSpace: MatMulIntSpace{
		ThreadsPerBlock: []int{256},
		TileRows:        []int{64, 128},
		TileCols:        []int{16, 32, 64, 128},
		TileK:           []int{128, 256, 512},
		WarpRows:        []int{2, 4, 8},
		SplitK:          []int{1, 4, 8},
		Int8:            []int{0, 1},
	},
	// Generic path (f32): as the AMD targets. Tensor-core path (f16): 4
	// warps × 16 query rows, K/V tiles of 32 keys (the shared memory of
	// head dim 128 stays under 48 KiB: 2 K buffers, 1 V buffer, per-warp
	// scores and probabilities).
	// mma.sync 4 warps × 32 keys: the best at head dimension 128 of 4/8/16
	// warps × 32/64 keys on the H100 (docs/PERFORMANCE.md); wmma 4 × 32
	// likewise among its candidates.
	// Decode (split-KV): 128 threads, 4 rows, 4 keys per lane group per
	// step, splits of ≥ 64 keys for about 256 workgroups (2 per SM): on the
	// H100 at 32/8 heads, d128, f16, 256 workgroups read 32768 keys in 60
	// µs against 105 for 1024 (fewer, longer splits amortise each
	// workgroup's merge; the sweep is in docs/PERFORMANCE.md).
	Attention: AttentionTuning{ThreadsPerBlock: 128, QueryRows: 16, KeysPerTile: 32, WmmaWarps: 4, WmmaKeysPerTile: 32, MmaWarps: 4, MmaKeysPerTile: 32,
		DecodeThreads: 128, DecodeRows: 4, DecodeKeys: 4, DecodeSplitKeys: 64, DecodeWorkgroups: 256},
	MatVecSpace: MatVecSpace{
		ThreadsPerBlock: []int{64, 128, 256, 512},
		RowsPerBlock:    []int{1, 2, 4, 8},
		Chunk:           []int{8, 16, 32},
	},
})
