package hipgen

import (
	"github.com/rocmforge/forge/gen/model"
	"github.com/rocmforge/forge/internal/hiptest"
)

// testSpec is hiptest.Spec: four formats (two real ones sharing Q4_0's
// layout, one without a ggml id, one with 256-element blocks), the four
// real targets with their tuning, and the dequant, matmul and matvec families.
func testSpec() *model.Spec { return hiptest.SpecMatMul() }
