package family

import (
	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// MatMul is Y = W·X for a batch of vectors (specs/families.MatMul). It is
// checked at rows that are multiples of nothing a kernel tiles by (37,
// 1003), rows of one to a few blocks (a scalar format's blocks counted 37
// elements at a time, so that cols is not a multiple of a K step either),
// batches of 1, 2, 7, 64 and 512 (small W for the large batches, to keep
// the cpu run fast), and the empty cases; each entry must be within
// suite.MatMulEntryTolerance of its magnitude, which allows the NVIDIA
// tensor-core path's f16 rounding. Its benchmarks count Y's entries; the
// shapes are the spec's [rows, cols, batch].
var MatMul = register(newMatrix(matrix{
	name: "matmul",
	checks: []struct{ rows, blocks, batch int }{
		{37, 3, 1}, {37, 3, 2}, {1003, 2, 7}, {1003, 1, 64}, {37, 2, 512}, {64, 1, 7}, {5, 0, 3}, {0, 4, 2}, {3, 2, 0},
	},
	scalarCols: 37,
	entryTol:   suite.MatMulEntryTolerance,
	seed: func(f *formats.Format, s backend.MatrixShape) uint64 {
		return suite.Seed(f.Name) + uint64(s.Rows)<<20 + uint64(s.Cols)<<8 + uint64(s.Batch)
	},
	elements: func(s backend.MatrixShape) int64 { return int64(s.Rows) * int64(s.Batch) },
}))
