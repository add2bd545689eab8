package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	_ "github.com/rocmforge/forge/generated/suites" // registers every format × kernel suite
	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/backend"
	_ "github.com/rocmforge/forge/runtime/backend/cpu" // registers the cpu backend
	_ "github.com/rocmforge/forge/runtime/backend/gpu" // registers the cuda and hip backends
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/runtime/suite"
)

// exitInterrupted is the exit status after Ctrl-C, as shells report a
// process that SIGINT ended (128 + 2).
const exitInterrupted = 130

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the generated suites (or a GGUF file's tensors) and report latency and throughput",
		Description: fmt.Sprintf(`Runs the selected suites on a backend and prints a table: per benchmark the
sample count, min, p50, p95, p99 and max time per iteration, the standard
deviation (%% of the mean), GB/s (bytes read + written), %% of the copy
roofline measured in the same run, G elements/s, GFLOPS and the format's
compression ratio. GB/s, %% of copy, G elements/s and GFLOPS come from the
median time per iteration (p50), the one compare tests; p95 and p99 show "-"
below %d and %d samples (with fewer they are the maximum; --json and --csv
keep the values); "!" after the standard deviation marks a coefficient of
variation above %g%% (a noisy benchmark: re-measure it); a benchmark moving
less than %d MiB per iteration (or than a smaller --copy-bytes buffer) gets
no %% of copy ("-"). --json, --csv,
--gofmt and --markdown also write the run (the Go benchmark format is
benchstat's input: benchstat old.txt new.txt). Every file is written
atomically; Ctrl-C stops the run, writes the benchmarks that finished and
exits with status 130.

Filters are globs (* ? [...], ignoring case) or /regexps/, comma-separated
lists of either: forgebench run --format 'Q4_*,Q8_0' --suite '*f32*'.`,
			bench.QuantileMinN(0.95), bench.QuantileMinN(0.99), 100*bench.NoiseCV, bench.RooflineMinBytes>>20),
		Flags:  append(append(benchFlags(), shardFlag()), outputFlags()...),
		Action: runAction,
	}
}

