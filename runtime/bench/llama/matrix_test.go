package llama

import (
	"strings"
	"testing"
)

// TestMatrices: the rows fold by family into formats × columns (kernels in
// their order, then shapes, smaller first), a family of one column gets
// no matrix, and a ratio that two decimals would round to 1.00 keeps a
// third; llama.cpp's wins are marked.
func TestMatrices(t *testing.T) {
	row := func(fam, kernel, format string, shape []int, ratio float64) Row {
		w := "forge"
		if ratio > 1 {
			w = "llama.cpp"
		}
		return Row{Family: fam, Kernel: kernel, Format: format, Shape: shape, ForgeUS: ratio, LlamaUS: 1, Ratio: ratio, Winner: w}
	}
	c := &Comparison{Rows: []Row{
		row("matmul", "matmul_f32", "Q4_0", []int{4096, 14336, 512}, 0.45),
		row("matmul", "matmul_f32", "Q4_0", []int{4096, 4096, 16}, 0.95),
		row("matmul", "matmul_f32", "Q4_1", []int{4096, 4096, 16}, 1.003),
		row("matvec", "matvec_f32", "Q4_0", []int{4096, 14336}, 1.87),
		row("matvec", "matvec_x8", "Q4_0", []int{4096, 14336}, 0.82),
		row("matvec", "matvec_f32", "F16", []int{4096, 14336}, 1.02),
		row("dequant", "dequant_f32", "Q4_0", []int{4096}, 0.9), // one column: no matrix
	}}
	ms := c.Matrices()
	if len(ms) != 2 || ms[0].Family != "matmul" || ms[1].Family != "matvec" {
		t.Fatalf("matrices: %+v", ms)
	}
	mm := ms[0]
	if strings.Join(mm.Columns, ",") != "4096x4096x16,4096x14336x512" || strings.Join(mm.Formats, ",") != "Q4_0,Q4_1" ||
		mm.Cells[0][0].Ratio != 0.95 || mm.Cells[0][1].Ratio != 0.45 || mm.Cells[1][0].Ratio != 1.003 || mm.Cells[1][1] != nil {
		t.Errorf("matmul: %+v", mm)
	}
	mv := ms[1]
	if strings.Join(mv.Columns, ",") != "matvec_f32 4096x14336,matvec_x8 4096x14336" || strings.Join(mv.Formats, ",") != "Q4_0,F16" || mv.Cells[1][1] != nil {
		t.Errorf("matvec: %+v", mv)
	}
	var b strings.Builder
	c.writeMatricesText(&b)
	for _, want := range []string{"ratio forge / llama.cpp by format and shape, matmul (* where llama.cpp is faster):",
		"Q4_1          1.003*               -", "F16                     1.02*                     -"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	c.writeMatricesMarkdown(&b)
	for _, want := range []string{"| format | 4096x4096x16 | 4096x14336x512 |", "| Q4_1 | **1.003** | - |", "| Q4_0 | **1.87** | 0.82 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}
