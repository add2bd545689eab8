package hipgen_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rocmforge/forge/gen"
	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/internal/modtest"
)

// The host-emulation tests (TestMatMulKernelHost, TestMatVecKernelHost,
// TestAttentionKernelHost, TestGlueKernelHost, TestDequantKernelHost) compile generated kernel
// files, as rendered from the real specs, with a plain C++ compiler
// against testdata/emu.h (a stand-in for forge_portability.h that runs
// workgroups of threads on the host), link each with its family's main
// (testdata/<family>_emu_main.cc, whose shared part is
// testdata/emu_main.h), run the executables on files of inputs and compare
// the outputs with the Go references. emuHost is what they share.

// rendered is the real specs' render, done once for the tests that need it.
var rendered struct {
	once  sync.Once
	spec  *ir.Spec
	files map[string][]byte // by path
	err   error
}

// emuHost is one test's scratch directory: forge_portability.h (emu.h with
// the real header's scalar intrinsics) and the generated files it compiles
// under <target>/, as in generated/hip, so that their
// #include "../forge_portability.h" finds the stand-in.
type emuHost struct {
	cxx      string
	dir      string
	testdata string
	spec     *ir.Spec
	files    map[string][]byte

	mu    sync.Mutex
	mains map[string]*emuObj // family → its main's object, compiled once
	// sources are the generated files written so far: each is written
	// once, since parallel subtests compile the same files (a rewrite
	// truncates a file another compiler may be reading).
	sources map[string]string
}

type emuObj struct {
	once sync.Once
	path string
	ok   bool
}

// newEmuHost skips t where there is no C++ compiler (as hiptest.CXX does)
// and otherwise renders the specs (once per test binary) and sets up t's
// scratch directory.
func newEmuHost(t *testing.T) *emuHost {
	t.Helper()
	cxx := hiptest.CXX(t)
	root := modtest.Root(t)
	rendered.once.Do(func() {
		s, files, err := gen.Render(root)
		rendered.spec, rendered.err = s, err
		rendered.files = map[string][]byte{}
		for _, f := range files {
			rendered.files[f.Path] = f.Data
		}
	})
	if rendered.err != nil {
		t.Fatal(rendered.err)
	}
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	e := &emuHost{cxx: cxx, dir: t.TempDir(), testdata: testdata, spec: rendered.spec, files: rendered.files,
		mains: map[string]*emuObj{}, sources: map[string]string{}}
	hdr, err := os.ReadFile(filepath.Join(root, "templates", "hip", "forge_portability.h"))
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "// Scalar types of the format specs", "// The host runtime API"
	i, j := strings.Index(string(hdr), from), strings.Index(string(hdr), to)
	if i < 0 || j < i {
		t.Fatalf("forge_portability.h: no %q ... %q section", from, to)
	}
	i = strings.LastIndex(string(hdr[:i]), "\n// ----")
	emu, err := os.ReadFile(filepath.Join(testdata, "emu.h"))
	if err != nil {
		t.Fatal(err)
	}
	shim := strings.Replace(string(emu), "// FORGE_EMU_INTRINSICS", string(hdr[i:j]), 1)
	// forge_wave_sum, matvec's reduction, is target-independent code on
	// forge_shfl_xor: the real one runs on the emulated shuffles.
	const sum = "FORGE_DEVICE float forge_wave_sum(float v) {"
	i = strings.Index(string(hdr), sum)
	j = strings.Index(string(hdr[max(i, 0):]), "\n}\n")
	if i < 0 || j < 0 {
		t.Fatalf("forge_portability.h: no %q ... } definition", sum)
	}
	shim = strings.Replace(shim, "// FORGE_EMU_WAVE_SUM", string(hdr[i:i+j+3]), 1)
	// The nvcuda::wmma subset on RDNA3's WMMA: the real shim, on the
	// emulated instruction (FORGE_EMU_AMD_WMMA).
	const shimFrom, shimTo = "// FORGE_WMMA_SHIM_BEGIN", "// FORGE_WMMA_SHIM_END"
	i, j = strings.Index(string(hdr), shimFrom), strings.Index(string(hdr), shimTo)
	if i < 0 || j < i {
		t.Fatalf("forge_portability.h: no %q ... %q section", shimFrom, shimTo)
	}
	shim = strings.Replace(shim, "// FORGE_EMU_WMMA_SHIM", string(hdr[i:j]), 1)
	e.write(t, "forge_portability.h", []byte(shim))
	return e
}

