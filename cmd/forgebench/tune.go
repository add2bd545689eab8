package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/backend"
	gpubackend "github.com/rocmforge/forge/runtime/backend/gpu"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/tune"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// tuneDeps are what the tune command reaches outside the process: tests
// replace them with fakes.
type tuneDeps struct {
	builder func(root string, t *targets.Target, fam *tuned.Family, cacheDir string, jobs int, log io.Writer) tune.Builder
	open    func(t *targets.Target) tune.Opener
	runner  func(fam *tuned.Family) tune.Runner
}

var defaultTuneDeps = tuneDeps{
	builder: func(root string, t *targets.Target, fam *tuned.Family, cacheDir string, jobs int, log io.Writer) tune.Builder {
		return &tune.CompilerBuilder{Root: root, Target: t, Family: fam, Dir: cacheDir, Jobs: jobs, Log: log}
	},
	open: func(t *targets.Target) tune.Opener {
		name := "hip"
		if t.Vendor == "nvidia" {
			name = "cuda"
		}
		device := 0
		if s := os.Getenv(gpubackend.EnvDevice); s != "" {
			fmt.Sscan(s, &device)
		}
		return func(lib string) (backend.Backend, string, error) {
			b, err := gpubackend.Open(name, lib, device)
			if err != nil {
				return nil, "", err
			}
			return b, b.Device().Info().Name, nil
		}
	},
	runner: func(fam *tuned.Family) tune.Runner {
		if fam.MatMul() {
			return &tune.MatMulRunner{X8: fam.IntForm}
		}
		return &tune.MatVecRunner{Kernel: fam.Kernel}
	},
}

var tuneDepsInUse = defaultTuneDeps

