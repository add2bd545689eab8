package build

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rocmforge/forge/gen/hipgen"
	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/internal/longtest"
	"github.com/rocmforge/forge/specs/targets"
)

func target(t *testing.T, name string) *targets.Target {
	t.Helper()
	tg, err := FindTarget(hiptest.Spec().Targets, name)
	if err != nil {
		t.Fatal(err)
	}
	return &tg.Target
}

// tree renders the synthetic spec (all files, or those whose base name is
// in only) into a fresh module root.
func tree(t *testing.T, only ...string) (string, []ir.File) {
	t.Helper()
	files, err := hipgen.Files(hiptest.Spec())
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range files {
		if len(only) > 0 && !strings.HasSuffix(f.Path, ".h") && !contains(only, filepath.Base(f.Path)) {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, files
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestPlanAMD(t *testing.T) {
	srcs := []string{"generated/hip/gfx1030/forge_runtime.hip", "generated/hip/gfx1030/q4_0_dequant.hip"}
	p, err := NewPlan(target(t, "gfx1030"), "/usr/bin/hipcc", srcs, "/tmp/o", "build/.libforge_gfx1030.so.tmp1", CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Command{
		{Source: srcs[0], Args: strings.Fields("/usr/bin/hipcc --offload-arch=gfx1030 -O3 -ffp-contract=off -fPIC -c generated/hip/gfx1030/forge_runtime.hip -o /tmp/o/forge_runtime.o")},
		{Source: srcs[1], Args: strings.Fields("/usr/bin/hipcc --offload-arch=gfx1030 -O3 -ffp-contract=off -fPIC -c generated/hip/gfx1030/q4_0_dequant.hip -o /tmp/o/q4_0_dequant.o")},
	}
	if diff := cmp.Diff(want, p.Compiles); diff != "" {
		t.Errorf("compiles (-want +got):\n%s", diff)
	}
	link := strings.Fields("/usr/bin/hipcc --offload-arch=gfx1030 -shared -o build/.libforge_gfx1030.so.tmp1 /tmp/o/forge_runtime.o /tmp/o/q4_0_dequant.o")
	if diff := cmp.Diff(link, p.Link.Args); diff != "" {
		t.Errorf("link (-want +got):\n%s", diff)
	}

	// A target the device library lacks; spec flags, including one that
	// names the architecture itself.
	tg := *target(t, "gfx1100")
	tg.CompileFlags = []string{"--offload-arch=gfx1100:xnack-", "-mcumode"}
	p, err = NewPlan(&tg, "hipcc", srcs[:1], "o", "lib.so", CompileOptions{NoGPULib: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(p.Compiles[0].Args, " "), "hipcc -O3 -ffp-contract=off -fPIC -nogpulib --offload-arch=gfx1100:xnack- -mcumode -c generated/hip/gfx1030/forge_runtime.hip -o o/forge_runtime.o"; got != want {
		t.Errorf("compile:\n got %s\nwant %s", got, want)
	}
	if got, want := strings.Join(p.Link.Args, " "), "hipcc --offload-arch=gfx1100 -nogpulib -shared -o lib.so o/forge_runtime.o"; got != want {
		t.Errorf("link:\n got %s\nwant %s", got, want)
	}
}

func TestPlanNVIDIA(t *testing.T) {
	srcs := []string{"generated/hip/sm_90/forge_runtime.hip", "generated/hip/sm_90/q4_0_dequant.hip"}
	// sm_90's spec already says -arch=sm_90: it is passed once.
	p, err := NewPlan(target(t, "sm_90"), "/usr/local/cuda/bin/nvcc", srcs, "/tmp/o", "lib.so", CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "/usr/local/cuda/bin/nvcc -arch=sm_90 -O3 --fmad=false -Xcompiler -fPIC -x cu -c generated/hip/sm_90/q4_0_dequant.hip -o /tmp/o/q4_0_dequant.o"
	if got := strings.Join(p.Compiles[1].Args, " "); got != want {
		t.Errorf("compile:\n got %s\nwant %s", got, want)
	}
	if got, want := strings.Join(p.Link.Args, " "), "/usr/local/cuda/bin/nvcc -shared -o lib.so /tmp/o/forge_runtime.o /tmp/o/q4_0_dequant.o"; got != want {
		t.Errorf("link:\n got %s\nwant %s", got, want)
	}
	// Without the flag in the spec, the architecture comes from the name.
	tg := *target(t, "sm_90")
	tg.Name, tg.CompileFlags = "sm_100a", []string{"-lineinfo"}
	p, err = NewPlan(&tg, "nvcc", srcs[:1], "o", "lib.so", CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(p.Compiles[0].Args, " "), "nvcc -arch=sm_100a -lineinfo -O3 --fmad=false -Xcompiler -fPIC -x cu -c generated/hip/sm_90/forge_runtime.hip -o o/forge_runtime.o"; got != want {
		t.Errorf("compile:\n got %s\nwant %s", got, want)
	}
	for _, flags := range [][]string{{"-gencode", "arch=compute_90,code=sm_90"}, {"--gpu-architecture=sm_90"}} {
		tg.CompileFlags = flags
		p, _ = NewPlan(&tg, "nvcc", srcs[:1], "o", "lib.so", CompileOptions{})
		if n := strings.Count(strings.Join(p.Compiles[0].Args, " "), "-arch="); n != 0 {
			t.Errorf("flags %q: -arch= added", flags)
		}
	}
}

func TestPlanBadTarget(t *testing.T) {
	for _, tg := range []*targets.Target{
		{Name: "rdna3", Vendor: "amd"},
		{Name: "hopper", Vendor: "nvidia"},
		{Name: "sm_90", Vendor: "intel"},
	} {
		if _, err := NewPlan(tg, "cc", []string{"a.hip"}, "o", "l.so", CompileOptions{}); err == nil {
			t.Errorf("%s/%s: no error", tg.Vendor, tg.Name)
		}
	}
}

// The dry run prints a script that sh accepts, with the exact commands.
func TestDryRun(t *testing.T) {
	root, _ := tree(t)
	var out bytes.Buffer
	lib, err := Build(context.Background(), Options{Root: root, Target: target(t, "sm_90"), Out: filepath.Join(root, "build"),
		DryRun: true, Compiler: "/usr/local/cuda/bin/nvcc", Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "build", "libforge_sm_90.so"); lib != want {
		t.Errorf("library %s, want %s", lib, want)
	}
	script := out.String()
	t.Logf("dry run:\n%s", script)
	for _, want := range []string{
		"# forgegen build --target sm_90: 5 files -> build/libforge_sm_90.so (run in the module root)\n",
		"set -e\ntmp=$(mktemp -d)\nmkdir -p build\n",
		`/usr/local/cuda/bin/nvcc -arch=sm_90 -O3 --fmad=false -Xcompiler -fPIC -x cu -c generated/hip/sm_90/forge_runtime.hip -o "$tmp"/forge_runtime.o` + "\n",
		`/usr/local/cuda/bin/nvcc -shared -o build/.libforge_sm_90.so.tmp "$tmp"/forge_runtime.o "$tmp"/iq4_nl_dequant.o "$tmp"/q4_0_dequant.o "$tmp"/super256_dequant.o "$tmp"/test4_0_dequant.o` + "\n",
		"mv -f build/.libforge_sm_90.so.tmp build/libforge_sm_90.so\nrm -rf \"$tmp\"\n",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if _, err := exec.LookPath("sh"); err == nil {
		if out, err := exec.Command("sh", "-n", "-c", script).CombinedOutput(); err != nil {
			t.Errorf("sh -n: %v\n%s", err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "build")); !os.IsNotExist(err) {
		t.Errorf("the dry run created build/: %v", err)
	}
}

// noCompilers empties PATH and the fallbacks, and unsets $HIPCC and $NVCC.
func noCompilers(t *testing.T) {
	t.Setenv("PATH", "")
	t.Setenv(EnvHIPCC, "")
	t.Setenv(EnvNVCC, "")
	h, n := HIPCCFallbacks, NVCCFallbacks
	HIPCCFallbacks, NVCCFallbacks = []string{"/nonexistent/hipcc"}, []string{"/nonexistent/nvcc"}
	t.Cleanup(func() { HIPCCFallbacks, NVCCFallbacks = h, n })
}

func TestMissingCompiler(t *testing.T) {
	noCompilers(t)
	for vendor, want := range map[string]string{
		"amd":    "hipcc not found: install Debian's hipcc package (apt-get install hipcc) or ROCm, or set $HIPCC",
		"nvidia": "nvcc not found: install the CUDA toolkit (nvcc is at /usr/local/cuda/bin/nvcc) or set $NVCC",
	} {
		if _, err := FindCompiler(vendor); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", vendor, err, want)
		}
	}
	t.Setenv(EnvNVCC, "/nonexistent/bin/nvcc")
	if _, err := FindCompiler("nvidia"); err == nil || !strings.HasPrefix(err.Error(), "$NVCC=/nonexistent/bin/nvcc: not found") {
		t.Errorf("bad $NVCC: %v", err)
	}
	t.Setenv(EnvNVCC, "")

	// Build reports it before doing anything; a dry run still prints the
	// commands, with a note.
	root, _ := tree(t)
	out := filepath.Join(root, "build")
	_, err := Build(context.Background(), Options{Root: root, Target: target(t, "sm_90"), Out: out})
	if err == nil || !strings.Contains(err.Error(), "nvcc not found: install the CUDA toolkit") {
		t.Errorf("build: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed build created %s", out)
	}
	var script bytes.Buffer
	if _, err := Build(context.Background(), Options{Root: root, Target: target(t, "gfx1100"), Out: out, DryRun: true, Stdout: &script}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(script.String(), "# hipcc not found: ") || !strings.Contains(script.String(), "\nhipcc --offload-arch=gfx1100 -O3") {
		t.Errorf("dry run without hipcc:\n%s", script.String())
	}
}

func TestFindTarget(t *testing.T) {
	_, err := FindTarget(hiptest.Spec().Targets, "gfx1200")
	if err == nil || err.Error() != `unknown target "gfx1200"; the targets are: gfx1030, gfx1100, gfx90a, sm_90` {
		t.Errorf("%v", err)
	}
}

func TestSources(t *testing.T) {
	root, _ := tree(t)
	got, err := Sources(root, "gfx90a")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"generated/hip/gfx90a/forge_runtime.hip", "generated/hip/gfx90a/iq4_nl_dequant.hip",
		"generated/hip/gfx90a/q4_0_dequant.hip", "generated/hip/gfx90a/super256_dequant.hip", "generated/hip/gfx90a/test4_0_dequant.hip"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := Sources(root, "gfx1200"); err == nil || err.Error() != "generated/hip/gfx1200 has no .hip files: run go generate ./... to generate it" {
		t.Errorf("missing directory: %v", err)
	}
	os.Remove(filepath.Join(root, "generated", "hip", "gfx90a", hipgen.RuntimeName))
	if _, err := Sources(root, "gfx90a"); err == nil || !strings.Contains(err.Error(), "lacks forge_runtime.hip") {
		t.Errorf("no runtime: %v", err)
	}
	os.Remove(filepath.Join(root, "generated", "hip", hipgen.HeaderName))
	if _, err := Sources(root, "gfx1030"); err == nil || !strings.Contains(err.Error(), "generated/hip/forge_portability.h is missing") {
		t.Errorf("no header: %v", err)
	}
}

func TestCheckCurrent(t *testing.T) {
	root, files := tree(t)
	if err := CheckCurrent(root, "gfx1030", files); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "generated", "hip", "gfx1030")
	os.WriteFile(filepath.Join(dir, "q4_0_dequant.hip"), []byte("old\n"), 0o644)
	os.Remove(filepath.Join(dir, "iq4_nl_dequant.hip"))
	os.WriteFile(filepath.Join(dir, "q9_0_dequant.hip"), []byte("gone\n"), 0o644)
	os.WriteFile(filepath.Join(root, "generated", "hip", hipgen.HeaderName), []byte("old\n"), 0o644)
	err := CheckCurrent(root, "gfx1030", files)
	want := "generated/hip/gfx1030 is stale; run go generate ./... first:\n" +
		"  generated/hip/forge_portability.h (differs from what the specs generate)\n" +
		"  generated/hip/gfx1030/iq4_nl_dequant.hip (missing)\n" +
		"  generated/hip/gfx1030/q4_0_dequant.hip (differs from what the specs generate)\n" +
		"  generated/hip/gfx1030/q9_0_dequant.hip (no spec generates it)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	// Other targets' files do not matter (beyond the shared header).
	os.WriteFile(filepath.Join(root, "generated", "hip", hipgen.HeaderName), files[0].Data, 0o644)
	if err := CheckCurrent(root, "gfx90a", files); err != nil {
		t.Errorf("gfx90a: %v", err)
	}
}

// fakeCompiler writes a compiler stand-in: it fails, with a message, on a
// source containing BROKEN; otherwise it writes its -o file (the link: the
// objects concatenated).
func fakeCompiler(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fakecc")
	script := `#!/bin/sh
out= src= objs=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift ;;
	-c) src=$2; shift ;;
	*.o) objs="$objs $1" ;;
	esac
	shift
done
if [ -n "$src" ]; then
	if grep -q BROKEN "$src"; then echo "$src:3:1: error: it is broken" >&2; exit 1; fi
	if grep -q WARN "$src"; then echo "$src:1:1: warning: a warning" >&2; fi
	echo "object of $src" > "$out"
else
	cat $objs > "$out"
fi
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every failing file is reported, with its command and the compiler's
// output; an existing library is left as it was.
func TestBuildFailures(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root, _ := tree(t)
	dir := filepath.Join(root, "generated", "hip", "gfx1030")
	for _, f := range []string{"q4_0_dequant.hip", "super256_dequant.hip"} {
		os.WriteFile(filepath.Join(dir, f), []byte("BROKEN\n"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "test4_0_dequant.hip"), []byte("WARN\n"), 0o644)
	out := filepath.Join(root, "build")
	os.MkdirAll(out, 0o755)
	lib := filepath.Join(out, "libforge_gfx1030.so")
	os.WriteFile(lib, []byte("old library"), 0o755)
	cc := fakeCompiler(t)
	var stderr bytes.Buffer
	_, err := Build(context.Background(), Options{Root: root, Target: target(t, "gfx1030"), Out: out, Compiler: cc, Jobs: 2, Stderr: &stderr})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	t.Logf("error:\n%s", msg)
	for _, want := range []string{
		"2 of 5 files failed to compile for gfx1030:\n",
		"generated/hip/gfx1030/q4_0_dequant.hip:\n  " + cc + " --offload-arch=gfx1030 -O3 -ffp-contract=off -fPIC -c generated/hip/gfx1030/q4_0_dequant.hip -o ",
		"    generated/hip/gfx1030/q4_0_dequant.hip:3:1: error: it is broken\n",
		"    generated/hip/gfx1030/super256_dequant.hip:3:1: error: it is broken\n",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q", want)
		}
	}
	if strings.Contains(msg, "forge_runtime.hip") || strings.Contains(msg, "test4_0") {
		t.Errorf("error names files that compiled")
	}
	if !strings.Contains(stderr.String(), "generated/hip/gfx1030/test4_0_dequant.hip:1:1: warning: a warning") {
		t.Errorf("warning not shown:\n%s", stderr.String())
	}
	if b, _ := os.ReadFile(lib); string(b) != "old library" {
		t.Errorf("library changed to %q", b)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("left behind in %s: %v", out, ents)
	}

	// Fixed, it builds, replacing the library.
	os.WriteFile(filepath.Join(dir, "q4_0_dequant.hip"), []byte("ok\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "super256_dequant.hip"), []byte("ok\n"), 0o644)
	got, err := Build(context.Background(), Options{Root: root, Target: target(t, "gfx1030"), Out: out, Compiler: cc})
	if err != nil || got != lib {
		t.Fatalf("%s, %v", got, err)
	}
	b, _ := os.ReadFile(lib)
	if n := strings.Count(string(b), "object of generated/hip/gfx1030/"); n != 5 {
		t.Errorf("library holds %d objects:\n%s", n, b)
	}
	if fi, _ := os.Stat(lib); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", fi.Mode())
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Errorf("left behind in %s: %v", out, ents)
	}
}

// A real build with hipcc: the synthetic spec's gfx1030 library, and a
// gfx1100 one (whose device library Debian's ROCm lacks: -nogpulib), each
// exporting every launcher and runtime symbol. Of the spec's files, each
// library has the runtime and Q4_0's dequant; gfx1030_all, a long test, has
// all of them.
func TestBuildHipcc(t *testing.T) {
	hiptest.HIPCC(t)
	s := hiptest.Spec()
	for _, name := range []string{"gfx1030", "gfx1100", "gfx1030_all"} {
		t.Run(name, func(t *testing.T) {
			only := []string{hipgen.RuntimeName, "q4_0_dequant.hip"}
			if name == "gfx1030_all" {
				longtest.Skip(t, "a library of every file of the synthetic spec")
				name, only = "gfx1030", nil
			}
			root, _ := tree(t, only...)
			out := filepath.Join(root, "build")
			var stderr bytes.Buffer
			lib, err := Build(context.Background(), Options{Root: root, Target: target(t, name), Out: out, Stderr: &stderr})
			t.Logf("stderr:\n%s", stderr.String())
			if err != nil {
				t.Fatal(err)
			}
			want := append([]string(nil), hipgen.RuntimeSymbols...)
			for _, f := range s.Formats {
				if only != nil && f.Name != "Q4_0" {
					continue
				}
				for _, k := range s.Families[0].Kernels {
					want = append(want, k.Symbol(f.Name))
				}
			}
			checkExports(t, lib, want)
		})
	}
}

// checkExports checks that the shared library at p defines and exports
// every symbol of want as a function.
func checkExports(t *testing.T, p string, want []string) {
	t.Helper()
	f, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		t.Errorf("%s: ELF type %v, want a shared object", p, f.Type)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC &&
			(elf.ST_BIND(s.Info) == elf.STB_GLOBAL || elf.ST_BIND(s.Info) == elf.STB_WEAK) {
			defined[s.Name] = true
		}
	}
	var missing []string
	for _, w := range want {
		if !defined[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s does not export %v", p, missing)
	}
	var forge []string
	for name := range defined {
		if regexp.MustCompile(`^forge_`).MatchString(name) {
			forge = append(forge, name)
		}
	}
	if len(forge) != len(want) {
		t.Errorf("%s exports %d forge_ functions, want %d", p, len(forge), len(want))
	}
}
