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

	inputs inputCache
}

// inputCache keeps a runner's generated inputs (W and X) by format, shape
// and seed, so that each class's data is made once per run.
type inputCache struct {
	mu   sync.Mutex
	data map[string]matrixInput
}

type matrixInput struct {
	w []byte
	x []float32
}

// get returns the input of f at dims and seed, made by gen the first time.
func (c *inputCache) get(f *formats.Format, dims []int, seed uint64, gen func() ([]byte, []float32, error)) (matrixInput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := fmt.Sprintf("%s/%s/%d", f.Name, suite.ShapeName(dims...), seed)
	if in, ok := c.data[key]; ok {
		return in, nil
	}
	w, x, err := gen()
	if err != nil {
		return matrixInput{}, err
	}
	if c.data == nil {
		c.data = map[string]matrixInput{}
	}
	c.data[key] = matrixInput{w, x}
	return c.data[key], nil
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

func (m *MatVecRunner) input(f *formats.Format, rows, cols int, seed uint64) (matrixInput, error) {
	return m.inputs.get(f, []int{rows, cols}, seed, func() ([]byte, []float32, error) { return suite.MatVecData(f, rows, cols, seed) })
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
	return timeMatrix(mb, m.kernel(f), in.w, in.x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}, weights, m.Iters, reps)
}

// timeMatrix is the median over reps repetitions of iters launches (0:
// 10) of k's µs per launch at shape s, after three launches of warm-up,
// W held as weights says (rotate: copies beyond the L2, backend.WeightPlan).
func timeMatrix(mb backend.Matrix, k backend.Kernel, w []byte, x []float32, s backend.MatrixShape, weights backend.WeightMode, iters, reps int) (float64, error) {
	r, _, err := mb.PrepareMatrix(k, w, x, s, weights)
	if err != nil {
		return 0, err
	}
	defer r.Close()
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
