package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/specs/formats"
)

func formatsCommand() *cli.Command {
	return &cli.Command{
		Name:  "formats",
		Usage: "list the quant formats forge has specs for",
		Action: func(c *cli.Context) error {
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "FORMAT\tGGML ID\tBLOCK\tBYTES\tBITS/WEIGHT\tDESCRIPTION")
			for _, f := range formats.All() {
				id := "-"
				if f.HasGGMLType() {
					id = fmt.Sprint(f.GGMLType)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.4g\t%s\n", f.Name, id, f.BlockElems, f.BlockBytes, f.BitsPerWeight(), f.Doc)
			}
			return tw.Flush()
		},
	}
}
