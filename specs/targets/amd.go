package targets

// GFX1100 is RDNA3 (Radeon RX 7900 series), forge's first target.
var GFX1100 = register(Target{
	Name:     "gfx1100",
	Vendor:   "amd",
	WaveSize: 32,
	Default:  true,
	// WMMA: matmul's f16 tensor-core path (the formats without the
	// integer form) and attention's (f16) run on v_wmma_f32_16x16x16_f16.
	WMMA: true,
	Doc:  "AMD RDNA3 (RX 7900), wave32",
	// Attention: 16 query rows of 8 threads each; 32 keys per tile. Decode
	// (split-KV): 128 threads, 4 rows, 4 keys per step, splits of ≥ 64 keys
	// for about 256 workgroups (untuned: the H100's values).
	// The tensor-core path (WMMA): 4 waves of 16 query rows, 32 keys per
	// tile (untuned: the H100's wmma values).
	Attention: AttentionTuning{ThreadsPerBlock: 128, QueryRows: 16, KeysPerTile: 32, WmmaWarps: 4, WmmaKeysPerTile: 32, DecodeThreads: 128, DecodeRows: 4, DecodeKeys: 4, DecodeSplitKeys: 64, DecodeWorkgroups: 256},
	Dequant:   DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},
	MatVec:    MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 4, Chunk: 8},
	// 16 × 16 threads, each a 4 × 4 register tile of Y; the tensor-core
	// path (WMMA) lays its 8 waves out 2 × 4 over the 64 × 64 tile.
	MatMul: MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 32, ThreadRows: 4, WarpRows: 2},
	// The integer path (formats with the integer form): untuned, chosen
	// from the wave size and the 64 KiB of LDS a workgroup may have
	// (MatMulIntTuning.IntLDSBytes ≤ 64 KiB at K-quants' 256-element steps):
	// 16 × 16 pieces per wave, 64 × 64 tiles of 8 waves (2 pieces each)
	// for large batches; for batches up to 16, 64 × 16 tiles of 4 waves
	// with K split 4 ways, so that a 4096-row matrix makes 256 workgroups
	// rather than 64 (as the H100's integer path does at these batches).
	MatMulInt: []MatMulIntBatch{
		{MaxBatch: 16, Tuning: MatMulIntTuning{ThreadsPerBlock: 128, TileRows: 64, TileCols: 16, TileK: 128, WarpRows: 4, SplitK: 4}},
		{MaxBatch: 0, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 128, WarpRows: 4}},
	},
	// forgebench tune --family matmul_int on the GPU: 4 or 8 waves, tiles
	// of 32 to 128 rows by 16 to 64 columns, K steps of 128 or 256, split 1
	// or 4 (68 combinations the waves cover and 64 KiB of LDS holds).
	MatMulIntSpace: MatMulIntSpace{
		ThreadsPerBlock: []int{128, 256},
		TileRows:        []int{32, 64, 128},
		TileCols:        []int{16, 32, 64},
		TileK:           []int{128, 256},
		WarpRows:        []int{2, 4, 8},
		SplitK:          []int{1, 4},
	},
	MatVecSpace: MatVecSpace{
		ThreadsPerBlock: []int{64, 128, 256, 512},
		RowsPerBlock:    []int{1, 2, 4, 8},
		Chunk:           []int{8, 16, 32},
	},
})

// GFX1030 is RDNA2 (Radeon RX 6800/6900 series).
var GFX1030 = register(Target{
	Name:     "gfx1030",
	Vendor:   "amd",
	WaveSize: 32,
	Doc:      "AMD RDNA2 (RX 6800/6900), wave32",
	// Attention: 16 query rows of 8 threads each; 32 keys per tile. Decode
	// (split-KV): 128 threads, 4 rows, 4 keys per step, splits of ≥ 64 keys
	// for about 256 workgroups (untuned: the H100's values).
	Attention: AttentionTuning{ThreadsPerBlock: 128, QueryRows: 16, KeysPerTile: 32, DecodeThreads: 128, DecodeRows: 4, DecodeKeys: 4, DecodeSplitKeys: 64, DecodeWorkgroups: 256},
	Dequant:   DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},
	MatVec:    MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 4, Chunk: 8},
	// 16 × 16 threads, each a 4 × 4 register tile of Y.
	MatMul: MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 32, ThreadRows: 4},
	// The integer path (formats with the integer form): untuned, chosen
	// from the wave size and the 64 KiB of LDS a workgroup may have
	// (MatMulIntTuning.IntLDSBytes ≤ 64 KiB at K-quants' 256-element steps):
	// 16 × 16 pieces per wave, 64 × 64 tiles of 8 waves (2 pieces each)
	// for large batches; for batches up to 16, 64 × 16 tiles of 4 waves
	// with K split 4 ways, so that a 4096-row matrix makes 256 workgroups
	// rather than 64 (as the H100's integer path does at these batches).
	MatMulInt: []MatMulIntBatch{
		{MaxBatch: 16, Tuning: MatMulIntTuning{ThreadsPerBlock: 128, TileRows: 64, TileCols: 16, TileK: 128, WarpRows: 4, SplitK: 4}},
		{MaxBatch: 0, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 128, WarpRows: 4}},
	},
	// forgebench tune --family matmul_int on the GPU: 4 or 8 waves, tiles
	// of 32 to 128 rows by 16 to 64 columns, K steps of 128 or 256, split 1
	// or 4 (68 combinations the waves cover and 64 KiB of LDS holds).
	MatMulIntSpace: MatMulIntSpace{
		ThreadsPerBlock: []int{128, 256},
		TileRows:        []int{32, 64, 128},
		TileCols:        []int{16, 32, 64},
		TileK:           []int{128, 256},
		WarpRows:        []int{2, 4, 8},
		SplitK:          []int{1, 4},
	},
	MatVecSpace: MatVecSpace{
		ThreadsPerBlock: []int{64, 128, 256, 512},
		RowsPerBlock:    []int{1, 2, 4, 8},
		Chunk:           []int{8, 16, 32},
	},
})

