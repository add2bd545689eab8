// Package hipgen renders forge's HIP sources from the loaded specs: for every
// target, format and format-specific kernel family,
// generated/hip/<target>/<format>_<family>.hip from
// templates/hip/<family>.hip.tmpl, and for every shared family (attention,
// the glue) generated/hip/<target>/<family>.hip; per target, forge_runtime.hip from
// runtime.hip.tmpl, the one definition in that target's library of
// everything that is not format-specific (forge_abi_version, the runtime ABI
// forge_rt_*, the forge_copy kernel); and generated/hip/forge_portability.h,
// a copy of the templates' header. It owns the template data the templates see and the
// launch-grid cap; the kernel shape is the templates' (templates/hip).
//
// Rendering is pure: Files reads only the embedded templates and the spec,
// and returns the files in memory for gen to write.
package hipgen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
	"github.com/rocmforge/forge/templates/hip"
)

const (
	// Dir is where the generated HIP goes, relative to the module root.
	Dir = "generated/hip"
	// TemplateDir is where the templates live, relative to the module root;
	// generated files name their template by this path.
	TemplateDir = "templates/hip"
	// HeaderName is the portability header, in TemplateDir and in Dir.
	HeaderName = "forge_portability.h"
	// RuntimeName is the per-target file that defines forge_abi_version,
	// the forge_rt_* runtime ABI and forge_copy.
	RuntimeName = "forge_runtime.hip"
	// runtimeTemplate renders RuntimeName.
	runtimeTemplate = "runtime.hip.tmpl"

	// GridCap caps the workgroups a launcher starts; the kernels grid-stride
	// over the rest. 65535 workgroups of ≥ 32 threads keep any current GPU
	// busy (an RX 7900 XTX holds ~1.5k resident 256-thread workgroups, an
	// H100 ~2k), and stay within every runtime's grid limit.
	GridCap = 65535
)

// RuntimeSymbols are the extern "C" functions every kernel library exports
// besides its launchers, all defined in RuntimeName: forge_abi_version, the
// runtime ABI (declared in forge_portability.h) and forge_copy.
var RuntimeSymbols = []string{
	"forge_abi_version",
	"forge_rt_init",
	"forge_rt_error_string",
	"forge_rt_device_info",
	"forge_rt_mem_info",
	"forge_rt_malloc",
	"forge_rt_free",
	"forge_rt_memcpy_h2d",
	"forge_rt_memcpy_d2h",
	"forge_rt_memset",
	"forge_rt_synchronize",
	"forge_rt_stream_create",
	"forge_rt_stream_destroy",
	"forge_rt_event_create",
	"forge_rt_event_destroy",
	"forge_rt_event_record",
	"forge_rt_event_elapsed_ms",
	"forge_copy",
	"forge_rt_graph_begin",
	"forge_rt_graph_end",
	"forge_rt_graph_launch",
	"forge_rt_graph_destroy",
}

// lineResetMark is what the templates' lineReset emits; render replaces it
// with a #line directive naming the generated file at the next line.
const lineResetMark = "#line FORGE_LINE_RESET"

// outputs maps a kernel's Output to the C element type its launcher writes
// and the intrinsic that converts Dequant's float32 to it ("" for none).
var outputs = map[string]struct {
	ctype, convert string
	size           int
}{
	"f32": {"float", "", 4},
	"f16": {"uint16_t", "forge_f32_to_half", 2},
}

// Files renders every generated HIP file for s, sorted by path. On any
// error it returns no files and every error found, each naming the file it
// was rendering.
func Files(s *ir.Spec) ([]ir.File, error) { return render(hip.FS, s) }

