//go:build !cgo

package gpu_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/device/gpu"
)

// TestOpenWithoutCgo checks that a binary built without cgo refuses every
// library, existing or not, with an error that says why and what to do.
func TestOpenWithoutCgo(t *testing.T) {
	if err := gpu.Available(); !errors.Is(err, gpu.ErrNoCgo) {
		t.Fatalf("Available() = %v, want ErrNoCgo", err)
	}
	lib := filepath.Join(t.TempDir(), "libforge_sm_90.so")
	if err := os.WriteFile(lib, []byte("not loaded"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func() (*gpu.Device, error){
		"Open":                   func() (*gpu.Device, error) { return gpu.Open(lib, 0) },
		"Open of a missing file": func() (*gpu.Device, error) { return gpu.Open(lib+".missing", 0) },
		"OpenBackend cuda":       func() (*gpu.Device, error) { return gpu.OpenBackend("cuda", lib, 0) },
		"OpenBackend hip":        func() (*gpu.Device, error) { return gpu.OpenBackend("hip", "", 0) },
	} {
		d, err := open()
		if d != nil || !errors.Is(err, gpu.ErrNoCgo) {
			t.Errorf("%s: %v, %v; want ErrNoCgo", name, d, err)
			continue
		}
		for _, want := range []string{"gpu: this binary was built without cgo", "C compiler", "CGO_ENABLED=1 go install ./cmd/forgebench"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", name, err, want)
			}
		}
	}
	// The rest of the API is there: what a library must export, say.
	if n := len(gpu.RuntimeSymbols()); n != 22 {
		t.Errorf("%d runtime symbols, want 22", n)
	}
}