// write writes data to name under the scratch directory and returns its path.
func (e *emuHost) write(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(e.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// source writes the rendered generated/hip/<target>/<name> to the scratch
// directory and returns its path.
func (e *emuHost) source(t testing.TB, target, name string) string {
	t.Helper()
	rel := target + "/" + name
	data, ok := e.files["generated/hip/"+rel]
	if !ok {
		t.Fatalf("no generated/hip/%s rendered", rel)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if p, ok := e.sources[rel]; ok {
		return p
	}
	p := e.write(t, rel, data)
	e.sources[rel] = p
	return p
}

// compile compiles the C++ source src to the object obj (in the scratch
// directory), with the flags every emulated file takes plus flags.
// -fno-strict-aliasing: the kernels read quant blocks and vectors through
// casts, as device code may.
func (e *emuHost) compile(t testing.TB, src, obj string, flags ...string) string {
	t.Helper()
	obj = filepath.Join(e.dir, obj)
	args := append([]string{"-std=c++17", "-O1", "-fno-strict-aliasing", "-c", "-x", "c++", src, "-o", obj}, flags...)
	hiptest.Run(t, e.dir, e.cxx, args...)
	return obj
}

// unity writes <target>/<name>.cc, one translation unit of the rendered
// files names of target (each in a namespace of its own: the formats share
// helpers such as forge_scaleK4), and compiles it to <name>.o with flags,
// so that several formats cost one compile (the header's parse is most of
// a file's). Each file's own macros are undefined after it, but for those
// flags set (-DNAME=...), which every file is to see.
func (e *emuHost) unity(t testing.TB, target string, names []string, name string, flags ...string) string {
	t.Helper()
	set := map[string]bool{}
	for _, f := range flags {
		if d, ok := strings.CutPrefix(f, "-D"); ok {
			set[strings.SplitN(d, "=", 2)[0]] = true
		}
	}
	var b strings.Builder
	for i, n := range names {
		e.source(t, target, n)
		src := string(e.files["generated/hip/"+target+"/"+n])
		var defined []string
		for _, line := range strings.Split(src, "\n") {
			m, ok := strings.CutPrefix(line, "#define ")
			if !ok {
				continue
			}
			m = strings.FieldsFunc(m, func(r rune) bool { return r == ' ' || r == '(' || r == '\t' })[0]
			if strings.HasPrefix(m, "FORGE_TARGET") {
				if i == 0 { // the header needs them before the first file
					b.WriteString(line + "\n")
				}
				continue
			}
			if !set[m] {
				defined = append(defined, m)
			}
		}
		if i == 0 {
			b.WriteString("#include \"../forge_portability.h\"\n")
		}
		fmt.Fprintf(&b, "namespace forge_emu_unit%d {\n#include %q\n}\n", i, n)
		for _, m := range defined {
			fmt.Fprintf(&b, "#undef %s\n", m)
		}
	}
	src := e.write(t, target+"/"+name+".cc", []byte(b.String()))
	return e.compile(t, src, name+".o", flags...)
}

// link links family's main with objs into the executable exe and returns
// its path. The main finds launchers by name (dlsym), hence -rdynamic.
func (e *emuHost) link(t testing.TB, family, exe string, objs ...string) string {
	t.Helper()
	e.mu.Lock()
	m := e.mains[family]
	if m == nil {
		m = &emuObj{}
		e.mains[family] = m
	}
	e.mu.Unlock()
	m.once.Do(func() {
		m.path = e.compile(t, filepath.Join(e.testdata, family+"_emu_main.cc"), family+"_main.o")
		m.ok = true
	})
	if !m.ok {
		t.Fatalf("%s_emu_main.cc did not compile (see the first failure)", family)
	}
	exe = filepath.Join(e.dir, exe)
	args := append([]string{"-rdynamic", m.path}, objs...)
	hiptest.Run(t, e.dir, e.cxx, append(args, "-o", exe, "-ldl")...)
	return exe
}

// run runs an emulation executable and returns what it printed.
func (e *emuHost) run(t testing.TB, exe string, args ...any) string {
	t.Helper()
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = fmt.Sprint(a)
	}
	return hiptest.Run(t, e.dir, exe, s...)
}

// launched is the report of a launcher that returned rc after n launches.
func launched(rc, n int) string { return fmt.Sprintf("rc=%d launches=%d\n", rc, n) }

// readFloats reads a file of little-endian float32s.
func readFloats(t testing.TB, p string) []float32 {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return attnFloats("f32", b)
}

func f32Bytes(x []float32) []byte {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}