// benchFlags choose and run benchmarks: the filters, the backend and the
// iteration control. `run` has them; so can any command that measures a
// fresh run (baseline save, compare), through measure.
func benchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "suite", Usage: "suites to run, by name (dequant_f32/Q4_0; a plain name also selects the suites below it: memory, attention, matvec_f32): globs or /regexp/, comma-separated"},
		&cli.StringFlag{Name: "format", Usage: "formats to run (Q4_K): globs or /regexp/, comma-separated"},
		&cli.StringFlag{Name: "family", Usage: "kernel families to run (dequant, matvec, matmul, memory, quantize, attention, model): globs or /regexp/, comma-separated"},
		&cli.BoolFlag{Name: "quick", Usage: "run the scenario suites' (memory, quantize, attention, model) small cases only, as CI does on the cpu"},
		&cli.StringFlag{Name: "gguf", Usage: "run the model in this GGUF `FILE` instead of the generated suites: its tensors grouped by type and shape, each group's dequant, matvec (decode) and matmul (prefill, at --prompt) measured once, and the model's weight-matmul time per token and per prompt"},
		&cli.StringSliceFlag{Name: "prompt", Usage: "with --gguf, the prompt lengths `N,...` (tokens: matmul batches) prefill is timed at, 1 to 65536 (default 128,512)"},
		&cli.StringFlag{Name: "backend", Value: backend.AutoBackend, Usage: "cpu, hip, cuda or auto (a GPU kernel library when one is found and opens, else cpu)"},
		&cli.StringFlag{Name: "lib", Usage: "kernel library (libforge_<target>.so) for a GPU backend (default $FORGE_LIB, else searched beside the binary and in build/)", EnvVars: []string{backend.EnvLib}},
		deviceFlag(),
		&cli.IntFlag{Name: "count", Usage: "samples per benchmark; with --min-time or --auto the least (0: 10)"},
		&cli.DurationFlag{Name: "min-time", Usage: "sample each benchmark until the samples add up to at least this (e.g. 500ms)"},
		&cli.BoolFlag{Name: "auto", Usage: "sample each benchmark until the 95% confidence interval of its median is within ±1% (or --max-time)"},
		&cli.DurationFlag{Name: "max-time", Usage: "with --min-time or --auto, stop each benchmark after this long (0: 5s)"},
		&cli.IntFlag{Name: "warmup", Value: bench.DefaultWarmup, Usage: "warm-up iterations before sampling"},
		&cli.IntFlag{Name: "launches-per-sample", Usage: "time `N` back-to-back launches per sample and record their mean, hiding the launch gap as go test -bench and llama.cpp's test-backend-ops do, in the kernel suites and the attention suite (0: one launch per sample)"},
		&cli.StringSliceFlag{Name: "shape", Usage: "benchmark `ROWSxCOLS` (matvec) or ROWSxCOLSxBATCH (matmul) instead of the family's default shapes and $FORGE_BENCH_MATVEC/MATMUL; repeat (or comma-separate) for a sweep"},
		&cli.IntFlag{Name: "elems", Usage: "elements per iteration, rounded down to whole blocks (0: 16 Mi on the cpu, 64 Mi on a GPU)"},
		&cli.StringFlag{Name: "weights", Usage: "how a GPU holds matvec's W: rotate (the default: byte-identical copies totalling at least 2 × the L2, each launch reading the next, so W comes from memory) or reuse (one copy, as llama.cpp's test-backend-ops perf; a small W is then served from the L2); the cpu always reuses one buffer"},
		&cli.Int64Flag{Name: "copy-bytes", Usage: "bytes of each copy-roofline buffer (0: 256 MiB on the cpu, max(4 × L2, 4 × elems) on a GPU; -1: no roofline)"},
		&cli.DurationFlag{Name: "clock-interval", Value: bench.DefaultClockInterval, Usage: "on a GPU, ask its vendor tool (nvidia-smi, rocm-smi) for the clocks this often while measuring, so that each benchmark records the SM clock and the clock event reasons (power or thermal capping) while it ran and the table warns of a throttled one (0: only at the run's start and end; at least 50ms otherwise)"},
	}
}

func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "json", Usage: "write the run as JSON to `FILE` (\"-\": stdout)"},
		&cli.StringFlag{Name: "csv", Usage: "write one CSV row per benchmark to `FILE` (\"-\": stdout)"},
		&cli.StringFlag{Name: "gofmt", Usage: "write the Go benchmark format (benchstat's input) to `FILE` (\"-\": stdout)"},
		markdownFlag("the run"), historyFlag(),
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print no table"},
	}
}

// output is one file a run is written to.
type output struct {
	flag, path string
	write      func(io.Writer, *bench.Run) error
}

func runAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("run: unexpected arguments %q (select with --suite, --format, --family or --gguf)", c.Args().Slice())
	}
	var outs []output
	stdoutTaken := ""
	for _, o := range []output{{"json", "", bench.WriteJSON}, {"csv", "", bench.WriteCSV}, {"gofmt", "", bench.WriteGoBench}, {"markdown", "", bench.WriteMarkdown}} {
		if o.path = c.String(o.flag); o.path == "" {
			continue
		}
		if o.path == "-" {
			if stdoutTaken != "" {
				return fmt.Errorf("run: --%s - and --%s - both write to stdout; give one of them a file", stdoutTaken, o.flag)
			}
			stdoutTaken = o.flag
		} else if err := checkWritable(o.path); err != nil {
			return fmt.Errorf("run: --%s %s: %w", o.flag, o.path, err)
		}
		outs = append(outs, o)
	}
	if err := checkHistoryFlag(c); err != nil {
		return err
	}

	run, err := measure(c)
	if run == nil {
		return err
	}
	// Write what there is, also after Ctrl-C or a failure part-way.
	var werrs []error
	for _, o := range outs {
		if o.path == "-" {
			werrs = append(werrs, o.write(c.App.Writer, run))
			continue
		}
		if e := atomicfile.Write(o.path, 0o644, func(w io.Writer) error { return o.write(w, run) }); e != nil {
			werrs = append(werrs, e)
		} else {
			fmt.Fprintf(c.App.ErrWriter, "forgebench: wrote %s\n", o.path)
		}
	}
	werrs = append(werrs, appendHistory(c, run, "run"))
	if !c.Bool("quiet") {
		w := c.App.Writer
		if stdoutTaken != "" {
			w = c.App.ErrWriter // stdout carries the --FORMAT - output
		}
		werrs = append(werrs, bench.WriteTable(w, run))
	}
	werr := errors.Join(werrs...)
	switch {
	case errors.Is(err, bench.ErrInterrupted):
		msg := fmt.Sprintf("run: %v; the results so far are written", err)
		if werr != nil {
			msg += fmt.Sprintf(", but: %v", werr)
		}
		return cli.Exit(msg, exitInterrupted)
	case err != nil:
		return errors.Join(err, werr)
	}
	return werr
}

