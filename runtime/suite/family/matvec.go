package family

import (
	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// MatVec is y = W·x (specs/families.MatVec), the Matrix operation with
// one vector. It is checked at rows that are multiples of nothing a
// kernel tiles by (37, 1003), rows of a few blocks and of many, one row,
// and the empty cases; each row must be within suite.MatVecRowTolerance
// of its magnitude. Its benchmarks count W's elements, the figure that
// bounds a matvec; the shapes are the spec's [rows, cols].
var MatVec = register(newMatrix(matrix{
	name:   "matvec",
	vector: true,
	checks: []struct{ rows, blocks, batch int }{
		{37, 3, 1}, {1003, 17, 1}, {1, 5, 1}, {64, 1, 1}, {5, 0, 1}, {0, 4, 1},
	},
	entryTol: suite.MatVecRowTolerance,
	seed: func(f *formats.Format, s backend.MatrixShape) uint64 {
		return suite.Seed(f.Name) + uint64(s.Rows)<<20 + uint64(s.Cols)
	},
	elements: func(s backend.MatrixShape) int64 { return int64(s.Rows) * int64(s.Cols) },
}))
