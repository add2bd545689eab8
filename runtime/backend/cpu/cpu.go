// Package cpu is forge's always-available backend: it runs the format specs
// themselves (the Go reference implementations in specs/formats) and the
// kernel families' references across goroutines, so every suite runs on
// any machine and its results are, by construction, the reference values.
// Importing it registers the backend as "cpu" with runtime/backend.
//
// It also holds the host references that are the cpu's own: attention
// (AttentionRef) and the model glue (glue.go).
package cpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/rocmforge/forge/internal/parallel"
	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

func init() {
	backend.Register("cpu", func() (backend.Backend, error) { return New(0), nil })
}

// minChunkElems keeps each goroutine's share large enough that scheduling
// costs stay negligible next to the decoding (≥ 64 KiB of output for 32-element blocks).
const minChunkElems = 16 << 10

// Backend runs kernels on the host CPU.
type Backend struct {
	workers int
}

var (
	_ backend.Blocks    = (*Backend)(nil)
	_ backend.Matrix    = (*Backend)(nil)
	_ backend.Attention = (*Backend)(nil)
)

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

// dequant is the dequant family's reference: the spec's own row decoder.
func dequant(f *formats.Format, dst []float32, src []byte) error { return f.Dequantize(dst, src) }

// Dequantize decodes a whole tensor of format f: src holds whole blocks and
// dst receives their elements, in ggml's element order.
func (b *Backend) Dequantize(f *formats.Format, dst []float32, src []byte) error {
	return b.blocks(f, dequant, dst, nil, src)
}

// DequantizeF16 decodes a whole tensor of format f to IEEE binary16 bits
// (round to nearest even, as the f16 dequant kernels do).
func (b *Backend) DequantizeF16(f *formats.Format, dst []uint16, src []byte) error {
	return b.blocks(f, dequant, nil, dst, src)
}

// RunBlocks runs k's family's reference over whole blocks: the cpu's
// blocks kernels are their references, run in parallel.
func (b *Backend) RunBlocks(k backend.Kernel, ref backend.BlockRef, dst []float32, src []byte) error {
	return b.blocks(k.Format, ref, dst, nil, src)
}

// RunBlocksF16 is RunBlocks rounded to binary16.
func (b *Backend) RunBlocksF16(k backend.Kernel, ref backend.BlockRef, dst []uint16, src []byte) error {
	return b.blocks(k.Format, ref, nil, dst, src)
}

// PrepareBlocks holds src and an output buffer; each run is one RunBlocks
// (or RunBlocksF16), timed with the wall clock.
func (b *Backend) PrepareBlocks(k backend.Kernel, ref backend.BlockRef, src []byte) (backend.Resident, error) {
	f := k.Format
	if f == nil || len(src) == 0 || len(src)%f.BlockBytes != 0 {
		return nil, fmt.Errorf("cpu: %s: want a positive number of whole blocks, have %d bytes", k, len(src))
	}
	n := len(src) / f.BlockBytes * f.BlockElems
	switch k.Output {
	case backend.OutputF32:
		dst := make([]float32, n)
		return hostResident(func() error { return b.blocks(f, ref, dst, nil, src) }), nil
	case backend.OutputF16:
		dst := make([]uint16, n)
		return hostResident(func() error { return b.blocks(f, ref, nil, dst, src) }), nil
	}
	return nil, fmt.Errorf("cpu: %s: unknown output %q", k, k.Output)
}

