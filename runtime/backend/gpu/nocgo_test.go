//go:build !cgo

package gpu_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	_ "github.com/rocmforge/forge/runtime/backend/cpu" // auto falls back to it
	"github.com/rocmforge/forge/runtime/device/gpu"
)

// TestBackendsWithoutCgo checks what a binary built without cgo does when
// a GPU backend is asked for: it fails, saying that the binary was built
// without cgo and how to build one with it, whether or not a library is
// named; auto runs on the cpu and says why.
func TestBackendsWithoutCgo(t *testing.T) {
	for _, tc := range []struct{ backend, lib string }{{"cuda", ""}, {"hip", ""}, {"cuda", "build/libforge_sm_90.so"}} {
		s, err := backend.Select(tc.backend, tc.lib)
		if s != nil || !errors.Is(err, gpu.ErrNoCgo) {
			t.Errorf("Select(%q, %q) = %v, %v; want ErrNoCgo", tc.backend, tc.lib, s, err)
			continue
		}
		for _, want := range []string{"backend " + tc.backend + ": this binary was built without cgo", "CGO_ENABLED=1"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Select(%q, %q): %q lacks %q", tc.backend, tc.lib, err, want)
			}
		}
	}
	if got := backend.Backends(); !strings.Contains(strings.Join(got, " "), "cuda hip") {
		t.Errorf("Backends() = %v: cuda and hip must stay known names", got)
	}
	s, err := backend.Select(backend.AutoBackend, "")
	if err != nil || s.Name != "cpu" {
		t.Fatalf("auto: %+v, %v; want cpu", s, err)
	}
	if !strings.Contains(s.Why, "built without cgo") {
		t.Errorf("auto's reason %q does not say the binary was built without cgo", s.Why)
	}
}