// checkWritable reports, before anything runs, an output path whose
// directory is missing or unwritable, or that atomicfile would refuse (a
// directory, FIFO, device, read-only file...).
func checkWritable(path string) error {
	if err := atomicfile.Check(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("cannot write there: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("cannot write there: %s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".forgebench-check-*")
	if err != nil {
		return fmt.Errorf("cannot write there: %w", err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// testHookResult, when set (by tests), is called after each benchmark
// with the run's context.
var testHookResult func(ctx context.Context, r *bench.Result)

// measure runs the benchmarks the flags of c (benchFlags) select on the
// backend they name, saying on stderr which backend runs and showing
// progress there (a bar on a terminal, a line per benchmark otherwise).
// SIGINT and SIGTERM stop it: it then returns the run so far
// (Interrupted) and an error wrapping bench.ErrInterrupted. On any other
// failure before the run starts it returns a nil run.
func measure(c *cli.Context) (*bench.Run, error) {
	opts, err := benchOptions(c)
	if err != nil {
		return nil, err
	}
	filter := bench.Filter{Suite: c.String("suite"), Format: c.String("format"), Family: c.String("family")}
	var targets []bench.Target
	var model *bench.GGUFModel
	if p := c.String("gguf"); p != "" {
		f, err := gguf.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		prompts, _ := bench.ParsePrompts(c.StringSlice("prompt")) // checked by benchOptions
		logf := func(format string, args ...any) { fmt.Fprintf(c.App.ErrWriter, "forgebench: "+format+"\n", args...) }
		if model, err = bench.NewGGUFModel(f, p, prompts, logf); err != nil {
			return nil, err
		}
		for _, s := range model.Skipped {
			fmt.Fprintf(c.App.ErrWriter, "forgebench: %s: skipped %s\n", p, s)
		}
		if len(model.Targets) == 0 {
			return nil, fmt.Errorf("%s: no tensor of a type forge has a spec for (%d skipped)", p, len(model.Skipped))
		}
		if targets, err = filter.Select(model.Targets); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	} else {
		var err error
		if targets, err = filter.Select(bench.SuiteTargets(suite.All())); err != nil {
			return nil, err
		}
	}

	sel, err := selectBackend(c)
	if nl := (*backend.NoLibraryError)(nil); errors.As(err, &nl) {
		return nil, fmt.Errorf("backend %s needs a kernel library and none was given or found: %s", nl.Backend, nl.Hint("--lib"))
	}
	if err != nil {
		return nil, err
	}
	msg := "forgebench: " + sel.Why
	if nl := (*backend.NoLibraryError)(nil); errors.As(sel.Fallback, &nl) {
		// The backend's hint speaks of go test's -lib; forgebench has --lib.
		msg = "forgebench: auto: no kernel library found (" + nl.Hint("--lib") + "), using cpu"
	}
	if db, ok := backend.DeviceOf(sel.Backend); ok {
		msg += ": " + db.Describe()
	}
	fmt.Fprintln(c.App.ErrWriter, msg)

	targets, opts, shard, err := shardTargets(c, sel.Backend, targets, opts)
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	p := newProgress(c.App.ErrWriter)
	opts.Progress = p.update
	opts.Logf = func(format string, args ...any) {
		p.finish()
		fmt.Fprintf(c.App.ErrWriter, "forgebench: "+format+"\n", args...)
	}
	idx, _ := deviceIndex(sel.Backend)
	clocks := bench.StartClocks(sel.Backend.Name(), idx) // nil where no vendor tool answers
	clocks.Sample(c.Duration("clock-interval"))
	// A benchmark's clocks are the readings from its start (or, in a
	// scenario suite, the result before it) to its result.
	from := time.Now()
	progress := opts.Progress
	opts.Progress = func(done, total int, name string) {
		from = time.Now()
		progress(done, total, name)
	}
	opts.Done = func(r *bench.Result) {
		to := time.Now()
		r.Clocks = clocks.Window(from, to)
		from = to
		p.done(r)
		if testHookResult != nil {
			testHookResult(ctx, r)
		}
	}
	run, err := bench.Measure(ctx, sel.Backend, targets, opts)
	recordPlacement(run, sel, shard)
	clocks.Finish(run)
	model.Finish(run)
	p.finish()
	return run, err
}

// benchOptions reads benchFlags' values and checks each against its
// range, before anything is allocated or run: a count or size past these
// bounds is a typo, and would panic in makeslice, fail to allocate or run
// for ever. Commands with benchFlags check them even when they measure
// nothing (compare --run), so a value is refused the same everywhere.
func benchOptions(c *cli.Context) (bench.Options, error) {
	opts := bench.Options{
		Count:             c.Int("count"),
		MinTime:           c.Duration("min-time"),
		Auto:              c.Bool("auto"),
		MaxTime:           c.Duration("max-time"),
		Warmup:            c.Int("warmup"),
		Elems:             c.Int("elems"),
		LaunchesPerSample: c.Int("launches-per-sample"),
		CopyBytes:         c.Int64("copy-bytes"),
		Quick:             c.Bool("quick"),
	}
	weights, err := backend.ParseWeightMode(c.String("weights"))
	if err != nil {
		return opts, fmt.Errorf("--weights: %w", err)
	}
	opts.Weights = weights
	if err := checkPlacement(c); err != nil {
		return opts, err
	}
	if opts.Shapes, err = parseShapes(c.StringSlice("shape")); err != nil {
		return opts, err
	}
	if _, err := bench.ParsePrompts(c.StringSlice("prompt")); err != nil {
		return opts, err
	} else if c.IsSet("prompt") && c.String("gguf") == "" {
		return opts, fmt.Errorf("--prompt: only a --gguf run times a model's prompts")
	}
	switch {
	case opts.Count < 0 || opts.Count > maxIterFlag:
		return opts, fmt.Errorf("--count %d: want 0 (the default) to %d", opts.Count, maxIterFlag)
	case opts.Elems < 0 || opts.Elems > maxElemsFlag:
		return opts, fmt.Errorf("--elems %d: want 0 (the default) to %d", opts.Elems, maxElemsFlag)
	case opts.Warmup < 0 || opts.Warmup > maxIterFlag:
		return opts, fmt.Errorf("--warmup %d: want 0 (none) to %d", opts.Warmup, maxIterFlag)
	case opts.CopyBytes < -1 || opts.CopyBytes > 0 && opts.CopyBytes < minCopyBytes || opts.CopyBytes > maxCopyBytes:
		return opts, fmt.Errorf("--copy-bytes %d: want -1 (no roofline), 0 (the default) or %d to %d (a smaller copy times the launch, not the memory)", opts.CopyBytes, minCopyBytes, int64(maxCopyBytes))
	case opts.LaunchesPerSample < 0 || opts.LaunchesPerSample > maxIterFlag:
		return opts, fmt.Errorf("--launches-per-sample %d: want 0 (one launch per sample) to %d", opts.LaunchesPerSample, maxIterFlag)
	case opts.MinTime < 0 || opts.MinTime > maxTimeFlag:
		return opts, fmt.Errorf("--min-time %v: want 0 (none) to %v", opts.MinTime, maxTimeFlag)
	case opts.MaxTime < 0 || opts.MaxTime > maxTimeFlag:
		return opts, fmt.Errorf("--max-time %v: want 0 (the default) to %v", opts.MaxTime, maxTimeFlag)
	case c.Duration("clock-interval") != 0 && (c.Duration("clock-interval") < minClockInterval || c.Duration("clock-interval") > maxTimeFlag):
		return opts, fmt.Errorf("--clock-interval %v: want 0 (no readings while measuring) or %v to %v (the vendor tool takes tens of milliseconds a reading)", c.Duration("clock-interval"), minClockInterval, maxTimeFlag)
	case opts.Warmup == 0:
		opts.Warmup = -1 // --warmup 0 means none; bench's 0 means its default
	}
	return opts, nil
}

// progress shows a run's progress on stderr: on a terminal a bar redrawn
// in place, otherwise one line per finished benchmark.
type progress struct {
	w     io.Writer
	tty   bool
	total int
	n     int
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

const barWidth = 30

func (p *progress) update(done, total int, name string) {
	p.n, p.total = done, total
	if !p.tty {
		if name == "copy roofline" {
			fmt.Fprintln(p.w, "forgebench: measuring the copy roofline")
		}
		return
	}
	if name == "" {
		return
	}
	fill := barWidth * done / max(1, total)
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d %s", strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill), done, total, bench.Printable(name))
}

func (p *progress) done(r *bench.Result) {
	if p.tty {
		return
	}
	s := r.Stats
	if s.N == 0 { // a scenario's figures alone
		fmt.Fprintf(p.w, "[%d/%d] %s: %d figures\n", p.n+1, p.total, bench.Printable(r.Name), len(r.Metrics))
		return
	}
	line := fmt.Sprintf("[%d/%d] %s: p50 %s, %.2f GB/s", p.n+1, p.total, bench.Printable(r.Name), bench.FormatDuration(s.P50), s.GBps)
	if s.PctCopy > 0 {
		line += fmt.Sprintf(" (%.1f%% of copy)", s.PctCopy)
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) finish() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// The bounds of --elems (4 Gi elements: 16 GiB of float32 output; also
// each product of two of --shape's dimensions), --copy-bytes, the
// iteration counts (--count, --warmup, --launches-per-sample, profile's
// --launches: a million iterations of the smallest kernel is seconds, of
// a large one days) and the times (--min-time, --max-time, per
// benchmark): values past them are typos, not benchmarks, and would only
// fail to allocate, panic or run for ever later.
const (
	maxElemsFlag = 1 << 32
	minCopyBytes = 1 << 20
	maxCopyBytes = 1 << 40
	maxIterFlag  = 1 << 20
	maxTimeFlag  = 24 * time.Hour
	// minClockInterval: a reading by nvidia-smi or rocm-smi takes tens of
	// milliseconds; asking more often only keeps a CPU busy.
	minClockInterval = 50 * time.Millisecond
)

// parseShapes reads --shape values: ROWSxCOLS or ROWSxCOLSxBATCH, every
// dimension a positive integer below 2^31 and the matrices they make (W
// rows × cols, x cols × batch, y rows × batch) at most maxElemsFlag
// elements each.
func parseShapes(values []string) ([][]int, error) {
	var out [][]int
	for _, v := range values {
		for _, one := range strings.Split(v, ",") {
			one = strings.TrimSpace(one)
			if one == "" {
				continue
			}
			dims, ok := suite.ParseShape(one)
			if !ok || len(dims) != 2 && len(dims) != 3 {
				return nil, fmt.Errorf("--shape %q: want ROWSxCOLS (matvec) or ROWSxCOLSxBATCH (matmul), positive integers, e.g. 4096x14336x512", one)
			}
			batch := int64(1)
			if len(dims) == 3 {
				batch = int64(dims[2])
			}
			rows, cols := int64(dims[0]), int64(dims[1])
			if rows*cols > maxElemsFlag || cols*batch > maxElemsFlag || rows*batch > maxElemsFlag {
				return nil, fmt.Errorf("--shape %q: a matrix of more than %d elements (rows x cols, cols x batch and rows x batch must each be at most that)", one, maxElemsFlag)
			}
			out = append(out, dims)
		}
	}
	return out, nil
}
