package gen

import (
	"github.com/rocmforge/forge/gen/gogen"
	"github.com/rocmforge/forge/gen/hipgen"
	"github.com/rocmforge/forge/gen/model"
)

// renderers produce the generated files from a loaded, translated spec.
var renderers = []func(*model.Spec) ([]model.File, error){
	hipgen.Files,
	gogen.Files,
}
