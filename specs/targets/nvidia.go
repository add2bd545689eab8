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
	MatVecSpace: MatVecSpace{
		ThreadsPerBlock: []int{64, 128, 256, 512},
		RowsPerBlock:    []int{1, 2, 4, 8},
		Chunk:           []int{8, 16, 32},
	},
})
