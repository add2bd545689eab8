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
	// Decode cases (the launchers' split-KV path, seq_q ≤ 8): every
	// DecodeSeqQ × DecodeSeqKV at batch 1, DecodeHeads query heads over
	// DecodeHeadsKV key/value heads (grouped-query), causal (a decode step
	// sees every key; speculated tokens see their predecessors), for every
	// DTypes × HeadDims; they report the K/V read rate beside TFLOPS. A
	// quick run keeps QuickDecodeSeqKV.
	DecodeSeqQ       []int
	DecodeSeqKV      []int
	DecodeHeads      int
	DecodeHeadsKV    int
	QuickDecodeSeqKV []int
}

// AttentionFlash is the attention suite.
var AttentionFlash = register(Attention{
	Name: "attention/flash",
	Doc: "flash-attention forward vs the cpu reference: time, tokens/s, TFLOPS and the GPU/CPU speedup " +
		"over sequence length (b1 h32), heads and batch (s2048); f16 and f32, head dim 64 and 128, causal and not; " +
		"decode (seq_q 1 and 4 over 512 to 32768 keys, 32 heads over 8) with its K/V read rate",
	DTypes:       []string{"f16", "f32"},
	HeadDims:     []int{64, 128},
	Causal:       []bool{false, true},
	SeqLens:      []int{128, 256, 512, 1024, 2048, 4096},
	Heads:        []int{4, 8, 16, 32},
	Batches:      []int{1, 2, 4},
	SweepSeq:     2048,
	QuickSeqLens: []int{128}, // must be among SeqLens (gen/load); 64 is not
	// Llama-3-8B's heads (32 over 8); one decode step and 4 speculated
	// tokens, from a short context to a long one.
	DecodeSeqQ:       []int{1, 4},
	DecodeSeqKV:      []int{512, 4096, 32768},
	DecodeHeads:      32,
	DecodeHeadsKV:    8,
	QuickDecodeSeqKV: []int{512},
})