// familyData is what a family template (<family>.hip.tmpl) sees: for a
// format-specific family one format on one target, for a shared family
// (Family.Shared) one target, Format and Device nil.
type familyData struct {
	Header   string // model.GeneratedHeader
	Template string // the template's path from the module root
	Format   *ir.Format
	Lower    string // Format.Lower(): the prefix of file-local names
	Device   *ir.Device
	Target   *ir.Target
	Family   *ir.Family
	Kernels  []kernelData
	GridCap  int
	// MatVecClasses are the matvec launcher's shape classes, in dispatch
	// order, each with its configuration: the tuned winner from
	// specs/tuned/<target>.json, else the target spec's MatVec.
	MatVecClasses []launchClass
	// MatVecX8Classes are matvec_x8's shape classes (specs/tuned.MatVecX8),
	// in dispatch order, each with its configuration: the winner from
	// specs/tuned/<target>.json, else targets.MatVecX8Default; nil for a
	// format without the integer form.
	MatVecX8Classes []launchClass
	// MatMulIntClasses are matmul's integer-path classes for the format
	// (the target spec's MatMulInt, in dispatch order), each with its
	// configuration: the winner of its batch class (specs/tuned.MatMulInt,
	// the same MaxBatch) from specs/tuned/<target>.json, else the spec's;
	// nil for a format without the integer form.
	MatMulIntClasses []matMulIntClass
	// MatMulHalfClasses are matmul's mma.sync f16 path's classes for a
	// format stored as plain binary16 (the target spec's MatMulHalf, in
	// dispatch order), each the winner of its batch class
	// (specs/tuned.MatMulHalf) where there is one, else the spec's.
	MatMulHalfClasses []matMulIntClass
	// IntSuper says that the format's integer form has a super form
	// (ir.IntForm.SuperScale): the integer matmul then sums a block's
	// products in integers.
	IntSuper bool
	// IntF16 is the largest batch the integer path may serve with the f16
	// fragments on this target (Target.MatMulIntF16; 0: none): the classes
	// within it whose int8 knob is 0 take them, and forgebench tune can
	// force either on any class.
	IntF16 int
	// Words says that dequant takes the format's integer form, which
	// stands in for Dequant bit for bit (formats.Meta.ExactInt).
	Words bool
}

// matMulIntClass is one batch class of matmul's integer path.
type matMulIntClass struct {
	MaxBatch int
	Tuning   targets.MatMulIntTuning // OffsetWarpRows set only where the target spec's applies
	Source   string
}

// launchClass is one shape class of a tuned family's launcher.
type launchClass struct {
	Name                 string // "narrow"
	Doc                  string // "cols ≤ 8192 (...)"
	MaxCols              int    // the dispatch test is cols <= MaxCols; 0 for the last class (the else branch)
	Threads, Rows, Chunk int
	Lanes                int    // matvec_x8: lanes per 32-element group
	Groups               int    // matvec_x8: consecutive 32-element groups per lane
	Source               string // where the configuration came from, for the header comment
	Tuned                bool   // Source is a forgebench tune winner
}

// kernelData is one kernel of the family (for the format).
type kernelData struct {
	Name    string // "dequant_f32"
	Doc     string // the kernel's own line, if the spec gives one
	Symbol  string // the extern "C" launcher: "forge_dequant_f32_q4_0"
	Kernel  string // the __global__ function: Symbol + "_kernel"
	Output  string // "f32", "f16"
	CType   string // the element type of dst: "float", "uint16_t"
	Convert string // the intrinsic from float to CType, or ""
	Size    int    // bytes per output element
	Vec     int    // output elements per 16-byte vector store
	// An attention kernel's input type (its Output), head dimension, and
	// whether it is f16.
	DType   string
	HeadDim int
	Half    bool
	// IntForm marks a kernel on the format's integer form
	// (families.Kernel.IntForm): present only when Device.Int is.
	IntForm bool
}

// runtimeData is what runtime.hip.tmpl sees.
type runtimeData struct {
	Header   string
	Template string
	Target   *ir.Target
	GridCap  int // forge_copy's cap on workgroups
}

