package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	gpubackend "github.com/rocmforge/forge/runtime/backend/gpu"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/specs/formats"
)

// TestMeasureFakeGPU runs the engine on the cuda backend over a fake
// kernel library (host memory, a real Q4_0 decoder, events on the host's
// clock): the device path (Resident.Run(1) per sample, forge_copy
// roofline) and the device's Meta.
func TestMeasureFakeGPU(t *testing.T) {
	lib := gputest.Build(t, gputest.Options{Name: "Fake H100", Target: "sm_90"})
	b, err := gpubackend.Open("cuda", lib, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	run, err := Measure(context.Background(), b, SuiteTargets(suitesOf(formats.Q4_0)), Options{Elems: 4096, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	m := run.Meta
	if m.Backend != "cuda" || m.Device != "Fake H100" || m.Arch != "sm_90" || m.Target != "sm_90" || m.Library != lib || m.WaveSize == 0 {
		t.Errorf("meta %+v", m)
	}
	if rf := run.Roofline; rf == nil || rf.Method != "forge_copy" || rf.Bytes != 4<<20 || rf.GBps <= 0 {
		t.Errorf("roofline %+v", run.Roofline)
	}
	if len(run.Results) != 2 {
		t.Fatalf("%d results", len(run.Results))
	}
	for _, r := range run.Results {
		// 4096 elements move far less than the 4 MiB roofline's buffer: no %copy (RooflineFor).
		if r.Stats.N != 3 || r.Stats.PctCopy != 0 || r.Elements != 4096 {
			t.Errorf("%s: %+v", r.Name, r.Stats)
		}
	}
}

// TestMeasureMatVecFakeGPU runs matvec on the fake library (a real Q4_0
// matvec): the default shapes on a device are the family's four Bench
// shapes (specs/families), each a target of its own; rotate (the default)
// holds copies of W totalling at least 2 × the fake's 1 MiB L2 and counts
// one W per launch; reuse holds one.
func TestMeasureMatVecFakeGPU(t *testing.T) {
	lib := gputest.Build(t, gputest.Options{})
	b, err := gpubackend.Open("cuda", lib, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mv := suite.Suite{Name: "matvec_f32/Q4_0", Family: "matvec", Kernel: "matvec_f32", Output: "f32", Format: formats.Q4_0}

	t.Setenv(family.MatVec.EnvShape(), "")
	ts, err := ExpandShapes(b, []Target{{Suite: mv}, {Suite: dequantSuite(formats.Q4_0, "f32")}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range ts {
		names = append(names, tg.name()+fmt.Sprint(tg.Shape))
	}
	want := []string{"matvec_f32/Q4_0/4096x4096[4096 4096]", "matvec_f32/Q4_0/4096x14336[4096 14336]", "matvec_f32/Q4_0/14336x4096[14336 4096]",
		"matvec_f32/Q4_0/output[128256 4096]", "dequant_f32/Q4_0[]"}
	if !slices.Equal(names, want) {
		t.Errorf("device targets %q, want %q", names, want)
	}

	t.Setenv(family.MatVec.EnvShape(), "64x256")
	wBytes := int64(64 * 8 * 18)
	for _, mode := range []backend.WeightMode{"", backend.WeightsRotate, backend.WeightsReuse} {
		run, err := Measure(context.Background(), b, []Target{{Suite: mv}}, Options{Count: 3, Weights: mode, CopyBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Results) != 1 {
			t.Fatalf("%d results", len(run.Results))
		}
		r := run.Results[0]
		if r.Name != "matvec_f32/Q4_0/64x256" || r.BytesRead != wBytes+4*256 || r.Stats.N != 3 {
			t.Errorf("%q: %s read %d bytes, want one W's %d + x's %d", mode, r.Name, r.BytesRead, wBytes, 4*256)
		}
		w := r.Weights
		switch {
		case w == nil:
			t.Errorf("%q: no weights recorded", mode)
		case mode == backend.WeightsReuse:
			if w.Mode != backend.WeightsReuse || w.Copies != 1 || w.TotalBytes != wBytes {
				t.Errorf("reuse: %+v", w)
			}
		default:
			if w.Mode != backend.WeightsRotate || w.Copies < 2 || w.TotalBytes < 2*(1<<20) || w.CopyBytes != wBytes || w.L2Bytes != 1<<20 {
				t.Errorf("%q: %+v, want rotate over ≥ 2 MiB", mode, w)
			}
		}
	}
}
