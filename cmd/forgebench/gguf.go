package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/gguf"
)

func ggufCommand() *cli.Command {
	return &cli.Command{
		Name:  "gguf",
		Usage: "inspect and decode GGUF model files",
		Subcommands: []*cli.Command{
			{
				Name:      "ls",
				Usage:     "list a GGUF file's tensors (name, type, shape, bytes)",
				ArgsUsage: "FILE",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "kv", Usage: "also print the metadata key/value pairs"},
					&cli.StringFlag{Name: "json", Usage: "write the listing as JSON to `FILE` (\"-\": stdout, instead of the table); written atomically"},
				},
				Action: ggufLs,
			},
			{
				Name:      "dequant",
				Usage:     "decode one tensor to raw little-endian float32, in ggml's element order",
				ArgsUsage: "FILE TENSOR",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output `PATH` (\"-\" for stdout); written atomically"},
					&cli.IntFlag{Name: "threads", Aliases: []string{"j"}, Usage: "goroutines for the cpu backend (0: all cores)"},
				},
				Action: ggufDequant,
			},
		},
	}
}

func args(c *cli.Context, names ...string) ([]string, error) {
	if c.NArg() != len(names) {
		return nil, fmt.Errorf("%s: want %d argument(s) %s, got %d (see --help)",
			cmdPath(c), len(names), strings.Join(names, " "), c.NArg())
	}
	return c.Args().Slice(), nil
}

// cmdPath is the command as typed, e.g. "gguf dequant", for messages.
func cmdPath(c *cli.Context) string {
	var names []string
	for _, l := range c.Lineage() {
		if l.Command != nil && l.Command.Name != "" && l.Command.Name != c.App.Name {
			names = append([]string{l.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

type lsTensor struct {
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	TypeID uint32  `json:"ggml_type"`
	Shape  []int64 `json:"shape"`
	Elems  int64   `json:"elements"`
	Bytes  int64   `json:"bytes"`
	Offset int64   `json:"file_offset"`
	Spec   bool    `json:"forge_spec"`
}

func ggufLs(c *cli.Context) error {
	a, err := args(c, "FILE")
	if err != nil {
		return err
	}
	f, err := gguf.Open(a[0])
	if err != nil {
		return err
	}
	defer f.Close()
	ts := make([]lsTensor, len(f.Tensors))
	var total int64
	for i := range f.Tensors {
		t := &f.Tensors[i]
		_, spec := t.Format()
		ts[i] = lsTensor{t.Name, t.TypeName(), uint32(t.Type), t.Dims, t.Elements(), t.Bytes(), t.FileOffset, spec}
		total += t.Bytes()
	}
	w := c.App.Writer
	if dst := c.String("json"); dst != "" {
		out := map[string]any{"file": a[0], "version": f.Version, "alignment": f.Alignment,
			"data_offset": f.DataStart, "tensors": ts}
		if c.Bool("kv") {
			kv := map[string]string{}
			for _, p := range f.KVs {
				kv[p.Key] = p.Value.String()
			}
			out["kv"] = kv
		}
		return writeJSONTo(c, dst, indented(out))
	}
	fmt.Fprintf(w, "%s: GGUF v%d, %d tensors, %d metadata keys, alignment %d, data at %d\n",
		a[0], f.Version, len(f.Tensors), len(f.KVs), f.Alignment, f.DataStart)
	if c.Bool("kv") {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tTYPE\tVALUE")
		for _, p := range f.KVs {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Key, p.Value.TypeName(), p.Value.String())
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	rows := [][]string{{"NAME", "TYPE", "SHAPE", "ELEMENTS", "BYTES", "OFFSET"}}
	for _, t := range ts {
		typ := t.Type
		if !t.Spec {
			typ += "*"
		}
		rows = append(rows, []string{t.Name, typ, shape(t.Shape), fmt.Sprint(t.Elems), fmt.Sprint(t.Bytes), fmt.Sprint(t.Offset)})
	}
	printTable(w, rows, 3) // names, types and shapes left-aligned, numbers right-aligned
	fmt.Fprintf(w, "total %d bytes of tensor data\n", total)
	if missing := noSpec(ts); len(missing) > 0 {
		fmt.Fprintf(w, "* no forge spec (listed, cannot be decoded): %s\n", strings.Join(missing, ", "))
	}
	return nil
}

// printTable prints rows in aligned columns; columns from firstNumeric on
// are right-aligned.
func printTable(w io.Writer, rows [][]string, firstNumeric int) {
	var b strings.Builder
	bench.WriteColumns(&b, rows, func(col int) bool { return col >= firstNumeric })
	io.WriteString(w, b.String())
}

func shape(d []int64) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func noSpec(ts []lsTensor) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !t.Spec && !seen[t.Type] {
			seen[t.Type] = true
			out = append(out, t.Type)
		}
	}
	sort.Strings(out)
	return out
}

func ggufDequant(c *cli.Context) error {
	a, err := args(c, "FILE", "TENSOR")
	if err != nil {
		return err
	}
	out := c.String("output")
	if out == "" {
		return fmt.Errorf("%s: no output file: give -o PATH (or -o - for stdout)", cmdPath(c))
	}
	f, err := gguf.Open(a[0])
	if err != nil {
		return err
	}
	defer f.Close()
	t, ok := f.Tensor(a[1])
	if !ok {
		return fmt.Errorf("%s: no tensor %q (list them with: forgebench gguf ls %s)", a[0], a[1], a[0])
	}
	format, ok := t.Format()
	if !ok {
		return fmt.Errorf("%s: tensor %q has type %s (ggml id %d), for which forge has no spec", a[0], t.Name, t.TypeName(), t.Type)
	}
	raw, err := f.TensorData(t)
	if err != nil {
		return err
	}
	vals := make([]float32, t.Elements())
	if err := cpu.New(c.Int("threads")).Dequantize(format, vals, raw); err != nil {
		return fmt.Errorf("%s: tensor %q: %w", a[0], t.Name, err)
	}
	write := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		var b [4]byte
		for _, v := range vals {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			bw.Write(b[:])
		}
		return bw.Flush()
	}
	if out == "-" {
		return write(c.App.Writer)
	}
	if err := atomicfile.Write(out, 0o644, write); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: %s %s %s → %s (%d float32, %d bytes)\n",
		a[0], t.Name, t.TypeName(), shape(t.Dims), out, len(vals), 4*len(vals))
	return nil
}
