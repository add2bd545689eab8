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
	"github.com/rocmforge/forge/internal/modtest"
)

// includeDir is a directory holding the stand-in forge_portability.h
// (testdata) with the real header's integer-form intrinsics spliced in.
func includeDir(t *testing.T) string {
	t.Helper()
	hdr, err := os.ReadFile(filepath.Join(modtest.Root(t), "templates", "hip", "forge_portability.h"))
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "// Integer-form intrinsics", "\n// ----"
	i := strings.Index(string(hdr), from)
	j := strings.Index(string(hdr[i+1:]), to)
	if i < 0 || j < 0 {
		t.Fatalf("forge_portability.h: no %q section", from)
	}
	section := string(hdr[i : i+1+j])
	stand, err := os.ReadFile(filepath.Join("testdata", "forge_portability.h"))
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(stand), "// FORGE_INT_INTRINSICS", section, 1)
	if out == string(stand) {
		t.Fatal("testdata/forge_portability.h has no // FORGE_INT_INTRINSICS marker")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "forge_portability.h"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// unit is one translated block type compiled into a test harness.
type unit struct {
	name  string // Go block type
	dev   *ir.Device
	elems int // Dequant is called for j in [0, elems)
	sub   int // the integer form's sub-block, when dev.Int is set
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
	b.WriteString("\t}\n\tabort();\n}\n")
	// The integer form: Codes, Scale and Offset (0 without one) of units
	// that have it.
	b.WriteString("static uint32_t codes(int unit, const unsigned char* p, int32_t w) {\n\tswitch (unit) {\n")
	for i, u := range units {
		if u.dev.Int != nil {
			fmt.Fprintf(&b, "\tcase %d: return u%d::%s((const u%d::%s*)p, w);\n", i, i, u.dev.Int.Codes, i, u.dev.Block)
		}
	}
	b.WriteString("\t}\n\tabort();\n}\nstatic float scale(int unit, const unsigned char* p, int32_t s, int off) {\n\tswitch (unit) {\n")
	for i, u := range units {
		if in := u.dev.Int; in != nil {
			offset := "0.0f"
			if in.Offset != "" {
				offset = fmt.Sprintf("u%d::%s((const u%d::%s*)p, s)", i, in.Offset, i, u.dev.Block)
			}
			fmt.Fprintf(&b, "\tcase %d: return off ? %s : u%d::%s((const u%d::%s*)p, s);\n", i, offset, i, in.Scale, i, u.dev.Block)
		}
	}
	b.WriteString(`	}
	abort();
}
static int sub_of(int unit) {
	static const int subs[] = {`)
	for _, u := range units {
		fmt.Fprintf(&b, "%d, ", u.sub)
	}
	b.WriteString(`0};
	return subs[unit];
}
// harness UNIT ELEMS IN OUT [int]: Dequant of every element of every block,
// or with "int", per block Codes of every word (uint32), then Scale and
// Offset of every sub-block (float bits).
int main(int argc, char** argv) {
	if (argc != 5 && argc != 6) return 2;
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
		if (argc == 6) {
			for (int32_t w = 0; w < elems / 4; w++) {
				uint32_t c = codes(unit, buf + off, w);
				fwrite(&c, 4, 1, out);
			}
			for (int32_t s = 0; s < elems / sub_of(unit); s++) {
				float v[2] = {scale(unit, buf + off, s, 0), scale(unit, buf + off, s, 1)};
				fwrite(v, 4, 2, out);
			}
			continue;
		}
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
	inc := includeDir(t)
	args := []string{"-std=c++17", "-O1", "-ffp-contract=off", "-fsanitize=undefined", "-fno-sanitize-recover=all",
		"-Wall", "-Werror", "-Wno-unused-function", "-Wno-unused-parameter", "-I", inc, "-o", exe, src}
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cxx, strings.Join(args, " "), err, out)
	}
	return exe
}

// runHost dequantizes raw blocks with unit i of the harness exe, or with
// mode "int" returns the integer form's words (see harnessSource).
func runHost(t *testing.T, exe string, i int, u unit, raw []byte, mode ...string) []float32 {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{fmt.Sprint(i), fmt.Sprint(u.elems), in, out}, mode...)
	if o, err := exec.Command(exe, args...).CombinedOutput(); err != nil {
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
	inc := includeDir(t)
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
