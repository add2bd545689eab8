package workloads

// Attention sweeps the flash-attention forward kernels over sequence
// lengths, heads and batch sizes, for each input type, head dimension
// and masking; layout [batch, heads, seq, dim] throughout.
type Attention struct {
	Name         string
	Doc          string
	DTypes       []string // "f16", "f32"
	HeadDims     []int
	Causal       []bool
	SeqLens      []int
	Heads        []int
	Batches      []int
	QuickSeqLens []int // a quick run's sequence lengths (with the smallest heads and batch)
}
