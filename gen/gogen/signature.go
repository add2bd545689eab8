package gogen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
)

// A signature describes one shape of launcher of forge's C ABI, as data:
// its parameters (between nothing and the trailing stream), the argument
// checks its Go wrappers make before crossing into C, what makes a call a
// no-op, and the arguments the generated tests refuse. A family's spec
// names its launchers' signature (specs/families.Family.Signature), and
// gogen renders every launcher's trampoline, Func type, wrapper, lookup
// and launcher test from it, so a new family of an existing shape needs
// nothing here, and one of a new shape a signature in signatures, not new
// rendering code.
type signature struct {
	name   string  // "blocks", "matvec", "matmul": the spec's name for it
	params []param // in C order, before the stream
	// perFormat: its launchers are a format's (forge_<kernel>_<format>),
	// looked up by kernel and format, and the checks use be (the format's
	// BlockElems); otherwise they are a shared family's, looked up by
	// kernel.
	perFormat bool
	// dim is the KernelInfo field (BlockElems, HeadDim) the checks read as
	// be; "" for none.
	dim string
	// helpers are functions of kernels.go the checks call (helperFuncs).
	helpers []string
	// outF32 is set when the kernels must write float32 (the output
	// pointer is float*, whatever kernel.Output claims).
	outF32 bool
	// doc completes "<Family>Func is the signature of the <family> family's
	// launchers: ".
	doc string
	// empty is the condition under which a wrapper returns without a call
	// (after the checks pass).
	empty func() *jen.Statement
	// checks are the wrapper's refusals, in order; sym is the launcher's
	// symbol, be its format's BlockElems as an int64, max its maxBlocks.
	checks func(sym, be, max jen.Code) []check
	// perBlock is the byte count per block that maxBlocks divides into
	// MaxInt64: the largest of the block and what a block's elements take
	// on the float side, for a kernel whose output elements take outSize
	// bytes.
	perBlock func(blockBytes, blockElems, outSize int) int
	// methodDoc is the doc of a format's wrapper method.
	methodDoc func(l launcher) string
	// refused are argument sets (overrides of the test's good arguments,
	// by parameter name) that the wrappers must refuse; partial, if any,
	// one more that they must refuse for formats with BlockElems > 1; noop
	// one that must succeed without reaching C.
	refused func(good func(name string) *jen.Statement, be, max jen.Code) []map[string]jen.Code
	partial func(good func(name string) *jen.Statement) map[string]jen.Code
	noop    map[string]func() jen.Code
}

// param is one launcher parameter.
type param struct {
	name  string // in Go and in C
	cType string // the C type; "OUT" stands for the kernel's output element type
	ptr   bool   // a device pointer: uintptr_t across cgo, abi.DevicePtr in Go; else int64_t / int64
	// goType is a scalar's Go type when it is not int64 ("float32" for a
	// C float, "int32" for an int32_t); "" for pointers and int64 counts.
	goType string
	call   string // the abitest.Call field a recording launcher stores it in
	// test is the good argument the launcher test passes for kernel
	// index i (jen.Id("i")) of kernel k (jen.Id("k")), as an expression.
	test func() jen.Code
}

// check is one refusal: when cond holds, the wrapper returns
// fmt.Errorf(msg, args...).
type check struct {
	cond jen.Code
	msg  string
	args []jen.Code
}

func (s *signature) cParams(out string) string {
	var b []string
	for _, p := range s.params {
		b = append(b, strings.ReplaceAll(p.cType, "OUT", out)+" "+p.name)
	}
	return strings.Join(b, ", ")
}

// goParams is the wrapper's parameters before the stream: pointers grouped,
// then int64 counts grouped, then any other scalars, each with its type.
func (s *signature) goParams(abiPkg string) []jen.Code {
	var ptrs, counts, others []jen.Code
	for _, p := range s.params {
		switch {
		case p.ptr:
			ptrs = append(ptrs, jen.Id(p.name))
		case p.goType == "":
			counts = append(counts, jen.Id(p.name))
		default:
			others = append(others, jen.Id(p.name).Id(p.goType))
		}
	}
	return append([]jen.Code{jen.List(ptrs...).Qual(abiPkg, "DevicePtr"), jen.List(counts...).Int64()}, others...)
}

