package workloads

// Decoder is a llama-style decoder's end-to-end cost from forge's
// generated kernels (runtime/suite/modelsuite runs it): one forward pass built
// from the matvec (decode), matmul (prefill) and flash-attention launchers
// plus the model glue (RMSNorm, RoPE, SiLU-gate, residual adds, f16
// conversions and the KV-cache append), with random weights quantized to
// each of Formats by the reference quantizers. No tokenizer and no
// sampling: the input is random hidden states of the prompt (uploaded),
// the output the logits (downloaded).
//
// Per format it reports prefill time (TTFT) for each prompt length with a
// breakdown by component, decode tokens/s at each context against the
// weight-streaming roofline (projections by matvec_f32 and, for a format
// with an integer form, also by matvec_x8 on 8-bit activations), and peak
// device memory. Hidden, FFN (and
// Heads·HeadDim) must be whole numbers of every format's blocks (256
// elements for the K-quants); HeadDim one the attention family has a
// launcher for (specs/families: 64, 128).
type Decoder struct {
	Name    string
	Doc     string
	Hidden  int // model width
	Layers  int
	Heads   int // query heads
	KVHeads int // key/value heads (grouped-query attention: Heads a multiple of it)
	HeadDim int
	FFN     int // feed-forward width (gate, up: FFN × Hidden; down: Hidden × FFN)
	Vocab   int // LM head rows
	NormEps float64
	// RopeTheta is RoPE's base; pairs are llama's (2i, 2i+1) (GPT-J
	// style, as Meta's reference and llama.cpp on GGUF weights).
	RopeTheta     float64
	Formats       []string // format names (specs/formats) of every weight matrix
	QuickFormats  []string
	Prompts       []int // prefill prompt lengths
	QuickPrompts  []int
	Contexts      []int // decode contexts (KV-cache length before the step)
	QuickContexts []int
	DecodeSteps   int // decode steps timed per sample
}

// The model suite's specs. DecoderLlama7B is Llama-3-8B-shaped
// (hidden 4096, 32 layers, 32 heads over 8 KV heads of 128, FFN 14336,
// vocab 128256, RoPE base 500000); a "7B" with Llama-3's grouped
// KV heads and vocabulary. DecoderSmall is the same architecture small
// enough for the cpu backend in CI.
var (
	DecoderLlama7B = register(Decoder{
		Name: "model/llama_7b",
		Doc: "Llama-3-8B-shaped decoder forward from forge's kernels (random weights, no tokenizer or sampling): " +
			"TTFT at 128/512/2048 tokens with a component breakdown, decode tokens/s at context 512/4096 (matvec_f32 and matvec_x8) vs the weight-streaming roofline, peak device memory",
		Hidden:        4096,
		Layers:        32,
		Heads:         32,
		KVHeads:       8,
		HeadDim:       128,
		FFN:           14336,
		Vocab:         128256,
		NormEps:       1e-5,
		RopeTheta:     500000,
		Formats:       []string{"Q4_0", "Q4_K", "Q8_0", "Q6_K", "F16"},
		QuickFormats:  []string{"Q4_K"},
		Prompts:       []int{128, 512, 2048},
		QuickPrompts:  []int{128},
		Contexts:      []int{512, 4096},
		QuickContexts: []int{512},
		DecodeSteps:   8,
	})

	DecoderSmall = register(Decoder{
		Name: "model/small",
		Doc: "small llama-style decoder (hidden 256, 4 layers, 4 heads over 2 KV heads of 64, FFN 768, vocab 1024) from forge's kernels: " +
			"TTFT with a component breakdown, decode tokens/s (matvec_f32 and matvec_x8), peak memory; runs on the cpu backend in CI",
		Hidden:        256,
		Layers:        4,
		Heads:         4,
		KVHeads:       2,
		HeadDim:       64,
		FFN:           768,
		Vocab:         1024,
		NormEps:       1e-5,
		RopeTheta:     10000,
		Formats:       []string{"Q4_0", "Q4_K", "Q8_0", "Q6_K", "F16"},
		QuickFormats:  []string{"Q4_K", "Q8_0"},
		Prompts:       []int{16, 64},
		QuickPrompts:  []int{16},
		Contexts:      []int{64, 128},
		QuickContexts: []int{64},
		DecodeSteps:   4,
	})
)
