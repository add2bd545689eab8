// Package build compiles one target's generated HIP (generated/hip/<target>)
// into its kernel library, libforge_<target>.so, which the GPU runtime loads
// with dlopen: hipcc for AMD targets, nvcc for NVIDIA targets (the same
// sources, through the portability header). It is `forgegen build`.
//
// It owns the compiler command lines (the flags every library needs for
// bit-exact dequant: no FP contraction), finding the compilers and saying
// what provides a missing one, compiling the sources in parallel, linking
// the library atomically, and checking that generated/hip/<target> is what
// the specs generate before building it. It never changes generated/.
package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rocmforge/forge/gen/hipgen"
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/specs/targets"
)

// DefaultOut is the directory libraries are written to unless told
// otherwise, relative to the working directory.
const DefaultOut = "build"

// LibraryName is the file name of target's kernel library.
func LibraryName(target string) string { return "libforge_" + target + ".so" }

// Compiler environment variables: a compiler named here is used instead of
// the one found on PATH.
const (
	EnvHIPCC = "HIPCC"
	EnvNVCC  = "NVCC"
)

// Where a compiler is looked for after $HIPCC / $NVCC and PATH: the
// toolkits' standard install locations. Variables so that tests can take
// them away.
var (
	HIPCCFallbacks = []string{"/opt/rocm/bin/hipcc"}
	NVCCFallbacks  = []string{"/usr/local/cuda/bin/nvcc"}
)

// Options configures Build.
type Options struct {
	Root   string          // module root: sources are Root/generated/hip/<Target.Name>
	Target *targets.Target // the spec, as gen/load read it
	Out    string          // directory for the library; DefaultOut when empty
	Jobs   int             // compilers run at once; runtime.NumCPU() when < 1
	// DryRun prints the commands as a shell script instead of running
	// them. (hipcc, when found, is still probed for the target's device
	// library, so that the script has the flags a build would use.)
	DryRun bool

	// Compiler is the compiler to run; when empty it is found with
	// FindCompiler.
	Compiler string
	// Stdout receives the dry run's script; Stderr progress, and the
	// compilers' warnings for files that compiled. Either may be nil.
	Stdout, Stderr io.Writer
}

