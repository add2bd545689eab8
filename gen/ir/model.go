// Package ir holds the generator's view of the specs: the formats,
// targets, kernel families and workloads that gen/load collects from
// specs/ and that the renderers (gen/hipgen, gen/gogen) turn into files.
// Each holds its spec as the spec package's own value (a targets.Target,
// say), decoded from source, with what the generator adds: the variable,
// the file, the positions of the literal's fields. It is plain data, filled
// and validated by gen/load before a renderer sees it.
package ir

import (
	"go/token"
	"reflect"
	"strings"

	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
	"github.com/rocmforge/forge/specs/workloads"
)

// Spec is everything under specs/, loaded and validated.
type Spec struct {
	Module  string    // module path, "github.com/rocmforge/forge"
	Root    string    // absolute path of the module root
	Formats []*Format // ordered by ggml id (formats without one last, by name)
	Targets []*Target // ordered by name
	// Families are every kernel family, ordered by name: the registered
	// ones and the attention family's Family (AttentionFamily.AsFamily).
	Families []*Family
	// Attention is the flash-attention family spec (specs/families'
	// registerAttention), whose lists and the targets' tuning gen/load
	// checks; it renders as its entry in Families. Nil when
	// specs/families registers none.
	Attention *AttentionFamily
	// Workloads are the scenario suites' specs (specs/workloads), in
	// source order (file by file); none when the module has no such
	// package.
	Workloads []*Workload
}

// Format is one quant format spec (specs/formats/<name>.go): its metadata,
// decoded from source, its block type and where it is.
type Format struct {
	formats.Meta
	GoVar     string         // the specs/formats variable holding its *formats.Format: "Q4_0"
	BlockType string         // the Go block struct: "BlockQ4_0"
	File      string         // the spec file, relative to the module root: "specs/formats/q4_0.go"
	Pos       token.Position // of the register call (Filename relative to the module root)
	Fields    Positions      // of the Meta literal's fields
	Device    *Device        // the translated device code; set by gen before rendering
}

// Lower is the format's name in file and symbol names: "q4_0", "mxfp6_e2m3".
func (f *Format) Lower() string { return strings.ToLower(f.Name) }

// Device is a format's Dequant, and its integer form where the spec has
// one, translated to HIP by gen/translate.
type Device struct {
	Block string // C name of the block struct: "forge_BlockQ4_0"
	Func  string // C name of the element function: float Func(const Block* b, int32_t j)
	Code  string // struct, static_asserts, tables, helpers and Func (and Int's functions), with #line directives
	// Int is the integer form's device functions; nil when the format has
	// none, and then IntWhy says why (for forgegen explain).
	Int    *IntForm
	IntWhy string
}

// IntForm is a format's integer form on the device: per sub-block s of
// Sub elements, element j's value is Scale(s)·code_j + Offset(s), and the
// codes are int8, four to a 32-bit word. The kernels that use it (the
// integer matvec) multiply words of codes with words of 8-bit activations
// by 4-way dot products and apply Scale and Offset once per sub-block.
type IntForm struct {
	Sub    int    // elements per sub-block: 16 or 32 (divides the block)
	Codes  string // uint32_t Codes(const Block* b, int32_t w): codes of elements 4w..4w+3, element 4w in the low byte
	Scale  string // float Scale(const Block* b, int32_t s)
	Offset string // float Offset(const Block* b, int32_t s); "" when the spec has no Offset (every offset is 0)
	// The super form (specs/formats' superForm), "" without it: Scale(s)
	// is SuperScale(b)·SubScale(b, s) with an int8-range integer, Offset
	// likewise with SuperOffset and SubOffset. translate.Format refuses a
	// super form that leaves an offset uncovered (Offset, no IntZero, no
	// SuperOffset), so a SuperScale means the whole form.
	SuperScale  string // float SuperScale(const Block* b)
	SubScale    string // int32_t SubScale(const Block* b, int32_t s)
	SuperOffset string // float SuperOffset(const Block* b)
	SubOffset   string // int32_t SubOffset(const Block* b, int32_t s)
	// Align is the alignment, in bytes (1, 2 or 4), that Codes' word loads
	// assume of a block's address: the largest power of two dividing the
	// block size, at most 4. Blocks laid end to end from a base aligned so
	// keep it; a launcher must refuse (or take the f32 path for) a weight
	// pointer that is not.
	Align int
}

// Target is one target architecture: its spec (specs/targets), decoded
// from source, and where it is.
type Target struct {
	targets.Target
	GoVar  string         // the specs/targets variable: "GFX1100"
	File   string         // the spec file, relative to the module root
	Pos    token.Position // of the register call (Filename relative to the module root)
	Fields Positions      // of the spec literal's fields
	// Tuned is the winners file specs/tuned/<Name>.json (forgebench tune's
	// output), validated against this target; nil when there is none.
	Tuned *tuned.File
}

// MatMulClass is one of a target's matmul classes for a format: the
// target spec's, or the winner that replaces it (Entry, from the winners
// file; nil where there is none).
type MatMulClass struct {
	targets.MatMulIntBatch
	Entry *tuned.Entry
}

// MatMulClasses are t's classes of the matmul class family fam for format
// (tuned.MatMulInt: t.MatMulInt; tuned.MatMulHalf: t.MatMulHalf), each
// replaced by the format's winner of the same MaxBatch where t.Tuned has
// one (its knobs as the Tuning; OffsetWarpRows then 0: the winner's
// warp_rows is the format's own).
func (t *Target) MatMulClasses(fam *tuned.Family, format string) []MatMulClass {
	classes := t.MatMulInt
	if fam == tuned.MatMulHalf {
		classes = t.MatMulHalf
	}
	var out []MatMulClass
	for _, c := range classes {
		mc := MatMulClass{MatMulIntBatch: c}
		for _, tc := range fam.Classes {
			if tc.MaxBatch != c.MaxBatch {
				continue
			}
			if e := t.Tuned.Entry(fam.Name, format, tc.Name); e != nil {
				mc.Tuning, mc.Entry = targets.MatMulIntOfKnobs(e.Knobs), e
			}
		}
		out = append(out, mc)
	}
	return out
}

