package suite

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/specs/formats"
)

// BenchShape is a named benchmark shape: Dims are the family's dimensions
// (matvec: [rows, cols]; runtime/suite/family names each family's). The
// name is what the benchmark is called by (go test's sub-benchmark,
// forgebench's result name after the suite's).
type BenchShape struct {
	Name string
	Dims []int
}

// ShapeName is the default name of a shape: its dimensions joined by "x",
// "4096x14336".
func ShapeName(dims ...int) string {
	s := ""
	for i, d := range dims {
		if i > 0 {
			s += "x"
		}
		s += strconv.Itoa(d)
	}
	return s
}

// ParseShape reads a shape as ShapeName writes it, "4096x14336" (any case
// of x): its dimensions, each a positive integer below 2^31; false for
// anything else.
func ParseShape(s string) ([]int, bool) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "x")
	dims := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil || n <= 0 {
			return nil, false
		}
		dims[i] = int(n)
	}
	return dims, true
}

// WholeBlockShapes is shapes ([rows, cols, ...]) with each cols rounded
// down to a whole number of f's blocks, at least one; a shape named by its
// dimensions is renamed by its rounded ones. Further dimensions (matmul's
// batch) are kept.
func WholeBlockShapes(f *formats.Format, shapes []BenchShape) []BenchShape {
	out := make([]BenchShape, len(shapes))
	for i, sh := range shapes {
		dims := slices.Clone(sh.Dims)
		dims[1] = max(1, dims[1]/f.BlockElems) * f.BlockElems
		name := sh.Name
		if dims[1] != sh.Dims[1] && name == ShapeName(sh.Dims...) {
			name = ShapeName(dims...)
		}
		out[i] = BenchShape{name, dims}
	}
	return out
}
