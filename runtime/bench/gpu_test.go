package bench

import (
	"context"
	"testing"

	"github.com/rocmforge/forge/runtime/gpu/gputest"
	"github.com/rocmforge/forge/runtime/gpubackend"
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
		if r.Stats.N != 3 || r.Stats.PctCopy <= 0 || r.Elements != 4096 {
			t.Errorf("%s: %+v", r.Name, r.Stats)
		}
	}
}
