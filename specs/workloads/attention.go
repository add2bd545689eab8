package workloads

// Attention sweeps the flash-attention forward kernels over sequence
// lengths, heads and batch sizes, for each input type, head dimension
// and masking; layout [batch, heads, seq, dim] throughout (the attention
// family's launchers; runtime/suite/attnsuite runs it).
//
// The cases are the corners of the sweep rather than its full
// cross product: the sequence sweep (every SeqLens at the smallest batch
// and the largest head count), the heads sweep (every Heads at SweepSeq,
// smallest batch) and the batch sweep (every Batches at SweepSeq, largest
// head count), each for every DTypes × HeadDims × Causal; a case in two
// sweeps runs once. Self-attention (seq_q = seq_kv = seq), heads_kv =
// heads. A quick run keeps QuickSeqLens at the smallest heads and batch.
type Attention struct {
	Name         string
	Doc          string
	DTypes       []string // "f16", "f32"
	HeadDims     []int
	Causal       []bool
	SeqLens      []int
	Heads        []int
	Batches      []int
	SweepSeq     int   // the sequence length of the heads and batch sweeps
	QuickSeqLens []int // a quick run's sequence lengths (with the smallest heads and batch)
}

// AttentionFlash is the attention suite.
var AttentionFlash = register(Attention{
	Name: "attention/flash",
	Doc: "flash-attention forward vs the cpu reference: time, tokens/s, TFLOPS and the GPU/CPU speedup " +
		"over sequence length (b1 h32), heads and batch (s2048); f16 and f32, head dim 64 and 128, causal and not",
	DTypes:       []string{"f16", "f32"},
	HeadDims:     []int{64, 128},
	Causal:       []bool{false, true},
	SeqLens:      []int{128, 256, 512, 1024, 2048, 4096},
	Heads:        []int{4, 8, 16, 32},
	Batches:      []int{1, 2, 4},
	SweepSeq:     2048,
	QuickSeqLens: []int{128}, // must be among SeqLens (gen/load); 64 is not
})
