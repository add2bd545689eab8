package tune

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/tuned"
)

// The runner checks the kernel its family names, with that kernel's
// tolerance: matvec_x8 on the cpu backend (the spec's integer form, x
// quantized to 8 bits) passes the x8 check, matvec_f32 its own.
func TestMatVecRunnerKernel(t *testing.T) {
	be := cpu.New(2)
	for _, f := range []*formats.Format{formats.Q4_0, formats.Q4_K} {
		x8 := &MatVecRunner{Kernel: tuned.MatVecX8.Kernel}
		if k := x8.kernel(f); k.Name != "matvec_x8" || k.Signature != "matvec_x8" {
			t.Errorf("%s: kernel %+v", f.Name, k)
		}
		if err := x8.Check(be, f); err != nil {
			t.Errorf("%s matvec_x8: %v", f.Name, err)
		}
		f32 := &MatVecRunner{}
		if k := f32.kernel(f); k.Name != "matvec_f32" {
			t.Errorf("%s: default kernel %+v", f.Name, k)
		}
		if err := f32.Check(be, f); err != nil {
			t.Errorf("%s matvec_f32: %v", f.Name, err)
		}
	}
	// The cpu backend has no device to time on.
	if _, err := (&MatVecRunner{Kernel: "matvec_x8"}).Time(be, formats.Q4_0, &tuned.MatVecX8.Classes[0], "rotate", 1); err == nil || !strings.Contains(err.Error(), "cannot time matvec on a device") {
		t.Errorf("Time on the cpu: %v", err)
	}
}
