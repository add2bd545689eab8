package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/bench"
)

// maxLastFlag bounds history --last: more columns than any terminal shows.
const maxLastFlag = 10000

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "show a history file (run --history) as a trend per benchmark across commits: a column per run, the change from first to last",
		ArgsUsage: "FILE",
		Description: `Reads the JSON lines that forgebench run --history FILE (and compare --history)
appended, one per run, and prints per machine (backend, device, architecture,
target, and the CPU count on the cpu backend: runs of different hardware never
share a row) a legend of its runs, oldest first (#k: start, forge commit, host,
line in FILE), and a table with a row per benchmark: its median time per
iteration in each run ("-" where a run lacks it), the change from the first
run shown that has it to the last, and where both runs kept their samples
(up to 256 per benchmark) the Mann-Whitney U test's p-value and compare's
verdict (regression: past --threshold and p < --alpha). Where a run kept
only its medians the change is shown with no p-value and no verdict.

A line that is not a history entry is an error naming FILE and the line
(exit 2); --skip-corrupt leaves it out with a warning instead.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "suite", Usage: "benchmarks to show, by suite name: globs or /regexp/, comma-separated (as run's)"},
			&cli.StringFlag{Name: "format", Usage: "formats to show: globs or /regexp/, comma-separated"},
			&cli.StringFlag{Name: "family", Usage: "kernel families to show: globs or /regexp/, comma-separated"},
			&cli.StringFlag{Name: "machine", Usage: "machines to show, matched against \"BACKEND on DEVICE (ARCH[, target T])[, N CPUs]\": globs or /regexp/, comma-separated"},
			&cli.IntFlag{Name: "last", Value: 8, Usage: "show each machine's last `N` runs (0: all)"},
			&cli.StringFlag{Name: "threshold", Value: "10%", Usage: "the change of the median that counts, as a `PERCENT`"},
			&cli.Float64Flag{Name: "alpha", Value: bench.DefaultAlpha, Usage: "significance `LEVEL` of the U test"},
			&cli.BoolFlag{Name: "skip-corrupt", Usage: "leave out lines that are not history entries (with a warning) instead of failing"},
			&cli.StringFlag{Name: "json", Usage: "write the trend as JSON to `FILE` (\"-\": stdout, instead of the table)"},
			&cli.StringFlag{Name: "markdown", Usage: "write the trend as GitHub-flavoured markdown to `FILE` (\"-\": stdout, instead of the table)"},
		},
		Action: historyAction,
	}
}

func historyAction(c *cli.Context) error {
	a, err := args(c, "FILE")
	if err != nil {
		return err
	}
	opts := bench.TrendOptions{Last: c.Int("last"), Compare: bench.DefaultCompareOptions()}
	if opts.Last < 0 || opts.Last > maxLastFlag {
		return fmt.Errorf("%s: --last %d: want 0 (all) to %d", cmdPath(c), opts.Last, maxLastFlag)
	}
	if opts.Compare.Threshold, err = bench.ParseThreshold(c.String("threshold")); err != nil {
		return fmt.Errorf("--threshold: %w", err)
	}
	if opts.Compare.Alpha = c.Float64("alpha"); !(opts.Compare.Alpha > 0 && opts.Compare.Alpha < 1) {
		return fmt.Errorf("--alpha %v: want a level between 0 and 1, e.g. 0.05", opts.Compare.Alpha)
	}
	js, md := c.String("json"), c.String("markdown")
	if js == "-" && md == "-" {
		return fmt.Errorf("%s: --json - and --markdown - both write to stdout; give one of them a file", cmdPath(c))
	}
	for _, o := range [][2]string{{"json", js}, {"markdown", md}} {
		if o[1] != "" && o[1] != "-" {
			if err := checkWritable(o[1]); err != nil {
				return fmt.Errorf("%s: --%s %s: %w", cmdPath(c), o[0], o[1], err)
			}
		}
	}

	h, err := bench.ReadHistory(a[0], c.Bool("skip-corrupt"))
	if err != nil {
		return fmt.Errorf("%s: %w", cmdPath(c), err)
	}
	for _, s := range h.Skipped {
		fmt.Fprintf(c.App.ErrWriter, "forgebench: skipped %v\n", s)
	}
	filter := bench.HistoryFilter{Suite: c.String("suite"), Format: c.String("format"), Family: c.String("family"), Machine: c.String("machine")}
	if h, err = filter.Apply(h); err != nil {
		return fmt.Errorf("%s: %w", cmdPath(c), err)
	}
	trend := bench.ComputeTrend(h, opts)
	if js != "-" && md != "-" {
		if err := trend.WriteText(c.App.Writer); err != nil {
			return err
		}
	}
	if js != "" {
		if err := writeJSONTo(c, js, indented(trend)); err != nil {
			return err
		}
	}
	if md != "" {
		if err := writeJSONTo(c, md, trend.WriteMarkdown); err != nil {
			return err
		}
	}
	return nil
}

// markdownFlag is --markdown of run, compare and tune.
func markdownFlag(what string) cli.Flag {
	return &cli.StringFlag{Name: "markdown", Usage: "write " + what + " as GitHub-flavoured markdown tables to `FILE` (\"-\": stdout)"}
}

// historyFlag is --history of run and compare.
func historyFlag() cli.Flag {
	return &cli.StringFlag{Name: "history", Usage: "append the run to the history `FILE` (one JSON line per run, created when missing; forgebench history reads it)"}
}

// checkHistoryFlag refuses, before anything runs, a --history path that
// AppendHistory would refuse.
func checkHistoryFlag(c *cli.Context) error {
	if p := c.String("history"); p != "" {
		if err := bench.CheckHistory(p); err != nil {
			return fmt.Errorf("%s: --history: %w", cmdPath(c), err)
		}
	}
	return nil
}

// appendHistory appends run to --history's file, if given, saying so on
// stderr; source names the command.
func appendHistory(c *cli.Context, run *bench.Run, source string) error {
	p := c.String("history")
	if p == "" || run == nil {
		return nil
	}
	if len(run.Results) == 0 {
		fmt.Fprintf(c.App.ErrWriter, "forgebench: nothing appended to %s: the run has no results\n", p)
		return nil
	}
	if err := bench.AppendHistory(p, run, source); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "forgebench: appended the run to %s\n", p)
	return nil
}

// checkCompareOutputs checks compare's --markdown and --history before
// anything is measured: one output on stdout at most, a --markdown file
// that can be written, and --history only for a run compare measures (the
// run in --run FILE was measured elsewhere: append it there, with run
// --history).
func checkCompareOutputs(c *cli.Context) error {
	md := c.String("markdown")
	switch {
	case md == "-" && c.String("json") == "-":
		return fmt.Errorf("%s: --json - and --markdown - both write to stdout; give one of them a file", cmdPath(c))
	case md != "" && md != "-":
		if err := checkWritable(md); err != nil {
			return fmt.Errorf("%s: --markdown %s: %w", cmdPath(c), md, err)
		}
	}
	if c.String("history") != "" && c.String("run") != "" {
		return fmt.Errorf("%s: --history appends a run that compare measures; the run in --run %s was measured before (append it there, with run --history)", cmdPath(c), c.String("run"))
	}
	return checkHistoryFlag(c)
}
