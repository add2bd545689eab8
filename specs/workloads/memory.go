package workloads

// KVCache measures a transformer's key/value cache: allocation at a
// model's shape for each token capacity, bytes per token (exactly
// 2·Layers·Heads·HeadDim·ElemBytes), growth by appending one token at a
// time (allocations, bytes per append, appends per second), preallocated
// against grown, and a paged cache's page-table overhead per page size.
type KVCache struct {
	Name        string
	Doc         string
	Layers      int   // transformer layers
	Heads       int   // KV heads
	HeadDim     int   // elements per head
	ElemBytes   int   // bytes per element (2: f16)
	Tokens      []int // capacities allocated and grown to
	QuickTokens []int // the capacities a quick run keeps
	PageTokens  []int // tokens per page of the paged cache
}

// Scratch measures scratch buffers: one large allocation per size,
// a total allocated in chunks of each chunk size (fragmented), and reuse
// of one allocation for a number of uses each; allocation time and the
// effective bandwidth of filling the buffers.
type Scratch struct {
	Name           string
	Doc            string
	Sizes          []int // single allocations, bytes
	QuickSizes     []int
	FragmentTotal  int   // bytes allocated in chunks
	FragmentChunks []int // chunk sizes, bytes
	Reuses         []int // uses per allocation
	QuickReuses    []int
	ReuseSize      int // bytes of the reused allocation
}

// Allocator compares the caching allocator with direct device
// allocation: a repeated alloc/free pattern of mixed sizes, and a workload
// whose shapes vary (an attention layer's scratch at varying sequence
// lengths); speedup, the caching's peak memory overhead and hit rate.
type Allocator struct {
	Name          string
	Doc           string
	Sizes         []int // the mixed sizes of the repeated pattern, bytes
	Rounds        int   // repetitions of the pattern per sample
	QuickRounds   int   // a quick run's rounds
	SeqLens       []int // sequence lengths of the varying-shape workload
	QuickSeqLens  []int
	Steps         int // steps (one sequence length each) of the varying-shape workload per sample
	QuickSteps    int
	Heads         int     // attention heads of the varying-shape workload
	HeadDim       int     // head dimension of the varying-shape workload
	ElemBytes     int     // bytes per element of its buffers
	TargetSpeedup float64 // the speedup the caching allocator must reach on a GPU
}

// The memory suite's specs: a 7B model's KV cache (32 layers,
// 32 KV heads of 128, f16: 512 KiB per token), scratch buffers of 1 MiB to
// 256 MiB, and the caching allocator against direct allocation. Quick runs
// keep the smallest cases, so that the cpu backend runs the three in
// seconds (CI).
var (
	KVCache7B = register(KVCache{
		Name:        "memory/kv_cache",
		Doc:         "7B KV cache (32 layers, 32 heads of 128, f16): allocation and bytes per token, growth by appends (doubling vs preallocated), paged metadata per page size",
		Layers:      32,
		Heads:       32,
		HeadDim:     128,
		ElemBytes:   2,
		Tokens:      []int{512, 1024, 2048, 4096},
		QuickTokens: []int{512},
		PageTokens:  []int{16, 32, 64, 128, 256},
	})

	ScratchBuffers = register(Scratch{
		Name:           "memory/scratch",
		Doc:            "scratch buffers: allocation time (direct vs cached) and fill bandwidth of single (1-256 MiB), fragmented (10 MiB in 64 KiB vs 1 MiB chunks) and reused (10-1000 uses) buffers",
		Sizes:          []int{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 32 << 20, 64 << 20, 128 << 20, 256 << 20},
		QuickSizes:     []int{1 << 20, 16 << 20, 64 << 20},
		FragmentTotal:  10 << 20,
		FragmentChunks: []int{64 << 10, 1 << 20},
		Reuses:         []int{10, 100, 1000},
		QuickReuses:    []int{10, 100},
		ReuseSize:      1 << 20,
	})

	CachingAllocator = register(Allocator{
		Name:          "memory/allocator",
		Doc:           "caching allocator vs direct device allocation: repeated alloc/free of mixed sizes and attention scratch at varying sequence lengths; speedup (target 10x on a GPU), peak overhead, hit rate",
		Sizes:         []int{4 << 10, 64 << 10, 512 << 10, 2 << 20, 8 << 20, 32 << 20},
		Rounds:        100,
		QuickRounds:   10,
		SeqLens:       []int{128, 256, 512, 1024, 2048},
		QuickSeqLens:  []int{128, 256, 512},
		Steps:         50,
		QuickSteps:    10,
		Heads:         32,
		HeadDim:       128,
		ElemBytes:     2,
		TargetSpeedup: 10,
	})
)
