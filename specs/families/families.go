// Package families holds forge's kernel-family specs: the kinds of kernel
// forge generates. A format-specific family (dequant, matvec, matmul) is
// one template under templates/hip instantiated for every format; a shared
// family (attention, the model glue) one per target. Each family's
// launchers have a C signature named here, which gen/gogen binds, and a
// run-time descriptor of the same name (runtime/suite/family) checks and
// measures them.
package families

// Family is one kernel family.
type Family struct {
	Name string // also the template's name: templates/hip/<Name>.hip.tmpl
	Doc  string
	// Signature names the C signature of the family's launchers, one of
	// gen/gogen's: "blocks" (whole blocks of a format to its elements),
	// "matvec", "matvec_x8", "matmul", "attention", or the glue's
	// "glue_norm", "glue_rope", "glue_binary", "glue_layout",
	// "glue_quantize", "glue_add_norm", "glue_rope_kv". A kernel may name
	// its own.
	Signature string
	// Shared marks a family that is not format-specific: each target gets
	// one file, generated/hip/<target>/<Name>.hip, whose launchers are
	// forge_<kernel>. A format-specific family gets one file per format,
	// <format>_<Name>.hip, whose launchers are forge_<kernel>_<format>.
	Shared  bool
	Kernels []Kernel // the kernels each format (or, when Shared, each target) gets
	// Bench are the family's default benchmark shapes, which the run-time
	// descriptor reads; none for a family measured at a default element
	// count (dequant) or by a scenario suite.
	Bench Bench
}

// Kernel is one kernel of a family.
type Kernel struct {
	Name   string // "dequant_f32"; the launcher is forge_<Name>_<format> (forge_<Name> when Shared)
	Output string // element type written: "f32" or "f16"
	// Signature is the kernel's C signature when it is not the family's
	// (the glue's kernels have seven).
	Signature string
	Doc       string // one line, for a family whose kernels differ
	// HeadDim is an attention kernel's head dimension (AttentionFamily
	// lists them); 0 elsewhere.
	HeadDim int
	// IntForm marks a kernel built on a format's integer form (codes, a
	// scale and an offset per sub-block, multiplied by 8-bit activations
	// with 4-way integer dot products): only formats whose spec has an
	// integer form get it, the others only the family's other kernels.
	// Only a format-specific family's kernel may set it.
	IntForm bool
}

// SignatureOf is kernel k's C signature in family f.
func (f *Family) SignatureOf(k Kernel) string {
	if k.Signature != "" {
		return k.Signature
	}
	return f.Signature
}

// Bench is a family's default benchmark shapes: a small set for the cpu
// and the sizes that matter on a device (a model's layers). The run-time
// descriptor rounds each shape's columns down to whole blocks of the
// format; an environment variable (FORGE_BENCH_<FAMILY>) may name one
// shape instead.
type Bench struct {
	CPU    []Shape
	Device []Shape
}

// Shape is one named benchmark shape: the family's dimensions (matvec:
// rows, cols; matmul: rows, cols, batch).
type Shape struct {
	Name string
	Dims []int
}

var all []*Family

func register(f Family) *Family {
	p := &f
	all = append(all, p)
	return p
}

// All returns every family spec registered with register, in
// declaration order (the attention family is Attention's own).
func All() []*Family { return append([]*Family(nil), all...) }

// ByName finds a family spec by name, the attention family's included.
func ByName(name string) (*Family, bool) {
	if Attention != nil && name == Attention.Name {
		return Attention.Family(), true
	}
	for _, f := range all {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// Dequant decodes whole quant blocks to float32 or float16.
var Dequant = register(Family{
	Name:      "dequant",
	Doc:       "quant blocks to f32 and to f16",
	Signature: "blocks",
	Kernels: []Kernel{
		{Name: "dequant_f32", Output: "f32"},
		{Name: "dequant_f16", Output: "f16"},
	},
})

// MatVec is the fused dequant + matrix-vector product y = W·x: W is rows
// rows of cols elements in the format (each row cols/BlockElems whole
// blocks, rows contiguous: ggml's layout), x is cols float32, y is rows
// float32, accumulated in float32 on the device. cols must be a whole
// number of blocks.
//
// matvec_x8 is the same product on the format's integer form, for the
// formats that have one: x arrives quantized to 8 bits per 32 elements
// (the glue's glue_quantize_x8 writes that layout, formats.QuantizeX8 is
// its reference), and each sub-block is a 4-way integer dot product of
// codes and activations, scaled in float32. Its error is the activations'
// quantization's, llama.cpp's q8_1 path's: within a normalised mean
// squared error bound, not exact to the float reference as matvec_f32 is.
//
// Its benchmark shapes are [rows, cols]: on a device a 7B/8B model's
// square projection (4096×4096), the FFN's up/gate (14336 rows of 4096)
// and down (4096 rows of 14336) projections, and the output layer of a
// 128256-token vocabulary ("output"); on the cpu one small shape.
var MatVec = register(Family{
	Name:      "matvec",
	Doc:       "fused dequant and matrix-vector product, f32 out",
	Signature: "matvec",
	Kernels: []Kernel{
		{Name: "matvec_f32", Output: "f32", Doc: "y = W·x, float32 x"},
		{Name: "matvec_x8", Output: "f32", Signature: "matvec_x8", IntForm: true,
			Doc: "y = W·x on the format's integer form, x quantized to 8 bits per 32 elements (glue_quantize_x8)"},
	},
	Bench: Bench{
		CPU: []Shape{{Name: "1024x1024", Dims: []int{1024, 1024}}},
		Device: []Shape{
			{Name: "4096x4096", Dims: []int{4096, 4096}},
			{Name: "4096x14336", Dims: []int{4096, 14336}},
			{Name: "14336x4096", Dims: []int{14336, 4096}},
			{Name: "output", Dims: []int{128256, 4096}},
		},
	},
})

// MatMul is the fused dequant + matrix product Y = W·X for a batch of
// activation vectors: W as for MatVec; X is batch vectors of cols float32,
// contiguous (x[b·cols + k], ggml's src1 layout); Y is batch vectors of rows
// float32 (y[b·rows + r], ggml's dst layout). Tiled in shared memory; f32
// accumulation (the NVIDIA tensor-core path rounds W and X to f16 first).
//
// Its benchmark shapes are [rows, cols, batch]: on a device prefill
// batches of 16, 64 and 512 tokens through a 7B model's square projection
// and its FFN up-projection; on the cpu one small shape.
var MatMul = register(Family{
	Name:      "matmul",
	Doc:       "fused dequant and matrix product for a batch of vectors, f32 out",
	Signature: "matmul",
	Kernels: []Kernel{
		{Name: "matmul_f32", Output: "f32"},
	},
	Bench: Bench{
		CPU: []Shape{{Name: "256x1024x16", Dims: []int{256, 1024, 16}}},
		Device: []Shape{
			{Name: "4096x4096x16", Dims: []int{4096, 4096, 16}},
			{Name: "4096x4096x64", Dims: []int{4096, 4096, 64}},
			{Name: "4096x4096x512", Dims: []int{4096, 4096, 512}},
			{Name: "4096x14336x16", Dims: []int{4096, 14336, 16}},
			{Name: "4096x14336x64", Dims: []int{4096, 14336, 64}},
			{Name: "4096x14336x512", Dims: []int{4096, 14336, 512}},
		},
	},
})
