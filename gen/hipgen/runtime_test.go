package hipgen

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
)

// TestRuntimeHost runs the generated runtime ABI on the host, without a
// GPU: gfx1100's forge_runtime.hip, compiled host-only into
// testdata/runtime_main.hip, is linked with testdata/rtstub.cc, a stand-in
// HIP runtime compiled against HIP's own API header. runtime_main checks
// every forge_rt_* function (argument checks, device selection on every
// thread, device info, synchronous copies, error plumbing) and forge_copy:
// its launches are performed on the host by the kernel's own loop body for
// every thread of the grid, over every relative alignment of src and dst
// and sizes around every boundary of the split.
func TestRuntimeHost(t *testing.T) {
	hipcc := hiptest.HIPCC(t)
	cxx := hiptest.CXX(t)
	tmp := t.TempDir()
	writeTree(t, tmp, mustFiles(t, testSpec()))
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	runtime := filepath.Join(tmp, "generated", "hip", "gfx1100", RuntimeName)
	hiptest.Run(t, tmp, cxx, "-O1", "-D__HIP_PLATFORM_AMD__", "-Wall", "-Wextra", "-Werror",
		"-c", filepath.Join(testdata, "rtstub.cc"), "-o", "rtstub.o")
	hiptest.Run(t, tmp, hipcc, "--offload-arch=gfx1100", "--cuda-host-only", "-x", "hip", "-O1",
		"-Wall", "-Wextra", "-Werror", "-Wno-unused-command-line-argument",
		"-DFORGE_RUNTIME_HIP=\""+runtime+"\"", "-I", testdata,
		"-c", filepath.Join(testdata, "runtime_main.hip"), "-o", "runtime_main.o")
	hiptest.Run(t, tmp, cxx, "-pthread", "runtime_main.o", "rtstub.o", "-o", "runtime_main")
	out := hiptest.Run(t, tmp, "./runtime_main")
	t.Logf("runtime_main:\n%s", out)
	if !regexp.MustCompile(`(?m)^PASS \d+\n?$`).MatchString(out) || strings.Contains(out, "FAIL") {
		t.Fatalf("runtime_main did not pass:\n%s", out)
	}
}