func tuneCommand() *cli.Command {
	return &cli.Command{
		Name:  "tune",
		Usage: "time every candidate of a family's tuning space on this GPU and write the winners to specs/tuned/<target>.json",
		Description: `Run in the repository root (it compiles the generated sources under
generated/hip/<target> with the target's compiler, nvcc or hipcc; no Go
toolchain is needed). For each format and shape class it builds every
candidate of the target spec's tuning space (the family file recompiled with
-DFORGE_TUNE_* and linked with the other objects, compiled once), drops those
that do not compile or fail the correctness check against the Go reference,
times the rest at the class's shape with W rotated past the L2 (median of
--reps), and writes the fastest per (format, class) to --out. Results are
cached (keyed by the sources, knobs, compiler, flags, device, shape and
weight mode); --no-cache measures again. Then: go generate ./... bakes the
winners into the generated launchers.

--family matvec tunes matvec_f32 (threads, rows, chunk; shape classes
narrow and wide); --family matvec_x8 tunes the integer path's matvec_x8
(threads, rows, lanes per 32-element group, consecutive groups per lane;
shape classes narrow and wide as matvec's, timed as forgebench times it,
the activations' quantization included) for the formats with an integer
form; its
candidates are threads 64, 128, 256 x rows 1, 2, 4 x lanes 1, 2 x groups
1, 2, 4, less those a format cannot compile. --family matmul_int tunes
matmul's integer path (threads, tile rows, tile columns, K step, warp rows,
K split, and on NVIDIA int8: 1 keeps the int8 products where the f16
fragments would serve, up to the target's MatMulIntF16; the target spec's
MatMulIntSpace) for the formats with an integer
form at batch classes b16, b64 and large (4096x14336 at batch 16, 64 and
512), each candidate forced on every batch; a class's winner replaces the
target's MatMulInt class of the same MaxBatch for that format.
--family matmul_half tunes F16's mma.sync path (the same knobs over the
target spec's MatMulHalfSpace; classes b16, b64, b256 and large at batch
16, 64, 256 and 512), whose winners serve F16 and, through it, the
quantized formats' route through f16.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Usage: "target spec to tune (sm_90, gfx1100, ...)", Required: true},
			&cli.StringFlag{Name: "family", Value: "matvec", Usage: "kernel family: " + strings.Join(tuned.FamilyNames(), ", ")},
			&cli.StringFlag{Name: "format", Usage: "formats to tune, comma-separated (Q4_0,Q4_K); default all"},
			&cli.StringFlag{Name: "root", Value: ".", Usage: "repository root (holds generated/hip and specs/tuned)"},
			&cli.StringFlag{Name: "cache-dir", Aliases: []string{"lib-dir"}, Usage: "where objects, candidate libraries and results are cached (default $XDG_CACHE_HOME/forge/tune or ~/.cache/forge/tune)"},
			&cli.BoolFlag{Name: "no-cache", Usage: "ignore cached results (measure every candidate again)"},
			&cli.StringFlag{Name: "out", Usage: "winners file to update (default <root>/specs/tuned/<target>.json)"},
			&cli.StringFlag{Name: "json", Usage: "also write the whole report as JSON to `FILE` (\"-\": stdout)"},
			markdownFlag("the winners"),
			&cli.IntFlag{Name: "reps", Value: 7, Usage: "timed repetitions per candidate and class (the median is kept)"},
			&cli.IntFlag{Name: "jobs", Usage: "compilers run at once (0: the CPU count)"},
			&cli.StringFlag{Name: "weights", Value: string(backend.WeightsRotate), Usage: "rotate (W from memory, the default) or reuse"},
			&cli.StringFlag{Name: "space", Usage: "narrow the target's tuning space: space-separated `knob=v1,v2` items (\"tn=16,64 warp_rows=2,8\"); the class defaults, and the winners the --out file holds, are timed all the same"},
		},
		Action: tuneAction,
	}
}

// maxRepsFlag bounds tune --reps: each repetition times every candidate
// of every class again.
const maxRepsFlag = 1000

func tuneAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("tune: unexpected arguments %q", c.Args().Slice())
	}
	// tune.Run would take a non-positive --reps for its default, and run
	// as many compilers at once as --jobs says, however many.
	if n := c.Int("reps"); n < 1 || n > maxRepsFlag {
		return fmt.Errorf("tune: --reps %d: want 1 to %d", n, maxRepsFlag)
	}
	if n := c.Int("jobs"); n < 0 || n > maxThreadsFlag {
		return fmt.Errorf("tune: --jobs %d: want 0 (the CPU count) to %d", n, maxThreadsFlag)
	}
	t, ok := targets.ByName(c.String("target"))
	if !ok {
		var names []string
		for _, t := range targets.All() {
			names = append(names, t.Name)
		}
		return fmt.Errorf("tune: unknown target %q; the targets are: %s", c.String("target"), strings.Join(names, ", "))
	}
	fam, ok := tuned.FamilyByName(c.String("family"))
	if !ok {
		return fmt.Errorf("tune: family %q cannot be tuned; the tunable families are: %s", c.String("family"), strings.Join(tuned.FamilyNames(), ", "))
	}
	space, def, err := tune.FamilySpace(t, fam)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if spec := c.String("space"); spec != "" {
		if space, err = tune.Narrow(fam, space, spec); err != nil {
			return fmt.Errorf("tune: %w", err)
		}
	}
	var fs []*formats.Format
	if s := c.String("format"); s != "" {
		for _, name := range strings.Split(s, ",") {
			f, ok := formats.ByName(strings.ToUpper(strings.TrimSpace(name)))
			if !ok {
				return fmt.Errorf("tune: unknown format %q (forgebench formats lists them)", name)
			}
			if why := tune.Lacks(fam, f); why != "" {
				return fmt.Errorf("tune: format %s %s, so no %s kernel to tune", f.Name, why, fam.Name)
			}
			fs = append(fs, f)
		}
	} else {
		for _, f := range formats.All() {
			if tune.Lacks(fam, f) == "" {
				fs = append(fs, f)
			}
		}
	}
	weights, err := backend.ParseWeightMode(c.String("weights"))
	if err != nil {
		return fmt.Errorf("tune: --weights: %w", err)
	}
	root := c.String("root")
	out := c.String("out")
	if out == "" {
		out = filepath.Join(root, filepath.FromSlash(tuned.Path(t.Name)))
	}
	var existing *tuned.File
	if data, err := os.ReadFile(out); err == nil {
		if existing, err = tuned.Parse(data, t.Name, nil); err != nil {
			return fmt.Errorf("tune: %s: %w", out, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("tune: %w", err)
	}
	if err := checkWritable(out); err != nil {
		return fmt.Errorf("tune: --out %s: %w", out, err)
	}
	if md := c.String("markdown"); md == "-" && c.String("json") == "-" {
		return fmt.Errorf("tune: --json - and --markdown - both write to stdout; give one of them a file")
	} else if md != "" && md != "-" {
		if err := checkWritable(md); err != nil {
			return fmt.Errorf("tune: --markdown %s: %w", md, err)
		}
	}
	cacheDir := c.String("cache-dir")
	if cacheDir == "" {
		cacheDir = tune.DefaultCacheDir()
	}
	jobs := c.Int("jobs")
	if jobs == 0 {
		jobs = max(1, numCPU())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	deps := tuneDepsInUse
	cfg := tune.Config{
		Target: t, Family: fam, Formats: fs, Space: space, Default: def, Baked: existing,
		Builder: deps.builder(root, t, fam, cacheDir, jobs, c.App.ErrWriter),
		Open:    deps.open(t), Runner: deps.runner(fam),
		Weights: weights, Reps: c.Int("reps"), Jobs: jobs,
		CacheDir: cacheDir, NoCache: c.Bool("no-cache"), Log: c.App.ErrWriter, Rev: gitRev(root),
	}
	res, err := tune.Run(ctx, cfg)
	if err != nil {
		return err
	}
	report := c.App.Writer
	if c.String("json") == "-" || c.String("markdown") == "-" {
		report = c.App.ErrWriter // stdout carries the --json or --markdown output
	}
	tune.Report(report, res)
	if p := c.String("markdown"); p != "" {
		if err := writeJSONTo(c, p, func(w io.Writer) error { return tune.WriteMarkdown(w, res) }); err != nil {
			return err
		}
	}
	if p := c.String("json"); p != "" {
		write := func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(res)
		}
		if p == "-" {
			if err := write(c.App.Writer); err != nil {
				return err
			}
		} else if err := atomicfile.Write(p, 0o644, write); err != nil {
			return err
		}
	}
	f := tune.Winners(existing, res)
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "forgebench: wrote %s; run go generate ./... to bake the winners in\n", out)
	return nil
}

// gitRev is forge's revision for the tune report's provenance: the one
// the binary was built from (its build info's vcs.revision, stamped by go
// build in a checkout; the GPU machine that runs a binary built elsewhere
// has no Go and often a copied tree whose git metadata says nothing true),
// else the repository's HEAD when git is there to say. A dirty build says
// so ("+dirty").
func gitRev(root string) string {
	if _, commit, modified := bench.ForgeVersion(); commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if modified {
			commit += "+dirty"
		}
		return commit
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func numCPU() int { return runtime.NumCPU() }
