package translate_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/gen/ir"
)

// unit is one translated block type compiled into a test harness.
type unit struct {
	name  string // Go block type
	dev   *ir.Device
	elems int // Dequant is called for j in [0, elems)
}

// harnessSource is one C++ translation unit holding every unit's Code in a
// namespace of its own (helpers such as forge_scaleK4 appear in several),
// the portability stand-in, and, for the host, a main that dequantizes a
// file of blocks: harness UNIT ELEMS IN OUT. For the device it instead
// holds one kernel per unit, so that every Dequant is code-generated.
func harnessSource(units []unit, device bool) string {
	var b strings.Builder
	b.WriteString("#include \"forge_portability.h\"\n")
	if !device {
		b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n")
	}
	for i, u := range units {
		fmt.Fprintf(&b, "namespace u%d {\n%s}\n", i, u.dev.Code)
	}
	b.WriteString("#line 1 \"harness\"\n")
	if device {
		for i, u := range units {
			fmt.Fprintf(&b, "__global__ void k_%s(const u%d::%s* src, float* dst, int n) {\n"+
				"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"+
				"\tif (i < n) dst[i] = u%d::%s(src + i / %d, i %% %d);\n}\n",
				u.name, i, u.dev.Block, i, u.dev.Func, u.elems, u.elems)
		}
		return b.String()
	}
	b.WriteString("static const int sizes[] = {")
	for i, u := range units {
		fmt.Fprintf(&b, "(int)sizeof(u%d::%s), ", i, u.dev.Block)
	}
	b.WriteString("0};\nstatic float dequant(int unit, const unsigned char* p, int32_t j) {\n\tswitch (unit) {\n")
	for i, u := range units {
		fmt.Fprintf(&b, "\tcase %d: return u%d::%s((const u%d::%s*)p, j);\n", i, i, u.dev.Func, i, u.dev.Block)
	}
	b.WriteString(`	}
	abort();
}
int main(int argc, char** argv) {
	if (argc != 5) return 2;
	int unit = atoi(argv[1]), elems = atoi(argv[2]);
	FILE* in = fopen(argv[3], "rb");
	if (!in) return 3;
	fseek(in, 0, SEEK_END);
	long n = ftell(in);
	fseek(in, 0, SEEK_SET);
	unsigned char* buf = (unsigned char*)malloc(n + 1);
	if (fread(buf, 1, n, in) != (size_t)n) return 4;
	fclose(in);
	FILE* out = fopen(argv[4], "wb");
	if (!out) return 5;
	for (long off = 0; off + sizes[unit] <= n; off += sizes[unit]) {
		for (int32_t j = 0; j < elems; j++) {
			float v = dequant(unit, buf + off, j);
			fwrite(&v, 4, 1, out);
		}
	}
	return fclose(out) == 0 ? 0 : 6;
}
`)
	return b.String()
}

// hostCompiler is the C++ compiler for the execution tests, or "".
func hostCompiler() string {
	for _, c := range []string{os.Getenv("CXX"), "g++", "clang++"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

// buildHost compiles the host harness for units with contraction off and
// the undefined-behaviour sanitizer trapping, so that any signed overflow
// or oversized shift the translation let through fails the test.
func buildHost(t *testing.T, units []unit) string {
	t.Helper()
	cxx := hostCompiler()
	if cxx == "" {
		t.Skip("no host C++ compiler (g++ or clang++, or $CXX); skipping the execution test")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "harness.cc")
	if err := os.WriteFile(src, []byte(harnessSource(units, false)), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "harness")
	inc, _ := filepath.Abs("testdata")
	args := []string{"-std=c++17", "-O1", "-ffp-contract=off", "-fsanitize=undefined", "-fno-sanitize-recover=all",
		"-Wall", "-Werror", "-Wno-unused-function", "-Wno-unused-parameter", "-I", inc, "-o", exe, src}
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cxx, strings.Join(args, " "), err, out)
	}
	return exe
}

// runHost dequantizes raw blocks with unit i of the harness exe.
func runHost(t *testing.T, exe string, i int, u unit, raw []byte) []float32 {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := exec.Command(exe, fmt.Sprint(i), fmt.Sprint(u.elems), in, out).CombinedOutput(); err != nil {
		t.Fatalf("%s: harness: %v\n%s", u.name, err, o)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	fl := make([]float32, len(data)/4)
	for k := range fl {
		fl[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*k:]))
	}
	return fl
}

// compareBits reports every element (up to a few) whose bits differ.
func compareBits(t *testing.T, what string, got, want []float32, elems int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d floats, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for k := range got {
		if g, w := math.Float32bits(got[k]), math.Float32bits(want[k]); g != w {
			if bad++; bad <= 5 {
				t.Errorf("%s: block %d element %d: C++ %g (%#08x), Go %g (%#08x)", what, k/elems, k%elems, got[k], g, want[k], w)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d elements differ in all", what, bad)
	}
}

// compileDevice compiles units for gfx1030 (device code only) and returns
// the assembly.
func compileDevice(t *testing.T, units []unit, extra ...string) string {
	t.Helper()
	hc := hiptest.HIPCC(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "harness.hip")
	if err := os.WriteFile(src, []byte(harnessSource(units, true)), 0o644); err != nil {
		t.Fatal(err)
	}
	inc, _ := filepath.Abs("testdata")
	asm := filepath.Join(dir, "harness.s")
	args := append([]string{"--cuda-device-only", "-S", "--offload-arch=gfx1030", "-O3", "-Werror", "-Wno-unused-command-line-argument",
		"-I", inc, "-o", asm}, extra...)
	args = append(args, src)
	cmd := exec.Command(hc, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", hc, strings.Join(args, " "), err, out)
	}
	data, err := os.ReadFile(asm)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
