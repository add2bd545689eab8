// Package ir holds the generator's view of the specs: the formats,
// targets and kernel families that gen/load collects from specs/ and that
// the renderers (gen/hipgen, gen/gogen) turn into files. It is plain data;
// every field is filled and validated by gen/load before a renderer sees it.
package ir

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/tuned"
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

// Format is one quant format spec (specs/formats/<name>.go).
type Format struct {
	Name       string // "Q4_0"
	GGMLType   int    // ggml type id, or -1
	BlockElems int
	BlockBytes int
	Doc        string
	GoVar      string         // the specs/formats variable holding its *formats.Format: "Q4_0"
	BlockType  string         // the Go block struct: "BlockQ4_0"
	File       string         // the spec file, relative to the module root: "specs/formats/q4_0.go"
	Pos        token.Position // of the register call (Filename relative to the module root)
	Device     *Device        // the translated device code; set by gen before rendering
}

// Lower is the format's name in file and symbol names: "q4_0", "mxfp6_e2m3".
func (f *Format) Lower() string { return strings.ToLower(f.Name) }

// Device is a format's Dequant translated to HIP by gen/translate.
type Device struct {
	Block string // C name of the block struct: "forge_BlockQ4_0"
	Func  string // C name of the element function: float Func(const Block* b, int32_t j)
	Code  string // struct, static_asserts, tables, helpers and Func, with #line directives
}

// Target is one target architecture (specs/targets).
type Target struct {
	Name         string   // "gfx1100", "sm_90"
	Vendor       string   // "amd" or "nvidia"
	Compiler     string   // "hipcc" or "nvcc"
	WaveSize     int      // 32 or 64
	Default      bool     // the default target (exactly one)
	CompileFlags []string // flags forgegen build passes to the compiler
	Doc          string
	GoVar        string
	File         string
	Pos          token.Position
	Dequant      DequantTuning
	MatVec       MatVecTuning
	MatMul       MatMulTuning
	Attention    AttentionTuning
	MatVecSpace  MatVecSpace
	// Tuned is the winners file specs/tuned/<Name>.json (forgebench tune's
	// output), validated against this target; nil when there is none.
	Tuned *tuned.File
}

// MatVecSpace is the matvec family's tuning space: the candidate values of
// each MatVecTuning knob.
type MatVecSpace struct {
	ThreadsPerBlock []int
	RowsPerBlock    []int
	Chunk           []int
}

// MatMulTuning is the matmul family's tuning for a target (see
// specs/targets.MatMulTuning).
type MatMulTuning struct {
	ThreadsPerBlock int // a multiple of WaveSize, at most 1024
	TileRows        int // TM: rows of W per workgroup tile
	TileCols        int // TN: batch columns per workgroup tile
	TileK           int // TK: K elements per step, in [1, 256]
	ThreadRows      int // RM: rows of a thread's register tile (generic path)
	WarpRows        int // warps along rows (NVIDIA tensor path); 0 elsewhere
}

// MatVecTuning is the matvec family's tuning for a target.
type MatVecTuning struct {
	ThreadsPerBlock int // a multiple of WaveSize, at most 1024
	RowsPerBlock    int // rows of W per workgroup, in [1, 16]
	Chunk           int // elements per thread step: a power of two in [4, 64]
}

// DequantTuning is the dequant family's tuning for a target.
type DequantTuning struct {
	ThreadsPerBlock  int // a multiple of WaveSize, at most 1024
	VectorsPerThread int // 16-byte output vectors each thread writes per grid-stride step, in [1, 16]
}

// Family is one kernel family (specs/families.Family).
type Family struct {
	Name      string // "dequant"
	Doc       string
	Signature string   // its launchers' C signature, as gen/gogen names it: "blocks"
	Shared    bool     // not format-specific: one file per target, launchers forge_<kernel>
	Kernels   []Kernel // the kernels each format (Shared: each target) gets in this family
	GoVar     string
	File      string
	Pos       token.Position
}

// Kernel is one kernel of a family, e.g. dequant to f32.
type Kernel struct {
	Name      string // "dequant_f32"
	Output    string // element type written: "f32" or "f16"
	Signature string // its own C signature, when not the family's (the glue's)
	Doc       string
	HeadDim   int // an attention kernel's head dimension
}

// SignatureOf is kernel k's C signature in family f.
func (f *Family) SignatureOf(k Kernel) string {
	if k.Signature != "" {
		return k.Signature
	}
	return f.Signature
}

// Symbol is the extern "C" launcher name of kernel k for format f (nil for
// a Shared family's kernel); every target's library exports the same
// names.
func (k Kernel) Symbol(f *Format) string {
	if f == nil {
		return abi.Symbol(k.Name, "")
	}
	return abi.Symbol(k.Name, f.Name)
}

