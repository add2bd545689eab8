package gpu_test

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	gpubackend "github.com/rocmforge/forge/runtime/backend/gpu"
	dev "github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// TestLibrary is the runtime's smoke test of one kernel library: the real
// one $FORGE_LIB names when set (on a GPU machine:
// FORGE_LIB=$PWD/build/libforge_sm_90.so ./gpu.test -test.run Library -test.v),
// else a fake. It checks device info, memory, an out-of-memory error that
// leaves the device usable, Q4_0 decoding from many threads at once, and
// event timing of forge_copy.
func TestLibrary(t *testing.T) {
	lib := os.Getenv(backend.EnvLib)
	if lib == "" {
		lib = gputest.Build(t, gputest.Options{})
	}
	s, err := backend.Select(backend.AutoBackend, lib)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := s.Backend.(*gpubackend.Backend)
	if !ok {
		t.Fatalf("auto chose %s for %s", s.Name, lib)
	}
	d := b.Device()
	info := d.Info()
	t.Logf("%s: %s", s.Why, info)
	if info.WaveSize <= 0 || info.ComputeUnits <= 0 || info.TotalMem == 0 || info.Name == "" || info.Target == "" {
		t.Errorf("implausible device info: %+v", info)
	}
	free, total, err := d.MemInfo()
	if err != nil || free > total || total == 0 {
		t.Errorf("MemInfo = %d, %d, %v", free, total, err)
	}

	// Out of memory is an error wrapping ErrOutOfMemory, and the next
	// launch is not blamed for it.
	if _, err := d.Malloc(total + 1<<30); !errors.Is(err, dev.ErrOutOfMemory) {
		t.Errorf("Malloc(total + 1 GiB): %v, want ErrOutOfMemory", err)
	} else {
		t.Logf("Malloc(total + 1 GiB): %v", err)
	}
	checkQ4_0(t, b, 4099)

	// Many goroutines, each on a fresh OS thread.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			checkQ4_0(t, b, 1003)
		})
	}
	wg.Wait()

	// forge_copy timed with device events, over 256 MiB (less on a small fake).
	n := min(256<<20, int64(total/4))
	r, err := b.PrepareCopy(n)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Run(2); err != nil {
		t.Fatal(err)
	}
	dt, err := r.Run(10)
	if err != nil || dt <= 0 || dt > time.Minute {
		t.Fatalf("10 copies of %d MiB: %v, %v", n>>20, dt, err)
	}
	t.Logf("forge_copy of %d MiB: %.1f GB/s (read + written), %v per copy; memory peak %.0f GB/s",
		n>>20, 2*float64(n)*10/dt.Seconds()/1e9, dt/10, info.PeakBandwidth()/1e9)
	t.Logf("caching allocator: %v", d.Memory().Stats())
}

func checkQ4_0(t *testing.T, b *gpubackend.Backend, nBlocks int) {
	f := formats.Q4_0
	src, err := suite.QuantizedBlocks(f, nBlocks, suite.Seed(f.Name))
	if err != nil {
		t.Error(err)
		return
	}
	got := make([]float32, nBlocks*f.BlockElems)
	if err := b.Dequantize(f, got, src); err != nil {
		t.Error(err)
		return
	}
	if n, first := suite.CompareF32(f, got, suite.WantF32(f, src), 3); n > 0 {
		t.Errorf("Q4_0 f32: %d of %d elements differ from the spec: %v", n, len(got), first)
	}
	got16 := make([]uint16, len(got))
	if err := b.DequantizeF16(f, got16, src); err != nil {
		t.Error(err)
		return
	}
	if n, first := suite.CompareF16(f, got16, suite.WantF16(f, src), 3); n > 0 {
		t.Errorf("Q4_0 f16: %d of %d elements differ from the spec: %v", n, len(got), first)
	}
}
