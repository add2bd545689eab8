package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/gguf"
	"github.com/rocmforge/forge/specs/formats"
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
	// Spec: forge has a spec for the type that can decode the tensor
	// (bench.TensorFormat); NoSpec says why not.
	Spec   bool   `json:"forge_spec"`
	NoSpec string `json:"forge_spec_problem,omitempty"`
}

// specOf looks up forge's spec for a tensor's type id; tests replace it
// to plant a spec with the wrong block geometry.
var specOf = (*gguf.Tensor).Format

// tensorFormat is forge's spec for t when that spec can decode t, else
// why not (bench.FormatFor).
func tensorFormat(t *gguf.Tensor) (*formats.Format, error) { return bench.FormatFor(t, specOf) }

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
		ts[i] = lsTensor{Name: t.Name, Type: t.TypeName(), TypeID: uint32(t.Type), Shape: t.Dims, Elems: t.Elements(), Bytes: t.Bytes(), Offset: t.FileOffset, Spec: true}
		if _, err := tensorFormat(t); err != nil {
			ts[i].Spec, ts[i].NoSpec = false, err.Error()
		}
		total += t.Bytes()
	}
	w := c.App.Writer
	if dst := c.String("json"); dst != "" {
		out := map[string]any{"file": a[0], "version": f.Version, "alignment": f.Alignment,
			"data_offset": f.DataStart, "tensors": ts}
		if c.Bool("kv") {
			kv := map[string]any{}
			for _, p := range f.KVs {
				kv[p.Key] = jsonValue(p.Value)
			}
			out["kv"] = kv
		}
		return writeJSONTo(c, dst, indented(out))
	}
	fmt.Fprintf(w, "%s: GGUF v%d, %d tensors, %d metadata keys, alignment %d, data at %d\n",
		a[0], f.Version, len(f.Tensors), len(f.KVs), f.Alignment, f.DataStart)
	if c.Bool("kv") {
		// printTable shows each cell through bench.Printable: a value with a
		// newline (a chat template) stays on its row, escapes stay inert.
		rows := [][]string{{"KEY", "TYPE", "VALUE"}}
		for _, p := range f.KVs {
			rows = append(rows, []string{p.Key, p.Value.TypeName(), p.Value.String()})
		}
		printTable(w, rows, 3)
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
		fmt.Fprintf(w, "* cannot be decoded (listed only): %s\n", bench.Printable(strings.Join(missing, "; ")))
	}
	return nil
}

// jsonValue is a metadata value as JSON: numbers as numbers (written as
// the file's float32 or integer would print, not widened to float64),
// booleans, strings, arrays as JSON arrays of their elements; NaN and
// infinities, which JSON has no numbers for, as the strings "NaN", "+Inf"
// and "-Inf".
func jsonValue(v gguf.Value) any {
	switch v.Type() {
	case gguf.TypeString:
		return v.String()
	case gguf.TypeBool:
		b, _ := v.Bool()
		return b
	case gguf.TypeFloat32, gguf.TypeFloat64:
		f, _ := v.Float64()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v.String() // strconv spells them NaN, +Inf, -Inf
		}
		return json.Number(v.String())
	case gguf.TypeArray:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = jsonValue(v.Index(i))
		}
		return out
	case gguf.TypeUint8, gguf.TypeUint16, gguf.TypeUint32, gguf.TypeUint64,
		gguf.TypeInt8, gguf.TypeInt16, gguf.TypeInt32, gguf.TypeInt64:
		return json.Number(v.String())
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

// noSpec lists the types of the tensors forge cannot decode, each once
// with the reason ("IQ2_XXS: no forge spec for ggml type 16").
func noSpec(ts []lsTensor) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !t.Spec && !seen[t.Type] {
			seen[t.Type] = true
			out = append(out, t.Type+": "+t.NoSpec)
		}
	}
	sort.Strings(out)
	return out
}

// maxThreadsFlag bounds gguf dequant --threads (and tune --jobs): more
// goroutines or compilers than any machine has cores is a typo.
const maxThreadsFlag = 4096

func ggufDequant(c *cli.Context) error {
	a, err := args(c, "FILE", "TENSOR")
	if err != nil {
		return err
	}
	out := c.String("output")
	if out == "" {
		return fmt.Errorf("%s: no output file: give -o PATH (or -o - for stdout)", cmdPath(c))
	}
	threads := c.Int("threads")
	if threads < 0 || threads > maxThreadsFlag {
		return fmt.Errorf("%s: --threads %d: want 0 (all cores) to %d", cmdPath(c), threads, maxThreadsFlag)
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
	format, err := tensorFormat(t)
	if err != nil {
		return fmt.Errorf("%s: tensor %q has type %s (ggml id %d), which forge cannot decode: %v", a[0], t.Name, t.TypeName(), t.Type, err)
	}
	raw, err := f.TensorData(t)
	if err != nil {
		return err
	}
	vals := make([]float32, t.Elements())
	if err := cpu.New(threads).Dequantize(format, vals, raw); err != nil {
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
		a[0], bench.Printable(t.Name), t.TypeName(), shape(t.Dims), out, len(vals), 4*len(vals))
	return nil
}