// File is one generated file, rendered in memory.
type File struct {
	Path string // relative to the module root, slash-separated: "generated/hip/gfx1100/q4_0_dequant.hip"
	Data []byte
}

// GeneratedHeader is the first line of every generated Go file; generated
// C++ files carry the same text. Go recognises it as generated code.
const GeneratedHeader = "// Code generated by forgegen. DO NOT EDIT."

// MatMulLDSBytes is the most shared memory (LDS) a matmul workgroup's
// static tiles may take: 48 KiB, CUDA's limit for static shared memory (AMD
// allows 64 KiB).
const MatMulLDSBytes = 48 << 10

// TuningProblem is one thing wrong with a tuning value: the field and why.
type TuningProblem struct {
	Field string
	Msg   string
}

// Problems lists what is wrong with the matmul tuning m for a target of the
// given vendor and wave size: the constraints the template's static_asserts
// also enforce, so that a bad spec is reported at its line rather than as a
// compile error.
func (m MatMulTuning) Problems(vendor string, wave int) []TuningProblem {
	var out []TuningProblem
	bad := func(field, format string, a ...any) {
		out = append(out, TuningProblem{field, fmt.Sprintf(format, a...)})
	}
	tpb, tm, tn, tk, rm := m.ThreadsPerBlock, m.TileRows, m.TileCols, m.TileK, m.ThreadRows
	if tpb <= 0 || tpb > 1024 || wave > 0 && tpb%wave != 0 {
		bad("ThreadsPerBlock", "MatMul.ThreadsPerBlock %d must be a multiple of the wave size %d, at most 1024", tpb, wave)
		return out
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"TileRows", tm}, {"TileCols", tn}, {"TileK", tk}} {
		if f.v < 1 || f.v > 256 {
			bad(f.name, "MatMul.%s %d must be in [1, 256]", f.name, f.v)
		}
	}
	if len(out) > 0 {
		return out
	}
	// The generic path: threads form (TM/RM) × (THREADS/(TM/RM)), each with an RM × RN register tile.
	switch {
	case rm < 1 || tm%rm != 0:
		bad("ThreadRows", "MatMul.ThreadRows %d must divide TileRows %d", rm, tm)
	case tpb%(tm/rm) != 0 || tn%(tpb/(tm/rm)) != 0:
		bad("ThreadRows", "MatMul: TileRows/ThreadRows = %d threads along rows must divide ThreadsPerBlock %d, and the %d thread columns that leaves must divide TileCols %d",
			tm/rm, tpb, tpb/max(1, tm/rm), tn)
	}
	if b := 4 * tk * (tm + 1 + tn + 1); b > MatMulLDSBytes {
		bad("TileK", "MatMul: the generic path's tiles take %d bytes of shared memory, more than %d", b, MatMulLDSBytes)
	}
	if vendor != "nvidia" {
		if m.WarpRows != 0 {
			bad("WarpRows", "MatMul.WarpRows %d: only NVIDIA targets have the tensor-core path; leave it 0", m.WarpRows)
		}
		return out
	}
	warps := tpb / 32
	switch {
	case tm%16 != 0 || tn%16 != 0 || tk%16 != 0:
		bad("TileK", "MatMul: the tensor-core path needs TileRows %d, TileCols %d and TileK %d multiples of 16", tm, tn, tk)
	case m.WarpRows < 1 || warps%m.WarpRows != 0 || (tm/16)%m.WarpRows != 0 || (tn/16)%(warps/m.WarpRows) != 0:
		bad("WarpRows", "MatMul.WarpRows %d must divide the %d warps and TileRows/16 = %d, and the warps/WarpRows that leaves must divide TileCols/16 = %d",
			m.WarpRows, warps, tm/16, tn/16)
	case (tm*tk/2)%tpb != 0 || (tn*tk/2)%tpb != 0:
		bad("TileK", "MatMul: the tensor-core path stages element pairs evenly: TileRows·TileK/2 = %d and TileCols·TileK/2 = %d must be multiples of ThreadsPerBlock %d",
			tm*tk/2, tn*tk/2, tpb)
	}
	if b := 2 * 2 * (tm + tn) * (tk + 8); b > MatMulLDSBytes {
		bad("TileK", "MatMul: the tensor-core path's double-buffered f16 tiles take %d bytes of shared memory, more than %d", b, MatMulLDSBytes)
	} else if b < warps*1024 {
		bad("TileK", "MatMul: the tensor-core path's tiles (%d bytes) must hold the %d warps' 1 KiB output scratch", b, warps)
	}
	return out
}

