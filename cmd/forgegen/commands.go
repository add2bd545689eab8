package main

import (
	"fmt"
	"go/types"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/gen"
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/load"
	"github.com/rocmforge/forge/gen/translate"
)

func generateCmd() *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "regenerate generated/ from specs/ (what go generate ./... runs)",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list every file written or deleted"}},
		Action: func(c *cli.Context) error {
			root, err := moduleRoot(c)
			if err != nil {
				return err
			}
			changes, err := gen.Generate(root)
			if err != nil {
				return fmt.Errorf("generation failed; generated/ is unchanged:\n%w", err)
			}
			if c.Bool("verbose") {
				for _, ch := range changes {
					fmt.Fprintln(c.App.Writer, ch)
				}
			}
			if len(changes) > 0 {
				fmt.Fprintf(c.App.ErrWriter, "forgegen: %d file(s) changed under %s/\n", len(changes), gen.OutDir)
			}
			return nil
		},
	}
}

func checkCmd() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "fail, listing the files, if generated/ is not what the specs generate",
		Action: func(c *cli.Context) error {
			root, err := moduleRoot(c)
			if err != nil {
				return err
			}
			changes, err := gen.Check(root)
			if err != nil {
				return err
			}
			if len(changes) == 0 {
				fmt.Fprintln(c.App.Writer, "generated/ is in sync with specs/")
				return nil
			}
			for _, ch := range changes {
				fmt.Fprintln(c.App.Writer, "stale:", ch)
			}
			return fmt.Errorf("generated/ is stale (%d file(s)); run: go generate ./...", len(changes))
		},
	}
}

func listCmd() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the formats, targets and kernel families in specs/",
		Action: func(c *cli.Context) error {
			r, err := loadSpecs(c)
			if err != nil {
				return err
			}
			s := r.Spec
			w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "FORMAT\tGGML\tBLOCK\tBYTES\tBITS/W\tSPEC")
			for _, f := range s.Formats {
				id := "-"
				if f.GGMLType >= 0 {
					id = fmt.Sprint(f.GGMLType)
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.4g\t%s\n", f.Name, id, f.BlockElems, f.BlockBytes,
					float64(8*f.BlockBytes)/float64(f.BlockElems), f.File)
			}
			fmt.Fprintln(w, "\nTARGET\tVENDOR\tWAVE\tDEFAULT\tDEQUANT THREADS×BLOCKS\tINT8 MATMUL\tF16 TENSOR CORES\tDESCRIPTION")
			for _, t := range s.Targets {
				def := ""
				if t.Default {
					def = "yes"
				}
				// The int8 product of matmul's integer path, and the f16
				// tensor-core paths' instruction (forgegen explain says more).
				i8, f16 := "-", "-"
				if len(t.MatMulInt) > 0 {
					i8 = t.IntProduct()
				}
				switch {
				case t.Vendor == "nvidia":
					f16 = "wmma"
				case t.WMMA:
					f16 = "WMMA"
				case t.MFMA:
					f16 = "MFMA"
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%d×%d\t%s\t%s\t%s\n", t.Name, t.Vendor, t.WaveSize, def,
					t.Dequant.ThreadsPerBlock, t.Dequant.VectorsPerThread, i8, f16, t.Doc)
			}
			fmt.Fprintln(w, "\nFAMILY\tKERNELS\tDESCRIPTION")
			for _, f := range s.Families {
				var ks []string
				for _, k := range f.Kernels {
					ks = append(ks, k.Name)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", f.Name, strings.Join(ks, ", "), f.Doc)
			}
			return w.Flush()
		},
	}
}

func explainCmd() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "show a format's layout, bits per weight and translated device function",
		ArgsUsage: "FORMAT",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("explain: want one FORMAT argument (see forgegen list)")
			}
			r, err := loadSpecs(c)
			if err != nil {
				return err
			}
			var names []string
			for _, f := range r.Spec.Formats {
				names = append(names, f.Name)
				if !strings.EqualFold(f.Name, c.Args().First()) {
					continue
				}
				w := c.App.Writer
				fmt.Fprintf(w, "%s — %s\nspec: %s\n", f.Name, f.Doc, f.Pos)
				id := "none"
				if f.GGMLType >= 0 {
					id = fmt.Sprint(f.GGMLType)
				}
				fmt.Fprintf(w, "ggml type %s; %d elements in %d bytes; %.4g bits per weight\n\nlayout of %s:\n",
					id, f.BlockElems, f.BlockBytes, float64(8*f.BlockBytes)/float64(f.BlockElems), f.BlockType)
				printLayout(c, r, f.BlockType)
				dev, err := translate.Format(r.Formats, f)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "\n%s\n%s\n%s\n", matvecPath(dev), dequantPath(f, dev), matmulPath(f, dev, r.Spec.Targets))
				fmt.Fprintf(w, "\ndevice code (HIP):\n%s", dev.Code)
				return nil
			}
			return fmt.Errorf("explain: no format %q; the formats are: %s", c.Args().First(), strings.Join(names, ", "))
		},
	}
}

