package hipgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/internal/longtest"
)

// TestHipccCheck renders the synthetic spec and compiles every file with
// .ci/hipcc-check, as CI does for generated/hip: each AMD file for its own
// target, with warnings as errors, and the wave size of every kernel checked
// in the assembly. (Minutes of hipcc: a long test. TestHipccCheckFails
// runs the script by default.)
func TestHipccCheck(t *testing.T) {
	hiptest.HIPCC(t)
	longtest.Skip(t, "hipcc-check on every file of the synthetic spec")
	s := testSpec()
	tmp := t.TempDir()
	files := mustFiles(t, s)
	writeTree(t, tmp, files)
	out, ok := hiptest.Check(t, filepath.Join(tmp, "generated", "hip"))
	t.Logf("hipcc-check:\n%s", out)
	if !ok {
		t.Fatal("hipcc-check failed")
	}
	intForm := map[string]bool{} // lower-case format names with an integer form
	for _, f := range s.Formats {
		if f.Device != nil && f.Device.Int != nil {
			intForm[f.Lower()] = true
		}
	}
	for _, f := range files {
		rel, ok := strings.CutPrefix(f.Path, "generated/hip/")
		if !ok || !strings.HasSuffix(rel, ".hip") {
			continue
		}
		target := strings.Split(rel, "/")[0]
		var want string
		switch {
		case strings.HasPrefix(target, "sm_"):
			want = `(ok|skip) .*  ` + regexp.QuoteMeta(rel) + `  `
		default:
			kernels, wave := "8", "32" // dequant_f32 and dequant_f16, each with vector or element stores and 32- or 64-bit indexing
			if strings.HasSuffix(rel, "/"+RuntimeName) {
				kernels = "1" // forge_copy
			}
			if strings.HasSuffix(rel, "_matvec.hip") {
				kernels = "3" // matvec_f32: 32-bit indexing with and without 16-byte loads, 64-bit indexing
				if intForm[strings.TrimSuffix(filepath.Base(rel), "_matvec.hip")] {
					kernels = "6" // and matvec_x8: 32-bit indexing with and without 16-byte x loads, 64-bit indexing
				}
			}
			if strings.HasSuffix(rel, "_matmul.hip") {
				kernels = "1" // matmul_f32's generic path (the split-K zeroing kernel is the tensor-core path's)
			}
			if target == "gfx90a" {
				wave = "64"
			}
			want = `ok .*  ` + regexp.QuoteMeta(rel) + `  .*; ` + kernels + ` kernels, wave` + wave + `\)`
		}
		if !regexp.MustCompile(`(?m)^` + want).MatchString(out) {
			t.Errorf("no line matching %q", want)
		}
	}
}

// The check fails, naming each bad file with the compiler's message, for a
// compile error and for kernels whose wave size is not the file's.
func TestHipccCheckFails(t *testing.T) {
	hiptest.HIPCC(t)
	tmp := t.TempDir()
	files := map[string]string{
		// A compile error.
		"gfx1030/syntax.hip": "#define FORGE_TARGET_WAVE_SIZE 32\n#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = nope; }\n",
		// A warning, which is an error.
		"gfx1030/warning.hip": "#define FORGE_TARGET_WAVE_SIZE 32\n#include <hip/hip_runtime.h>\n__global__ void k(int* p) { int unused; p[0] = 1; }\n",
		// Kernels of the wrong wave size (no portability header to catch it).
		"gfx1030/wave64.hip": "#define FORGE_TARGET_WAVE_SIZE 64\n#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n",
		"gfx90a/wave32.hip":  "#define FORGE_TARGET_WAVE_SIZE 32\n#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n",
		"gfx1100/wave64.hip": "#define FORGE_TARGET_WAVE_SIZE 64\n#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n",
		// No declared wave size.
		"gfx1100/nowave.hip": "#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n",
		// And one good file, which passes.
		"gfx1100/good.hip": "#define FORGE_TARGET_WAVE_SIZE 32\n#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = 1; }\n",
	}
	for name, src := range files {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, ok := hiptest.Check(t, tmp)
	t.Logf("hipcc-check:\n%s", out)
	if ok {
		t.Fatal("hipcc-check passed")
	}
	for _, want := range []string{
		`(?m)^ok .*  gfx1100/good\.hip  `,
		`(?m)^FAIL .*  gfx1030/syntax\.hip  (.|\n)*use of undeclared identifier 'nope'`,
		`(?m)^FAIL .*  gfx1030/warning\.hip  (.|\n)*unused variable 'unused' \[-Werror`,
		`(?m)^FAIL .*  gfx1030/wave64\.hip  (.|\n)*1 of 1 kernels are wave32, want none`,
		`(?m)^FAIL .*  gfx90a/wave32\.hip  (.|\n)*0 of 1 kernels are wave32, want all`,
		`(?m)^FAIL .*  gfx1100/wave64\.hip  (.|\n)*1 of 1 kernels are wave32, want none`,
		`(?m)^FAIL .*  gfx1100/nowave\.hip  (.|\n)*no '#define FORGE_TARGET_WAVE_SIZE N' line`,
		`(?m)^== hipcc-check .*: 7 files, 1 ok, 6 failed, 0 skipped`,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output does not match %q", want)
		}
	}
}
