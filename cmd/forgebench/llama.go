package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/llama"
)

// exitBadInput is compare-llama's status for input it cannot read.
const exitBadInput = exitError

func compareLlamaCommand() *cli.Command {
	return &cli.Command{
		Name:  "compare-llama",
		Usage: "print forge's matvec and matmul times beside llama.cpp's (ggml test-backend-ops perf) for the same formats and shapes",
		Description: `Reads test-backend-ops perf output (--output sql; its --output csv has no
timings; the console output is read too) and forgebench runs (--json), and
prints per forge benchmark: family/kernel, format, shape, forge µs (the
median of its samples), llama.cpp µs (test-backend-ops' mean µs/run), the
ratio forge / llama.cpp and the winner; with --cublas, the vendor's f16
product (cuBLAS through PyTorch, scripts/cublas_f16.py) and forge's ratio to
it beside every matmul row of a shape it timed. A matvec of rows x cols is ggml's
MUL_MAT m = rows, k = cols, n = 1; a matmul of rows x cols x batch has
n = batch; a ggml type is the forge format of its name upper-cased (q4_K is
Q4_K). Results and cases without a counterpart are listed with the reason.
scripts/llama-compare.sh produces both inputs in one run on a GPU machine.

  forgebench compare-llama --llama tbo.sql --run matvec.json --run matmul.json --md

Exit status: 0 when it printed, 2 when an input cannot be read, a run has no
results or no forge result found a counterpart.`,
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "llama", Usage: "test-backend-ops perf output `FILE` (--output sql); repeat for several"},
			&cli.StringSliceFlag{Name: "run", Usage: "forgebench run `RUN.json` (forgebench run --json); repeat for several"},
			&cli.StringFlag{Name: "cublas", Usage: "scripts/cublas_f16.py's output `FILE`: the vendor's f16 product beside every matmul row of a shape it timed"},
			&cli.BoolFlag{Name: "md", Usage: "print the table and lists as Markdown"},
			&cli.StringFlag{Name: "json", Usage: "also write the comparison as JSON to `OUT` (\"-\": stdout, instead of the table); written atomically"},
		},
		Action: compareLlamaAction,
	}
}

func compareLlamaAction(c *cli.Context) error {
	bad := func(format string, args ...any) error {
		return cli.Exit(fmt.Sprintf("%s: %s", cmdPath(c), fmt.Sprintf(format, args...)), exitBadInput)
	}
	if c.NArg() > 0 {
		return bad("unexpected arguments %q (give the inputs with --llama and --run)", c.Args().Slice())
	}
	llamaFiles, runFiles := c.StringSlice("llama"), c.StringSlice("run")
	if len(llamaFiles) == 0 || len(runFiles) == 0 {
		return bad("want both sides: --llama FILE (test-backend-ops perf --output sql) and --run RUN.json (forgebench run --json)")
	}
	var cases []llama.Case
	for _, f := range llamaFiles {
		cs, err := llama.ReadFile(f)
		if err != nil {
			return bad("%v", err)
		}
		cases = append(cases, cs...)
	}
	var runs []llama.Run
	for _, f := range runFiles {
		r, err := bench.ReadRun(f)
		if err == nil {
			err = bench.CheckHasResults(r, f)
		}
		if err != nil {
			return bad("%v", err)
		}
		runs = append(runs, llama.Run{Label: f, Run: r})
	}

	cmp := llama.Compare(runs, cases)
	if f := c.String("cublas"); f != "" {
		dev, stat, us, err := llama.ReadCublas(f)
		if err != nil {
			return bad("%v", err)
		}
		cmp.AddVendor(llama.Vendor{Name: "cuBLAS f16", Source: f, Device: dev, Statistic: stat}, us)
	}
	out := c.String("json")
	if out != "-" {
		write := cmp.WriteText
		if c.Bool("md") {
			write = cmp.WriteMarkdown
		}
		if err := write(c.App.Writer); err != nil {
			return err
		}
	}
	if out != "" {
		if err := writeJSONTo(c, out, indented(cmp)); err != nil {
			return err
		}
	}
	// Shown, with why each side went unmatched; but a comparison without
	// a single pair is not a result.
	if len(cmp.Rows) == 0 {
		return bad("no forge result has a test-backend-ops case of the same format and shape (%d forge results and %d cases unmatched, listed with the reasons): nothing compared",
			len(cmp.ForgeOnly), len(cmp.LlamaOnly))
	}
	return nil
}