// IntF16Batches are the MaxBatch of format's integer-path classes on t
// that decode W's codes to f16 in the fragments (within t.MatMulIntF16,
// Int8 0), in order.
func (t *Target) IntF16Batches(format string) []int {
	var out []int
	if t.MatMulIntF16 == 0 {
		return out
	}
	for _, c := range t.MatMulClasses(tuned.MatMulInt, format) {
		if c.MaxBatch > 0 && c.MaxBatch <= t.MatMulIntF16 && c.Tuning.Int8 == 0 {
			out = append(out, c.MaxBatch)
		}
	}
	return out
}

// Family is one kernel family: its spec (specs/families), decoded from
// source, and where it is.
type Family struct {
	families.Family
	GoVar  string         // the specs/families variable: "Dequant"
	File   string         // the spec file, relative to the module root
	Pos    token.Position // of the register call
	Fields Positions      // of the spec literal's fields
}

// File is one generated file, rendered in memory.
type File struct {
	Path string // relative to the module root, slash-separated: "generated/hip/gfx1100/q4_0_dequant.hip"
	Data []byte
}

// GeneratedHeader is the first line of every generated Go file; generated
// C++ files carry the same text. Go recognises it as generated code.
const GeneratedHeader = "// Code generated by forgegen. DO NOT EDIT."

// Workload is one scenario-suite spec (specs/workloads): a variable
// initialised by register with a struct literal of one of the types in
// WorkloadKinds, decoded from source into that type.
type Workload struct {
	Name   string         // the suite name: "memory/kv_cache"
	Family string         // "memory", from the kind
	Kind   string         // the spec's type: "KVCache"
	Doc    string         // its Doc field
	GoVar  string         // the specs/workloads variable: "KVCache7B"
	File   string         // the spec file, relative to the module root
	Pos    token.Position // of the register call
	Value  any            // the spec: a workloads.KVCache, say
	Fields Positions      // of the spec literal's fields
}

// WorkloadKind is what a spec type of specs/workloads becomes: the suite
// family, and the scenario constructor (a function of the spec value
// returning a *suite.Scenario) in a package under the module.
type WorkloadKind struct {
	Type   reflect.Type // the spec type: workloads.KVCache
	Family string       // "memory"
	Pkg    string       // relative to the module: "runtime/suite/memsuite"
	Func   string       // "KVCache"
}

// WorkloadKinds maps each spec type of specs/workloads, by name, to its
// kind; a spec of a type not here is an error (gen/load reports it at its
// position).
var WorkloadKinds = map[string]WorkloadKind{
	"KVCache":   {Type: reflect.TypeFor[workloads.KVCache](), Family: "memory", Pkg: "runtime/suite/memsuite", Func: "KVCache"},
	"Scratch":   {Type: reflect.TypeFor[workloads.Scratch](), Family: "memory", Pkg: "runtime/suite/memsuite", Func: "Scratch"},
	"Allocator": {Type: reflect.TypeFor[workloads.Allocator](), Family: "memory", Pkg: "runtime/suite/memsuite", Func: "Allocator"},
	"Quantize":  {Type: reflect.TypeFor[workloads.Quantize](), Family: "quantize", Pkg: "runtime/suite/quantsuite", Func: "Quantize"},
	"Attention": {Type: reflect.TypeFor[workloads.Attention](), Family: "attention", Pkg: "runtime/suite/attnsuite", Func: "Attention"},
	"Decoder":   {Type: reflect.TypeFor[workloads.Decoder](), Family: "model", Pkg: "runtime/suite/modelsuite", Func: "Decoder"},
}

// AttentionFamily is the flash-attention family: its spec
// (specs/families.AttentionFamily), decoded from source, and where it is.
type AttentionFamily struct {
	families.AttentionFamily
	GoVar  string         // the specs/families variable: "Attention"
	File   string         // the spec file, relative to the module root
	Pos    token.Position // of the registerAttention call
	Fields Positions      // of the spec literal's fields
}

// AttentionVariant is one launcher of the attention family.
type AttentionVariant struct {
	DType   string // "f16", "f32"
	HeadDim int
}

// Name is the variant's kernel name: "attention_f16_d128".
func (v AttentionVariant) Name() string { return families.AttentionKernel(v.DType, v.HeadDim) }

// Symbol is the variant's extern "C" launcher: "forge_attention_f16_d128".
func (v AttentionVariant) Symbol() string { return families.Kernel{Name: v.Name()}.Symbol("") }

// Variants lists the family's launchers, by input type then head dimension.
func (a *AttentionFamily) Variants() []AttentionVariant {
	var out []AttentionVariant
	for _, d := range a.DTypes {
		for _, h := range a.HeadDims {
			out = append(out, AttentionVariant{DType: d, HeadDim: h})
		}
	}
	return out
}

// AsFamily is the attention family as a Shared family of the "attention"
// signature (specs/families.AttentionFamily.Family): one kernel per
// variant, writing its input type.
func (a *AttentionFamily) AsFamily() *Family {
	return &Family{Family: *a.AttentionFamily.Family(), GoVar: a.GoVar, File: a.File, Pos: a.Pos, Fields: a.Fields}
}
