package family

import "strings"

// Glue is the model glue (specs/families.Glue): RMSNorm, RoPE, SiLU·mul,
// the residual add, the attention layouts and the activations' 8-bit
// quantization for matvec_x8, five launcher signatures.
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
	Signatures: []string{"glue_norm", "glue_rope", "glue_binary", "glue_layout", "glue_quantize"},
	Profile: Profile{Kernels: func(symbol string) []string {
		for _, suffix := range []string{"_f32", "_f16"} {
			if base, ok := strings.CutSuffix(symbol, suffix); ok {
				return []string{base + "_kernel"}
			}
		}
		return []string{symbol + "_kernel"}
	}},
})
