package cpu_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend/cpu"
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
