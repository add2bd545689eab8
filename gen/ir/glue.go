package ir

// GlueFamily is the family name of the model glue launchers: the small
// element-wise and layout kernels a decoder forward needs between forge's
// matvec, matmul and attention kernels (templates/hip/glue.hip.tmpl).
const GlueFamily = "glue"

// GlueKernel is one launcher of the glue family. The glue is not
// format-specific and has no tuning: one file per target,
// generated/hip/<target>/glue.hip, rendered with the attention family (the
// glue exists to compose with it).
type GlueKernel struct {
	Name   string // "glue_rmsnorm_f32": the symbol is forge_<Name>
	Output string // the element type written: "f32" or "f16"
	Doc    string // one line
}

// Symbol is the launcher's extern "C" name.
func (k GlueKernel) Symbol() string { return "forge_" + k.Name }

// GlueKernels are the glue launchers, in the order gogen binds them. Their
// C signatures are gen/gogen's glue signature descriptors and the
// template's comment.
var GlueKernels = []GlueKernel{
	{Name: "glue_rmsnorm_f32", Output: "f32", Doc: "RMSNorm of rows × dim float32 with a weight vector"},
	{Name: "glue_rope_f32", Output: "f32", Doc: "rotary position embedding, in place on token-major [seq, heads, head_dim] float32"},
	{Name: "glue_silu_mul_f32", Output: "f32", Doc: "out = silu(gate) · up, element-wise"},
	{Name: "glue_add_f32", Output: "f32", Doc: "out = a + b, element-wise (residual adds; out may be a)"},
	{Name: "glue_heads_f16", Output: "f16", Doc: "float32 [seq, heads, head_dim] → f16 rows pos.. of [heads, cap, head_dim] (q for attention, KV-cache append)"},
	{Name: "glue_tokens_f32", Output: "f32", Doc: "f16 rows pos.. of [heads, cap, head_dim] → float32 [seq, heads, head_dim] (attention output)"},
}
