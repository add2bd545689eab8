// Package cpu is forge's always-available backend: it runs the format specs
// themselves (the Go reference implementations in specs/formats) across
// goroutines, so every suite runs on any machine and its results are, by
// construction, the reference values.
package cpu

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/rocmforge/forge/specs/formats"
)

// minChunkElems keeps each goroutine's share large enough that scheduling
// costs stay negligible next to the decoding (≥ 64 KiB of output for 32-element blocks).
const minChunkElems = 16 << 10

// Backend dequantizes and quantizes on the host CPU.
type Backend struct {
	workers int
}

// New returns a backend using workers goroutines; workers <= 0 means GOMAXPROCS.
func New(workers int) *Backend {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &Backend{workers: workers}
}

// Name is the backend's name as forgebench spells it.
func (*Backend) Name() string { return "cpu" }

// Workers is the number of goroutines a call may use.
func (b *Backend) Workers() int { return b.workers }

// Dequantize decodes a whole tensor of format f: src holds whole blocks and
// dst receives their elements, in ggml's element order.
func (b *Backend) Dequantize(f *formats.Format, dst []float32, src []byte) error {
	if err := b.check(f, len(dst), len(src)); err != nil {
		return err
	}
	b.parallel(f, len(src)/f.BlockBytes, func(lo, hi int) {
		// Sizes were checked above; a chunk of whole blocks cannot fail.
		_ = f.Dequantize(dst[lo*f.BlockElems:hi*f.BlockElems], src[lo*f.BlockBytes:hi*f.BlockBytes])
	})
	return nil
}

// DequantizeF16 decodes a whole tensor of format f to IEEE binary16 bits
// (round to nearest even, as the f16 dequant kernels do).
func (b *Backend) DequantizeF16(f *formats.Format, dst []uint16, src []byte) error {
	if err := b.check(f, len(dst), len(src)); err != nil {
		return err
	}
	// Decode through a small float32 buffer that stays in L1, a few blocks at a time.
	step := max(1, 4096/f.BlockElems)
	b.parallel(f, len(src)/f.BlockBytes, func(lo, hi int) {
		tmp := make([]float32, step*f.BlockElems)
		for i := lo; i < hi; i += step {
			n := min(step, hi-i)
			t := tmp[:n*f.BlockElems]
			_ = f.Dequantize(t, src[i*f.BlockBytes:(i+n)*f.BlockBytes])
			out := dst[i*f.BlockElems : (i+n)*f.BlockElems]
			for k, v := range t {
				out[k] = uint16(formats.HalfFromFloat32(v))
			}
		}
	})
	return nil
}

// Quantize encodes a whole tensor with f's reference quantizer.
func (b *Backend) Quantize(f *formats.Format, dst []byte, src []float32) error {
	if err := b.check(f, len(src), len(dst)); err != nil {
		return err
	}
	b.parallel(f, len(dst)/f.BlockBytes, func(lo, hi int) {
		_ = f.Quantize(dst[lo*f.BlockBytes:hi*f.BlockBytes], src[lo*f.BlockElems:hi*f.BlockElems])
	})
	return nil
}

func (b *Backend) check(f *formats.Format, nElems, nBytes int) error {
	if f == nil {
		return fmt.Errorf("cpu: nil format")
	}
	if err := f.CheckSizes(nElems, nBytes); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	return nil
}

