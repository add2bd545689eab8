package llama

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/suite"
)

// Matrix is one family's ratios (forge / llama.cpp) by format and column:
// the long table's rows folded so that a format's row reads across its
// shapes (and kernels: matvec's matvec_f32 and matvec_x8 side by side).
type Matrix struct {
	Family  string   // "matmul"
	Formats []string // rows, in the table's order
	Columns []string // "4096x14336x16"; "matvec_x8 4096x14336" where the family has several kernels
	Cells   [][]*Row // [format][column]; nil where the pair was not compared
}

// Matrices folds the comparison's rows by family: formats in the order
// they first appear, columns by kernel (in the order they first appear)
// and then by shape, smaller first; a family of one column gets none (the
// long table says it all).
func (c *Comparison) Matrices() []Matrix {
	type col struct {
		kernel string
		shape  []int
	}
	var families []string
	kernels := map[string][]string{}
	cols := map[string][]col{}
	for _, r := range c.Rows {
		if !slices.Contains(families, r.Family) {
			families = append(families, r.Family)
		}
		if !slices.Contains(kernels[r.Family], r.Kernel) {
			kernels[r.Family] = append(kernels[r.Family], r.Kernel)
		}
		if !slices.ContainsFunc(cols[r.Family], func(c col) bool { return c.kernel == r.Kernel && slices.Equal(c.shape, r.Shape) }) {
			cols[r.Family] = append(cols[r.Family], col{r.Kernel, r.Shape})
		}
	}
	var out []Matrix
	for _, fam := range families {
		cs := cols[fam]
		if len(cs) < 2 {
			continue
		}
		ks := kernels[fam]
		slices.SortStableFunc(cs, func(a, b col) int {
			if d := slices.Index(ks, a.kernel) - slices.Index(ks, b.kernel); d != 0 {
				return d
			}
			return slices.Compare(a.shape, b.shape)
		})
		m := Matrix{Family: fam}
		for _, c := range cs {
			label := suite.ShapeName(c.shape...)
			if len(ks) > 1 {
				label = c.kernel + " " + label
			}
			m.Columns = append(m.Columns, label)
		}
		for i := range c.Rows {
			r := &c.Rows[i]
			if r.Family != fam {
				continue
			}
			fi := slices.Index(m.Formats, r.Format)
			if fi < 0 {
				fi = len(m.Formats)
				m.Formats = append(m.Formats, r.Format)
				m.Cells = append(m.Cells, make([]*Row, len(cs)))
			}
			ci := slices.IndexFunc(cs, func(c col) bool { return c.kernel == r.Kernel && slices.Equal(c.shape, r.Shape) })
			m.Cells[fi][ci] = r
		}
		out = append(out, m)
	}
	return out
}

// ratioCell spells a row's ratio: two decimals, three where two would
// round a loss or a win to 1.00, and mark (text: a trailing "*"; markdown:
// bold) where llama.cpp is faster; "-" for a pair not compared.
func ratioCell(r *Row, markdown bool) string {
	if r == nil {
		return "-"
	}
	s := fmt.Sprintf("%.2f", r.Ratio)
	if s == "1.00" && r.Winner != "tie" {
		s = fmt.Sprintf("%.3f", r.Ratio)
	}
	if r.Winner == "llama.cpp" {
		if markdown {
			return "**" + s + "**"
		}
		return s + "*"
	}
	return s
}

const matrixTitle = "ratio forge / llama.cpp by format and shape"

// writeMatricesText prints each matrix as an aligned table.
func (c *Comparison) writeMatricesText(b *strings.Builder) {
	for _, m := range c.Matrices() {
		fmt.Fprintf(b, "\n%s, %s (* where llama.cpp is faster):\n", matrixTitle, m.Family)
		table := [][]string{append([]string{"FORMAT"}, m.Columns...)}
		for f, name := range m.Formats {
			row := []string{name}
			for s := range m.Columns {
				row = append(row, ratioCell(m.Cells[f][s], false))
			}
			table = append(table, row)
		}
		bench.WriteColumns(b, table, func(col int) bool { return col > 0 })
	}
}

// writeMatricesMarkdown prints each matrix as a Markdown table.
func (c *Comparison) writeMatricesMarkdown(b *strings.Builder) {
	for _, m := range c.Matrices() {
		fmt.Fprintf(b, "\n%s, %s (bold where llama.cpp is faster):\n\n", matrixTitle, m.Family)
		b.WriteString("| format | " + strings.Join(m.Columns, " | ") + " |\n")
		b.WriteString("| --- |" + strings.Repeat(" ---: |", len(m.Columns)) + "\n")
		for f, name := range m.Formats {
			cells := make([]string, len(m.Columns))
			for s := range m.Columns {
				cells[s] = ratioCell(m.Cells[f][s], true)
			}
			b.WriteString("| " + name + " | " + strings.Join(cells, " | ") + " |\n")
		}
	}
}
