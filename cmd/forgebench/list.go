package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/specs/targets"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the suites forgebench runs, and forge's targets",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "suite", Usage: "only these suites: globs or /regexp/, comma-separated"},
			&cli.StringFlag{Name: "format", Usage: "only these formats"},
			&cli.StringFlag{Name: "family", Usage: "only these families"},
			&cli.StringFlag{Name: "json", Usage: "write the suites, targets and backends as JSON to `FILE` (\"-\": stdout, instead of the tables); written atomically"},
		},
		Action: listAction,
	}
}

type listSuite struct {
	Name          string      `json:"name"`
	Family        string      `json:"family"`
	Kernel        string      `json:"kernel"`
	Format        string      `json:"format"`
	Output        string      `json:"output"`
	BlockElems    int         `json:"block_elems"`
	BlockBytes    int         `json:"block_bytes"`
	BitsPerWeight float64     `json:"bits_per_weight"`
	Compression   float64     `json:"compression"`
	ShapesCPU     []listShape `json:"default_shapes_cpu"`
	ShapesGPU     []listShape `json:"default_shapes_gpu"`
}

// listShape is one default benchmark shape: its name and dimensions.
type listShape struct {
	Name string `json:"name"`
	Dims []int  `json:"dims"`
}

func (s listShape) String() string {
	if d := suite.ShapeName(s.Dims...); d != s.Name {
		return s.Name + "=" + d
	}
	return s.Name
}

func shapeList(shapes []listShape) string {
	var names []string
	for _, s := range shapes {
		names = append(names, s.String())
	}
	return strings.Join(names, " ")
}

type listTarget struct {
	Name             string `json:"name"`
	Vendor           string `json:"vendor"`
	WaveSize         int    `json:"wave_size"`
	Default          bool   `json:"default"`
	ThreadsPerBlock  int    `json:"threads_per_block"`
	VectorsPerThread int    `json:"vectors_per_thread"`
	Doc              string `json:"doc"`
}

// defaultShape is the shape a suite runs at by default with elems
// elements per iteration: whole blocks, at least one.
func defaultShape(blockElems, elems int) []listShape {
	n := max(1, elems/blockElems) * blockElems
	return []listShape{{suite.ShapeName(n), []int{n}}}
}

// listShapes converts benchmark shapes for the listing.
func listShapes(shapes []suite.BenchShape) []listShape {
	var out []listShape
	for _, sh := range shapes {
		out = append(out, listShape{sh.Name, sh.Dims})
	}
	return out
}

func listAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("list: unexpected arguments %q", c.Args().Slice())
	}
	filter := bench.Filter{Suite: c.String("suite"), Format: c.String("format"), Family: c.String("family")}
	ts, err := filter.Select(bench.SuiteTargets(suite.All()))
	if err != nil {
		return err
	}
	var suites []listSuite
	for _, t := range ts {
		s, f := t.Suite, t.Suite.Format
		if s.IsScenario() { // memory, quantize, attention: their cases are their own
			suites = append(suites, listSuite{Name: s.Name, Family: s.Family})
			continue
		}
		shapeCPU, shapeGPU := defaultShape(f.BlockElems, suite.DefaultBenchElems), defaultShape(f.BlockElems, suite.DefaultDeviceBenchElems)
		// A family with shapes of its own (matvec: rows × cols) runs one
		// benchmark per shape ($FORGE_BENCH_<FAMILY> names one instead).
		if fam, ok := family.ByName(s.Family); ok && fam.Dims != nil {
			shapeCPU, shapeGPU = listShapes(fam.DefaultShapes(false, f)), listShapes(fam.DefaultShapes(true, f))
		}
		suites = append(suites, listSuite{
			Name: s.Name, Family: s.Family, Kernel: s.Kernel, Format: f.Name, Output: s.Output,
			BlockElems: f.BlockElems, BlockBytes: f.BlockBytes, BitsPerWeight: f.BitsPerWeight(),
			Compression: 4 * float64(f.BlockElems) / float64(f.BlockBytes),
			ShapesCPU:   shapeCPU,
			ShapesGPU:   shapeGPU,
		})
	}
	var tgts []listTarget
	for _, t := range targets.All() {
		tgts = append(tgts, listTarget{t.Name, t.Vendor, t.WaveSize, t.Default, t.Dequant.ThreadsPerBlock, t.Dequant.VectorsPerThread, t.Doc})
	}
	w := c.App.Writer
	if out := c.String("json"); out != "" {
		return writeJSONTo(c, out, indented(map[string]any{"suites": suites, "targets": tgts, "backends": backend.Backends()}))
	}
	rows := [][]string{{"SUITE", "FAMILY", "KERNEL", "FORMAT", "OUTPUT", "BLOCK", "BYTES", "BITS/WEIGHT", "RATIO", "SHAPES (CPU)", "SHAPES (GPU)"}}
	for _, s := range suites {
		if s.BlockElems == 0 { // a scenario suite: no format, its cases are its own
			rows = append(rows, []string{s.Name, s.Family, "-", "-", "-", "-", "-", "-", "-", "(scenario)", "(scenario)"})
			continue
		}
		rows = append(rows, []string{s.Name, s.Family, s.Kernel, s.Format, s.Output, strconv.Itoa(s.BlockElems), strconv.Itoa(s.BlockBytes),
			fmt.Sprintf("%.4g", s.BitsPerWeight), fmt.Sprintf("%.2fx", s.Compression), shapeList(s.ShapesCPU), shapeList(s.ShapesGPU)})
	}
	printTable(w, rows, 5)
	fmt.Fprintf(w, "%d suites\n\n", len(suites))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tVENDOR\tWAVE\tDEFAULT\tTHREADS/BLOCK\tVECTORS/THREAD\tDESCRIPTION")
	for _, t := range tgts {
		def := ""
		if t.Default {
			def = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d\t%d\t%s\n", t.Name, t.Vendor, t.WaveSize, def, t.ThreadsPerBlock, t.VectorsPerThread, t.Doc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nbackends: %s (run --backend; auto picks a GPU kernel library when one is found and opens, else cpu)\n", strings.Join(backend.Backends(), ", "))
	return nil
}