// blocks runs ref over the whole blocks in src into dst32, or, rounded to
// binary16, into dst16 (decoding a few blocks at a time through a float32
// buffer that stays in L1), split across the goroutines.
func (b *Backend) blocks(f *formats.Format, ref backend.BlockRef, dst32 []float32, dst16 []uint16, src []byte) error {
	nElems := len(dst32)
	if dst16 != nil {
		nElems = len(dst16)
	}
	if err := b.check(f, nElems, len(src)); err != nil {
		return err
	}
	var errMu sync.Mutex
	var errs []error
	fail := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	step := max(1, 4096/f.BlockElems)
	parallel.Chunks(len(src)/f.BlockBytes, b.workers, max(1, minChunkElems/f.BlockElems), func(lo, hi int) {
		if dst16 == nil {
			if err := ref(f, dst32[lo*f.BlockElems:hi*f.BlockElems], src[lo*f.BlockBytes:hi*f.BlockBytes]); err != nil {
				fail(err)
			}
			return
		}
		tmp := make([]float32, step*f.BlockElems)
		for i := lo; i < hi; i += step {
			n := min(step, hi-i)
			t := tmp[:n*f.BlockElems]
			if err := ref(f, t, src[i*f.BlockBytes:(i+n)*f.BlockBytes]); err != nil {
				fail(err)
				return
			}
			out := dst16[i*f.BlockElems : (i+n)*f.BlockElems]
			for k, v := range t {
				out[k] = uint16(formats.HalfFromFloat32(v))
			}
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("cpu: %s: %w", f.Name, errors.Join(errs...))
	}
	return nil
}

// Quantize encodes a whole tensor with f's reference quantizer.
func (b *Backend) Quantize(f *formats.Format, dst []byte, src []float32) error {
	if err := b.check(f, len(src), len(dst)); err != nil {
		return err
	}
	parallel.Chunks(len(dst)/f.BlockBytes, b.workers, max(1, minChunkElems/f.BlockElems), func(lo, hi int) {
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

// MatVec computes y = W·x (RunMatrix with one vector).
func (b *Backend) MatVec(f *formats.Format, y []float32, w []byte, x []float32, rows, cols int) error {
	return b.matrix("matvec", f, y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1})
}

// MatMul computes Y = W·X for batch vectors (RunMatrix).
func (b *Backend) MatMul(f *formats.Format, y []float32, w []byte, x []float32, rows, cols, batch int) error {
	return b.matrix("matmul", f, y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: batch})
}

// RunMatrix computes Y = W·X (backend.MatrixShape has the layout). Rows
// are shared out across the goroutines; each row is decoded by the spec a
// few blocks at a time (a buffer that stays in L1) and dotted with every
// vector in float64, in column order, rounded to float32 once at the end,
// so the cpu backend's Y is the reference's to within that one rounding.
//
// A kernel of the matvec_x8 signature runs on the format's integer form
// instead (matVecX8).
func (b *Backend) RunMatrix(k backend.Kernel, y []float32, w []byte, x []float32, s backend.MatrixShape) error {
	if k.Signature == SignatureMatVecX8 {
		return b.matVecX8(k, y, w, x, s)
	}
	return b.matrix(k.Family, k.Format, y, w, x, s)
}

// checkX8 refuses what a matvec_x8 kernel cannot compute: a bad shape, a
// batch, a format without the integer form, cols not whole groups of 32.
func checkX8(k backend.Kernel, s backend.MatrixShape, nY, nW, nX int) error {
	f := k.Format
	what := "cpu: " + k.Name
	if err := s.Check(what, f, nY, nW, nX); err != nil {
		return err
	}
	switch {
	case s.Batch != 1:
		return fmt.Errorf("%s %s: a matvec kernel takes one vector, not %d", what, f.Name, s.Batch)
	case !f.HasIntForm():
		return fmt.Errorf("%s %s: the format has no integer form", what, f.Name)
	case s.Cols%32 != 0:
		return fmt.Errorf("%s %s: %d columns is not a multiple of 32, the activations' quantization groups", what, f.Name, s.Cols)
	}
	return nil
}

// SignatureMatVecX8 is the C signature (specs/families) of the matvec
// kernels on a format's integer form.
const SignatureMatVecX8 = "matvec_x8"

// matVecX8 is y = W·x as the matvec_x8 kernels compute it: x quantized
// once to 8 bits per 32 elements (formats.QuantizeX8, what
// glue_quantize_x8 writes on a device), then each row dotted with it by
// the spec's integer form (Format.DotX8), the rows shared out across the
// goroutines. Its error against the float reference is the activations'
// quantization's.
func (b *Backend) matVecX8(k backend.Kernel, y []float32, w []byte, x []float32, s backend.MatrixShape) error {
	if err := checkX8(k, s, len(y), len(w), len(x)); err != nil {
		return err
	}
	f := k.Format
	xq := formats.QuantizeX8(x)
	rowBytes := s.Cols / f.BlockElems * f.BlockBytes
	parallel.Chunks(s.Rows, b.workers, max(1, minChunkElems/max(1, s.Cols)), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			y[r] = f.DotX8(w[r*rowBytes:(r+1)*rowBytes], xq)
		}
	})
	return nil
}

func (b *Backend) matrix(what string, f *formats.Format, y []float32, w []byte, x []float32, s backend.MatrixShape) error {
	if err := s.Check("cpu: "+what, f, len(y), len(w), len(x)); err != nil {
		return err
	}
	rows, cols, batch := s.Rows, s.Cols, s.Batch
	if batch == 0 {
		return nil
	}
	rowBlocks := cols / f.BlockElems
	rowBytes := rowBlocks * f.BlockBytes
	step := max(1, 4096/f.BlockElems) // blocks decoded at a time
	// Split by rows, at least minChunkElems multiply-adds per goroutine.
	parallel.Chunks(rows, b.workers, max(1, minChunkElems/max(1, cols*batch)), func(lo, hi int) {
		tmp := make([]float32, min(step, max(1, rowBlocks))*f.BlockElems)
		sums := make([]float64, batch)
		for r := lo; r < hi; r++ {
			row := w[r*rowBytes : (r+1)*rowBytes]
			clear(sums)
			for blk := 0; blk < rowBlocks; blk += step {
				nb := min(step, rowBlocks-blk)
				t := tmp[:nb*f.BlockElems]
				// Sizes were checked above; whole blocks cannot fail.
				_ = f.Dequantize(t, row[blk*f.BlockBytes:(blk+nb)*f.BlockBytes])
				for bi := range batch {
					xs := x[bi*cols+blk*f.BlockElems:]
					sum := sums[bi]
					for k, v := range t {
						sum += float64(v) * float64(xs[k])
					}
					sums[bi] = sum
				}
			}
			for bi, sum := range sums {
				y[bi*rows+r] = float32(sum)
			}
		}
	})
	return nil
}

// PrepareMatrix holds w, x and y; each run is one RunMatrix, timed with
// the wall clock. W is one host buffer whatever mode asks (WeightsReuse).
func (b *Backend) PrepareMatrix(k backend.Kernel, w []byte, x []float32, s backend.MatrixShape, mode backend.WeightMode) (backend.Resident, backend.Weights, error) {
	if err := s.Check("cpu: "+k.Family, k.Format, s.Batch*s.Rows, len(w), len(x)); err != nil {
		return nil, backend.Weights{}, err
	}
	if k.Signature == SignatureMatVecX8 {
		if err := checkX8(k, s, s.Batch*s.Rows, len(w), len(x)); err != nil {
			return nil, backend.Weights{}, err
		}
	}
	y := make([]float32, s.Batch*s.Rows)
	r := hostResident(func() error { return b.RunMatrix(k, y, w, x, s) })
	return r, backend.WeightPlan(backend.WeightsReuse, int64(len(w)), 0, 0), nil
}

// PrepareAttention holds q, k, v and o; each run is one Attention, timed
// with the wall clock.
func (b *Backend) PrepareAttention(dtype string, s backend.AttentionShape, q, k, v []float32) (backend.Resident, error) {
	if backend.AttentionElemSize(dtype) == 0 {
		return nil, fmt.Errorf("attention: dtype %q: want f16 or f32", dtype)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if len(q) != s.QElems() || len(k) != s.KVElems() || len(v) != s.KVElems() {
		return nil, fmt.Errorf("attention: shape %+v needs q of %d values and k and v of %d; have %d, %d, %d", s, s.QElems(), s.KVElems(), len(q), len(k), len(v))
	}
	o := make([]float32, s.QElems())
	return hostResident(func() error { return b.Attention(dtype, s, q, k, v, o) }), nil
}

// hostResident is a host computation run again and again, timed with the
// wall clock.
type hostResident func() error

func (r hostResident) Run(n int) (time.Duration, error) {
	if n < 1 {
		return 0, fmt.Errorf("cpu: Run(%d): want at least one run", n)
	}
	start := time.Now()
	for range n {
		if err := r(); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

func (hostResident) Close() error { return nil }
