package hipgen

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/templates/hip"
)

func mustFiles(t *testing.T, s *ir.Spec) []ir.File {
	t.Helper()
	files, err := Files(s)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func byPath(files []ir.File) map[string][]byte {
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		m[f.Path] = f.Data
	}
	return m
}

// writeTree writes files under dir (paths relative to the module root).
func writeTree(t *testing.T, dir string, files []ir.File) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFilesPaths(t *testing.T) {
	s := testSpec()
	var want []string
	want = append(want, "generated/hip/forge_portability.h")
	for _, tg := range s.Targets {
		want = append(want, "generated/hip/"+tg.Name+"/"+RuntimeName)
		for _, f := range s.Formats {
			want = append(want, "generated/hip/"+tg.Name+"/"+f.Lower()+"_dequant.hip", "generated/hip/"+tg.Name+"/"+f.Lower()+"_matmul.hip", "generated/hip/"+tg.Name+"/"+f.Lower()+"_matvec.hip")
		}
	}
	sort.Strings(want)
	var got []string
	for _, f := range mustFiles(t, s) {
		got = append(got, f.Path)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func TestDeterministic(t *testing.T) {
	a := mustFiles(t, testSpec())
	b := mustFiles(t, testSpec())
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Errorf("%s: differs between two renders", a[i].Path)
		}
	}
}

// Every file starts with the generated header, then names its sources, and
// says nothing about where it was rendered.
func TestHeaders(t *testing.T) {
	s := testSpec()
	for _, f := range mustFiles(t, s) {
		lines := strings.SplitN(string(f.Data), "\n", 5)
		if lines[0] != ir.GeneratedHeader {
			t.Errorf("%s: first line %q, want %q", f.Path, lines[0], ir.GeneratedHeader)
		}
		switch {
		case strings.HasSuffix(f.Path, HeaderName):
			if lines[1] != "// Source: templates/hip/forge_portability.h (copied by gen/hipgen)" {
				t.Errorf("%s: second line %q", f.Path, lines[1])
			}
			src, err := fs.ReadFile(hip.FS, HeaderName)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(f.Data, src) {
				t.Errorf("%s: not the template header after its two header lines", f.Path)
			}
		case strings.HasSuffix(f.Path, "/"+RuntimeName):
			if !strings.HasPrefix(lines[1], "// Target:   specs/targets/") || lines[2] != "// Template: templates/hip/runtime.hip.tmpl" {
				t.Errorf("%s: source lines %q", f.Path, lines[1:3])
			}
		default:
			if !strings.HasPrefix(lines[1], "// Format:   specs/formats/") ||
				!strings.HasPrefix(lines[2], "// Target:   specs/targets/") ||
				lines[3] != "// Template: templates/hip/"+strings.TrimSuffix(path.Base(f.Path)[strings.LastIndexByte(path.Base(f.Path), '_')+1:], ".hip")+".hip.tmpl" {
				t.Errorf("%s: source lines %q", f.Path, lines[1:4])
			}
		}
		if strings.HasSuffix(f.Path, ".hip") && !bytes.Contains(f.Data, []byte("\n#include \"../forge_portability.h\"\n")) {
			t.Errorf("%s: does not include ../forge_portability.h", f.Path)
		}
		for _, bad := range []string{s.Root, os.TempDir(), "\r"} {
			if bytes.Contains(f.Data, []byte(bad)) {
				t.Errorf("%s: contains %q", f.Path, bad)
			}
		}
	}
}