// parallel splits [0, blocks) into at most b.workers contiguous chunks and
// runs fn on each, returning when all are done.
func (b *Backend) parallel(f *formats.Format, blocks int, fn func(lo, hi int)) {
	minBlocks := max(1, minChunkElems/f.BlockElems)
	n := min(b.workers, (blocks+minBlocks-1)/minBlocks)
	if n <= 1 {
		if blocks > 0 {
			fn(0, blocks)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range n {
		lo, hi := blocks*w/n, blocks*(w+1)/n
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}

// MatVec computes y = W·x: w holds rows rows of cols elements of f
// (cols/BlockElems whole blocks per row, rows contiguous: ggml's layout),
// x holds cols values, y receives rows values. Rows are shared out across
// the goroutines; each row is decoded by the spec a few blocks at a time
// (a buffer that stays in L1) and dotted with x in float64, rounded to
// float32 once at the end, so the cpu backend's y is the reference's to
// within that one rounding.
func (b *Backend) MatVec(f *formats.Format, y []float32, w []byte, x []float32, rows, cols int) error {
	if f == nil {
		return fmt.Errorf("cpu: nil format")
	}
	if rows < 0 || cols < 0 || cols%f.BlockElems != 0 {
		return fmt.Errorf("cpu: matvec %s: shape %d×%d: want non-negative sizes, cols a whole number of %d-element blocks", f.Name, rows, cols, f.BlockElems)
	}
	rowBlocks := cols / f.BlockElems
	if rowBlocks > 0 && rows > math.MaxInt/f.BlockBytes/rowBlocks {
		return fmt.Errorf("cpu: matvec %s: a %d×%d matrix is too large", f.Name, rows, cols)
	}
	rowBytes := rowBlocks * f.BlockBytes
	if len(w) != rows*rowBytes || len(x) != cols || len(y) != rows {
		return fmt.Errorf("cpu: matvec %s %d×%d: got %d bytes of W, %d of x, %d of y; want %d, %d, %d",
			f.Name, rows, cols, len(w), len(x), len(y), rows*rowBytes, cols, rows)
	}
	step := max(1, 4096/f.BlockElems) // blocks decoded at a time
	// Split by rows, at least minChunkElems elements of W per goroutine.
	minRows := max(1, minChunkElems/max(1, cols))
	n := min(b.workers, (rows+minRows-1)/minRows)
	work := func(lo, hi int) {
		tmp := make([]float32, min(step, max(1, rowBlocks))*f.BlockElems)
		for r := lo; r < hi; r++ {
			row := w[r*rowBytes : (r+1)*rowBytes]
			var s float64
			for blk := 0; blk < rowBlocks; blk += step {
				nb := min(step, rowBlocks-blk)
				t := tmp[:nb*f.BlockElems]
				// Sizes were checked above; whole blocks cannot fail.
				_ = f.Dequantize(t, row[blk*f.BlockBytes:(blk+nb)*f.BlockBytes])
				xs := x[blk*f.BlockElems:]
				for k, v := range t {
					s += float64(v) * float64(xs[k])
				}
			}
			y[r] = float32(s)
		}
	}
	if n <= 1 {
		work(0, rows)
		return nil
	}
	var wg sync.WaitGroup
	for i := range n {
		lo, hi := rows*i/n, rows*(i+1)/n
		wg.Go(func() { work(lo, hi) })
	}
	wg.Wait()
	return nil
}

// MatMul computes Y = W·X: w holds rows rows of cols elements of f (as for
// MatVec), x holds batch vectors of cols values (x[b·cols+k]), y receives
// batch vectors of rows values (y[b·rows+r]). Rows are shared out across
// the goroutines; each row is decoded by the spec once and dotted with
// every vector in float64, rounded to float32 once at the end.
func (b *Backend) MatMul(f *formats.Format, y []float32, w []byte, x []float32, rows, cols, batch int) error {
	if f == nil {
		return fmt.Errorf("cpu: nil format")
	}
	if rows < 0 || cols < 0 || batch < 0 || cols%f.BlockElems != 0 {
		return fmt.Errorf("cpu: matmul %s: shape %d×%d×%d: want non-negative sizes, cols a whole number of %d-element blocks", f.Name, rows, cols, batch, f.BlockElems)
	}
	rowBlocks := cols / f.BlockElems
	if rowBlocks > 0 && rows > math.MaxInt/f.BlockBytes/rowBlocks || batch > 0 && (cols > math.MaxInt/batch || rows > math.MaxInt/batch) {
		return fmt.Errorf("cpu: matmul %s: %d×%d×%d is too large", f.Name, rows, cols, batch)
	}
	rowBytes := rowBlocks * f.BlockBytes
	if len(w) != rows*rowBytes || len(x) != batch*cols || len(y) != batch*rows {
		return fmt.Errorf("cpu: matmul %s %d×%d×%d: got %d bytes of W, %d of X, %d of Y; want %d, %d, %d",
			f.Name, rows, cols, batch, len(w), len(x), len(y), rows*rowBytes, batch*cols, batch*rows)
	}
	if batch == 0 {
		return nil
	}
	// Split by rows, at least minChunkElems multiply-adds per goroutine.
	minRows := max(1, minChunkElems/max(1, cols*batch))
	n := min(b.workers, (rows+minRows-1)/minRows)
	work := func(lo, hi int) {
		row := make([]float32, cols)
		for r := lo; r < hi; r++ {
			// Sizes were checked above; whole blocks cannot fail.
			_ = f.Dequantize(row, w[r*rowBytes:(r+1)*rowBytes])
			for bi := range batch {
				xs := x[bi*cols : (bi+1)*cols]
				var s float64
				for k, v := range row {
					s += float64(v) * float64(xs[k])
				}
				y[bi*rows+r] = float32(s)
			}
		}
	}
	if n <= 1 {
		work(0, rows)
		return nil
	}
	var wg sync.WaitGroup
	for i := range n {
		lo, hi := rows*i/n, rows*(i+1)/n
		wg.Go(func() { work(lo, hi) })
	}
	wg.Wait()
	return nil
}
