package hipgen

import (
	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/gen/ir"
)

// testSpec is hiptest.Spec: four formats (two real ones sharing Q4_0's
// layout, one without a ggml id, one with 256-element blocks), the four
// real targets with their tuning, and the dequant, matmul and matvec families.
func testSpec() *ir.Spec { return hiptest.SpecMatMul() }