// Build compiles every generated/hip/<target>/*.hip under o.Root into
// o.Out/libforge_<target>.so and returns the library's path. Every file is
// compiled (in parallel) even when some fail; the error then names each
// failing file with its command and the compiler's output. The library is
// written atomically: an existing one is replaced only by a complete new
// one. With o.DryRun it prints the commands and returns the path the
// library would have.
func Build(ctx context.Context, o Options) (string, error) {
	if o.Target == nil {
		return "", errors.New("build: no target")
	}
	stdout, stderr := writerOr(o.Stdout), writerOr(o.Stderr)
	out := o.Out
	if out == "" {
		out = DefaultOut
	}
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	lib := filepath.Join(outAbs, LibraryName(o.Target.Name))
	sources, err := Sources(o.Root, o.Target.Name)
	if err != nil {
		return "", err
	}
	compiler := o.Compiler
	var findErr error
	if compiler == "" {
		compiler, findErr = FindCompiler(o.Target.Vendor)
		if findErr != nil && !o.DryRun {
			return "", findErr
		}
	}

	if o.DryRun {
		var notes []string
		if findErr != nil {
			// Print the commands anyway, with the compiler's usual name, so
			// that they can be run where it is installed.
			compiler = defaultCompilerName(o.Target.Vendor)
			notes = append(notes, findErr.Error())
		}
		opts := CompileOptions{}
		if findErr == nil && o.Target.Vendor == "amd" {
			if opts.NoGPULib, err = needNoGPULib(ctx, compiler, o.Target.Name); err != nil {
				return "", err
			}
		}
		if opts.NoGPULib {
			notes = append(notes, noGPULibNote(o.Target.Name))
		}
		p, err := NewPlan(o.Target, compiler, sources, "$tmp", relTo(o.Root, lib), opts)
		if err != nil {
			return "", err
		}
		_, err = io.WriteString(stdout, p.Script(notes))
		return lib, err
	}

	opts := CompileOptions{}
	if o.Target.Vendor == "amd" {
		if opts.NoGPULib, err = needNoGPULib(ctx, compiler, o.Target.Name); err != nil {
			return "", err
		}
		if opts.NoGPULib {
			fmt.Fprintln(stderr, "forgegen build: "+noGPULibNote(o.Target.Name))
		}
	}
	if err := os.MkdirAll(outAbs, 0o755); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	objDir, err := os.MkdirTemp("", "forgegen-build-"+o.Target.Name+"-")
	if err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	defer os.RemoveAll(objDir)
	tmpLib, err := os.CreateTemp(outAbs, "."+LibraryName(o.Target.Name)+".tmp*")
	if err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	tmpLib.Close()
	defer os.Remove(tmpLib.Name()) // a no-op once renamed

	p, err := NewPlan(o.Target, compiler, sources, objDir, tmpLib.Name(), opts)
	if err != nil {
		return "", err
	}
	start := time.Now()
	if err := p.compile(ctx, o.Root, o.Jobs, stderr); err != nil {
		return "", err
	}
	if out, err := run(ctx, o.Root, p.Link.Args); err != nil {
		return "", fmt.Errorf("linking %s failed:\n  %s\n%s", lib, shellJoin(p.Link.Args), indent(out, err))
	} else if len(bytes.TrimSpace(out)) > 0 {
		fmt.Fprintf(stderr, "forgegen build: linking %s:\n%s", lib, indent(out, nil))
	}
	if err := os.Chmod(tmpLib.Name(), 0o755); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	if err := os.Rename(tmpLib.Name(), lib); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	fmt.Fprintf(stderr, "forgegen build: %s: %d files compiled with %s in %.1fs\n",
		relTo(cwd(), lib), len(sources), filepath.Base(compiler), time.Since(start).Seconds())
	return lib, nil
}

// Sources lists the HIP files of target's library, relative to root
// (slash-separated, sorted): every generated/hip/<target>/*.hip. It fails,
// saying to run go generate, when there are none or when the directory
// lacks the runtime file every library needs.
func Sources(root, target string) ([]string, error) {
	dir := path.Join(hipgen.Dir, target)
	matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.hip"))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s has no .hip files: run go generate ./... to generate it", dir)
	}
	var rel []string
	hasRuntime := false
	for _, m := range matches {
		base := filepath.Base(m)
		hasRuntime = hasRuntime || base == hipgen.RuntimeName
		rel = append(rel, path.Join(dir, base))
	}
	if !hasRuntime {
		return nil, fmt.Errorf("%s lacks %s (it was generated by an older forgegen): run go generate ./...", dir, hipgen.RuntimeName)
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(hipgen.Dir), hipgen.HeaderName)); err != nil {
		return nil, fmt.Errorf("%s/%s is missing: run go generate ./...", hipgen.Dir, hipgen.HeaderName)
	}
	sort.Strings(rel)
	return rel, nil
}

// CheckCurrent compares what target's library is built from —
// generated/hip/<target>/*.hip and the portability header — with files,
// the generator's rendering of the specs (gen.Render), and fails, listing
// the differences and saying to run go generate, when they differ.
func CheckCurrent(root, target string, files []ir.File) error {
	dir := path.Join(hipgen.Dir, target) + "/"
	header := path.Join(hipgen.Dir, hipgen.HeaderName)
	want := map[string][]byte{}
	for _, f := range files {
		if f.Path == header || (strings.HasPrefix(f.Path, dir) && !strings.Contains(f.Path[len(dir):], "/")) {
			want[f.Path] = f.Data
		}
	}
	if len(want) == 0 {
		return fmt.Errorf("the specs generate nothing under %s", dir)
	}
	var stale []string
	for p, data := range want {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		switch {
		case os.IsNotExist(err):
			stale = append(stale, p+" (missing)")
		case err != nil:
			return err
		case !bytes.Equal(got, data):
			stale = append(stale, p+" (differs from what the specs generate)")
		}
	}
	onDisk, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.hip"))
	for _, m := range onDisk {
		p := dir + filepath.Base(m)
		if _, ok := want[p]; !ok {
			stale = append(stale, p+" (no spec generates it)")
		}
	}
	if len(stale) == 0 {
		return nil
	}
	sort.Strings(stale)
	return fmt.Errorf("%s is stale; run go generate ./... first:\n  %s", strings.TrimSuffix(dir, "/"), strings.Join(stale, "\n  "))
}

