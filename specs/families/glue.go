package families

// Glue is the model glue: the small element-wise and layout kernels a
// decoder forward needs between forge's matvec, matmul and attention
// kernels (templates/hip/glue.hip.tmpl has their contract). Not
// format-specific and without tuning: one file per target,
// generated/hip/<target>/glue.hip, with a launcher of one of seven
// signatures per kernel. The fused kernels (the _x8 ones past
// glue_quantize_x8, glue_rope_kv) do in one launch what two or three of
// the others would, so that a decode step pays fewer launches.
var Glue = register(Family{
	Name:   "glue",
	Doc:    "the model glue: RMSNorm, RoPE, SiLU·mul, residual add, the attention layouts and the activations' 8-bit quantization, alone and fused",
	Shared: true,
	Kernels: []Kernel{
		{Name: "glue_rmsnorm_f32", Output: "f32", Signature: "glue_norm", Doc: "RMSNorm of rows × dim float32 with a weight vector"},
		{Name: "glue_rope_f32", Output: "f32", Signature: "glue_rope", Doc: "rotary position embedding, in place on token-major [seq, heads, head_dim] float32"},
		{Name: "glue_silu_mul_f32", Output: "f32", Signature: "glue_binary", Doc: "out = silu(gate) · up, element-wise"},
		{Name: "glue_add_f32", Output: "f32", Signature: "glue_binary", Doc: "out = a + b, element-wise (residual adds; out may be a)"},
		{Name: "glue_heads_f16", Output: "f16", Signature: "glue_layout", Doc: "float32 [seq, heads, head_dim] → f16 rows pos.. of [heads, cap, head_dim] (q for attention, KV-cache append)"},
		{Name: "glue_tokens_f32", Output: "f32", Signature: "glue_layout", Doc: "f16 rows pos.. of [heads, cap, head_dim] → float32 [seq, heads, head_dim] (attention output)"},
		// Output f32: the layout's scales and sums are float32 (its codes int8).
		{Name: "glue_quantize_x8", Output: "f32", Signature: "glue_quantize", Doc: "float32 x → the X8 layout (int8 codes, a float32 scale per 32 and a sum per 16) that matvec_x8 reads"},
		{Name: "glue_rmsnorm_x8", Output: "f32", Signature: "glue_norm", Doc: "RMSNorm of rows × dim float32 straight into the X8 layout (y is the X8 buffer): glue_rmsnorm_f32 then glue_quantize_x8 in one launch"},
		{Name: "glue_silu_mul_x8", Output: "f32", Signature: "glue_binary", Doc: "SiLU-gate straight into the X8 layout (out is the X8 buffer, n a multiple of 32): glue_silu_mul_f32 then glue_quantize_x8 in one launch"},
		{Name: "glue_tokens_x8", Output: "f32", Signature: "glue_layout", Doc: "f16 rows pos.. of [heads, cap, head_dim] → the X8 layout of token-major [seq, heads·head_dim] (heads·head_dim a multiple of 32): glue_tokens_f32 then glue_quantize_x8 in one launch"},
		{Name: "glue_add_rmsnorm_x8", Output: "f32", Signature: "glue_add_norm", Doc: "residual add, then RMSNorm into the X8 layout: h = a + b, xq = glue_rmsnorm_x8(h) in one launch (h must not overlap a or b)"},
		{Name: "glue_rope_kv", Output: "f32", Signature: "glue_rope_kv", Doc: "RoPE on token-major q and k, then q to head-major f16 and k, v appended to the f16 caches: glue_rope_f32, glue_heads_f16 (q, k, v) in one launch"},
	},
})