// GFX90A is CDNA2 (Instinct MI200 series), whose wavefronts are 64 wide.
var GFX90A = register(Target{
	Name:     "gfx90a",
	Vendor:   "amd",
	WaveSize: 64,
	// MFMA: matmul's f16 tensor-core path (the formats without the integer
	// form) and attention's (f16) run on v_mfma_f32_16x16x16f16.
	MFMA: true,
	Doc:  "AMD CDNA2 (Instinct MI210/MI250), wave64",
	// Attention: 16 query rows of 8 threads each; 32 keys per tile. Decode
	// (split-KV): 128 threads, 4 rows, 4 keys per step, splits of ≥ 64 keys
	// for about 256 workgroups (untuned: the H100's values).
	// The tensor-core path (MFMA): 4 waves of 64 lanes, each 16 query rows
	// (4 softmax lanes a row), 32 keys per tile (untuned: the H100's wmma
	// values).
	Attention: AttentionTuning{ThreadsPerBlock: 128, QueryRows: 16, KeysPerTile: 32, WmmaWarps: 4, WmmaKeysPerTile: 32, DecodeThreads: 128, DecodeRows: 4, DecodeKeys: 4, DecodeSplitKeys: 64, DecodeWorkgroups: 256},
	Dequant:   DequantTuning{ThreadsPerBlock: 256, VectorsPerThread: 1},
	MatVec:    MatVecTuning{ThreadsPerBlock: 256, RowsPerBlock: 4, Chunk: 8},
	// 16 × 16 threads, each a 4 × 4 register tile of Y; the tensor-core
	// path (MFMA) lays its 4 waves out 2 × 2 over the 64 × 64 tile.
	MatMul: MatMulTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 32, ThreadRows: 4, WarpRows: 2},
	// The integer path (formats with the integer form): untuned, chosen
	// from the wave size and the 64 KiB of LDS a workgroup may have
	// (MatMulIntTuning.IntLDSBytes ≤ 64 KiB at K-quants' 256-element steps):
	// 16 × 16 pieces per wave, 64 × 64 tiles of 4 waves of 64 (4 pieces
	// each) for large batches; for batches up to 16, 64 × 16 tiles of 4
	// waves with K split 4 ways (256 workgroups for 4096 rows, not 64).
	MatMulInt: []MatMulIntBatch{
		{MaxBatch: 16, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 16, TileK: 128, WarpRows: 4, SplitK: 4}},
		{MaxBatch: 0, Tuning: MatMulIntTuning{ThreadsPerBlock: 256, TileRows: 64, TileCols: 64, TileK: 128, WarpRows: 2}},
	},
	// forgebench tune --family matmul_int on the GPU: 2 or 4 waves of 64,
	// tiles of 32 to 128 rows by 16 to 64 columns, K steps of 128 or 256,
	// split 1 or 4 (100 combinations the waves cover and 64 KiB of LDS holds).
	MatMulIntSpace: MatMulIntSpace{
		ThreadsPerBlock: []int{128, 256},
		TileRows:        []int{32, 64, 128},
		TileCols:        []int{16, 32, 64},
		TileK:           []int{128, 256},
		WarpRows:        []int{1, 2, 4},
		SplitK:          []int{1, 4},
	},
	// wave64: a workgroup is 1 to 16 wavefronts of 64.
	MatVecSpace: MatVecSpace{
		ThreadsPerBlock: []int{64, 128, 256, 512, 1024},
		RowsPerBlock:    []int{1, 2, 4, 8},
		Chunk:           []int{8, 16, 32},
	},
})