// FindTarget returns the target named name, or an error listing the valid
// ones.
func FindTarget(ts []*ir.Target, name string) (*ir.Target, error) {
	var names []string
	for _, t := range ts {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown target %q; the targets are: %s", name, strings.Join(names, ", "))
}

// FindCompiler returns the compiler for vendor ("amd": hipcc, "nvidia":
// nvcc): $HIPCC / $NVCC if set (a name on PATH or a path), else the name on
// PATH, else the toolkit's standard location. The error says what provides
// the compiler.
func FindCompiler(vendor string) (string, error) {
	var env, name, hint string
	var fallbacks []string
	switch vendor {
	case "amd":
		env, name, fallbacks = EnvHIPCC, "hipcc", HIPCCFallbacks
		hint = "install Debian's hipcc package (apt-get install hipcc) or ROCm, or set $HIPCC"
	case "nvidia":
		env, name, fallbacks = EnvNVCC, "nvcc", NVCCFallbacks
		hint = "install the CUDA toolkit (nvcc is at /usr/local/cuda/bin/nvcc) or set $NVCC"
	default:
		return "", fmt.Errorf("unknown vendor %q (want amd or nvidia)", vendor)
	}
	if v := os.Getenv(env); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return "", fmt.Errorf("$%s=%s: not found or not executable (%v); %s", env, v, err, hint)
		}
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, f := range fallbacks {
		if p, err := exec.LookPath(f); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found: %s", name, hint)
}

func defaultCompilerName(vendor string) string {
	if vendor == "nvidia" {
		return NVCCFallbacks[0]
	}
	return "hipcc"
}

// CompileOptions are build-time choices that depend on the machine.
type CompileOptions struct {
	// NoGPULib builds AMD code without the ROCm device library, for a target
	// the installed library lacks (Debian's ROCm 5.2 has no gfx1100).
	// forge's kernels call nothing in it (the portability header uses
	// clang builtins instead).
	NoGPULib bool
}

func noGPULibNote(target string) string {
	return "the installed ROCm device library lacks " + target + ": compiling with -nogpulib (forge's kernels do not call it)"
}

// Command is one compiler run.
type Command struct {
	Source string   // the .hip file compiled (relative to the module root); "" for the link
	Args   []string // argv, Args[0] the compiler
}

// Plan is the commands that build one library.
type Plan struct {
	Target   *targets.Target
	Compiles []Command // one per source, in Sources order
	Link     Command
	Library  string // the link's output
}

var (
	amdTarget    = regexp.MustCompile(`^gfx[0-9a-f]+$`)
	nvidiaTarget = regexp.MustCompile(`^sm_[0-9]+[a-z]?$`)
)

// NewPlan builds the command lines: each source compiled to objDir/<name>.o
// (sources relative to the directory the commands run in, the module
// root), then all objects linked into library.
//
// AMD (hipcc): --offload-arch=<target> -O3 -ffp-contract=off -fPIC, the
// target spec's CompileFlags, -c. NVIDIA (nvcc): -arch=<target> (unless the
// CompileFlags choose the architecture), the CompileFlags, -O3
// --fmad=false -Xcompiler -fPIC -x cu (.hip is not a suffix nvcc knows), -c.
// No FP contraction on either: dequant must match the Go specs bit for bit.
// The link is `<compiler> -shared -o library objects` (hipcc also names the
// target, or it probes for a GPU); nvcc links the CUDA runtime statically,
// so the library needs only the driver at run time.
func NewPlan(t *targets.Target, compiler string, sources []string, objDir, library string, opts CompileOptions) (*Plan, error) {
	p := &Plan{Target: t, Library: library}
	var compile, link []string
	switch t.Vendor {
	case "amd":
		if !amdTarget.MatchString(t.Name) {
			return nil, fmt.Errorf("target %s: an AMD target's name must be its gfx architecture", t.Name)
		}
		arch := "--offload-arch=" + t.Name
		if hasFlag(t.CompileFlags, "--offload-arch", "--amdgpu-target", "--cuda-gpu-arch") {
			arch = ""
		}
		compile = appendNonEmpty([]string{compiler}, arch)
		compile = append(compile, "-O3", "-ffp-contract=off", "-fPIC")
		if opts.NoGPULib {
			compile = append(compile, "-nogpulib")
		}
		compile = append(compile, t.CompileFlags...)
		link = appendNonEmpty([]string{compiler}, "--offload-arch="+t.Name)
		if opts.NoGPULib {
			link = append(link, "-nogpulib")
		}
		link = append(link, "-shared")
	case "nvidia":
		if !nvidiaTarget.MatchString(t.Name) {
			return nil, fmt.Errorf("target %s: an NVIDIA target's name must be its sm_XX architecture", t.Name)
		}
		arch := "-arch=" + t.Name
		if hasFlag(t.CompileFlags, "-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code") {
			arch = ""
		}
		compile = appendNonEmpty([]string{compiler}, arch)
		compile = append(compile, t.CompileFlags...)
		compile = append(compile, "-O3", "--fmad=false", "-Xcompiler", "-fPIC", "-x", "cu")
		link = []string{compiler, "-shared"}
	default:
		return nil, fmt.Errorf("target %s: unknown vendor %q (want amd or nvidia)", t.Name, t.Vendor)
	}
	objects := make([]string, 0, len(sources))
	for _, src := range sources {
		obj := objDir + "/" + strings.TrimSuffix(path.Base(src), path.Ext(src)) + ".o"
		args := append(append([]string(nil), compile...), "-c", src, "-o", obj)
		p.Compiles = append(p.Compiles, Command{Source: src, Args: args})
		objects = append(objects, obj)
	}
	p.Link = Command{Args: append(append(link, "-o", library), objects...)}
	return p, nil
}

// hasFlag reports whether flags sets one of names, as "-name", "-name=v" or
// "-name v".
func hasFlag(flags []string, names ...string) bool {
	for _, f := range flags {
		for _, n := range names {
			if f == n || strings.HasPrefix(f, n+"=") {
				return true
			}
		}
	}
	return false
}

func appendNonEmpty(s []string, v ...string) []string {
	for _, x := range v {
		if x != "" {
			s = append(s, x)
		}
	}
	return s
}

// Script is the plan as a POSIX shell script, to run in the module root:
// objects in a fresh $tmp, the library linked beside its final name and
// renamed over it. notes become comments at the top.
func (p *Plan) Script(notes []string) string {
	var b strings.Builder
	final := p.Library
	tmpLib := path.Join(path.Dir(final), "."+path.Base(final)+".tmp")
	fmt.Fprintf(&b, "# forgegen build --target %s: %d files -> %s (run in the module root)\n", p.Target.Name, len(p.Compiles), final)
	for _, n := range notes {
		fmt.Fprintf(&b, "# %s\n", n)
	}
	b.WriteString("set -e\ntmp=$(mktemp -d)\n")
	fmt.Fprintf(&b, "mkdir -p %s\n", shellQuote(path.Dir(final)))
	for _, c := range p.Compiles {
		b.WriteString(shellJoin(c.Args) + "\n")
	}
	link := append([]string(nil), p.Link.Args...)
	for i, a := range link {
		if a == p.Library {
			link[i] = tmpLib
		}
	}
	b.WriteString(shellJoin(link) + "\n")
	fmt.Fprintf(&b, "mv -f %s %s\nrm -rf \"$tmp\"\n", shellQuote(tmpLib), shellQuote(final))
	return b.String()
}

// compile runs the compile commands, jobs at a time, and returns an error
// naming every source that failed, with its command and output.
func (p *Plan) compile(ctx context.Context, dir string, jobs int, stderr io.Writer) error {
	if jobs < 1 {
		jobs = runtime.NumCPU()
	}
	type result struct {
		out []byte
		err error
	}
	results := make([]result, len(p.Compiles))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, c := range p.Compiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out, err := run(ctx, dir, c.Args)
			results[i] = result{out, err}
		}()
	}
	wg.Wait()
	var failed []string
	for i, r := range results {
		c := p.Compiles[i]
		if r.err != nil {
			failed = append(failed, fmt.Sprintf("%s:\n  %s\n%s", c.Source, shellJoin(c.Args), indent(r.out, r.err)))
		} else if len(bytes.TrimSpace(r.out)) > 0 {
			fmt.Fprintf(stderr, "forgegen build: %s:\n%s", c.Source, indent(r.out, nil))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d files failed to compile for %s:\n%s", len(failed), len(p.Compiles), p.Target.Name,
			strings.Join(failed, ""))
	}
	return nil
}