// The #line directive after the translated code gives the next line its
// real number in the generated file.
func TestLineReset(t *testing.T) {
	for _, f := range mustFiles(t, testSpec()) {
		if !strings.HasSuffix(f.Path, "_dequant.hip") && !strings.HasSuffix(f.Path, "_matvec.hip") && !strings.HasSuffix(f.Path, "_matmul.hip") {
			continue
		}
		lines := strings.Split(string(f.Data), "\n")
		n := 0
		for i, l := range lines {
			if strings.HasPrefix(l, "#line ") && strings.HasSuffix(l, `"`+f.Path+`"`) {
				n++
				if want := "#line " + strconv.Itoa(i+2) + ` "` + f.Path + `"`; l != want {
					t.Errorf("%s:%d: %q, want %q", f.Path, i+1, l, want)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d #line directives naming the file, want 1", f.Path, n)
		}
		if bytes.Contains(f.Data, []byte(lineResetMark)) {
			t.Errorf("%s: lineReset mark left in", f.Path)
		}
	}
}

// The templates emit nothing that depends on the wave size: a wave64
// target's files differ from a wave32 target's only in the lines that name
// the target and its wave size. (The compile check then confirms the kernels
// are wave64 in the code object.)
func TestWaveAgnostic(t *testing.T) {
	files := byPath(mustFiles(t, testSpec()))
	norm := func(b []byte, target string, wave string) string {
		s := string(b)
		s = strings.ReplaceAll(s, target, "TARGET")
		s = strings.ReplaceAll(s, "wave"+wave, "waveW")
		s = strings.ReplaceAll(s, "FORGE_TARGET_WAVE_SIZE "+wave, "FORGE_TARGET_WAVE_SIZE W")
		return s
	}
	// matvec's files differ in their tuning (the synthetic targets' differ on
	// purpose), but hold nothing wave32-specific either.
	for _, name := range []string{"q4_0_matvec.hip", "super256_matvec.hip"} {
		src := string(files["generated/hip/gfx90a/"+name])
		for _, bad := range []string{"wavefrontsize32", "wave32", "0xffffffff", "_sync(", "WAVE_SIZE 32", "warpSize"} {
			if strings.Contains(src, bad) {
				t.Errorf("gfx90a/%s contains %q", name, bad)
			}
		}
	}
	for _, name := range []string{RuntimeName, "q4_0_dequant.hip", "super256_dequant.hip"} {
		w32 := norm(files["generated/hip/gfx1030/"+name], "gfx1030", "32")
		w64 := norm(files["generated/hip/gfx90a/"+name], "gfx90a", "64")
		if diff := cmp.Diff(w32, w64); diff != "" {
			t.Errorf("%s: gfx1030 and gfx90a differ beyond target and wave size (-gfx1030 +gfx90a):\n%s", name, diff)
		}
		// Nothing wave32-specific in the wave64 file.
		for _, bad := range []string{"wavefrontsize32", "wave32", "0xffffffff", "_sync(", "WAVE_SIZE 32", "warpSize"} {
			if strings.Contains(string(files["generated/hip/gfx90a/"+name]), bad) {
				t.Errorf("gfx90a/%s contains %q", name, bad)
			}
		}
	}
}

// The launchers' argument checks are in the rendered code (the host-build
// test in launcher_test.go runs them).
func TestLauncherText(t *testing.T) {
	files := byPath(mustFiles(t, testSpec()))
	src := string(files["generated/hip/gfx1100/q4_0_dequant.hip"])
	for _, want := range []string{
		`FORGE_EXPORT int forge_dequant_f32_q4_0(const void* src, float* dst, int64_t n_blocks, forge_stream_t stream) {`,
		`FORGE_EXPORT int forge_dequant_f16_q4_0(const void* src, uint16_t* dst, int64_t n_blocks, forge_stream_t stream) {`,
		"if (n_blocks < 0) {\n\t\treturn FORGE_ERR_INVALID;",
		"if (n_blocks == 0) {\n\t\treturn FORGE_OK;",
		"if (!src || !dst || n_blocks > forge_q4_0_max_blocks) {\n\t\treturn FORGE_ERR_INVALID;",
		`const uint32_t h2 = forge_f32x2_to_half2(forge_BlockQ4_0_Dequant(b, (int32_t)(j | c)), forge_BlockQ4_0_Dequant(b, (int32_t)(j | (c + 1))));`,
		`out.v[c] = (forge_BlockQ4_0_Dequant(b, (int32_t)(j | c)));`,
		`static constexpr uint32_t forge_q4_0_threads = 256;`,
		`static constexpr uint32_t forge_q4_0_grid_cap = 65535;`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("gfx1100/q4_0_dequant.hip lacks %q", want)
		}
	}
	mv := string(files["generated/hip/gfx1030/q4_0_matvec.hip"])
	for _, want := range []string{
		`FORGE_EXPORT int forge_matvec_f32_q4_0(const void* w, const float* x, float* y, int64_t rows, int64_t cols, forge_stream_t stream) {`,
		"if (rows < 0 || cols < 0 || cols % forge_mv_q4_0_elems != 0) {\n\t\treturn FORGE_ERR_INVALID;",
		"if (rows == 0) {\n\t\treturn FORGE_OK;",
		"if (!w || !x || !y) {\n\t\treturn FORGE_ERR_INVALID;",
		`acc[i] = fmaf(forge_BlockQ4_0_Dequant(b, (int32_t)(j | k)), xv[k], acc[i]);`,
		`acc[i] = forge_wave_sum(acc[i]);`,
		// The spec's tuning, unless a tuning build overrides it.
		"#else\n\tif (cols <= 8192) { // narrow\n\t\tforge_matvec_f32_q4_0_kernel_launch<256, 2, 8>(blocks, x, y, rows, cols, stream);\n" +
			"\t} else { // wide\n\t\tforge_matvec_f32_q4_0_kernel_launch<256, 2, 8>(blocks, x, y, rows, cols, stream);\n\t}\n#endif",
	} {
		if !strings.Contains(mv, want) {
			t.Errorf("gfx1030/q4_0_matvec.hip lacks %q", want)
		}
	}
	abi := string(files["generated/hip/gfx1100/"+RuntimeName])
	if !strings.Contains(abi, "FORGE_EXPORT int forge_abi_version(void) {\n\treturn FORGE_ABI_VERSION;") {
		t.Errorf("%s:\n%s", RuntimeName, abi)
	}
	// forge_abi_version once per target library, and only there.
	re := regexp.MustCompile(`int forge_abi_version\(`)
	for p, b := range files {
		n := len(re.FindAll(b, -1))
		if want := map[bool]int{true: 1, false: 0}[path.Base(p) == RuntimeName]; n != want {
			t.Errorf("%s: defines forge_abi_version %d times, want %d", p, n, want)
		}
	}
}

// Each runtime symbol is defined once per target library, in its
// RuntimeName and nowhere else, and declared by the portability header; the
// header's device-info struct is the 416-byte layout the Go side reads.
func TestRuntimeText(t *testing.T) {
	s := testSpec()
	files := byPath(mustFiles(t, s))
	hdr := string(files["generated/hip/"+HeaderName])
	for _, sym := range RuntimeSymbols {
		def := regexp.MustCompile(`(?m)^FORGE_EXPORT (int|const char\*) ` + sym + `\([^;]*\) \{$`)
		decl := regexp.MustCompile(`(?m)^FORGE_EXPORT (int|const char\*) ` + sym + `\([^{]*\);`)
		if sym != "forge_abi_version" && !decl.MatchString(hdr) {
			t.Errorf("%s: not declared in %s", sym, HeaderName)
		}
		for p, b := range files {
			n := len(def.FindAll(b, -1))
			if want := map[bool]int{true: 1, false: 0}[path.Base(p) == RuntimeName]; n != want {
				t.Errorf("%s: defines %s %d times, want %d", p, sym, n, want)
			}
		}
	}
	for _, want := range []string{
		fmt.Sprintf("\n#define FORGE_ABI_VERSION %d\n", abi.ABIVersion), // what the Go side's Bind and Open accept
		`static_assert(sizeof(forge_device_info) == 416, "forge_device_info: 416 bytes");`,
		"\tint32_t pad;",
		"\tuint64_t l2_bytes;",
	} {
		if !strings.Contains(hdr, want) {
			t.Errorf("%s lacks %q", HeaderName, want)
		}
	}
	for _, tg := range s.Targets {
		rt := string(files["generated/hip/"+tg.Name+"/"+RuntimeName])
		for _, want := range []string{
			"#define FORGE_TARGET \"" + tg.Name + "\"\n",
			"static constexpr uint32_t forge_copy_grid_cap = 65535;",
		} {
			if !strings.Contains(rt, want) {
				t.Errorf("%s/%s lacks %q", tg.Name, RuntimeName, want)
			}
		}
	}
}

// templatesWith is the embedded templates with some files replaced.
func templatesWith(t *testing.T, repl map[string]string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	entries, err := fs.ReadDir(hip.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := fs.ReadFile(hip.FS, e.Name())
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = &fstest.MapFile{Data: b}
	}
	for name, src := range repl {
		if src == "" {
			delete(m, name)
		} else {
			m[name] = &fstest.MapFile{Data: []byte(src)}
		}
	}
	return m
}

func TestMissingKey(t *testing.T) {
	for _, tmpl := range []string{
		"{{.Header}}\n{{.Nope}}\n",        // a field the data lacks
		"{{.Header}}\n{{.Format.Nope}}\n", // a field of a spec type
		"{{.Header}}\n{{index .Kernels 0}}{{(index .Kernels 0).Nope}}\n",
		"{{.Header}}\n{{with $m := dict}}{{end}}\n", // an unknown function: a parse error
	} {
		_, err := render(templatesWith(t, map[string]string{"dequant.hip.tmpl": tmpl}), testSpec())
		if err == nil {
			t.Errorf("template %q: no error", tmpl)
			continue
		}
		if !strings.Contains(err.Error(), "dequant") {
			t.Errorf("template %q: error does not name the template or file: %v", tmpl, err)
		}
	}
	// missingkey=error: a map key the data lacks is an error, not "<no value>".
	tmpl, err := parse(templatesWith(t, map[string]string{"x.tmpl": "{{.a}}{{.b}}"}), "x.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := execute(tmpl, "x", map[string]string{"a": "1"}); err == nil {
		t.Errorf("missing map key rendered %q", b)
	}
}

// Every problem is reported, each naming its file, and no files come back.
func TestErrorsCollected(t *testing.T) {
	s := testSpec()
	s.Formats[1].Device = nil // IQ4_NL: untranslated
	s.Families = append(s.Families, &ir.Family{Family: families.Family{Name: "softmax", Kernels: []families.Kernel{{Name: "softmax_f32", Output: "f32"}}}})
	files, err := Files(s)
	if err == nil || files != nil {
		t.Fatalf("files %d, err %v", len(files), err)
	}
	msg := err.Error()
	for _, want := range []string{
		"generated/hip/gfx1030/iq4_nl_dequant.hip: format IQ4_NL has no device code",
		"generated/hip/sm_90/iq4_nl_dequant.hip: format IQ4_NL has no device code",
		"generated/hip/gfx1030/iq4_nl_matvec.hip: format IQ4_NL has no device code",
		"family softmax: template templates/hip/softmax.hip.tmpl:",
		"generated/hip/gfx1030/iq4_nl_matmul.hip: format IQ4_NL has no device code",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}

	s = testSpec()
	s.Families[0].Kernels = append(s.Families[0].Kernels, families.Kernel{Name: "dequant_bf16", Output: "bf16"})
	if _, err := Files(s); err == nil || !strings.Contains(err.Error(), `unknown output type "bf16"`) {
		t.Errorf("bf16 output: %v", err)
	}

	_, err = render(templatesWith(t, map[string]string{HeaderName: ""}), testSpec())
	if err == nil || !strings.Contains(err.Error(), "generated/hip/forge_portability.h") {
		t.Errorf("missing header: %v", err)
	}
}
