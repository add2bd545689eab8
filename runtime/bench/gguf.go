package bench

import (
	"fmt"
	"strings"

	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/runtime/suite"
)

// Skipped is a GGUF tensor GGUFTargets makes no benchmark of, and why.
type Skipped struct {
	Tensor string
	Type   string // ggml type name
	Reason string
}

func (s Skipped) String() string { return fmt.Sprintf("%s (%s): %s", s.Tensor, s.Type, s.Reason) }

// GGUFTargets returns one benchmark of kernel ("dequant_f32") per tensor
// of f whose type forge has a spec and a registered suite for: the
// tensor's real bytes at its shape (Dims, ggml's order), named
// "gguf/<tensor>/<kernel>". The data is read when the benchmark runs.
// Tensors of other types, and empty ones, are listed as skipped.
func GGUFTargets(f *gguf.File, kernel string) ([]Target, []Skipped) {
	var ts []Target
	var skipped []Skipped
	for i := range f.Tensors {
		t := &f.Tensors[i]
		format, ok := t.Format()
		if !ok {
			skipped = append(skipped, Skipped{t.Name, t.TypeName(), fmt.Sprintf("no forge spec for ggml type %d", uint32(t.Type))})
			continue
		}
		s, ok := suite.ByName(kernel + "/" + format.Name)
		if !ok {
			skipped = append(skipped, Skipped{t.Name, t.TypeName(), "no registered suite " + kernel + "/" + format.Name})
			continue
		}
		if t.Elements() == 0 {
			skipped = append(skipped, Skipped{t.Name, t.TypeName(), "no elements"})
			continue
		}
		shape := make([]int, len(t.Dims))
		for j, d := range t.Dims {
			shape[j] = int(d)
		}
		ts = append(ts, Target{
			Suite: s,
			Name:  "gguf/" + strings.ReplaceAll(t.Name, " ", "_") + "/" + kernel,
			Shape: shape,
			Input: func() ([]byte, error) { return f.TensorData(t) },
		})
	}
	return ts, skipped
}
