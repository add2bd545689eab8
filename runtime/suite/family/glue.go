package family

import "strings"

// Glue is the model glue (specs/families.Glue): RMSNorm, RoPE, SiLU·mul,
// the residual add, the attention layouts and the activations' 8-bit
// quantization for matvec_x8, seven launcher signatures. Some kernels fuse
// others into one launch: rmsnorm_x8, silu_mul_x8 and tokens_x8 quantize
// what they compute, add_rmsnorm_x8 (glue_add_norm) adds the residual and
// normalizes into the X8 layout, and rope_kv (glue_rope_kv) rotates q and
// k and writes q's layout and the KV caches.
// No operation of its own and no suites of its own: the model suite
// (runtime/suite/modelsuite) drives the launchers on a device and checks
// its forward against the cpu's, whose glue is the references in
// runtime/backend/cpu (RMSNorm, RoPE, SiLUMul, Add, ToHeads, ToTokens).
// A glue launcher's kernel drops the element type: forge_glue_rmsnorm_f32
// launches forge_glue_rmsnorm_kernel (forge_glue_quantize_x8, which names
// none, forge_glue_quantize_x8_kernel). The gpu backend launches
// glue_quantize_x8 before each matvec_x8.
var Glue = register(&Descriptor{
	Name:       "glue",
	Signatures: []string{"glue_norm", "glue_rope", "glue_binary", "glue_layout", "glue_quantize", "glue_add_norm", "glue_rope_kv"},
	Profile: Profile{Kernels: func(symbol string) []string {
		for _, suffix := range []string{"_f32", "_f16"} {
			if base, ok := strings.CutSuffix(symbol, suffix); ok {
				return []string{base + "_kernel"}
			}
		}
		return []string{symbol + "_kernel"}
	}},
})