// matvecPath says which matvec path a format takes and why: the integer
// form's, with its sub-block and codes, or the f32 path's, with the spec's
// reason for having no integer form.
func matvecPath(dev *ir.Device) string {
	in := dev.Int
	if in == nil {
		return "no integer form: " + dev.IntWhy + "; matvec takes the f32 path (Dequant per element, float activations)"
	}
	offset := "no offset"
	if in.Offset != "" {
		offset = "an offset per sub-block (" + in.Offset + ")"
	}
	s := fmt.Sprintf("integer form: sub-blocks of %d, codes four int8 to a 32-bit word (%s, word loads assume %d-byte aligned blocks), "+
		"a scale (%s) and %s; matvec_x8 uses it (activations quantized to 8 bits per 32, 4-way integer dot products)",
		in.Sub, in.Codes, in.Align, in.Scale, offset)
	if in.SuperScale != "" {
		s += fmt.Sprintf("; a super form: each scale an int8-range integer (%s) times the block's scale (%s)", in.SubScale, in.SuperScale)
		if in.SuperOffset != "" {
			s += fmt.Sprintf(", each offset likewise (%s, %s)", in.SubOffset, in.SuperOffset)
		}
	}
	return s
}

// matmulPath says which matmul paths a format takes: the integer path on
// the targets whose spec has MatMulInt classes, when the format has the
// integer form, with each target's int8 product (Target.IntProduct); the
// f16 tensor-core (NVIDIA) or f32 path, with Dequant per element,
// elsewhere; for a quantized format, the route through f16 from a target's
// MatMulF16MinBatch on; for one stored as plain binary16, the mma.sync f16
// path where the target has MatMulHalf classes, and wgmma where it has
// WGMMA (Hopper, sm_90a).
func matmulPath(f *ir.Format, dev *ir.Device, ts []*ir.Target) string {
	s := matmulBase(f, dev, ts)
	var half, route, wgmma []string
	for _, t := range ts {
		if f.IEEE == "binary16" && len(t.MatMulHalf) > 0 {
			half = append(half, t.Name)
		}
		if f.IEEE == "" && t.MatMulF16MinBatch > 0 {
			route = append(route, fmt.Sprintf("from batch %d on %s", t.MatMulF16MinBatch, t.Name))
		}
		if t.WGMMA {
			wgmma = append(wgmma, t.Name)
		}
	}
	if len(half) > 0 {
		var tc []string
		for _, t := range ts {
			if t.TensorCores() && !slices.Contains(half, t.Name) {
				tc = append(tc, t.Name)
			}
		}
		s = fmt.Sprintf("matmul takes the mma.sync f16 path on %s (MatMulHalf): X converted to f16, W's rows and X by cp.async, mma.sync m16n8k16 "+
			"with f32 accumulation; Dequant per element elsewhere (the f16 tensor-core path on %s, the f32 path on the rest) and for a launch that path cannot take",
			strings.Join(half, ", "), strings.Join(tc, ", "))
		if len(wgmma) > 0 {
			s += fmt.Sprintf("; on %s (WGMMA) Hopper's wgmma instead: tiles of 128 rows as wide as the batch to 64 columns, 128 from batch 65, 256 from batch 129 where K is at least 8192, "+
				"m64nNk16 products on swizzled shared-memory operands fed by TMA (one thread's box copies a stage, two multiplying warpgroups "+
				"meeting it at mbarriers; -DFORGE_MM_WGMMA_TMA=0: staged by cp.async, a step's products in flight while the next step's loads start)", strings.Join(wgmma, ", "))
		}
	}
	if f.IEEE == "" && dev.Int != nil {
		var frag, keep []string
		for _, t := range ts {
			if t.MatMulIntF16 == 0 {
				continue
			}
			var b []string
			for _, mb := range t.IntF16Batches(f.Name) {
				b = append(b, strconv.Itoa(mb))
			}
			if len(b) > 0 {
				frag = append(frag, fmt.Sprintf("in the classes up to batch %s on %s", strings.Join(b, " and "), t.Name))
			} else {
				keep = append(keep, t.Name)
			}
		}
		if len(frag) > 0 {
			s += fmt.Sprintf("; %s (MatMulIntF16, each class's int8 knob 0) the integer form is decoded to f16 in mma.sync's fragments instead of int8 products "+
				"(X converted to f16, each lane's codes to f16 scale·code + offset, no scaling per sub-block)", strings.Join(frag, ", "))
		}
		if len(keep) > 0 {
			s += fmt.Sprintf("; on %s it keeps the int8 products in every class (their int8 knob is 1, as tuned: slower with the f16 fragments)", strings.Join(keep, ", "))
		}
	}
	if len(route) > 0 {
		s += fmt.Sprintf("; %s (MatMulF16MinBatch) W is dequantized once to f16 (dequant_f16) and multiplied by F16's product (wgmma where the target has WGMMA, mma.sync elsewhere)", strings.Join(route, ", "))
	}
	if f.IEEE == "" && dev.Int != nil && len(wgmma) > 0 {
		s += fmt.Sprintf("; with -DFORGE_MM_WGMMA_Q (experimental, %s) wgmma with W dequantized inside the product through the integer form instead", strings.Join(wgmma, ", "))
	}
	return s
}