func render(fsys fs.FS, s *ir.Spec) ([]ir.File, error) {
	var files []ir.File
	var errs []error
	fail := func(p string, err error) { errs = append(errs, fmt.Errorf("%s: %w", p, err)) }

	hdr, err := fs.ReadFile(fsys, HeaderName)
	if err != nil {
		fail(path.Join(Dir, HeaderName), err)
	} else {
		var b bytes.Buffer
		b.WriteString(ir.GeneratedHeader + "\n")
		b.WriteString("// Source: " + path.Join(TemplateDir, HeaderName) + " (copied by gen/hipgen)\n")
		b.Write(hdr)
		files = append(files, ir.File{Path: path.Join(Dir, HeaderName), Data: b.Bytes()})
	}

	rtTmpl, err := parse(fsys, runtimeTemplate)
	if err != nil {
		errs = append(errs, err)
	}
	famTmpl := make([]*template.Template, len(s.Families))
	for i, fam := range s.Families {
		if famTmpl[i], err = parse(fsys, fam.Name+".hip.tmpl"); err != nil {
			errs = append(errs, fmt.Errorf("family %s: %w", fam.Name, err))
		}
	}

	for _, t := range s.Targets {
		dir := path.Join(Dir, t.Name)
		if rtTmpl != nil {
			p := path.Join(dir, RuntimeName)
			data := runtimeData{Header: ir.GeneratedHeader, Template: path.Join(TemplateDir, runtimeTemplate), Target: t, GridCap: GridCap}
			if b, err := execute(rtTmpl, p, data); err != nil {
				fail(p, err)
			} else {
				files = append(files, ir.File{Path: p, Data: b})
			}
		}
		for i, fam := range s.Families {
			if famTmpl[i] == nil {
				continue
			}
			formats := s.Formats
			if fam.Shared {
				formats = []*ir.Format{nil}
			}
			for _, f := range formats {
				p := path.Join(dir, fam.Name+".hip")
				if f != nil {
					p = path.Join(dir, f.Lower()+"_"+fam.Name+".hip")
				}
				data, err := newFamilyData(f, t, fam)
				if err != nil {
					fail(p, err)
					continue
				}
				b, err := execute(famTmpl[i], p, data)
				if err != nil {
					fail(p, err)
					continue
				}
				files = append(files, ir.File{Path: p, Data: b})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return nil, fmt.Errorf("%s: rendered twice (duplicate target, format or family name)", files[i].Path)
		}
	}
	return files, nil
}

// newFamilyData is family fam's template data for format f (nil for a
// shared family) on target t.
func newFamilyData(f *ir.Format, t *ir.Target, fam *ir.Family) (*familyData, error) {
	data := &familyData{
		Header:   ir.GeneratedHeader,
		Template: path.Join(TemplateDir, fam.Name+".hip.tmpl"),
		Target:   t,
		Family:   fam,
		GridCap:  GridCap,
	}
	if f != nil {
		if f.Device == nil {
			return nil, fmt.Errorf("format %s has no device code (the translator has not run)", f.Name)
		}
		d := *f.Device
		if d.Block == "" || d.Func == "" || d.Code == "" {
			return nil, fmt.Errorf("format %s: incomplete device code (Block %q, Func %q, %d bytes of Code)", f.Name, d.Block, d.Func, len(d.Code))
		}
		d.Code = strings.TrimRight(d.Code, "\n")
		data.Format, data.Lower, data.Device = f, f.Lower(), &d
		data.MatVecClasses = matVecClasses(f, t)
		if data.Device.Int != nil {
			data.MatVecX8Classes = matVecX8Classes(f, t)
			data.MatMulIntClasses = matMulClasses(f, t, tuned.MatMulInt)
			data.Words = f.ExactInt()
			data.IntSuper = data.Device.Int.SuperScale != ""
			data.IntF16 = t.MatMulIntF16
		}
		if f.IEEE == "binary16" {
			data.MatMulHalfClasses = matMulClasses(f, t, tuned.MatMulHalf)
		}
	}
	for _, k := range fam.Kernels {
		if k.IntForm && (f == nil || data.Device.Int == nil) {
			continue // the format has no integer form for the kernel to use
		}
		out, ok := outputs[k.Output]
		if !ok {
			return nil, fmt.Errorf("family %s: kernel %s: unknown output type %q (want f32 or f16)", fam.Name, k.Name, k.Output)
		}
		format := "" // a shared family's launchers name no format
		if f != nil {
			format = f.Name
		}
		sym := k.Symbol(format)
		data.Kernels = append(data.Kernels, kernelData{
			Name: k.Name, Doc: k.Doc, Symbol: sym, Kernel: sym + "_kernel",
			Output: k.Output, CType: out.ctype, Convert: out.convert,
			Size: out.size, Vec: 16 / out.size,
			DType: k.Output, HeadDim: k.HeadDim, Half: k.Output == "f16", IntForm: k.IntForm,
		})
	}
	return data, nil
}

// matVecClasses is the matvec launcher's dispatch for format f on target t:
// per shape class (specs/tuned.MatVec.Classes) the tuned winner, when
// t.Tuned has one, else the spec default.
func matVecClasses(f *ir.Format, t *ir.Target) []launchClass {
	var out []launchClass
	for _, c := range tuned.MatVec.Classes {
		lc := launchClass{Name: c.Name, Doc: c.Doc, MaxCols: c.MaxCols,
			Threads: t.MatVec.ThreadsPerBlock, Rows: t.MatVec.RowsPerBlock, Chunk: t.MatVec.Chunk,
			Source: "the target spec's default (" + t.File + ")"}
		if e := t.Tuned.Entry(tuned.MatVec.Name, f.Name, c.Name); e != nil {
			lc.Threads, lc.Rows, lc.Chunk = e.Knobs["threads"], e.Knobs["rows"], e.Knobs["chunk"]
			lc.Source = tunedSource(t, e)
		}
		out = append(out, lc)
	}
	return out
}

// matVecX8Classes is format f's matvec_x8 dispatch on target t: per shape
// class (specs/tuned.MatVecX8.Classes) the winner from specs/tuned, else
// targets.MatVecX8Default (the rule read off the hand sweep on the H100),
// so that the rule lives in one place.
func matVecX8Classes(f *ir.Format, t *ir.Target) []launchClass {
	var out []launchClass
	for _, c := range tuned.MatVecX8.Classes {
		lc := launchClass{Name: c.Name, Doc: c.Doc, MaxCols: c.MaxCols}
		if e := t.Tuned.Entry(tuned.MatVecX8.Name, f.Name, c.Name); e != nil {
			lc.Threads, lc.Rows, lc.Lanes, lc.Groups, lc.Source, lc.Tuned = e.Knobs["threads"], e.Knobs["rows"], e.Knobs["lanes"], e.Knobs["groups"], tunedSource(t, e), true
		} else {
			d := targets.MatVecX8Default(f.BlockElems, f.BlockBytes)
			lc.Threads, lc.Rows, lc.Lanes, lc.Groups = d["threads"], d["rows"], d["lanes"], d["groups"]
			lc.Source = "no forgebench tune winner in " + tuned.Path(t.Name) + ", so the default rule read off a sweep on the H100 (targets.MatVecX8Default)"
		}
		out = append(out, lc)
	}
	return out
}

// matMulClasses is format f's dispatch over a matmul class family's
// classes on target t (fam: tuned.MatMulInt over the target spec's
// MatMulInt, tuned.MatMulHalf over MatMulHalf): per class the winner of the
// tuned batch class of the same MaxBatch from specs/tuned, else the class
// as the target spec has it.
func matMulClasses(f *ir.Format, t *ir.Target, fam *tuned.Family) []matMulIntClass {
	var out []matMulIntClass
	for _, c := range t.MatMulClasses(fam, f.Name) {
		mc := matMulIntClass{MaxBatch: c.MaxBatch, Tuning: c.Tuning, Source: "the target spec's (" + t.File + ")"}
		if c.Entry != nil {
			mc.Source = tunedSource(t, c.Entry)
		}
		out = append(out, mc)
	}
	return out
}

// tunedSource is where a winner came from, for the generated file's comments.
func tunedSource(t *ir.Target, e *tuned.Entry) string {
	s := fmt.Sprintf("tuned (%s: %s, %s", tuned.Path(t.Name), e.Device, e.Date)
	if e.Rev != "" {
		s += ", forge " + e.Rev
	}
	return s + fmt.Sprintf("; %.2f µs at %s vs the default's %.2f, best of %d)", e.WinnerUS, e.Shape, e.DefaultUS, e.Candidates)
}

// parse reads one template; a reference to a missing map key is an error
// when it runs (struct fields are checked regardless).
func parse(fsys fs.FS, name string) (*template.Template, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", path.Join(TemplateDir, name), err)
	}
	t, err := template.New(name).
		Option("missingkey=error").
		Funcs(template.FuncMap{"lineReset": func() string { return lineResetMark }}).
		Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", path.Join(TemplateDir, name), err)
	}
	return t, nil
}

// execute renders t and replaces each lineReset mark with a #line directive
// giving the next line its own number in the generated file p.
func execute(t *template.Template, p string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		if strings.TrimRight(l, "\n") == lineResetMark {
			lines[i] = "#line " + strconv.Itoa(i+2) + " " + strconv.Quote(p) + "\n"
		} else if strings.Contains(l, lineResetMark) {
			return nil, fmt.Errorf("line %d: lineReset must stand on a line of its own", i+1)
		}
	}
	return []byte(strings.Join(lines, "")), nil
}
