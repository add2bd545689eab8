package bench

import (
	"fmt"
	"strings"

	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// Skipped is a GGUF tensor GGUFTargets makes no benchmark of, and why.
type Skipped struct {
	Tensor string
	Type   string // ggml type name
	Reason string
}

// String is the tensor, its type and the reason, the name shown through
// Printable (it is the file's).
func (s Skipped) String() string {
	return fmt.Sprintf("%s (%s): %s", Printable(s.Tensor), s.Type, Printable(s.Reason))
}

// specOf looks up forge's spec for a tensor's ggml type id; tests replace
// it with one that claims an id with the wrong geometry.
var specOf = (*gguf.Tensor).Format

// TensorFormat is forge's spec for tensor t's type when that spec can
// decode t (SpecFits); otherwise it is nil and the error says why: no
// spec for the type id, or one whose blocks are not the type's.
func TensorFormat(t *gguf.Tensor) (*formats.Format, error) { return FormatFor(t, specOf) }

// FormatFor is TensorFormat with the spec looked up by lookup (normally
// (*gguf.Tensor).Format).
func FormatFor(t *gguf.Tensor, lookup func(*gguf.Tensor) (*formats.Format, bool)) (*formats.Format, error) {
	f, ok := lookup(t)
	if !ok {
		return nil, fmt.Errorf("no forge spec for ggml type %d", uint32(t.Type))
	}
	if err := SpecFits(f, t); err != nil {
		return nil, err
	}
	return f, nil
}

// SpecFits reports whether spec f can decode tensor t: the reader sized
// and placed t's data by ggml's geometry of t's type id, so a spec that
// claims the id with other blocks (elements or bytes per block) would read
// every block wrong, and t must hold whole blocks.
func SpecFits(f *formats.Format, t *gguf.Tensor) error {
	tt, ok := t.Type.Traits()
	if !ok {
		return fmt.Errorf("ggml type %s (id %d) has no block geometry", t.TypeName(), uint32(t.Type))
	}
	if f.BlockElems != tt.BlockElems || f.BlockBytes != tt.BlockBytes {
		return fmt.Errorf("forge's spec %s has %d-element blocks of %d bytes, ggml's type %d has %d-element blocks of %d bytes",
			f.Name, f.BlockElems, f.BlockBytes, uint32(t.Type), tt.BlockElems, tt.BlockBytes)
	}
	if n := t.Elements(); f.BlockElems <= 0 || n%int64(f.BlockElems) != 0 || t.Bytes() != n/int64(f.BlockElems)*int64(f.BlockBytes) {
		return fmt.Errorf("%d elements in %d bytes are not whole %d-element blocks of %d bytes of %s", n, t.Bytes(), f.BlockElems, f.BlockBytes, f.Name)
	}
	return nil
}

// GGUFTargets returns one benchmark of kernel ("dequant_f32") per tensor
// of f whose type forge has a spec (that fits it: TensorFormat) and a
// registered suite for: the tensor's real bytes at its shape (Dims,
// ggml's order), named "gguf/<tensor>/<kernel>", the tensor's name with
// spaces as "_" and control bytes escaped (Printable), so that the name
// is safe in every output and survives JSON. The data is read when the
// benchmark runs. Tensors of other types, and empty ones, are listed as
// skipped.
func GGUFTargets(f *gguf.File, kernel string) ([]Target, []Skipped) {
	var ts []Target
	var skipped []Skipped
	for i := range f.Tensors {
		t := &f.Tensors[i]
		format, err := TensorFormat(t)
		if err != nil {
			skipped = append(skipped, Skipped{t.Name, t.TypeName(), err.Error()})
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
			Name:  "gguf/" + Printable(strings.ReplaceAll(t.Name, " ", "_")) + "/" + kernel,
			Shape: shape,
			Input: func() ([]byte, error) { return f.TensorData(t) },
		})
	}
	return ts, skipped
}
