package gen

import (
	"github.com/rocmforge/forge/gen/gogen"
	"github.com/rocmforge/forge/gen/hipgen"
	"github.com/rocmforge/forge/gen/ir"
)

// renderers produce the generated files from a loaded, translated spec.
var renderers = []func(*ir.Spec) ([]ir.File, error){
	hipgen.Files,
	gogen.Files,
}
