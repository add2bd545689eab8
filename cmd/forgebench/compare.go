package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/bench"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:  "compare",
		Usage: "compare a run with a baseline; exits 1 on any regression (significant and past the threshold), 2 on an error (a missing baseline, an unreadable run, nothing to compare)",
		Description: "A benchmark regresses when its median is worse than the baseline's by more than the threshold\n" +
			"AND the Mann-Whitney U test finds the samples differ (p < alpha), as benchstat judges.\n" +
			"The run compared is --run RUN.json, or else a fresh run of the suites.\n" +
			"A baseline or run with no results, or two with no benchmark in common, is an error (exit 2):\n" +
			"a comparison that judged nothing does not pass.",
		ArgsUsage: "NAME",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "compare the run in `RUN.json` (from `forgebench run --json`) instead of running the suites"},
			&cli.StringFlag{Name: "baseline-file", Usage: "compare with the run or baseline in `FILE` instead of baseline NAME"},
			baselineDirFlag(),
			&cli.StringFlag{Name: "threshold", Value: "10%", Usage: "the relative change of the median that counts, as a `PERCENT`, for every metric"},
			&cli.StringSliceFlag{Name: "metric", Usage: "per-metric thresholds, `METRIC=PERCENT`[,...]: time (ns/op samples), gbps (GB/s)"},
			&cli.Float64Flag{Name: "alpha", Value: bench.DefaultAlpha, Usage: "significance `LEVEL` of the U test"},
			&cli.StringFlag{Name: "json", Usage: "also write the comparison as JSON to `OUT` (\"-\": stdout, instead of the table); written atomically"},
			markdownFlag("the comparison"), historyFlag(),
		}, benchFlags()...),
		Action: compareAction,
	}
}

func compareAction(c *cli.Context) error {
	if c.NArg() > 1 {
		return fmt.Errorf("%s: want one baseline NAME, got %d arguments (see --help)", cmdPath(c), c.NArg())
	}
	name, file := c.Args().First(), c.String("baseline-file")
	switch {
	case name != "" && file != "":
		return fmt.Errorf("%s: give baseline NAME or --baseline-file, not both", cmdPath(c))
	case name == "" && file == "":
		return fmt.Errorf("%s: name the baseline (NAME, or --baseline-file FILE); `forgebench baseline list` shows the saved ones", cmdPath(c))
	}

	// Options first: a typo should not cost a run of the suites.
	opts := bench.DefaultCompareOptions()
	var err error
	if opts.Threshold, err = bench.ParseThreshold(c.String("threshold")); err != nil {
		return fmt.Errorf("--threshold: %w", err)
	}
	if opts.Thresholds, err = bench.ParseMetricThresholds(c.StringSlice("metric")...); err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	opts.Alpha = c.Float64("alpha")
	if !(opts.Alpha > 0 && opts.Alpha < 1) {
		return fmt.Errorf("--alpha %v: want a level between 0 and 1, e.g. 0.05", opts.Alpha)
	}
	// The run flags too, also when --run means nothing is measured: a
	// value is refused the same on every command that takes it.
	if _, err := benchOptions(c); err != nil {
		return err
	}
	if err := checkCompareOutputs(c); err != nil {
		return err
	}

	var base *bench.Run
	label := name
	if file != "" {
		base, err = bench.ReadRun(file)
		label = file
	} else {
		base, err = baselineStore(c).Load(name)
	}
	if err != nil {
		return err
	}
	// An empty baseline would pass any run: refuse it before measuring.
	if err := bench.CheckHasResults(base, "baseline "+label); err != nil {
		return fmt.Errorf("%s: %w: %w", cmdPath(c), err, bench.ErrNothingToCompare)
	}

	var cur *bench.Run
	curLabel := c.String("run")
	if curLabel != "" {
		cur, err = bench.ReadRun(curLabel)
	} else {
		cur, err = measure(c)
		curLabel = "this run"
		if err == nil {
			err = appendHistory(c, cur, "compare")
		}
	}
	if err != nil {
		return err
	}
	// A gate that compared nothing must not pass: an empty run, or no
	// benchmark in common, is an error (exit 2), not "0 regressions".
	if err := bench.CheckComparable(base, cur, "baseline "+label, curLabel); err != nil {
		return fmt.Errorf("%s: %w", cmdPath(c), err)
	}

	cmp := bench.Compare(base, cur, opts)
	cmp.Baseline.Label, cmp.Current.Label = label, curLabel
	out, md := c.String("json"), c.String("markdown")
	if out != "-" && md != "-" {
		if err := cmp.WriteText(c.App.Writer); err != nil {
			return err
		}
	}
	if out != "" {
		if err := writeJSONTo(c, out, indented(cmp)); err != nil {
			return err
		}
	}
	if md != "" {
		if err := writeJSONTo(c, md, cmp.WriteMarkdown); err != nil {
			return err
		}
	}
	if cmp.Regressed() {
		return cli.Exit(fmt.Sprintf("%d of %d benchmarks regressed against %s", cmp.Regressions, len(cmp.Benchmarks), label), exitRegression)
	}
	return nil
}
