package tune

import (
	"fmt"
	"sort"
	"sync"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/tuned"
)

// MatVecRunner checks and times one of the matvec family's kernels through
// a backend's backend.Matrix operation on a device, with suite's data,
// reference and tolerances, as forgebench runs them: matvec_x8's launch is
// the pair of the activations' quantization and the matvec.
type MatVecRunner struct {
	Kernel string // "matvec_f32" (also when ""), "matvec_x8"
	Iters  int    // launches per timed repetition; 0: 10

	mu   sync.Mutex
	data map[string]matVecInput
}

type matVecInput struct {
	w []byte
	x []float32
}

// MatVecCheckShapes are the correctness shapes for f: rows that are not a
// multiple of any Rows candidate, a few blocks per row (scalar formats: an
// odd column count, so the tail runs).
func MatVecCheckShapes(f *formats.Format) [][2]int {
	if f.BlockElems == 1 {
		return [][2]int{{67, 301}, {5, 1037}}
	}
	return [][2]int{{67, 9 * f.BlockElems}, {5, 33 * f.BlockElems}}
}

func (m *MatVecRunner) input(f *formats.Format, rows, cols int, seed uint64) (matVecInput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := fmt.Sprintf("%s/%dx%d/%d", f.Name, rows, cols, seed)
	if in, ok := m.data[key]; ok {
		return in, nil
	}
	w, x, err := suite.MatVecData(f, rows, cols, seed)
	if err != nil {
		return matVecInput{}, err
	}
	if m.data == nil {
		m.data = map[string]matVecInput{}
	}
	m.data[key] = matVecInput{w, x}
	return m.data[key], nil
}

// Check runs f's matvec at MatVecCheckShapes against suite.MatVecRef: the
// NMSE must be at most suite.MatVecTolerance and no row bad (suite.BadRows);
// for matvec_x8, the NMSE at most suite.MatVecX8Tolerance (over at least
// suite.MatVecX8MinRows rows) and every row within its quantization bound
// (suite.BadRowsX8).
func (m *MatVecRunner) Check(b backend.Backend, f *formats.Format) error {
	mb, ok := backend.MatrixOp.Of(b)
	if !ok {
		return fmt.Errorf("backend %s does not run matvec", b.Name())
	}
	for i, sh := range MatVecCheckShapes(f) {
		rows, cols := sh[0], sh[1]
		in, err := m.input(f, rows, cols, uint64(100+i))
		if err != nil {
			return err
		}
		y := make([]float32, rows)
		if err := mb.RunMatrix(m.kernel(f), y, in.w, in.x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}); err != nil {
			return err
		}
		ref, mag := suite.MatVecRef(f, in.w, in.x, rows, cols)
		if m.x8() {
			nmse, bad := suite.NMSE(y, ref), suite.BadRowsX8(y, ref, suite.MatVecX8Bounds(f, in.w, in.x, rows, cols))
			if !(rows < suite.MatVecX8MinRows || nmse <= suite.MatVecX8Tolerance) || bad > 0 {
				return fmt.Errorf("%d×%d: NMSE %.3g (tolerance %g), %d rows past their quantization bound", rows, cols, nmse, suite.MatVecX8Tolerance, bad)
			}
			continue
		}
		if nmse, bad := suite.NMSE(y, ref), suite.BadRows(y, ref, mag); !(nmse <= suite.MatVecTolerance) || bad > 0 {
			return fmt.Errorf("%d×%d: NMSE %.3g (tolerance %g), %d bad rows", rows, cols, nmse, suite.MatVecTolerance, bad)
		}
	}
	return nil
}

// Time is the median over reps repetitions of Iters launches of the µs per
// launch at class's shape, W held as weights says (rotate: copies beyond
// the L2, backend.WeightPlan).
func (m *MatVecRunner) Time(b backend.Backend, f *formats.Format, class *tuned.Class, weights backend.WeightMode, reps int) (float64, error) {
	mb, ok := backend.MatrixOp.Of(b)
	if _, dev := backend.DeviceOf(b); !ok || !dev {
		return 0, fmt.Errorf("backend %s cannot time matvec on a device", b.Name())
	}
	rows, cols := ClassShape(f, class)
	in, err := m.input(f, rows, cols, 1)
	if err != nil {
		return 0, err
	}
	r, _, err := mb.PrepareMatrix(m.kernel(f), in.w, in.x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}, weights)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	iters := m.Iters
	if iters <= 0 {
		iters = 10
	}
	if _, err := r.Run(3); err != nil { // warm up
		return 0, err
	}
	us := make([]float64, 0, reps)
	for range max(1, reps) {
		d, err := r.Run(iters)
		if err != nil {
			return 0, err
		}
		us = append(us, float64(d.Nanoseconds())/1e3/float64(iters))
	}
	sort.Float64s(us)
	return us[len(us)/2], nil
}

func (m *MatVecRunner) x8() bool { return m.Kernel == tuned.MatVecX8.Kernel }

// kernel is format f's kernel the runner checks and times.
func (m *MatVecRunner) kernel(f *formats.Format) backend.Kernel {
	name := m.Kernel
	if name == "" {
		name = tuned.MatVec.Kernel
	}
	return family.MatVec.Kernel(suite.Suite{Family: family.MatVec.Name, Kernel: name, Output: backend.OutputF32, Format: f})
}
