package gpu_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	_ "github.com/rocmforge/forge/runtime/backend/cpu" // auto falls back to it
	gpubackend "github.com/rocmforge/forge/runtime/backend/gpu"
	dev "github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/runtime/device/gpu/gputest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

func openFake(t *testing.T, o gputest.Options) (*gpubackend.Backend, string) {
	t.Helper()
	lib := gputest.Build(t, o)
	b, err := gpubackend.Open("cuda", lib, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, lib
}

func TestDequantizeRoundTrip(t *testing.T) {
	b, _ := openFake(t, gputest.Options{})
	f := formats.Q4_0
	for _, src := range [][]byte{mustQuantize(t, f, 1003), suite.RandomBlocks(f, 517, 3)} {
		got := make([]float32, len(src)/f.BlockBytes*f.BlockElems)
		if err := b.Dequantize(f, got, src); err != nil {
			t.Fatal(err)
		}
		if n, first := suite.CompareF32(f, got, suite.WantF32(f, src), 5); n > 0 {
			t.Errorf("f32: %d elements differ from the spec: %v", n, first)
		}
		got16 := make([]uint16, len(got))
		if err := b.DequantizeF16(f, got16, src); err != nil {
			t.Fatal(err)
		}
		if n, first := suite.CompareF16(f, got16, suite.WantF16(f, src), 5); n > 0 {
			t.Errorf("f16: %d elements differ from the spec: %v", n, first)
		}
	}
	st := b.Device().Memory().Stats()
	if st.InUse != 0 || st.Allocs != 8 || st.CacheHits == 0 || st.Frees != 8 {
		t.Errorf("after 4 calls: %v", st)
	}
	if err := b.Dequantize(f, nil, nil); err != nil {
		t.Errorf("0 blocks: %v", err)
	}
	if err := b.Dequantize(f, make([]float32, 31), make([]byte, 18)); err == nil {
		t.Error("a short output was accepted")
	}
}

func mustQuantize(t *testing.T, f *formats.Format, n int) []byte {
	src, err := suite.QuantizedBlocks(f, n, suite.Seed(f.Name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestDequantizeErrors(t *testing.T) {
	b, _ := openFake(t, gputest.Options{MemLimit: 1 << 20})
	f := formats.Q4_K
	err := b.Dequantize(f, make([]float32, 256), make([]byte, f.BlockBytes))
	for _, s := range []string{"Q4_K dequant_f32 on cuda", "forge_dequant_f32_q4_k: returned 98", "fake: launcher not implemented"} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("unimplemented launcher: %v, want %q", err, s)
		}
	}
	// 10000 Q4_0 blocks: 180 KB in, 1.28 MB out, past the 1 MiB device.
	f = formats.Q4_0
	err = b.Dequantize(f, make([]float32, 10000*32), make([]byte, 10000*18))
	if !errors.Is(err, dev.ErrOutOfMemory) || !strings.Contains(err.Error(), "Q4_0 dequant_f32 on cuda: devmem: allocating") {
		t.Errorf("too large for the device: %v, want ErrOutOfMemory", err)
	}
	if st := b.Device().Memory().Stats(); st.InUse != 0 || st.Failures != 1 {
		t.Errorf("after the failure: %v", st)
	}
}

func TestResident(t *testing.T) {
	b, _ := openFake(t, gputest.Options{})
	if b.L2Bytes() != 1<<20 || !strings.Contains(b.Describe(), "forge fake GPU") {
		t.Errorf("L2Bytes %d, Describe %q", b.L2Bytes(), b.Describe())
	}
	r, err := b.PrepareDequant(formats.Q4_0, "f16", mustQuantize(t, formats.Q4_0, 64))
	if err != nil {
		t.Fatal(err)
	}
	if dt, err := r.Run(3); err != nil || dt <= 0 {
		t.Errorf("Run(3) = %v, %v", dt, err)
	}
	if _, err := r.Run(0); err == nil {
		t.Error("Run(0) succeeded")
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	c, err := b.PrepareCopy(3 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if dt, err := c.Run(2); err != nil || dt <= 0 {
		t.Errorf("copy Run(2) = %v, %v", dt, err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if st := b.Device().Memory().Stats(); st.InUse != 0 {
		t.Errorf("buffers left after Close: %v", st)
	}
	for _, bad := range []func() error{
		func() error { _, err := b.PrepareDequant(formats.Q4_0, "f8", make([]byte, 18)); return err },
		func() error { _, err := b.PrepareDequant(formats.Q4_0, "f32", make([]byte, 17)); return err },
		func() error { _, err := b.PrepareCopy(0); return err },
	} {
		if bad() == nil {
			t.Error("a bad Prepare succeeded")
		}
	}
}

func TestRegistered(t *testing.T) {
	nv := gputest.Build(t, gputest.Options{})
	amd := gputest.Build(t, gputest.Options{Vendor: "amd", Target: "gfx1100"})
	if got := backend.LibraryBackends(); !slices.Contains(got, "cuda") || !slices.Contains(got, "hip") {
		t.Fatalf("LibraryBackends() = %v, want cuda and hip", got)
	}
	for _, tc := range []struct{ name, lib, want, err string }{
		{"cuda", nv, "cuda", ""},
		{"auto", nv, "cuda", ""},
		{"auto", amd, "hip", ""},
		{"hip", amd, "hip", ""},
		{"hip", nv, "", "use backend cuda"},
	} {
		s, err := backend.Select(tc.name, tc.lib)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Select(%s, %s): %v, want an error containing %q", tc.name, tc.lib, err, tc.err)
			}
		case err != nil:
			t.Errorf("Select(%s, %s): %v", tc.name, tc.lib, err)
		case s.Name != tc.want || s.Backend.Name() != tc.want:
			t.Errorf("Select(%s, %s) = %s", tc.name, tc.lib, s.Name)
		default:
			if _, ok := s.Backend.(*gpubackend.Backend); !ok {
				t.Errorf("Select(%s, %s) = %T", tc.name, tc.lib, s.Backend)
			}
		}
	}
	t.Setenv(gpubackend.EnvDevice, "x")
	if _, err := backend.Select("cuda", gputest.Build(t, gputest.Options{})); err == nil || !strings.Contains(err.Error(), `$FORGE_DEVICE="x"`) {
		t.Errorf("FORGE_DEVICE=x: %v", err)
	}
}

// TestAutoFindsLibrary puts a fake library where auto looks (build/ in the
// working directory) and then one whose device is missing.
func TestAutoFindsLibrary(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	lib := filepath.Join(dir, "build", "libforge_sm_90.so")
	gputest.BuildAt(t, lib, gputest.Options{Name: "found fake"})
	s, err := backend.Select("auto", "")
	if err != nil || s.Name != "cuda" || s.Lib != lib || !strings.Contains(s.Why, "auto: backend cuda with "+lib+" (found)") {
		t.Fatalf("Select(auto) = %+v, %v", s, err)
	}
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	gputest.BuildAt(t, filepath.Join(dir, "build", "libforge_sm_89.so"), gputest.Options{Target: "sm_89", NoDevice: true})
	s, err = backend.Select("auto", "")
	if err != nil || s.Name != "cpu" || !strings.Contains(s.Why, "using cpu") || !strings.Contains(s.Why, "no CUDA-capable device is detected") {
		t.Errorf("Select(auto) with a library but no device = %+v, %v", s, err)
	}
}