// cArg converts parameter p's Go value to its C type for a trampoline.
func (p param) cArg() jen.Code {
	switch {
	case p.ptr:
		return jen.Qual("C", "uintptr_t").Call(jen.Id(p.name))
	case p.goType == "float32":
		return jen.Qual("C", "float").Call(jen.Id(p.name))
	case p.goType == "int32":
		return jen.Qual("C", "int32_t").Call(jen.Id(p.name))
	}
	return jen.Qual("C", "int64_t").Call(jen.Id(p.name))
}

func (s *signature) argIDs() []jen.Code {
	var a []jen.Code
	for _, p := range s.params {
		a = append(a, jen.Id(p.name))
	}
	return a
}

func (s *signature) ptrNames() []string {
	var a []string
	for _, p := range s.params {
		if p.ptr {
			a = append(a, p.name)
		}
	}
	return a
}

// testVal is a test's good value of parameter p (an abitest.Call field).
func ptrVal(base string) func() jen.Code {
	return func() jen.Code {
		return jen.Qual(abiPkgPath, "DevicePtr").Call(jen.Op(base).Op("+").Op("0x100").Op("*").Id("i"))
	}
}

// abiPkgPath is the runtime/device/abi import path; set by Files from the spec's module.
var abiPkgPath = "github.com/rocmforge/forge/runtime/device/abi"

func errorf(msg string, args ...jen.Code) jen.Code {
	return jen.Return(jen.Qual("fmt", "Errorf").Call(append([]jen.Code{jen.Lit(msg)}, args...)...))
}

func id(s string) *jen.Statement { return jen.Id(s) }

// sigBlocks: int f(const void* src, T* dst, int64_t n_blocks, forge_stream_t stream).
var sigBlocks = &signature{
	name:      "blocks",
	perFormat: true,
	params: []param{
		{name: "src", cType: "const void*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "dst", cType: "OUT*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "nBlocks", cType: "int64_t", call: "NBlocks", test: func() jen.Code { return jen.Int64().Call(jen.Lit(1).Op("+").Id("i")) }},
	},
	doc:   "decode nBlocks\nblocks at src into dst on stream.",
	empty: func() *jen.Statement { return id("nBlocks").Op("==").Lit(0) },
	checks: func(sym, _, max jen.Code) []check {
		return []check{
			{id("nBlocks").Op("<").Lit(0), "%s: negative block count %d", []jen.Code{sym, id("nBlocks")}},
			{id("nBlocks").Op(">").Add(max), "%s: %d blocks overflow an int64 byte count", []jen.Code{sym, id("nBlocks")}},
			{id("nBlocks").Op(">").Lit(0).Op("&&").Parens(id("src").Op("==").Lit(0).Op("||").Id("dst").Op("==").Lit(0)),
				"%s: null device pointer (src %#x, dst %#x) for %d blocks", []jen.Code{sym, id("src"), id("dst"), id("nBlocks")}},
		}
	},
	perBlock: func(bb, be, out int) int { return max(bb, be*out) },
	methodDoc: func(l launcher) string {
		o := outputs[l.kernel.Output]
		return fmt.Sprintf(`%s calls %s, which decodes nBlocks %s blocks
(%d bytes, %d %s each) at src into %s at dst, on stream. Zero
blocks is a no-op; a negative or overflowing count, or a null pointer, is
an error before the call.`, l.method, l.symbol, l.format.Name, l.format.BlockBytes, l.format.BlockElems, plural(l.format.BlockElems, "element"), o.doc)
	},
	refused: func(good func(string) *jen.Statement, _, max jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"nBlocks": jen.Lit(-1)},
			{"src": jen.Lit(0)},
			{"dst": jen.Lit(0)},
			{"nBlocks": jen.Add(max).Op("+").Lit(1)},
		}
	},
	noop: map[string]func() jen.Code{
		"src": func() jen.Code { return jen.Lit(0) }, "dst": func() jen.Code { return jen.Lit(0) }, "nBlocks": func() jen.Code { return jen.Lit(0) },
	},
}

