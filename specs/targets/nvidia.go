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
	// The wmma path: 8 warps as 4 × 2, each 32 rows × 64 columns (2 × 4 fragments).
	MatMul: MatMulTuning{ThreadsPerBlock: 256, TileRows: 128, TileCols: 128, TileK: 32, ThreadRows: 8, WarpRows: 4},
})
