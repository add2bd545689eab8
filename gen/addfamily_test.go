package gen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/internal/longtest"
	"github.com/rocmforge/forge/internal/modtest"
)

// toyFamilySpec is a family that exists nowhere else: y = 2·dequant(x),
// of the blocks signature.
const toyFamilySpec = `package families

// Scale is a toy family, added by TestAddFamily: twice the dequantized
// elements.
var Scale = register(Family{
	Name:      "scale",
	Doc:       "toy: twice the dequantized blocks, f32 out",
	Signature: "blocks",
	Kernels:   []Kernel{{Name: "scale_f32", Output: "f32"}},
})
`

// toyFamilyDescriptor is its run-time half: the reference (which the cpu
// backend runs) and the descriptor, whose check compares the reference's
// row decoder with the spec's Dequant element by element, doubled.
const toyFamilyDescriptor = `package family

import (
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// scaleRef is the toy scale family's reference: 2·dequant(x).
func scaleRef(f *formats.Format, dst []float32, src []byte) error {
	if err := f.Dequantize(dst, src); err != nil {
		return err
	}
	for i := range dst {
		dst[i] *= 2
	}
	return nil
}

// Scale is the toy scale family, added by TestAddFamily.
var Scale = register(Blocks("scale", scaleRef, func(f *formats.Format, src []byte) []float32 {
	want := suite.WantF32(f, src)
	for i := range want {
		want[i] *= 2
	}
	return want
}))
`

// TestAddFamily is the promise of the family descriptor: a new kernel
// family is a spec entry, a template, a reference and a descriptor, and
// regenerating gives its kernels for every format and target, the wrappers
// and the suites; the cpu backend runs and passes them, the two halves of
// the family agree, and forgebench lists its suites (and, where hipcc is,
// one of its HIP files compiles). The template is dequant's with the value
// doubled.
func TestAddFamily(t *testing.T) {
	longtest.Skip(t, "builds and tests a copy of the module")
	dir := modtest.Copy(t)
	write := func(rel, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("specs/families/scale.go", toyFamilySpec)
	write("runtime/suite/family/scale.go", toyFamilyDescriptor)
	tmpl, err := os.ReadFile(filepath.Join(dir, "templates/hip/dequant.hip.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(tmpl), "{{$.Device.Func}}("); n != 6 {
		t.Fatalf("dequant.hip.tmpl calls the element function %d times, this test expects 6", n)
	}
	// Every value through the element function: without dequant's
	// integer-form path (familyData.Words), which does not call it.
	if n := strings.Count(string(tmpl), "$.Words"); n != 3 {
		t.Fatalf("dequant.hip.tmpl tests $.Words %d times, this test expects 3", n)
	}
	toy := strings.ReplaceAll(string(tmpl), "$.Words", "false")
	write("templates/hip/scale.hip.tmpl", strings.ReplaceAll(toy, "{{$.Device.Func}}(", "2.0f * {{$.Device.Func}}("))

	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "FORGE_BACKEND=cpu")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// The generator embeds the templates, so it runs from the copy's own
	// source, as go generate runs it (forge.go's directive; the copy holds
	// the module's folders only).
	goCmd("run", "./cmd/forgegen", "generate")
	for _, target := range []string{"gfx1100", "gfx1030", "gfx90a", "sm_90"} {
		for _, format := range []string{"q4_0", "q6_k", "f16", "mxfp4"} {
			p := "generated/hip/" + target + "/" + format + "_scale.hip"
			b, err := os.ReadFile(filepath.Join(dir, p))
			switch {
			case err != nil:
				t.Error(err)
			case !strings.Contains(string(b), "forge_scale_f32_"+format+"(") || !strings.Contains(string(b), "2.0f * forge_"):
				t.Errorf("%s does not define forge_scale_f32_%s doubling the elements", p, format)
			}
		}
	}
	// One of them compiles, for an AMD target, as .ci/hipcc-check compiles
	// device code where no ROCm device library is installed.
	t.Run("hipcc", func(t *testing.T) {
		hipcc := hiptest.HIPCC(t)
		hiptest.Run(t, filepath.Join(dir, "generated/hip/gfx1100"), hipcc, "--offload-arch=gfx1100", "--cuda-device-only", "-S", "-nogpulib",
			"-O3", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-Wno-unused-command-line-argument", "q4_k_scale.hip", "-o", filepath.Join(t.TempDir(), "q4_k_scale.s"))
	})
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if k := read("generated/kernels/kernels.go"); !strings.Contains(k, `"forge_scale_f32_q4_0"`) || !strings.Contains(k, "func (l *Library) ScaleF32Q4_0(") {
		t.Error("generated/kernels does not bind forge_scale_f32_q4_0")
	}
	if s := read("generated/suites/suites.go"); !strings.Contains(s, `"scale_f32/Q4_K"`) {
		t.Error("generated/suites does not register scale_f32/Q4_K")
	}
	if s := read("generated/suites/q4_k_test.go"); !strings.Contains(s, "func TestScaleF32Q4_K(") || !strings.Contains(s, "func BenchmarkScaleF32Q4_K(") {
		t.Error("generated/suites/q4_k_test.go has no test and benchmark of scale_f32")
	}

	// The cpu backend runs the family's suites and they pass; the
	// wrappers reach their launchers; the two halves agree.
	out := goCmd("test", "-count=1", "-v", "-run", "TestScaleF32(Q4_0|Q4_K|IQ4_XS|MXFP6_E2M3)$", "./generated/suites")
	if strings.Count(out, "--- PASS") != 4 || strings.Contains(out, "--- SKIP") {
		t.Errorf("the scale suites did not all run and pass:\n%s", out)
	}
	goCmd("test", "-count=1", "-run", "TestKernelTable|TestBlocksLaunchers", "./generated/kernels")
	goCmd("test", "-count=1", "-run", "TestDescriptorsMatchSpecs", "./runtime/suite/family")
	// forgebench lists the new suites.
	out = goCmd("run", "./cmd/forgebench", "list", "--family", "scale", "--format", "Q4_0,Q8_0")
	if !strings.Contains(out, "scale_f32/Q4_0") || !strings.Contains(out, "scale_f32/Q8_0") || !strings.Contains(out, "2 suites") {
		t.Errorf("forgebench list --family scale:\n%s", out)
	}
	// Regenerating is a no-op.
	goCmd("run", "./cmd/forgegen", "check")
}
