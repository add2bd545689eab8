package tune

import (
	"fmt"
	"io"
	"strings"

	"github.com/rocmforge/forge/runtime/bench"
)

// MarkdownColumns are WriteMarkdown's table columns.
var MarkdownColumns = []string{"format", "class", "shape", "winner", "µs", "spec default µs", "speedup", "spread", "timed", "dropped"}

// WriteMarkdown writes r as markdown (forgebench tune --markdown): a line
// naming the target, family, device, weight mode, date and forge revision,
// then one GitHub-flavoured table with a row per (format, shape class): the
// winning configuration and its time, the spec default's time and the
// winner's speedup over it ("-" when the default was dropped), the spread
// between the slowest and fastest candidate, and how many candidates were
// timed and dropped ("none" as the winner when no candidate passed).
func WriteMarkdown(w io.Writer, r *Result) error {
	var b strings.Builder
	line := fmt.Sprintf("forgebench tune: %s %s on %s (weights %s), %s", r.Target, r.Family, r.Device, r.Weights, r.Date)
	if r.Rev != "" {
		line += ", forge " + r.Rev
	}
	if r.Cached > 0 {
		line += fmt.Sprintf("; %d of %d results from the cache", r.Cached, r.Cached+r.Fresh)
	}
	b.WriteString(bench.MarkdownCell(line) + "\n\n")
	var rows [][]string
	for _, g := range r.Groups {
		winner, us, def, speedup, spread := "none", "-", "-", "-", "-"
		if g.Winner != nil {
			winner, us = g.Winner.Config, fmt.Sprintf("%.2f", g.Winner.US)
			spread = fmt.Sprintf("%.2fx", g.Spread)
			if g.DefaultUS > 0 {
				def, speedup = fmt.Sprintf("%.2f", g.DefaultUS), fmt.Sprintf("%.2fx", g.Speedup)
			}
		}
		rows = append(rows, []string{g.Format, g.Class, g.Shape, winner, us, def, speedup, spread,
			fmt.Sprint(len(g.Timed)), fmt.Sprint(len(g.Dropped))})
	}
	bench.WriteMarkdownTable(&b, MarkdownColumns, rows, func(col int) bool { return col >= 4 })
	_, err := io.WriteString(w, b.String())
	return err
}
