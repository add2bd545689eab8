package suitetest

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// MatVec makes the shim a suite.MatVecBackend: the cpu's result, with row
// current.at scaled by 1.5 when current.flip is set.
func (backendShim) MatVec(f *formats.Format, y []float32, w []byte, x []float32, rows, cols int) error {
	if err := current.Backend.MatVec(f, y, w, x, rows, cols); err != nil {
		return err
	}
	if current.flip && current.at < len(y) {
		y[current.at] = -10*y[current.at] + 10
	}
	return nil
}

func TestCheckMatVecPassesOnCPU(t *testing.T) {
	isolate(t)
	t.Setenv(suite.EnvBackend, "cpu")
	for _, f := range []*formats.Format{formats.Q4_0, formats.Q4_K, formats.F16, formats.MXFP6_E2M3} {
		if errs := run(t, func(tb testing.TB) { CheckMatVec(tb, f) }); len(errs) > 0 {
			t.Errorf("%s: %v", f.Name, errs)
		}
	}
}

// A single wrong row among 1003 is caught by the NMSE bound, and reported
// first among the worst rows.
func TestCheckMatVecFindsFaults(t *testing.T) {
	isolate(t)
	t.Setenv(suite.EnvBackend, "broken-for-test")
	current = &broken{Backend: cpu.New(0), at: 500, flip: true}
	errs := run(t, func(tb testing.TB) { CheckMatVec(tb, formats.Q4_0) })
	if len(errs) != 1 || !strings.Contains(errs[0], "Q4_0 matvec 1003×544 on broken-for-test: NMSE ") ||
		!strings.Contains(errs[0], ", 1 rows off by more than 0.001 of their magnitude") ||
		!strings.Contains(errs[0], "worst rows:\n\trow 500: got ") {
		t.Errorf("errors: %q", errs)
	}
}

func TestParseShape(t *testing.T) {
	if r, c, err := suite.ParseShape("4096x11008"); r != 4096 || c != 11008 || err != nil {
		t.Errorf("4096x11008: %d %d %v", r, c, err)
	}
	for _, bad := range []string{"", "4096", "0x5", "5x-1", "axb"} {
		if _, _, err := suite.ParseShape(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
