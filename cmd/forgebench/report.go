package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/report"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write a self-contained HTML report of a run (metadata, results, charts)",
		Description: "Reads RUN.json (forgebench run --json, or a saved baseline) and writes one HTML\n" +
			"file that loads nothing: the charts are inline SVG. With --baseline, it adds the\n" +
			"change of every benchmark against that run, with regressions in red. With\n" +
			"--history FILE (what run --history appends), it adds a History section: per\n" +
			"benchmark a sparkline of its median in each of the last --history-last runs of\n" +
			"the run's machine, and the change from the first to the last with its p-value\n" +
			"and verdict, as forgebench history judges them (at --threshold). A line of FILE\n" +
			"that is not a history entry is an error naming FILE and the line (exit 2); a\n" +
			"FILE without runs of this machine says so on the page.",
		ArgsUsage: "RUN.json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "html", Usage: "write the report to `PATH` (\"-\" for stdout); written atomically"},
			&cli.StringFlag{Name: "baseline", Usage: "compare against the run or baseline JSON `FILE`"},
			&cli.StringFlag{Name: "threshold", Value: fmt.Sprintf("%g%%", report.DefaultThreshold), Usage: "a significant change of at least `PERCENT` (10% or 10, as compare takes it) is a regression (or an improvement)"},
			&cli.StringFlag{Name: "history", Usage: "add the trend of each benchmark across the runs of this run's machine in the history `FILE` (run --history)"},
			&cli.IntFlag{Name: "history-last", Value: 8, Usage: "with --history, the machine's last `N` runs (0: all)"},
		},
		Action: reportAction,
	}
}

func reportAction(c *cli.Context) error {
	a, err := args(c, "RUN.json")
	if err != nil {
		return err
	}
	out := c.String("html")
	if out == "" {
		return fmt.Errorf("%s: no output: give --html PATH (or --html - for stdout)", cmdPath(c))
	}
	threshold, err := bench.ParseThreshold(c.String("threshold"))
	if err != nil || !(threshold > 0 && threshold < 10) {
		return fmt.Errorf("%s: --threshold %q: want a percentage above 0 and below 1000, e.g. 10%%", cmdPath(c), c.String("threshold"))
	}
	hist, last := c.String("history"), c.Int("history-last")
	if c.IsSet("history-last") && hist == "" {
		return fmt.Errorf("%s: --history-last %d without --history FILE", cmdPath(c), last)
	}
	if last < 0 || last > maxLastFlag {
		return fmt.Errorf("%s: --history-last %d: want 0 (all) to %d", cmdPath(c), last, maxLastFlag)
	}
	inputs := []string{a[0]}
	run, err := bench.ReadRun(a[0])
	if err != nil {
		return err
	}
	// A report of nothing, or against a baseline it shares nothing with,
	// would look like a clean one.
	if err := bench.CheckHasResults(run, a[0]); err != nil {
		return fmt.Errorf("%s: %w: nothing to report", cmdPath(c), err)
	}
	opt := report.Options{Threshold: 100 * threshold}
	if b := c.String("baseline"); b != "" {
		inputs = append(inputs, b)
		if opt.Baseline, err = bench.ReadRun(b); err != nil {
			return err
		}
		if err := bench.CheckComparable(opt.Baseline, run, "baseline "+b, a[0]); err != nil {
			return fmt.Errorf("%s: %w", cmdPath(c), err)
		}
	}
	if hist != "" {
		inputs = append(inputs, hist)
		co := bench.DefaultCompareOptions()
		co.Threshold = threshold // the report's: one rule for the page
		// Every machine's runs: the report picks the run's (bench.MachineLabel),
		// and names the others when the file has none of it.
		if opt.History, err = bench.LoadTrend(hist, false, bench.HistoryFilter{}, bench.TrendOptions{Last: last, Compare: co}); err != nil {
			return fmt.Errorf("%s: --history: %w", cmdPath(c), err)
		}
	}
	if out == "-" {
		return report.Write(c.App.Writer, run, opt)
	}
	for _, in := range inputs {
		if samePath(in, out) {
			return fmt.Errorf("%s: --html %s would overwrite the input %s", cmdPath(c), out, in)
		}
	}
	return atomicfile.Write(out, 0o644, func(w io.Writer) error {
		return report.Write(w, run, opt)
	})
}

// samePath reports whether a and b name the same file (or would).
func samePath(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	aa, errA := filepath.Abs(a)
	ab, errB := filepath.Abs(b)
	return errA == nil && errB == nil && aa == ab
}
