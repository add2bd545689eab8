package cpu_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// MatVec agrees with a row-by-row float64 dot product of the spec's
// dequantized rows (to float32 rounding), whatever the worker count, and
// refuses shapes that do not fit.
func TestMatVec(t *testing.T) {
	for _, f := range []*formats.Format{formats.Q4_0, formats.Q4_K, formats.F16} {
		rows, cols := 203, 24*256/f.BlockElems*f.BlockElems // rows split unevenly across workers
		if f.BlockElems == 1 {
			cols = 517
		}
		vals := testInputs(rows * cols)
		w := make([]byte, rows*cols/f.BlockElems*f.BlockBytes)
		if err := cpu.New(0).Quantize(f, w, vals); err != nil {
			t.Fatal(err)
		}
		x := testInputs(cols + 7)[7:]
		deq := make([]float32, rows*cols)
		if err := f.Dequantize(deq, w); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 3, 8} {
			y := make([]float32, rows)
			if err := cpu.New(workers).MatVec(f, y, w, x, rows, cols); err != nil {
				t.Fatal(err)
			}
			for r := range rows {
				var s float64
				for k := range cols {
					s += float64(deq[r*cols+k]) * float64(x[k])
				}
				if y[r] != float32(s) && !(math.IsNaN(float64(y[r])) && math.IsNaN(s)) {
					t.Errorf("%s, %d workers: row %d: %g, want %g", f.Name, workers, r, y[r], float32(s))
					break
				}
			}
		}
	}
	b := cpu.New(2)
	f := formats.Q4_0
	for _, c := range []struct {
		nY, nW, nX, rows, cols int
		want                   string
	}{
		{1, 18, 33, 1, 33, "33 columns is not a whole number of 32-element blocks"},
		{1, 18, 32, -1, 32, "negative shape"},
		{2, 18, 32, 1, 32, "2 values of Y, want 1"},
		{1, 17, 32, 1, 32, "17 bytes of W, want 18"},
	} {
		err := b.MatVec(f, make([]float32, c.nY), make([]byte, c.nW), make([]float32, c.nX), c.rows, c.cols)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if err := b.MatVec(f, nil, nil, make([]float32, 64), 0, 64); err != nil {
		t.Errorf("0 rows: %v", err)
	}
	y := []float32{7, 7}
	if err := b.MatVec(f, y, nil, nil, 2, 0); err != nil || y[0] != 0 || y[1] != 0 {
		t.Errorf("0 columns: %v, y %v", err, y)
	}
}

// The matvec_x8 kernels on the cpu: x quantized by formats.QuantizeX8 and
// each row dotted by the spec's integer form, within suite.MatVecX8Tolerance
// of the float64 reference on odd shapes of enough rows and every row
// within its quantization bound, the same whatever the worker
// count; a format without the integer form, a batch, and cols that are not
// whole groups of 32 are refused.
func TestMatVecX8(t *testing.T) {
	for _, f := range []*formats.Format{formats.Q4_0, formats.Q8_0, formats.Q4_K} {
		if !f.HasIntForm() {
			t.Errorf("%s has no integer form", f.Name)
			continue
		}
		k := backend.Kernel{Family: "matvec", Name: "matvec_x8", Signature: cpu.SignatureMatVecX8, Output: "f32", Format: f}
		for _, sh := range []struct{ rows, blocks int }{{37, 3}, {1003, 17}, {1, 5}, {64, 1}, {1, 1}, {3, 1}, {2, 2}} {
			rows, cols := sh.rows, sh.blocks*f.BlockElems
			w, x, err := suite.MatVecData(f, rows, cols, suite.Seed(f.Name)+uint64(rows))
			if err != nil {
				t.Fatal(err)
			}
			ref, _ := suite.MatVecRef(f, w, x, rows, cols)
			var first []float32
			for _, workers := range []int{1, 3} {
				y := make([]float32, rows)
				if err := cpu.New(workers).RunMatrix(k, y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}); err != nil {
					t.Fatal(err)
				}
				if nmse := suite.NMSE(y, ref); rows >= suite.MatVecX8MinRows && !(nmse <= suite.MatVecX8Tolerance) {
					t.Errorf("%s %d×%d, %d workers: NMSE %g, bound %g", f.Name, rows, cols, workers, nmse, suite.MatVecX8Tolerance)
				}
				if bad := suite.BadRowsX8(y, ref, suite.MatVecX8Bounds(f, w, x, rows, cols)); bad > 0 {
					t.Errorf("%s %d×%d, %d workers: %d rows past their quantization bound", f.Name, rows, cols, workers, bad)
				}
				if first == nil {
					first = y
				} else if !slices.Equal(first, y) {
					t.Errorf("%s %d×%d: %d workers give another y than 1", f.Name, rows, cols, workers)
				}
			}
		}
	}
	b := cpu.New(2)
	x8 := func(f *formats.Format) backend.Kernel {
		return backend.Kernel{Family: "matvec", Name: "matvec_x8", Signature: cpu.SignatureMatVecX8, Output: "f32", Format: f}
	}
	for _, c := range []struct {
		f               *formats.Format
		rows, cols, bat int
		want            string
	}{
		{formats.F16, 1, 32, 1, "F16: the format has no integer form"},
		{formats.Q4_0, 1, 32, 2, "takes one vector, not 2"},
		{formats.Q4_0, 1, 33, 1, "not a whole number of 32-element blocks"},
	} {
		w := make([]byte, c.rows*c.cols/c.f.BlockElems*c.f.BlockBytes)
		s := backend.MatrixShape{Rows: c.rows, Cols: c.cols, Batch: c.bat}
		err := b.RunMatrix(x8(c.f), make([]float32, c.rows*c.bat), w, make([]float32, c.cols*c.bat), s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error containing %q", c.f.Name, s, err, c.want)
		}
		if _, _, err := b.PrepareMatrix(x8(c.f), w, make([]float32, c.cols*c.bat), s, backend.WeightsReuse); err == nil {
			t.Errorf("%s %v: PrepareMatrix accepted it", c.f.Name, s)
		}
	}
}
