// Package families holds forge's kernel-family specs: the kinds of kernel
// every format gets (dequant, matvec and matmul), each a template
// under templates/hip plus the kernels it yields per format.
package families

// Family is one kernel family.
type Family struct {
	Name    string // also the template's name: templates/hip/<Name>.hip.tmpl
	Doc     string
	Kernels []Kernel // the kernels each format gets
}

// Kernel is one kernel of a family.
type Kernel struct {
	Name   string // "dequant_f32"; the launcher is forge_<Name>_<format>
	Output string // element type written: "f32" or "f16"
}

var all []*Family

func register(f Family) *Family {
	p := &f
	all = append(all, p)
	return p
}

// All returns every family spec, in declaration order.
func All() []*Family { return append([]*Family(nil), all...) }

// Dequant decodes whole quant blocks to float32 or float16.
var Dequant = register(Family{
	Name: "dequant",
	Doc:  "quant blocks to f32 and to f16",
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
var MatVec = register(Family{
	Name: "matvec",
	Doc:  "fused dequant and matrix-vector product, f32 out",
	Kernels: []Kernel{
		{Name: "matvec_f32", Output: "f32"},
	},
})

// MatMul is the fused dequant + matrix product Y = W·X for a batch of
// activation vectors: W as for MatVec; X is batch vectors of cols float32,
// contiguous (x[b·cols + k], ggml's src1 layout); Y is batch vectors of rows
// float32 (y[b·rows + r], ggml's dst layout). Tiled in shared memory; f32
// accumulation (the NVIDIA tensor-core path rounds W and X to f16 first).
var MatMul = register(Family{
	Name: "matmul",
	Doc:  "fused dequant and matrix product for a batch of vectors, f32 out",
	Kernels: []Kernel{
		{Name: "matmul_f32", Output: "f32"},
	},
})