// needNoGPULib probes whether hipcc can build full code objects for target
// (as .ci/hipcc-check does): a device-only compile of an empty file fails
// with "cannot find ROCm device library for <target>" when the installed
// library lacks it. Any other failure is left for the real compile to
// report.
func needNoGPULib(ctx context.Context, hipcc, target string) (bool, error) {
	dir, err := os.MkdirTemp("", "forgegen-probe-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "probe.hip")
	if err := os.WriteFile(src, nil, 0o644); err != nil {
		return false, err
	}
	out, err := run(ctx, dir, []string{hipcc, "--offload-arch=" + target, "--cuda-device-only", "-c", src, "-o", filepath.Join(dir, "probe.o")})
	return err != nil && bytes.Contains(out, []byte("cannot find ROCm device library for "+target)), nil
}

func run(ctx context.Context, dir string, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// indent is a compiler's output, indented, followed by err when it is more
// than the exit status the output already explains.
func indent(out []byte, err error) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			b.WriteString("    " + strings.TrimRight(l, "\n") + "\n")
		}
	}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || b.Len() == 0 {
			b.WriteString("    (" + err.Error() + ")\n")
		}
	}
	return b.String()
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// shellQuote quotes s for a POSIX shell; a leading "$tmp/" (the dry run's
// object directory) stays a variable reference.
func shellQuote(s string) string {
	if rest, ok := strings.CutPrefix(s, "$tmp/"); ok {
		return `"$tmp"/` + shellQuote(rest)
	}
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// relTo is p relative to base when p is inside base, else p.
func relTo(base, p string) string {
	if base == "" {
		return p
	}
	r, err := filepath.Rel(base, p)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return p
	}
	return filepath.ToSlash(r)
}

func cwd() string {
	wd, _ := os.Getwd()
	return wd
}

func writerOr(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// NeedNoGPULib reports whether hipcc must build target without the ROCm
// device library (CompileOptions.NoGPULib); see needNoGPULib. For other
// compilers it is false.
func NeedNoGPULib(ctx context.Context, t *targets.Target, compiler string) (bool, error) {
	if t.Vendor != "amd" {
		return false, nil
	}
	return needNoGPULib(ctx, compiler, t.Name)
}

// Run runs one command (a Plan's) in dir and returns its combined output;
// the error, on failure, carries the command and the output, indented.
func Run(ctx context.Context, dir string, args []string) ([]byte, error) {
	out, err := run(ctx, dir, args)
	if err != nil {
		return out, fmt.Errorf("%s\n%s", shellJoin(args), indent(out, err))
	}
	return out, nil
}