// Workload is one scenario-suite spec (specs/workloads): a variable
// initialised by register with a struct literal of one of the kinds in
// WorkloadKinds.
type Workload struct {
	Name   string         // the suite name: "memory/kv_cache"
	Family string         // "memory", from the kind
	Kind   string         // the spec's type: "KVCache"
	Doc    string         // its Doc field
	GoVar  string         // the specs/workloads variable: "KVCache7B"
	File   string         // the spec file, relative to the module root
	Pos    token.Position // of the register call
	// Fields are the literal's fields: int, float64, string, bool,
	// []any of those, or map[string]any for a nested struct literal.
	Fields map[string]any
}

// WorkloadKind is what a spec type of specs/workloads becomes: the suite
// family, and the scenario constructor (a function of the spec value
// returning a *suite.Scenario) in a package under the module.
type WorkloadKind struct {
	Family string // "memory"
	Pkg    string // relative to the module: "runtime/suite/memsuite"
	Func   string // "KVCache"
}

// WorkloadKinds maps each spec type of specs/workloads to its kind; a
// spec of a type not here is an error (gen/load reports it at its
// position).
var WorkloadKinds = map[string]WorkloadKind{
	"KVCache":   {Family: "memory", Pkg: "runtime/suite/memsuite", Func: "KVCache"},
	"Scratch":   {Family: "memory", Pkg: "runtime/suite/memsuite", Func: "Scratch"},
	"Allocator": {Family: "memory", Pkg: "runtime/suite/memsuite", Func: "Allocator"},
	"Quantize":  {Family: "quantize", Pkg: "runtime/suite/quantsuite", Func: "Quantize"},
	"Attention": {Family: "attention", Pkg: "runtime/suite/attnsuite", Func: "Attention"},
	"Decoder":   {Family: "model", Pkg: "runtime/suite/modelsuite", Func: "Decoder"},
}

// AttentionFamily is the flash-attention family (specs/families.AttentionFamily).
type AttentionFamily struct {
	Name     string // "attention"
	Doc      string
	DTypes   []string // "f16", "f32"
	HeadDims []int    // multiples of 16 in [16, 256]
	GoVar    string
	File     string
	Pos      token.Position
}

// AttentionVariant is one launcher of the attention family.
type AttentionVariant struct {
	DType   string // "f16", "f32"
	HeadDim int
}

// Name is the variant's kernel name: "attention_f16_d128".
func (v AttentionVariant) Name() string { return families.AttentionKernel(v.DType, v.HeadDim) }

// Symbol is the variant's extern "C" launcher: "forge_attention_f16_d128".
func (v AttentionVariant) Symbol() string { return abi.Symbol(v.Name(), "") }

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
	f := &Family{Name: a.Name, Doc: a.Doc, Signature: "attention", Shared: true, GoVar: a.GoVar, File: a.File, Pos: a.Pos}
	for _, v := range a.Variants() {
		f.Kernels = append(f.Kernels, Kernel{Name: v.Name(), Output: v.DType, HeadDim: v.HeadDim})
	}
	return f
}

// AttentionTuning is the attention family's tuning for a target (see
// specs/targets.AttentionTuning).
type AttentionTuning struct {
	ThreadsPerBlock int // THREADS (generic path)
	QueryRows       int // ROWS: query rows per workgroup (generic path)
	KeysPerTile     int // KEYS: keys per K/V tile (generic path)
	WmmaWarps       int // WMMA_WARPS: warps of 16 query rows (NVIDIA tensor-core path); 0 elsewhere
	WmmaKeysPerTile int // WMMA_KEYS: keys per tile (tensor-core path); 0 elsewhere
	MmaWarps        int // MMA_WARPS: warps of 16 query rows (NVIDIA mma.sync path, sm_80+); 0 elsewhere
	MmaKeysPerTile  int // MMA_KEYS: keys per tile (mma.sync path); 0 elsewhere
}

// MmaLDSBytes is the shared memory of the mma.sync path's workgroup for
// head dimension d: one K and one V tile of keys × (d+8) halves.
func (a AttentionTuning) MmaLDSBytes(d int) int { return 2 * a.MmaKeysPerTile * (d + 8) * 2 }

// AttentionLDSBytes is the shared memory of the attention generic path's
// workgroup for head dimension d: Q (rows × (d+1)), K (keys × (d+1)) and V
// (keys × d) tiles and the probabilities (rows × (keys+1)), all float32.
func (a AttentionTuning) AttentionLDSBytes(d int) int {
	return 4 * (a.QueryRows*(d+1) + a.KeysPerTile*(2*d+1) + a.QueryRows*(a.KeysPerTile+1))
}

