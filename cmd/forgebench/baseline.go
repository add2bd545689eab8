package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/bench"
)

func baselineDirFlag() cli.Flag {
	return &cli.StringFlag{
		Name:    "dir",
		Value:   bench.DefaultBaselineDir,
		EnvVars: []string{"FORGEBENCH_BASELINE_DIR"},
		Usage:   "baseline `DIR` (created by save when missing)",
	}
}

func baselineStore(c *cli.Context) bench.BaselineStore {
	return bench.BaselineStore{Dir: c.String("dir")}
}

func baselineCommand() *cli.Command {
	return &cli.Command{
		Name:  "baseline",
		Usage: "save, list, show and delete baselines (runs kept by name for compare)",
		Subcommands: []*cli.Command{
			{
				Name:      "save",
				Usage:     "save a run as baseline NAME (NAME: letters, digits, '-', '_', '.'); written atomically to DIR/NAME.json",
				ArgsUsage: "NAME",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "from", Usage: "save the run in `RUN.json` (from `forgebench run --json`) instead of running the suites"},
					&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "replace an existing baseline of that name"},
					baselineDirFlag(),
				}, benchFlags()...),
				Action: baselineSave,
			},
			{
				Name:   "list",
				Usage:  "list the saved baselines",
				Flags:  []cli.Flag{baselineDirFlag()},
				Action: baselineList,
			},
			{
				Name:      "show",
				Usage:     "print a baseline's machine and its benchmarks",
				ArgsUsage: "NAME",
				Flags: []cli.Flag{
					baselineDirFlag(),
					&cli.StringFlag{Name: "json", Usage: "write the baseline's JSON to `FILE` (\"-\": stdout, instead of the summary); written atomically"},
				},
				Action: baselineShow,
			},
			{
				Name:      "delete",
				Usage:     "delete baseline NAME (also one that no longer reads)",
				ArgsUsage: "NAME",
				Flags:     []cli.Flag{baselineDirFlag()},
				Action:    baselineDelete,
			},
		},
	}
}

func baselineSave(c *cli.Context) error {
	a, err := args(c, "NAME")
	if err != nil {
		return err
	}
	name := a[0]
	// Check the name before a possibly long run.
	if err := bench.ValidName(name); err != nil {
		return err
	}
	var run *bench.Run
	if from := c.String("from"); from != "" {
		// Nothing is measured, but a bad run flag is still an error (exit
		// 2), as it is for a live save, not silently ignored.
		if _, err := benchOptions(c); err != nil {
			return err
		}
		run, err = bench.ReadRun(from)
	} else {
		run, err = measure(c)
	}
	if err != nil {
		return err
	}
	if run.Interrupted {
		fmt.Fprintf(c.App.ErrWriter, "warning: the run was interrupted: baseline %q holds only the %d benchmarks that finished\n", name, len(run.Results))
	}
	path, err := baselineStore(c).Save(name, run, c.Bool("force"))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "saved baseline %s (%d benchmarks, %s) to %s\n", name, len(run.Results), runMachine(run.Meta), path)
	return nil
}

func baselineList(c *cli.Context) error {
	if _, err := args(c); err != nil {
		return err
	}
	s := baselineStore(c)
	ents, err := s.List()
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		fmt.Fprintf(c.App.Writer, "no baselines in %s\n", s.Dir)
		return nil
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUN\tBENCHMARKS\tMACHINE")
	bad := 0
	for _, e := range ents {
		if e.Err != nil {
			bad++
			fmt.Fprintf(tw, "%s\t-\t-\tUNREADABLE: %s\n", e.Name, bench.Printable(e.Err.Error()))
			continue
		}
		machine := runMachine(e.Run.Meta)
		if len(e.Run.Results) == 0 { // compare refuses it: as unusable as an unreadable one
			bad++
			machine = "EMPTY: no results, compare refuses it"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", e.Name, e.Run.Started.Format("2006-01-02 15:04"), len(e.Run.Results), machine)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d baseline files in %s cannot be read or hold no results (listed above)", bad, len(ents), s.Dir)
	}
	return nil
}

