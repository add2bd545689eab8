package tune

import (
	"fmt"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/tuned"
)

// MatMulRunner checks and times matmul_f32 (with a candidate of the
// integer path, tuned.MatMulInt, or of F16's mma.sync path,
// tuned.MatMulHalf, forced on every batch) through a backend's
// backend.Matrix operation on a device, with suite's data, reference and
// tolerances, as forgebench runs them: a launch is the quantization of X
// and the product (and, with K split, the zeroing of Y).
type MatMulRunner struct {
	Iters int // launches per timed repetition; 0: 10
	// X8: the kernel quantizes X to 8 bits (the integer path), so the
	// check allows what that moves an entry (suite.MatMulX8Slack).
	X8 bool

	inputs inputCache
}

// MatMulCheckShapes are the correctness shapes ([rows, cols, batch]) for
// f: rows and batches that are multiples of no tile (one batch in the
// small classes, one above 64), a few blocks per row.
func MatMulCheckShapes(f *formats.Format) [][3]int {
	return [][3]int{{67, 9 * f.BlockElems, 7}, {37, 5 * f.BlockElems, 70}}
}

func (m *MatMulRunner) input(f *formats.Format, rows, cols, batch int, seed uint64) (matrixInput, error) {
	return m.inputs.get(f, []int{rows, cols, batch}, seed, func() ([]byte, []float32, error) { return suite.MatMulData(f, rows, cols, batch, seed) })
}

// Check runs f's matmul at MatMulCheckShapes against suite.MatMulRef: the
// NMSE at most suite.MatMulTolerance and every entry within
// suite.MatMulEntryTolerance of its magnitude plus what 8-bit X may move it
// (suite.MatMulX8Slack), the suites' bounds for the integer path.
func (m *MatMulRunner) Check(b backend.Backend, f *formats.Format) error {
	mb, ok := backend.MatrixOp.Of(b)
	if !ok {
		return fmt.Errorf("backend %s does not run matmul", b.Name())
	}
	for i, sh := range MatMulCheckShapes(f) {
		rows, cols, batch := sh[0], sh[1], sh[2]
		in, err := m.input(f, rows, cols, batch, uint64(200+i))
		if err != nil {
			return err
		}
		y := make([]float32, rows*batch)
		if err := mb.RunMatrix(m.kernel(f), y, in.w, in.x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: batch}); err != nil {
			return err
		}
		ref, mag := suite.MatMulRef(f, in.w, in.x, rows, cols, batch)
		bad := 0
		if m.X8 {
			bad = suite.BadEntriesX8(y, ref, mag, suite.MatMulX8Slack(f, in.w, in.x, rows, cols, batch))
		} else {
			bad = suite.BadEntries(y, ref, mag)
		}
		if nmse := suite.NMSE(y, ref); !(nmse <= suite.MatMulTolerance) || bad > 0 {
			return fmt.Errorf("%d×%d×%d: NMSE %.3g (tolerance %g), %d entries past their bound", rows, cols, batch, nmse, suite.MatMulTolerance, bad)
		}
	}
	return nil
}

// Time is the median over reps repetitions of Iters launches of the µs per
// launch at class's shape, W held as weights says.
func (m *MatMulRunner) Time(b backend.Backend, f *formats.Format, class *tuned.Class, weights backend.WeightMode, reps int) (float64, error) {
	mb, ok := backend.MatrixOp.Of(b)
	if _, dev := backend.DeviceOf(b); !ok || !dev {
		return 0, fmt.Errorf("backend %s cannot time matmul on a device", b.Name())
	}
	d := ClassDims(f, class)
	if len(d) != 3 {
		return 0, fmt.Errorf("class %s is not a matmul class (no batch)", class.Name)
	}
	rows, cols, batch := d[0], d[1], d[2]
	in, err := m.input(f, rows, cols, batch, 1)
	if err != nil {
		return 0, err
	}
	return timeMatrix(mb, m.kernel(f), in.w, in.x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: batch}, weights, m.Iters, reps)
}

// kernel is format f's matmul_f32.
func (m *MatMulRunner) kernel(f *formats.Format) backend.Kernel {
	return family.MatMul.Kernel(suite.Suite{Family: family.MatMul.Name, Kernel: tuned.MatMulInt.Kernel, Output: backend.OutputF32, Format: f})
}
