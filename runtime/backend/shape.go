package backend

import (
	"errors"
	"fmt"
	"math"

	"github.com/rocmforge/forge/specs/formats"
)

// AttentionShape is the shape of one attention call, in the layout of the
// flash-attention kernels (templates/hip/attention.hip.tmpl): q and o are
// [Batch, Heads, SeqQ, HeadDim], k and v [Batch, HeadsKV, SeqKV, HeadDim],
// contiguous. Query head h reads key/value head h / (Heads / HeadsKV)
// (grouped-query attention). Under Causal masking query row i attends keys
// j <= i + (SeqKV − SeqQ) (bottom-right aligned, as FlashAttention-2);
// otherwise every key. Scale multiplies the scores (callers pass
// 1/sqrt(HeadDim)).
type AttentionShape struct {
	Batch, Heads, HeadsKV int
	SeqQ, SeqKV           int
	HeadDim               int
	Scale                 float32
	Causal                bool
}

// QElems is the number of elements of q (and of o).
func (s AttentionShape) QElems() int { return s.Batch * s.Heads * s.SeqQ * s.HeadDim }

// KVElems is the number of elements of k (and of v).
func (s AttentionShape) KVElems() int { return s.Batch * s.HeadsKV * s.SeqKV * s.HeadDim }

// Validate reports a shape the kernels refuse: a negative size, a head
// dimension that is not positive, Heads not a multiple of HeadsKV, or a
// tensor of 2^60 elements or more.
func (s AttentionShape) Validate() error {
	if s.Batch < 0 || s.Heads < 0 || s.HeadsKV < 0 || s.SeqQ < 0 || s.SeqKV < 0 || s.HeadDim <= 0 {
		return fmt.Errorf("attention: bad shape %+v: negative size or head dimension not positive", s)
	}
	if s.Heads > 0 && (s.HeadsKV == 0 || s.Heads%s.HeadsKV != 0) {
		return fmt.Errorf("attention: %d query heads is not a multiple of %d key/value heads", s.Heads, s.HeadsKV)
	}
	const maxElems = 1 << 60
	for _, n := range [][3]int{{s.Batch, s.Heads, s.SeqQ}, {s.Batch, s.HeadsKV, s.SeqKV}} {
		e := uint64(s.HeadDim)
		for _, f := range n {
			if f > 0 && e > maxElems/uint64(f) {
				return fmt.Errorf("attention: shape %+v: a tensor of 2^60 elements or more", s)
			}
			e *= uint64(f)
		}
	}
	return nil
}

// FLOPs is the arithmetic attention must do, by the convention of
// FlashAttention's benchmarks: 4·HeadDim per (query, attended key) pair
// (2 for the score, 2 for the weighted sum of V), so 4·b·h·sq·skv·d without
// masking. Under causal masking only the attended pairs count: row i
// attends min(SeqKV, max(0, i + SeqKV − SeqQ + 1)) keys (for SeqQ == SeqKV
// = s, s(s+1)/2 pairs, about half). Softmax work is not counted.
func (s AttentionShape) FLOPs() float64 {
	return 4 * float64(s.Batch) * float64(s.Heads) * float64(s.HeadDim) * float64(s.Pairs())
}

// Pairs is the number of (query row, attended key) pairs of one head.
func (s AttentionShape) Pairs() int64 {
	if !s.Causal {
		return int64(s.SeqQ) * int64(s.SeqKV)
	}
	var n int64
	off := s.SeqKV - s.SeqQ
	for i := 0; i < s.SeqQ; i++ {
		n += int64(min(s.SeqKV, max(0, i+off+1)))
	}
	return n
}

// Attended is the number of keys query row i attends.
func (s AttentionShape) Attended(i int) int {
	if !s.Causal {
		return s.SeqKV
	}
	return min(s.SeqKV, max(0, i+s.SeqKV-s.SeqQ+1))
}

// AttentionElemSize is the bytes per element of an attention dtype ("f16"
// 2, "f32" 4), 0 for another.
func AttentionElemSize(dtype string) int {
	switch dtype {
	case "f16":
		return 2
	case "f32":
		return 4
	}
	return 0
}

// MatrixShape is the shape of a fused dequant-and-product, Y = W·X: W is
// Rows rows of Cols elements of a format (Cols/BlockElems whole blocks per
// row, rows contiguous: ggml's layout), X is Batch vectors of Cols float32
// (x[b·Cols+k], ggml's src1), Y is Batch vectors of Rows float32
// (y[b·Rows+r], ggml's dst). Cols must be a whole number of blocks.
type MatrixShape struct {
	Rows, Cols, Batch int
}

// WBytes is the size of W in format f.
func (s MatrixShape) WBytes(f *formats.Format) int {
	return s.Rows * (s.Cols / f.BlockElems) * f.BlockBytes
}

// Check checks that y, w and x (nY, nW and nX long) fit a product of this
// shape in format f; what names the kernel in the error ("matvec",
// "matmul").
func (s MatrixShape) Check(what string, f *formats.Format, nY, nW, nX int) error {
	rows, cols, batch := s.Rows, s.Cols, s.Batch
	switch {
	case f == nil:
		return errors.New(what + ": nil format")
	case rows < 0 || cols < 0 || batch < 0:
		return fmt.Errorf("%s %s: negative shape %d×%d×%d", what, f.Name, rows, cols, batch)
	case cols%f.BlockElems != 0:
		return fmt.Errorf("%s %s: %d columns is not a whole number of %d-element blocks", what, f.Name, cols, f.BlockElems)
	case cols/f.BlockElems > 0 && rows > math.MaxInt/f.BlockBytes/(cols/f.BlockElems):
		return fmt.Errorf("%s %s: a %d×%d matrix is too large", what, f.Name, rows, cols)
	case batch > 0 && (cols > math.MaxInt/4/batch || rows > math.MaxInt/4/batch):
		return fmt.Errorf("%s %s: %d×%d×%d is too large", what, f.Name, rows, cols, batch)
	case nW != s.WBytes(f):
		return fmt.Errorf("%s %s: %d bytes of W, want %d for %d×%d", what, f.Name, nW, s.WBytes(f), rows, cols)
	case nX != batch*cols:
		return fmt.Errorf("%s %s: %d values of X, want %d for %d vectors of %d", what, f.Name, nX, batch*cols, batch, cols)
	case nY != batch*rows:
		return fmt.Errorf("%s %s: %d values of Y, want %d for %d vectors of %d", what, f.Name, nY, batch*rows, batch, rows)
	}
	return nil
}