// matmulBase is matmulPath without the f16 paths.
func matmulBase(f *ir.Format, dev *ir.Device, ts []*ir.Target) string {
	var on []string
	for _, t := range ts {
		if len(t.MatMulInt) > 0 {
			on = append(on, fmt.Sprintf("%s (%s)", t.Name, t.IntProduct()))
		}
	}
	if dev.Int == nil || len(on) == 0 {
		var tc []string
		for _, t := range ts {
			if t.TensorCores() {
				tc = append(tc, t.Name)
			}
		}
		return fmt.Sprintf("matmul calls Dequant per element (the f16 tensor-core path on %s, the f32 path elsewhere)", strings.Join(tc, ", "))
	}
	terms := "no offset term"
	switch {
	case f.IntZero != 0:
		terms = fmt.Sprintf("codes minus %d (Meta.IntZero), so no offset term", f.IntZero)
	case dev.Int.Offset != "":
		terms = "an offset term from X's sums per 16"
	}
	s := fmt.Sprintf("matmul takes the integer path on %s (MatMulInt): X quantized to 8 bits per 32, W decoded in shared memory to int8 codes, "+
		"int8 products scaled per %d-element sub-block, %s; Dequant per element on the other targets and for a launch that path cannot take",
		strings.Join(on, ", "), dev.Int.Sub, terms)
	if dev.Int.SuperScale != "" {
		s += fmt.Sprintf("; the K-quant-style super form instead (SuperScale, SubScale): X quantized per %d-element block, a block's code·SubScale products "+
			"(and SubOffset·sum terms) summed in int32 and scaled once a block (NVIDIA: warp tiles of at most 8 16×8 pieces, a larger one has its columns halved; "+
			"-DFORGE_MM_INT_SUPER=0: the plain form)", f.BlockElems)
	}
	return s
}

// dequantPath says whether dequant takes the integer form, which it does
// only where the form reproduces Dequant bit for bit (ggml's result).
func dequantPath(f *ir.Format, dev *ir.Device) string {
	switch {
	case dev.Int == nil:
		return "dequant calls Dequant per element"
	case f.IntExact:
		return "dequant takes the integer form (one word of four codes per four elements): Scale·code + Offset is Dequant bit for bit (Meta.IntExact)"
	case f.IntZero != 0:
		return fmt.Sprintf("dequant takes the integer form (one word of four codes per four elements): (code − %d)·Scale is Dequant's own arithmetic, bit for bit (Meta.IntZero)", f.IntZero)
	}
	return "dequant calls Dequant per element: Scale·code + Offset differs from it in the sign of a zero, and the spec declares neither Meta.IntExact nor Meta.IntZero"
}

func printLayout(c *cli.Context, r *load.Result, typeName string) {
	obj := r.Formats.Types.Scope().Lookup(typeName)
	st, ok := obj.Type().Underlying().(*types.Struct)
	if !ok {
		return
	}
	sizes := types.SizesFor("gc", "amd64")
	var fields []*types.Var
	for i := 0; i < st.NumFields(); i++ {
		fields = append(fields, st.Field(i))
	}
	offs := sizes.Offsetsof(fields)
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  OFFSET\tBYTES\tFIELD\tTYPE")
	q := func(p *types.Package) string { return "" }
	for i, f := range fields {
		fmt.Fprintf(w, "  %d\t%d\t%s\t%s\n", offs[i], sizes.Sizeof(f.Type()), f.Name(), types.TypeString(f.Type(), q))
	}
	w.Flush()
}

// loadSpecs loads and validates the specs of the module forgegen runs in.
func loadSpecs(c *cli.Context) (*load.Result, error) {
	root, err := moduleRoot(c)
	if err != nil {
		return nil, err
	}
	return load.Load(root)
}