// WmmaLDSBytes is the shared memory of the tensor-core path's workgroup
// for head dimension d: two K buffers and one V buffer of keys × (d+8)
// halves, and per warp 16 rows of float32 scores (keys+4), of f16
// probabilities (keys+8) and 16 floats of row factors; or, if larger, the
// Q staging of 16·warps rows × (d+8) halves, which shares the space.
func (a AttentionTuning) WmmaLDSBytes(d int) int {
	bk, w := a.WmmaKeysPerTile, a.WmmaWarps
	loop := 3*bk*(d+8)*2 + w*(16*(bk+4)*4+16*(bk+8)*2+16*4)
	return max(loop, 16*w*(d+8)*2)
}

// Problems lists what is wrong with the attention tuning a for a target of
// the given vendor and wave size, for every head dimension in dims: the
// constraints the template's static_asserts also enforce.
func (a AttentionTuning) Problems(vendor string, wave int, dims []int) []TuningProblem {
	var out []TuningProblem
	bad := func(field, format string, args ...any) {
		out = append(out, TuningProblem{field, fmt.Sprintf(format, args...)})
	}
	tpb, rows, keys := a.ThreadsPerBlock, a.QueryRows, a.KeysPerTile
	if tpb <= 0 || tpb > 1024 || wave > 0 && tpb%wave != 0 {
		bad("ThreadsPerBlock", "Attention.ThreadsPerBlock %d must be a multiple of the wave size %d, at most 1024", tpb, wave)
		return out
	}
	if rows < 1 || tpb%rows != 0 {
		bad("QueryRows", "Attention.QueryRows %d must divide ThreadsPerBlock %d", rows, tpb)
		return out
	}
	if g := tpb / rows; g&(g-1) != 0 || g > wave {
		bad("QueryRows", "Attention: ThreadsPerBlock/QueryRows = %d threads per query row must be a power of two, at most the wave size %d", g, wave)
	} else if keys < 1 || keys%g != 0 || keys > 256 {
		bad("KeysPerTile", "Attention.KeysPerTile %d must be a multiple of the %d threads per query row, at most 256", keys, g)
	} else {
		for _, d := range dims {
			if d%g != 0 {
				bad("QueryRows", "Attention: the %d threads per query row must divide head dimension %d", g, d)
			}
			if b := a.AttentionLDSBytes(d); b > MatMulLDSBytes {
				bad("KeysPerTile", "Attention: the generic path's tiles take %d bytes of shared memory at head dimension %d, more than %d", b, d, MatMulLDSBytes)
			}
		}
	}
	if vendor != "nvidia" {
		if a.WmmaWarps != 0 || a.WmmaKeysPerTile != 0 {
			bad("WmmaWarps", "Attention.WmmaWarps %d and WmmaKeysPerTile %d: only NVIDIA targets have the tensor-core path; leave them 0", a.WmmaWarps, a.WmmaKeysPerTile)
		}
		if a.MmaWarps != 0 || a.MmaKeysPerTile != 0 {
			bad("MmaWarps", "Attention.MmaWarps %d and MmaKeysPerTile %d: only NVIDIA targets have the mma.sync path; leave them 0", a.MmaWarps, a.MmaKeysPerTile)
		}
		return out
	}
	if a.MmaWarps < 1 || a.MmaWarps > 16 {
		bad("MmaWarps", "Attention.MmaWarps %d must be in [1, 16]", a.MmaWarps)
	} else if bk := a.MmaKeysPerTile; bk < 16 || bk%16 != 0 || bk > 256 {
		bad("MmaKeysPerTile", "Attention.MmaKeysPerTile %d must be a multiple of 16 in [16, 256]", bk)
	} else {
		for _, d := range dims {
			if b := a.MmaLDSBytes(d); b > MatMulLDSBytes {
				bad("MmaKeysPerTile", "Attention: the mma.sync path's K and V tiles take %d bytes of shared memory at head dimension %d, more than %d", b, d, MatMulLDSBytes)
			}
		}
	}
	if a.WmmaWarps < 1 || a.WmmaWarps > 16 {
		bad("WmmaWarps", "Attention.WmmaWarps %d must be in [1, 16]", a.WmmaWarps)
		return out
	}
	if bk := a.WmmaKeysPerTile; bk < 16 || bk%16 != 0 || bk > 256 {
		bad("WmmaKeysPerTile", "Attention.WmmaKeysPerTile %d must be a multiple of 16 in [16, 256]", bk)
		return out
	}
	for _, d := range dims {
		if b := a.WmmaLDSBytes(d); b > MatMulLDSBytes {
			bad("WmmaKeysPerTile", "Attention: the tensor-core path takes %d bytes of shared memory at head dimension %d, more than %d", b, d, MatMulLDSBytes)
		}
	}
	return out
}