func baselineShow(c *cli.Context) error {
	a, err := args(c, "NAME")
	if err != nil {
		return err
	}
	run, err := baselineStore(c).Load(a[0])
	if err != nil {
		return err
	}
	if out := c.String("json"); out != "" {
		err = writeJSONTo(c, out, func(w io.Writer) error { return bench.EncodeRun(w, run) })
	} else {
		err = showBaselineRun(c.App.Writer, run)
	}
	if err != nil {
		return err
	}
	// Shown, but not passed as good: compare refuses an empty baseline.
	if err := bench.CheckHasResults(run, fmt.Sprintf("baseline %s (%s)", a[0], baselineStore(c).Path(a[0]))); err != nil {
		return fmt.Errorf("%s: %w: compare refuses it; save a run over it (--force) or delete it", cmdPath(c), err)
	}
	return nil
}

func baselineDelete(c *cli.Context) error {
	a, err := args(c, "NAME")
	if err != nil {
		return err
	}
	s := baselineStore(c)
	if err := s.Delete(a[0]); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "deleted baseline %s (%s)\n", a[0], s.Path(a[0]))
	return nil
}

// runMachine is a run's hardware and software in one line, shown through
// bench.Printable (a run file's strings are anyone's).
func runMachine(m bench.Meta) string {
	var parts []string
	for _, s := range []string{m.Backend, m.Device, m.Arch, m.Target} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if m.Backend == "cpu" && m.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", m.CPUs))
	}
	if m.ForgeVersion != "" {
		v := "forge " + m.ForgeVersion
		if c := m.ForgeCommit; c != "" {
			v += " " + c[:min(len(c), 12)]
			if m.ForgeModified {
				v += "+modified"
			}
		}
		parts = append(parts, v)
	}
	return bench.Printable(strings.Join(parts, ", "))
}

func showBaselineRun(w io.Writer, r *bench.Run) error {
	m := r.Meta
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	field := func(k, v string) {
		if v != "" && v != "0" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, bench.Printable(v))
		}
	}
	field("baseline", r.Name)
	field("run", r.Started.Format("2006-01-02 15:04:05 MST")+fmt.Sprintf(" (%s)", r.Finished.Sub(r.Started).Round(1e6)))
	field("backend", m.Backend)
	field("device", m.Device)
	field("arch", m.Arch)
	field("target", m.Target)
	field("library", m.Library)
	field("driver", m.Driver)
	field("toolkit", m.Toolkit)
	field("cpus", fmt.Sprint(m.CPUs))
	field("go", m.GoVersion)
	field("os", m.OS)
	field("host", m.Hostname)
	field("forge", strings.TrimPrefix(runMachine(bench.Meta{ForgeVersion: m.ForgeVersion, ForgeCommit: m.ForgeCommit, ForgeModified: m.ForgeModified}), "forge "))
	if r.Roofline != nil {
		field("copy roofline", fmt.Sprintf("%.4g GB/s (%d MiB buffer)", r.Roofline.GBps, r.Roofline.Bytes>>20))
	}
	if r.Interrupted {
		field("interrupted", "yes: only the benchmarks that finished")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tN\tMEDIAN\tMIN\tMAX\tGB/s")
	for i := range r.Results {
		res := &r.Results[i]
		if len(res.Samples) == 0 { // a scenario's figures alone: no times
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\n", bench.Printable(res.Name))
			continue
		}
		med, _ := bench.SummarizeMetric(res, bench.MetricTime, 0)
		lo, hi := res.Samples[0], res.Samples[0]
		for _, s := range res.Samples {
			lo, hi = min(lo, s), max(hi, s)
		}
		gbps := "-"
		if g, ok := bench.SummarizeMetric(res, bench.MetricGBps, 0); ok {
			gbps = bench.FormatMetric(bench.MetricGBps, g.Center)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s ± %s\t%s\t%s\t%s\n", bench.Printable(res.Name), len(res.Samples),
			bench.FormatMetric(bench.MetricTime, med.Center), med.PctRange(),
			bench.FormatMetric(bench.MetricTime, float64(lo)), bench.FormatMetric(bench.MetricTime, float64(hi)), gbps)
	}
	return tw.Flush()
}
