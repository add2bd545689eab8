package tune

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rocmforge/forge/gen/build"
	"github.com/rocmforge/forge/gen/hipgen"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// CompilerBuilder builds candidates with the target's compiler, with
// gen/build's command lines: every generated/hip/<target>/*.hip is compiled
// once (objects cached under Dir/obj, keyed by the sources and the command
// line); a candidate is its format's family file compiled again with the
// knobs' -D flags, linked with all the other objects into a complete
// library (so that the runtime's Bind finds every launcher), cached under
// Dir/lib by a hash of its inputs.
type CompilerBuilder struct {
	Root     string // module root
	Target   *targets.Target
	Family   *tuned.Family
	Compiler string // "" : build.FindCompiler
	Dir      string // cache directory for objects and libraries
	Jobs     int
	Log      io.Writer

	once    sync.Once
	err     error
	version string
	plan    *build.Plan
	objDir  string
	sources []string
}

func (b *CompilerBuilder) prepare(ctx context.Context) error {
	b.once.Do(func() { b.err = b.doPrepare(ctx) })
	return b.err
}

func (b *CompilerBuilder) doPrepare(ctx context.Context) error {
	if b.Compiler == "" {
		c, err := build.FindCompiler(b.Target.Vendor)
		if err != nil {
			return err
		}
		b.Compiler = c
	}
	out, err := exec.CommandContext(ctx, b.Compiler, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %v\n%s", b.Compiler, err, out)
	}
	b.version = string(out)
	var opts build.CompileOptions
	if opts.NoGPULib, err = build.NeedNoGPULib(ctx, b.Target, b.Compiler); err != nil {
		return err
	}
	if b.sources, err = build.Sources(b.Root, b.Target.Name); err != nil {
		return err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00", b.Compiler, b.version, opts)
	for _, s := range append(slices.Clone(b.sources), path.Join(hipgen.Dir, hipgen.HeaderName)) {
		data, err := os.ReadFile(filepath.Join(b.Root, filepath.FromSlash(s)))
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", s, len(data))
		h.Write(data)
	}
	dir, err := filepath.Abs(b.Dir)
	if err != nil {
		return err
	}
	b.objDir = filepath.Join(dir, "obj", b.Target.Name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	if b.plan, err = build.NewPlan(b.Target, b.Compiler, b.sources, b.objDir, "", opts); err != nil {
		return err
	}
	if err := os.MkdirAll(b.objDir, 0o755); err != nil {
		return err
	}
	// The objects, once: those already there are kept.
	var todo []build.Command
	for _, c := range b.plan.Compiles {
		if _, err := os.Stat(objectOf(c)); err != nil {
			todo = append(todo, c)
		}
	}
	if len(todo) > 0 && b.Log != nil {
		fmt.Fprintf(b.Log, "forgebench tune: compiling %d of %d %s objects once (%s)\n", len(todo), len(b.plan.Compiles), b.Target.Name, b.objDir)
	}
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, b.Jobs))
	for i, c := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			obj := objectOf(c)
			args := withOutput(c.Args, obj+".tmp")
			if _, err := build.Run(ctx, b.Root, args); err != nil {
				errs[i] = err
				return
			}
			errs[i] = os.Rename(obj+".tmp", obj)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// objectOf is a compile command's output (the argument after -o).
func objectOf(c build.Command) string {
	for i, a := range c.Args {
		if a == "-o" && i+1 < len(c.Args) {
			return c.Args[i+1]
		}
	}
	return ""
}

func withOutput(args []string, out string) []string {
	args = slices.Clone(args)
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			args[i+1] = out
		}
	}
	return args
}

func (b *CompilerBuilder) familySource(format string) string {
	return path.Join(hipgen.Dir, b.Target.Name, strings.ToLower(format)+"_"+b.Family.Spec+".hip")
}

// Fingerprint hashes format's family file, the runtime file, the
// portability header, the compiler's path and --version, and the compile
// command line.
func (b *CompilerBuilder) Fingerprint(format string) (string, error) {
	if err := b.prepare(context.Background()); err != nil {
		return "", err
	}
	src := b.familySource(format)
	c, ok := b.compileOf(src)
	if !ok {
		return "", fmt.Errorf("%s is not generated: run go generate ./... (or a %s library lacks it)", src, b.Target.Name)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", b.Compiler, b.version)
	for _, a := range c.Args {
		if a != objectOf(c) {
			fmt.Fprintf(h, "%s\x00", a)
		}
	}
	for _, s := range []string{src, path.Join(hipgen.Dir, b.Target.Name, hipgen.RuntimeName), path.Join(hipgen.Dir, hipgen.HeaderName)} {
		data, err := os.ReadFile(filepath.Join(b.Root, filepath.FromSlash(s)))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", s, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (b *CompilerBuilder) compileOf(src string) (build.Command, bool) {
	for _, c := range b.plan.Compiles {
		if c.Source == src {
			return c, true
		}
	}
	return build.Command{}, false
}

// Build compiles format's family file with c's -D flags and links it with
// every other object.
func (b *CompilerBuilder) Build(ctx context.Context, format string, c Candidate) (string, error) {
	if err := b.prepare(ctx); err != nil {
		return "", err
	}
	fp, err := b.Fingerprint(format)
	if err != nil {
		return "", err
	}
	src := b.familySource(format)
	cmd, _ := b.compileOf(src)
	sum := sha256.Sum256([]byte(fp + "\x00" + strings.Join(c.Defines(b.Family), " ") + "\x00" + b.objDir))
	key := hex.EncodeToString(sum[:])[:24]
	dir := filepath.Join(filepath.Dir(filepath.Dir(b.objDir)), "lib")
	lib := filepath.Join(dir, strings.ToLower(format)+"_"+b.Family.Name+"-"+key+".so")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	obj := strings.TrimSuffix(lib, ".so") + ".o"
	args := withOutput(cmd.Args, obj)
	// The -D flags go before -c.
	at := slices.Index(args, "-c")
	args = slices.Insert(args, at, c.Defines(b.Family)...)
	if out, err := build.Run(ctx, b.Root, args); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &CompileError{Output: string(out)}
	}
	defer os.Remove(obj)
	link := slices.Clone(b.plan.Link.Args)
	at = slices.Index(link, "-o")
	link = link[:at]
	link = append(link, "-o", lib+".tmp")
	for _, cc := range b.plan.Compiles {
		if cc.Source == src {
			link = append(link, obj)
		} else {
			link = append(link, objectOf(cc))
		}
	}
	if _, err := build.Run(ctx, b.Root, link); err != nil {
		return "", err
	}
	return lib, os.Rename(lib+".tmp", lib)
}
