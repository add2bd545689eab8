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
}

// Allocator compares the caching allocator with direct device
// allocation: a repeated alloc/free pattern of mixed sizes, and a workload
// whose shapes vary (an attention layer's scratch at varying sequence
// lengths); speedup, the caching's peak memory overhead and hit rate.
type Allocator struct {
	Name          string
	Doc           string
	Sizes         []int   // the mixed sizes of the repeated pattern, bytes
	Rounds        int     // repetitions of the pattern per sample
	SeqLens       []int   // sequence lengths of the varying-shape workload
	Heads         int     // attention heads of the varying-shape workload
	HeadDim       int     // head dimension of the varying-shape workload
	ElemBytes     int     // bytes per element of its buffers
	TargetSpeedup float64 // the speedup the caching allocator must reach on a GPU
}
