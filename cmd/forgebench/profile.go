package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/generated/kernels"
	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/profile"
)

// profileFinder and profileExec reach outside the process; tests replace them.
var (
	profileFinder = profile.SystemFinder
	profileExec   = func(s profile.Step, stderr io.Writer) error {
		cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
		cmd.Stdout, cmd.Stderr = stderr, stderr
		if s.Stdout != "" {
			f, err := os.Create(s.Stdout)
			if err != nil {
				return err
			}
			defer f.Close()
			cmd.Stdout = f
		}
		return cmd.Run()
	}
)

func profileCommand() *cli.Command {
	return &cli.Command{
		Name:      "profile",
		Usage:     "run suites under a vendor profiler (rocprof, omniperf, ncu, nsys) and report per benchmark (per kernel for summary tools): forge launcher, duration, DRAM bandwidth, occupancy, the requested counters",
		ArgsUsage: "-- <forgebench run filters and flags>",
		Description: `Runs this forgebench as 'forgebench run <args> --count N --warmup 0
--copy-bytes -1 --quiet --json OUT/run.json' under the tool, so that each
selected kernel is launched N times (--launches), then parses the tool's CSV
and maps each kernel name (demangled or mangled template instantiation) back
to its forge launcher, family, format and target. Launches are split by
benchmark (the k-th N launches of a launcher are the k-th benchmark that runs
it), so each row is one benchmark and shape; nsys's summary stays per kernel.
Prints a table (--json
writes the report as JSON) and writes OUT/run-profiled.json: the run with the
profile added to each benchmark's metrics, for forgebench report.

  forgebench profile --tool ncu -- --backend cuda --family dequant,matvec --format Q4_0,Q4_K
  forgebench profile --tool rocprof --metrics FETCH_SIZE,WRITE_SIZE -- --backend hip --suite matvec_f32/Q4_K

ncu collects ` + strings.Join(profile.DefaultNCUMetrics, ", ") + `
(--metrics adds to them; --replace-metrics replaces them). rocprof is
rocprofv3 (else legacy rocprof) with --kernel-trace and --pmc <--metrics>;
omniperf (or rocprof-compute) collects its own set; nsys gives durations only.
--dry-run prints the commands and exits.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tool", Usage: "rocprof, omniperf, ncu or nsys", Required: true},
			&cli.StringFlag{Name: "metrics", Usage: "counters to collect, comma-separated (ncu metrics; rocprof pmc counters)"},
			&cli.BoolFlag{Name: "replace-metrics", Usage: "ncu: collect --metrics instead of the default metrics, not beside them"},
			&cli.IntFlag{Name: "launches", Value: 10, Usage: "launches of each selected kernel (run's --count)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the commands, shell-quoted, and exit"},
			&cli.StringFlag{Name: "out", Usage: "directory for the tool's files (default forge-profile-<tool>)"},
			&cli.StringFlag{Name: "forgebench", Usage: "forgebench binary the tool runs (default this one)"},
			&cli.StringFlag{Name: "tool-path", Usage: "the tool's executable (default: searched on $PATH and in /usr/local/cuda/bin, /opt/rocm/bin, ...)"},
			&cli.StringFlag{Name: "json", Usage: "also write the report as JSON to `FILE` (\"-\": stdout)"},
			&cli.BoolFlag{Name: "parse-only", Usage: "run nothing: parse the tool's files already in --out"},
		},
		Action: profileAction,
	}
}

func profileAction(c *cli.Context) error {
	tool, err := profile.ParseTool(c.String("tool"))
	if err != nil {
		return fmt.Errorf("profile: --tool: %w", err)
	}
	out := c.String("out")
	if out == "" {
		out = "forge-profile-" + string(tool)
	}
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	fb := c.String("forgebench")
	if fb == "" {
		if fb, err = os.Executable(); err != nil {
			return fmt.Errorf("profile: finding this forgebench: %w (give --forgebench)", err)
		}
	}
	// --launches is the profiled run's --count: refused here with run's
	// bounds rather than by the run under the tool.
	if n := c.Int("launches"); n < 1 || n > maxIterFlag {
		return fmt.Errorf("profile: --launches %d: want 1 to %d", n, maxIterFlag)
	}
	opts := profile.Options{
		Tool: tool, Forgebench: fb, RunArgs: c.Args().Slice(), Launches: c.Int("launches"),
		ReplaceMetrics: c.Bool("replace-metrics"), OutDir: out,
	}
	if s := c.String("metrics"); s != "" {
		for _, m := range strings.Split(s, ",") {
			opts.Metrics = append(opts.Metrics, strings.TrimSpace(m))
		}
	}
	dry, parseOnly := c.Bool("dry-run"), c.Bool("parse-only")
	switch p := c.String("tool-path"); {
	case p != "":
		opts.Exe = p
		if base := filepath.Base(p); tool == profile.Rocprof && base == "rocprof" || tool == profile.Omniperf {
			opts.Variant = base
		}
	default:
		opts.Exe, opts.Variant, err = profileFinder.Locate(tool)
		if err != nil {
			if !dry && !parseOnly {
				return fmt.Errorf("profile: %w", err)
			}
			opts.Exe, opts.Variant = profile.DefaultName(tool)
			if dry {
				fmt.Fprintf(c.App.ErrWriter, "forgebench: profile: %v (showing the commands anyway)\n", err)
			}
		}
	}
	plan, err := profile.Build(opts)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	if dry {
		for path, content := range plan.Files {
			fmt.Fprintf(c.App.Writer, "# %s:\n# %s", path, strings.ReplaceAll(content, "\n", "\n# "))
			fmt.Fprintln(c.App.Writer)
		}
		for _, s := range plan.Steps {
			line := profile.Quote(s.Argv)
			if s.Stdout != "" {
				line += " > " + profile.Quote([]string{s.Stdout})
			}
			fmt.Fprintln(c.App.Writer, line)
		}
		return nil
	}
	if !parseOnly {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("profile: %w", err)
		}
		for path, content := range plan.Files {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				return fmt.Errorf("profile: %w", err)
			}
		}
		for _, s := range plan.Steps {
			fmt.Fprintf(c.App.ErrWriter, "forgebench: profile: %s\n", profile.Quote(s.Argv))
			if err := profileExec(s, c.App.ErrWriter); err != nil {
				return fmt.Errorf("profile: %s: %w", filepath.Base(s.Argv[0]), err)
			}
		}
	}
	parsed, err := profile.ParseOutputs(plan)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	run, err := profile.ReadRunJSON(plan.RunJSON)
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	rep := profile.Assemble(plan, opts.Launches, parsed, kernels.Kernels, run)
	var errs []error
	if p := c.String("json"); p == "-" {
		errs = append(errs, profile.WriteJSON(c.App.Writer, rep))
	} else {
		if p != "" {
			errs = append(errs, atomicfile.Write(p, 0o644, func(w io.Writer) error { return profile.WriteJSON(w, rep) }))
		}
		errs = append(errs, profile.WriteTable(c.App.Writer, rep))
	}
	if run != nil {
		profile.Fold(run, rep)
		p := filepath.Join(out, "run-profiled.json")
		if err := bench.WriteRun(p, run); err != nil {
			errs = append(errs, err)
		} else {
			fmt.Fprintf(c.App.ErrWriter, "forgebench: wrote %s (forgebench report --html shows it)\n", p)
		}
	}
	return errors.Join(errs...)
}