// matrixParams are the parameters of the W·x launchers: w, x, y, rows,
// cols, then extra.
func matrixParams(extra ...param) []param {
	return matrixParamsX(param{name: "x", cType: "const float*", ptr: true, call: "X", test: ptrVal("0x500000")}, extra...)
}

// matrixParamsX are matrixParams with x as given (matvec_x8's xq).
func matrixParamsX(x param, extra ...param) []param {
	return append([]param{
		{name: "w", cType: "const void*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		x,
		{name: "y", cType: "OUT*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "rows", cType: "int64_t", call: "Rows", test: func() jen.Code { return jen.Int64().Call(jen.Lit(1).Op("+").Id("i")) }},
		{name: "cols", cType: "int64_t", call: "Cols", test: func() jen.Code {
			return jen.Int64().Call(jen.Id("k").Dot("BlockElems")).Op("*").Int64().Call(jen.Lit(2).Op("+").Id("i"))
		}},
	}, extra...)
}

// matrixChecks are the refusals of the W·x launchers; counts names the
// counts that must not be negative, live the condition under which the
// pointers are used, xy the extra overflow condition for X and Y.
func matrixChecks(sym, be, max jen.Code, counts []string, sizeFmt string, live jen.Code, xy jen.Code) []check {
	return matrixChecksX("x", sym, be, max, counts, sizeFmt, live, xy)
}

// matrixChecksX are matrixChecks with the vector parameter named x.
func matrixChecksX(x string, sym, be, max jen.Code, counts []string, sizeFmt string, live jen.Code, xy jen.Code) []check {
	var neg jen.Code
	var ids []jen.Code
	for i, c := range counts {
		if i == 0 {
			neg = id(c).Op("<").Lit(0)
		} else {
			neg = jen.Add(neg).Op("||").Id(c).Op("<").Lit(0)
		}
		ids = append(ids, id(c))
	}
	overflow := id("cols").Op("/").Add(be).Op(">").Add(max).Op("||").Id("rows").Op(">").Qual("math", "MaxInt64").Op("/").Lit(4).Op("||").
		Id("cols").Op(">").Lit(0).Op("&&").Id("rows").Op(">").Add(max).Op("/").Parens(id("cols").Op("/").Add(be))
	if xy != nil {
		overflow = overflow.Op("||").Add(xy)
	}
	return []check{
		{neg, "%s: negative size " + sizeFmt, append([]jen.Code{sym}, ids...)},
		{id("cols").Op("%").Add(be).Op("!=").Lit(0), "%s: %d columns is not a whole number of %d-element blocks", []jen.Code{sym, id("cols"), be}},
		{overflow, "%s: a " + sizeFmt + " product overflows an int64 byte count", append([]jen.Code{sym}, ids...)},
		{jen.Add(live).Op("&&").Parens(id("w").Op("==").Lit(0).Op("||").Id(x).Op("==").Lit(0).Op("||").Id("y").Op("==").Lit(0)),
			"%s: null device pointer (w %#x, " + x + " %#x, y %#x) for " + sizeFmt, append([]jen.Code{sym, id("w"), id(x), id("y")}, ids...)},
	}
}

// matrixRefused are the refused argument sets shared by the W·x launchers.
func matrixRefused(good func(string) *jen.Statement, be, max jen.Code) []map[string]jen.Code {
	return matrixRefusedX("x", be, max)
}

// matrixRefusedX are matrixRefused with the vector parameter named x.
func matrixRefusedX(x string, be, max jen.Code) []map[string]jen.Code {
	return []map[string]jen.Code{
		{"rows": jen.Lit(-1)},
		{"cols": jen.Lit(-1)},
		{"w": jen.Lit(0)},
		{x: jen.Lit(0)},
		{"y": jen.Lit(0)},
		{"rows": max, "cols": jen.Add(be).Op("*").Lit(2)},
		{"rows": jen.Lit(1), "cols": jen.Add(be).Op("*").Parens(jen.Add(max).Op("+").Lit(1))},
	}
}

// sigMatVec: int f(const void* w, const float* x, T* y, int64_t rows, int64_t cols, forge_stream_t stream).
var sigMatVec = &signature{
	name:      "matvec",
	params:    matrixParams(),
	perFormat: true,
	dim:       "BlockElems",
	outF32:    true,
	doc: "y = W·x, W\nrows rows of cols elements (cols/BlockElems whole blocks each, rows\n" +
		"contiguous), x cols float32 and y rows float32, all in device memory.",
	empty: func() *jen.Statement { return id("rows").Op("==").Lit(0) },
	checks: func(sym, be, max jen.Code) []check {
		return matrixChecks(sym, be, max, []string{"rows", "cols"}, "%d×%d", id("rows").Op(">").Lit(0), nil)
	},
	perBlock: func(bb, be, _ int) int { return max(bb, be*4) }, // W's blocks and x's floats
	methodDoc: func(l launcher) string {
		return fmt.Sprintf(`%s calls %s: y = W·x, W rows rows of cols %s elements
(cols/%d blocks of %d bytes each), x cols float32 and y rows float32, on
stream. Zero rows is a no-op; negative counts, cols not a multiple of %d,
overflowing sizes and null pointers are errors before the call.`, l.method, l.symbol, l.format.Name, l.format.BlockElems, l.format.BlockBytes, l.format.BlockElems)
	},
	refused: matrixRefused,
	partial: func(good func(string) *jen.Statement) map[string]jen.Code {
		return map[string]jen.Code{"cols": good("cols").Op("+").Lit(1)}
	},
	noop: map[string]func() jen.Code{
		"w": func() jen.Code { return jen.Lit(0) }, "x": func() jen.Code { return jen.Lit(0) }, "y": func() jen.Code { return jen.Lit(0) },
		"rows": func() jen.Code { return jen.Lit(0) },
	},
}

// sigMatVecX8: int f(const void* w, const void* xq, float* y, int64_t rows, int64_t cols, forge_stream_t stream):
// matvec on a format's integer form, xq the X8 layout of cols activations
// (glue_quantize_x8's output). Its launchers exist only for the formats
// whose spec has an integer form (families.Kernel.IntForm).
var sigMatVecX8 = &signature{
	name:      "matvec_x8",
	params:    matrixParamsX(param{name: "xq", cType: "const void*", ptr: true, call: "X", test: ptrVal("0x500000")}),
	perFormat: true,
	dim:       "BlockElems",
	outF32:    true,
	doc: "y = W·x on the\nformat's integer form, W rows rows of cols elements (cols/BlockElems whole\n" +
		"blocks each, rows contiguous), xq the X8 layout of cols activations\n(glue_quantize_x8's output) and y rows float32, all in device memory.",
	empty: func() *jen.Statement { return id("rows").Op("==").Lit(0) },
	checks: func(sym, be, max jen.Code) []check {
		// After the negative sizes: cols a whole number of the activations' groups.
		return slices.Insert(matrixChecksX("xq", sym, be, max, []string{"rows", "cols"}, "%d×%d", id("rows").Op(">").Lit(0), nil), 1,
			check{id("cols").Op("%").Lit(32).Op("!=").Lit(0), "%s: %d columns is not a multiple of 32, the activations' quantization groups", []jen.Code{sym, id("cols")}})
	},
	// As matvec's: W's blocks, and x's layout takes fewer bytes per element than floats.
	perBlock: func(bb, be, _ int) int { return max(bb, be*4) },
	methodDoc: func(l launcher) string {
		return fmt.Sprintf(`%s calls %s: y = W·x on %s's integer form, W rows
rows of cols elements (cols/%d blocks of %d bytes each), xq the X8 layout of
cols activations (forge_glue_quantize_x8's output) and y rows float32, on
stream. Zero rows is a no-op; negative counts, cols not a multiple of %d
and of 32, overflowing sizes and null pointers are errors before the call.`, l.method, l.symbol, l.format.Name, l.format.BlockElems, l.format.BlockBytes, l.format.BlockElems)
	},
	refused: func(good func(string) *jen.Statement, be, max jen.Code) []map[string]jen.Code {
		return matrixRefusedX("xq", be, max)
	},
	partial: func(good func(string) *jen.Statement) map[string]jen.Code {
		return map[string]jen.Code{"cols": good("cols").Op("+").Lit(1)}
	},
	noop: map[string]func() jen.Code{
		"w": func() jen.Code { return jen.Lit(0) }, "xq": func() jen.Code { return jen.Lit(0) }, "y": func() jen.Code { return jen.Lit(0) },
		"rows": func() jen.Code { return jen.Lit(0) },
	},
}

// sigMatMul: int f(const void* w, const float* x, T* y, int64_t rows, int64_t cols, int64_t batch, forge_stream_t stream).
var sigMatMul = &signature{
	name: "matmul",
	params: matrixParams(param{name: "batch", cType: "int64_t", call: "Batch", test: func() jen.Code {
		return jen.Int64().Call(jen.Lit(3).Op("+").Id("i"))
	}}),
	perFormat: true,
	dim:       "BlockElems",
	outF32:    true,
	doc: "Y = W·X, W\nrows rows of cols elements (cols/BlockElems whole blocks each, rows\n" +
		"contiguous), X batch vectors of cols float32 (x[b·cols+k]) and Y batch\nvectors of rows float32 (y[b·rows+r]), all in device memory.",
	empty: func() *jen.Statement { return id("rows").Op("==").Lit(0).Op("||").Id("batch").Op("==").Lit(0) },
	checks: func(sym, be, max jen.Code) []check {
		// X's and Y's bytes: batch·cols·4 and batch·rows·4 fit an int64.
		xy := id("batch").Op(">").Lit(0).Op("&&").Parens(
			id("cols").Op(">").Qual("math", "MaxInt64").Op("/").Lit(4).Op("/").Id("batch").Op("||").
				Id("rows").Op(">").Qual("math", "MaxInt64").Op("/").Lit(4).Op("/").Id("batch"))
		return matrixChecks(sym, be, max, []string{"rows", "cols", "batch"}, "%d×%d×%d",
			id("rows").Op(">").Lit(0).Op("&&").Id("batch").Op(">").Lit(0), xy)
	},
	perBlock: func(bb, be, _ int) int { return max(bb, be*4) },
	methodDoc: func(l launcher) string {
		return fmt.Sprintf(`%s calls %s: Y = W·X, W rows rows of cols %s elements
(cols/%d blocks of %d bytes each), X batch vectors of cols float32 and Y
batch vectors of rows float32, on stream. Zero rows or batch is a no-op;
negative counts, cols not a multiple of %d, overflowing sizes and null
pointers are errors before the call.`, l.method, l.symbol, l.format.Name, l.format.BlockElems, l.format.BlockBytes, l.format.BlockElems)
	},
	refused: func(good func(string) *jen.Statement, be, max jen.Code) []map[string]jen.Code {
		return append(matrixRefused(good, be, max),
			map[string]jen.Code{"batch": jen.Lit(-1)},
			map[string]jen.Code{"batch": jen.Qual("math", "MaxInt64").Op("/").Lit(4)},
		)
	},
	partial: func(good func(string) *jen.Statement) map[string]jen.Code {
		return map[string]jen.Code{"cols": good("cols").Op("+").Lit(1)}
	},
	noop: map[string]func() jen.Code{
		"w": func() jen.Code { return jen.Lit(0) }, "x": func() jen.Code { return jen.Lit(0) }, "y": func() jen.Code { return jen.Lit(0) },
		"rows": func() jen.Code { return jen.Lit(5) }, "batch": func() jen.Code { return jen.Lit(0) },
	},
}

// sigAttention: int f(const void* q, const void* k, const void* v, void* o,
// int64_t batch, int64_t heads, int64_t heads_kv, int64_t seq_q, int64_t seq_kv,
// float scale, int32_t causal, forge_stream_t stream). Not format-specific:
// one launcher per input type × head dimension, the checks' be is the head
// dimension.
var sigAttention = &signature{
	name: "attention",
	dim:  "HeadDim",
	params: []param{
		{name: "q", cType: "const void*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "k", cType: "const void*", ptr: true, call: "X", test: ptrVal("0x500000")},
		{name: "v", cType: "const void*", ptr: true, call: "V", test: ptrVal("0x700000")},
		{name: "o", cType: "void*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "batch", cType: "int64_t", call: "Batch", test: func() jen.Code { return jen.Int64().Call(jen.Lit(1).Op("+").Id("i")) }},
		{name: "heads", cType: "int64_t", call: "Heads", test: func() jen.Code { return jen.Int64().Call(jen.Lit(8)) }},
		{name: "headsKV", cType: "int64_t", call: "HeadsKV", test: func() jen.Code { return jen.Int64().Call(jen.Lit(2)) }},
		{name: "seqQ", cType: "int64_t", call: "SeqQ", test: func() jen.Code { return jen.Int64().Call(jen.Lit(100).Op("+").Id("i")) }},
		{name: "seqKV", cType: "int64_t", call: "SeqKV", test: func() jen.Code { return jen.Int64().Call(jen.Lit(300).Op("+").Id("i")) }},
		{name: "scale", cType: "float", goType: "float32", call: "Scale", test: func() jen.Code { return jen.Float32().Call(jen.Lit(0.125)) }},
		{name: "causal", cType: "int32_t", goType: "int32", call: "Causal", test: func() jen.Code { return jen.Int32().Call(jen.Id("i").Op("%").Lit(2)) }},
	},
	doc: "flash attention,\nq and o [batch, heads, seqQ, D], k and v [batch, headsKV, seqKV, D], all in\n" +
		"device memory, 16-byte aligned; causal 0 or 1 (bottom-right aligned).",
	methodDoc: func(l launcher) string {
		return fmt.Sprintf(`%s calls %s: flash attention over %s q, k, v and o of
head dimension %d (layout [batch, heads, seq, %d]), on stream. No batch,
heads or query rows is a no-op; what the launcher refuses is an error
before the call.`, l.method, l.symbol, l.kernel.Output, l.kernel.HeadDim, l.kernel.HeadDim)
	},
	empty: func() *jen.Statement {
		return id("batch").Op("==").Lit(0).Op("||").Id("heads").Op("==").Lit(0).Op("||").Id("seqQ").Op("==").Lit(0)
	},
	checks: func(sym, d, _ jen.Code) []check {
		// maxElems / d rows of D elements: 2^60 elements per tensor, as the launchers.
		rows := jen.Parens(jen.Lit(1).Op("<<").Lit(60)).Op("/").Add(d)
		tooBig := func(b, h, s string) *jen.Statement {
			return id(s).Op(">").Add(rows).Op("||").Id(h).Op(">").Add(rows).Op("/").Id(s).Op("||").Id(b).Op(">").Add(rows).Op("/").Id(s).Op("/").Id(h)
		}
		live := id("batch").Op(">").Lit(0).Op("&&").Id("heads").Op(">").Lit(0).Op("&&").Id("seqQ").Op(">").Lit(0)
		kv := id("seqKV").Op(">").Lit(0)
		return []check{
			{id("batch").Op("<").Lit(0).Op("||").Id("heads").Op("<").Lit(0).Op("||").Id("headsKV").Op("<").Lit(0).Op("||").Id("seqQ").Op("<").Lit(0).Op("||").Id("seqKV").Op("<").Lit(0),
				"%s: negative size (batch %d, heads %d/%d, seq %d/%d)", []jen.Code{sym, id("batch"), id("heads"), id("headsKV"), id("seqQ"), id("seqKV")}},
			{id("heads").Op(">").Lit(0).Op("&&").Parens(id("headsKV").Op("==").Lit(0).Op("||").Id("heads").Op("%").Id("headsKV").Op("!=").Lit(0)),
				"%s: %d query heads is not a multiple of %d key/value heads", []jen.Code{sym, id("heads"), id("headsKV")}},
			{id("causal").Op("!=").Lit(0).Op("&&").Id("causal").Op("!=").Lit(1), "%s: causal %d: want 0 or 1", []jen.Code{sym, id("causal")}},
			{jen.Add(live.Clone()).Op("&&").Parens(jen.Add(tooBig("batch", "heads", "seqQ")).Op("||").Add(kv.Clone()).Op("&&").Parens(tooBig("batch", "headsKV", "seqKV"))),
				"%s: a tensor of 2^60 elements or more (batch %d, heads %d/%d, seq %d/%d)", []jen.Code{sym, id("batch"), id("heads"), id("headsKV"), id("seqQ"), id("seqKV")}},
			{jen.Add(live.Clone()).Op("&&").Parens(id("q").Op("==").Lit(0).Op("||").Id("o").Op("==").Lit(0).Op("||").Add(kv.Clone()).Op("&&").Parens(id("k").Op("==").Lit(0).Op("||").Id("v").Op("==").Lit(0))),
				"%s: null device pointer (q %#x, k %#x, v %#x, o %#x)", []jen.Code{sym, id("q"), id("k"), id("v"), id("o")}},
			{jen.Add(live.Clone()).Op("&&").Parens(id("q").Op("%").Lit(16).Op("!=").Lit(0).Op("||").Id("o").Op("%").Lit(16).Op("!=").Lit(0).Op("||").Add(kv.Clone()).Op("&&").Parens(id("k").Op("%").Lit(16).Op("!=").Lit(0).Op("||").Id("v").Op("%").Lit(16).Op("!=").Lit(0))),
				"%s: a device pointer not 16-byte aligned (q %#x, k %#x, v %#x, o %#x)", []jen.Code{sym, id("q"), id("k"), id("v"), id("o")}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"batch": jen.Lit(-1)},
			{"seqKV": jen.Lit(-1)},
			{"headsKV": jen.Lit(3)},
			{"headsKV": jen.Lit(0)},
			{"causal": jen.Lit(2)},
			{"q": jen.Lit(0)},
			{"k": jen.Lit(0)},
			{"o": jen.Lit(0)},
			{"v": good("v").Op("+").Lit(8)},
			{"seqQ": jen.Lit(1).Op("<<").Lit(60)},
		}
	},
	noop: map[string]func() jen.Code{
		"q": func() jen.Code { return jen.Lit(0) }, "o": func() jen.Code { return jen.Lit(0) }, "seqQ": func() jen.Code { return jen.Lit(0) },
	},
}

// signatures are the launcher shapes gogen binds, by the name a family
// spec gives its launchers.
var signatures = map[string]*signature{}

func init() {
	for _, sig := range []*signature{sigBlocks, sigMatVec, sigMatVecX8, sigMatMul, sigAttention, sigGlueNorm, sigGlueRoPE, sigGlueBinary, sigGlueLayout, sigGlueQuantize,
		sigGlueAddNorm, sigGlueRoPEKV} {
		signatures[sig.name] = sig
	}
}

// outTyped reports whether a parameter's C type is the kernel's output
// element type (OUT): its trampolines are then one per output type.
func (s *signature) outTyped() bool {
	for _, p := range s.params {
		if strings.Contains(p.cType, "OUT") {
			return true
		}
	}
	return false
}
