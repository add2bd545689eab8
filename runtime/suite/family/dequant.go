package family

import (
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// Dequant decodes whole blocks to f32 and f16 (specs/families.Dequant).
// Its reference is the format spec: the cpu backend runs the spec's row
// decoder, and the check compares with the spec's Dequant called element
// by element (suite.WantF32), a path of its own.
var Dequant = register(Blocks("dequant",
	func(f *formats.Format, dst []float32, src []byte) error { return f.Dequantize(dst, src) },
	suite.WantF32))
