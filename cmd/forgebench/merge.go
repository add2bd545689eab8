package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/bench"
)

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge the pieces of a split run (run --shard I/N, one per machine) into one run",
		ArgsUsage: "PIECE.json...",
		Description: `Reads the JSON of each piece (forgebench run --shard I/N --json PIECE.json) and
writes one run, which compare, report and baseline save --from take as any
other. It refuses, naming the pieces: a piece that is no shard, pieces of
different N, a shard given twice, a benchmark in two pieces; missing shards or
a piece that was interrupted or failed part-way (unless --allow-partial); and
pieces measured on different hardware or software (backend, device, arch,
target, kernel library, driver, toolkit, OS, Go, forge version or commit) or
with a different selection or options (unless --allow-mixed). The merged run's
metadata lists its pieces; its copy roofline is the median of the pieces'.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "json", Aliases: []string{"o"}, Usage: "write the merged run to `FILE` (\"-\": stdout); written atomically"},
			&cli.BoolFlag{Name: "allow-mixed", Usage: "merge pieces from different hardware or software, or of a different selection or options (each difference a warning)"},
			&cli.BoolFlag{Name: "allow-partial", Usage: "merge when shards are missing or a piece was interrupted or failed part-way (a warning)"},
		},
		Action: mergeAction,
	}
}

func mergeAction(c *cli.Context) error {
	paths := c.Args().Slice()
	if len(paths) == 0 {
		return fmt.Errorf("%s: want the pieces, PIECE.json... (see --help)", cmdPath(c))
	}
	out := c.String("json")
	if out == "" {
		return fmt.Errorf("%s: no output: give --json FILE (or --json - for stdout)", cmdPath(c))
	}
	if out != "-" {
		for _, p := range paths {
			if samePath(p, out) {
				return fmt.Errorf("%s: --json %s would overwrite the piece %s", cmdPath(c), out, p)
			}
		}
		if err := checkWritable(out); err != nil {
			return fmt.Errorf("%s: --json %s: %w", cmdPath(c), out, err)
		}
	}
	pieces := make([]bench.MergePiece, len(paths))
	for i, p := range paths {
		r, err := bench.ReadRun(p)
		if err != nil {
			return err
		}
		pieces[i] = bench.MergePiece{Path: p, Run: r}
	}
	run, warnings, err := bench.Merge(pieces, bench.MergeOptions{AllowMixed: c.Bool("allow-mixed"), AllowPartial: c.Bool("allow-partial")})
	if err != nil {
		return fmt.Errorf("%s: %w", cmdPath(c), err)
	}
	for _, w := range warnings {
		fmt.Fprintf(c.App.ErrWriter, "forgebench: warning: %s\n", bench.Printable(w))
	}
	if err := writeJSONTo(c, out, func(w io.Writer) error { return bench.EncodeRun(w, run) }); err != nil {
		return err
	}
	m := run.Meta.Merged
	var hosts []string
	for _, p := range m.Pieces {
		if p.Hostname != "" && !slices.Contains(hosts, p.Hostname) {
			hosts = append(hosts, p.Hostname)
		}
	}
	line := fmt.Sprintf("forgebench: merged %d of %d shards: %d results", len(m.Pieces), m.Count, len(run.Results))
	if len(hosts) > 0 {
		line += " measured on " + strings.Join(hosts, ", ")
	}
	fmt.Fprintln(c.App.ErrWriter, bench.Printable(line))
	return nil
}
