package llama

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/suite"
)

var header = []string{"FAMILY/KERNEL", "FORMAT", "SHAPE", "FORGE µs", "LLAMA.CPP µs", "RATIO", "WINNER"}

// numeric marks the columns WriteText right-aligns: the times and the ratio.
var numeric = []bool{false, false, false, true, true, true, false, true, true}

// columns are the table's headings: with a vendor, its time and forge's
// ratio to it after the others.
func (c *Comparison) columns() []string {
	if c.Vendor == nil {
		return header
	}
	v := strings.ToUpper(c.Vendor.Name)
	return append(slices.Clone(header), v+" µs", "FORGE ÷ "+v)
}

func (c *Comparison) cells(r Row) []string {
	cells := []string{
		r.Family + "/" + r.Kernel, r.Format, suite.ShapeName(r.Shape...),
		fmt.Sprintf("%.2f", r.ForgeUS), fmt.Sprintf("%.2f", r.LlamaUS), fmt.Sprintf("%.2f", r.Ratio), r.Winner,
	}
	if c.Vendor != nil {
		if r.VendorUS > 0 {
			cells = append(cells, fmt.Sprintf("%.2f", r.VendorUS), fmt.Sprintf("%.2f", r.VendorRatio))
		} else {
			cells = append(cells, "-", "-")
		}
	}
	return cells
}

func (s Side) describe() string {
	var parts []string
	for _, p := range []string{s.Device, s.Backend} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if s.Commit != "" {
		parts = append(parts, "commit "+s.Commit)
	}
	return fmt.Sprintf("%s [%s]; each time is the %s", strings.Join(s.Sources, ", "), strings.Join(parts, ", "), s.Statistic)
}

// preamble is what both writers print above the table.
func (c *Comparison) preamble() []string {
	p := []string{
		"forge:     " + c.Forge.describe(),
		"llama.cpp: " + c.Llama.describe(),
	}
	if v := c.Vendor; v != nil {
		dev := ""
		if v.Device != "" {
			dev = " [" + v.Device + "]"
		}
		p = append(p, fmt.Sprintf("%s: %s%s; each time is the %s", v.Name, v.Source, dev, v.Statistic))
	}
	return append(p, "SHAPE is forge's rows x cols (matvec) or rows x cols x batch (matmul): ggml's m x k (x n); RATIO is forge / llama.cpp, below 1 forge is faster")
}

func (c *Comparison) tally() string {
	f, l, g := c.Tally()
	if len(c.Rows) == 0 {
		return "no forge result matched a test-backend-ops case"
	}
	return fmt.Sprintf("%d rows: forge faster in %d, llama.cpp in %d; geometric mean ratio %.2f", len(c.Rows), f, l, g)
}

// WriteText prints the comparison as an aligned table, the tally, the
// notes and every unmatched result and case with its reason.
func (c *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, s := range c.preamble() {
		b.WriteString(s + "\n")
	}
	b.WriteString("\n")
	table := [][]string{c.columns()}
	for _, r := range c.Rows {
		table = append(table, c.cells(r))
	}
	bench.WriteColumns(&b, table, func(col int) bool { return numeric[col] })
	c.writeMatricesText(&b)
	b.WriteString("\n" + c.tally() + "\n")
	for _, n := range c.Notes {
		b.WriteString("note: " + n + "\n")
	}
	writeUnmatched(&b, "forge results without a test-backend-ops case", c.ForgeOnly, "  ")
	writeUnmatched(&b, "test-backend-ops cases without a forge result", c.LlamaOnly, "  ")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown prints the same as WriteText, the table as a Markdown
// table and the lists as Markdown lists.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	for _, s := range c.preamble() {
		b.WriteString(s + "  \n")
	}
	cols := c.columns()
	b.WriteString("\n| " + strings.Join(cols, " | ") + " |\n")
	align := make([]string, len(cols))
	for i := range cols {
		align[i] = "---"
		if numeric[i] {
			align[i] = "---:"
		}
	}
	b.WriteString("| " + strings.Join(align, " | ") + " |\n")
	for _, r := range c.Rows {
		b.WriteString("| " + strings.Join(c.cells(r), " | ") + " |\n")
	}
	c.writeMatricesMarkdown(&b)
	b.WriteString("\n" + c.tally() + "\n")
	for _, n := range c.Notes {
		b.WriteString("\nNote: " + n + "\n")
	}
	writeUnmatched(&b, "forge results without a test-backend-ops case", c.ForgeOnly, "- ")
	writeUnmatched(&b, "test-backend-ops cases without a forge result", c.LlamaOnly, "- ")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeUnmatched(b *strings.Builder, title string, us []Unmatched, bullet string) {
	if len(us) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s (%d):\n", title, len(us))
	if bullet == "- " {
		b.WriteString("\n")
	}
	for _, u := range us {
		fmt.Fprintf(b, "%s%s: %s\n", bullet, u.What, u.Why)
	}
}
