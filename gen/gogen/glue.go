package gogen

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// The model glue's seven launcher shapes (specs/families.Glue,
// templates/hip/glue.hip.tmpl), signatures as the other families' are: the
// bindings, argument checks and launcher tests follow from them. Their
// checks count elements with glueElems (helperFuncs). glue_add_norm and
// glue_rope_kv are the shapes of fused kernels only, each doing what two
// or more of the others' launches would.

func i64(n int64) func() jen.Code { return func() jen.Code { return jen.Int64().Call(jen.Lit(n)) } }

func i64Plus(n int) func() jen.Code {
	return func() jen.Code { return jen.Int64().Call(jen.Lit(n).Op("+").Id("i")) }
}

// glueElemsCall is glueElems(a, b, c): the element count, -1 when negative
// or past MaxInt64/4 (helperFuncs renders it).
func glueElemsCall(a, b, c jen.Code) *jen.Statement { return jen.Id("glueElems").Call(a, b, c) }

// glueMethodDoc is the doc of a glue launcher's wrapper method.
func glueMethodDoc(l launcher) string {
	return fmt.Sprintf("%s calls %s: %s, on stream. What the launcher\nrefuses is an error before the call.", l.method, l.symbol, l.kernel.Doc)
}

// glueElemsFunc renders glueElems.
func glueElemsFunc(f *jen.File) {
	doc(f, `glueElems is a·b·c, or -1 when a count is negative or the product exceeds
MaxInt64/4 (its float32 bytes would overflow an int64), as the glue
launchers count.`)
	f.Func().Id("glueElems").Params(jen.List(jen.Id("a"), jen.Id("b"), jen.Id("c")).Int64()).Int64().Block(
		jen.Const().Id("most").Op("=").Qual("math", "MaxInt64").Op("/").Lit(4),
		jen.Switch().Block(
			jen.Case(jen.Id("a").Op("<").Lit(0).Op("||").Id("b").Op("<").Lit(0).Op("||").Id("c").Op("<").Lit(0)).Block(jen.Return(jen.Lit(-1))),
			jen.Case(jen.Id("a").Op("==").Lit(0).Op("||").Id("b").Op("==").Lit(0).Op("||").Id("c").Op("==").Lit(0)).Block(jen.Return(jen.Lit(0))),
			jen.Case(jen.Id("a").Op(">").Id("most").Op("/").Id("b").Op("||").Id("a").Op("*").Id("b").Op(">").Id("most").Op("/").Id("c")).Block(jen.Return(jen.Lit(-1))),
		),
		jen.Return(jen.Id("a").Op("*").Id("b").Op("*").Id("c")),
	)
}

// sigGlueNorm: int f(const float* x, const float* w, float* y, int64_t rows, int64_t dim, float eps, forge_stream_t).
var sigGlueNorm = &signature{
	name:      "glue_norm",
	helpers:   []string{"glueElems"},
	methodDoc: glueMethodDoc,
	params: []param{
		{name: "x", cType: "const float*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "w", cType: "const float*", ptr: true, call: "X", test: ptrVal("0x500000")},
		{name: "y", cType: "float*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "rows", cType: "int64_t", call: "Rows", test: i64Plus(1)},
		{name: "dim", cType: "int64_t", call: "Cols", test: i64Plus(64)},
		{name: "eps", cType: "float", goType: "float32", call: "Scale", test: func() jen.Code { return jen.Float32().Call(jen.Lit(1e-5)) }},
	},
	doc:   "RMSNorm,\ny[r,:] = x[r,:]·w / sqrt(mean x[r,:]² + eps), rows rows of dim float32 in device memory.",
	empty: func() *jen.Statement { return id("rows").Op("==").Lit(0).Op("||").Id("dim").Op("==").Lit(0) },
	checks: func(sym, _, _ jen.Code) []check {
		live := id("rows").Op(">").Lit(0).Op("&&").Id("dim").Op(">").Lit(0)
		return []check{
			{glueElemsCall(id("rows"), id("dim"), jen.Lit(1)).Op("<").Lit(0), "%s: bad size %d×%d (negative, or past MaxInt64/4 elements)", []jen.Code{sym, id("rows"), id("dim")}},
			{jen.Add(live).Op("&&").Parens(id("x").Op("==").Lit(0).Op("||").Id("w").Op("==").Lit(0).Op("||").Id("y").Op("==").Lit(0)),
				"%s: null device pointer (x %#x, w %#x, y %#x)", []jen.Code{sym, id("x"), id("w"), id("y")}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"rows": jen.Lit(-1)}, {"dim": jen.Lit(-1)}, {"x": jen.Lit(0)}, {"w": jen.Lit(0)}, {"y": jen.Lit(0)},
			{"rows": jen.Lit(2), "dim": jen.Qual("math", "MaxInt64").Op("/").Lit(4)},
		}
	},
	noop: map[string]func() jen.Code{
		"x": func() jen.Code { return jen.Lit(0) }, "w": func() jen.Code { return jen.Lit(0) }, "y": func() jen.Code { return jen.Lit(0) },
		"rows": func() jen.Code { return jen.Lit(0) },
	},
}

// sigGlueRoPE: int f(float* x, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, float theta, int32_t neox, forge_stream_t).
var sigGlueRoPE = &signature{
	name:      "glue_rope",
	helpers:   []string{"glueElems"},
	methodDoc: glueMethodDoc,
	params: []param{
		{name: "x", cType: "float*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "seq", cType: "int64_t", call: "Rows", test: i64Plus(1)},
		{name: "heads", cType: "int64_t", call: "Heads", test: i64(4)},
		{name: "headDim", cType: "int64_t", call: "Cols", test: i64(64)},
		{name: "pos", cType: "int64_t", call: "Pos", test: i64Plus(7)},
		{name: "theta", cType: "float", goType: "float32", call: "Scale", test: func() jen.Code { return jen.Float32().Call(jen.Lit(10000.0)) }},
		{name: "neox", cType: "int32_t", goType: "int32", call: "Causal", test: func() jen.Code { return jen.Int32().Call(jen.Id("i").Op("%").Lit(2)) }},
	},
	doc: "rotary position embedding\nin place on x, token-major [seq, heads, headDim] float32 in device memory, token t at\n" +
		"position pos+t; neox 0 pairs (2i, 2i+1) (llama), 1 pairs (i, i+headDim/2).",
	empty: func() *jen.Statement {
		return id("seq").Op("==").Lit(0).Op("||").Id("heads").Op("==").Lit(0).Op("||").Id("headDim").Op("==").Lit(0)
	},
	checks: func(sym, _, _ jen.Code) []check {
		return []check{
			{glueElemsCall(id("seq"), id("heads"), id("headDim")).Op("<").Lit(0).Op("||").Id("pos").Op("<").Lit(0),
				"%s: bad size (seq %d, heads %d, head dim %d, pos %d: negative, or past MaxInt64/4 elements)", []jen.Code{sym, id("seq"), id("heads"), id("headDim"), id("pos")}},
			{id("headDim").Op("%").Lit(2).Op("!=").Lit(0), "%s: odd head dimension %d", []jen.Code{sym, id("headDim")}},
			{id("neox").Op("!=").Lit(0).Op("&&").Id("neox").Op("!=").Lit(1), "%s: neox %d: want 0 or 1", []jen.Code{sym, id("neox")}},
			{jen.Op("!").Parens(id("theta").Op(">").Lit(0)), "%s: theta %g: want a positive base", []jen.Code{sym, id("theta")}},
			{jen.Op("!").Parens(sigGlueRoPEEmpty()).Op("&&").Id("x").Op("==").Lit(0), "%s: null device pointer x", []jen.Code{sym}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"seq": jen.Lit(-1)}, {"pos": jen.Lit(-1)}, {"headDim": jen.Lit(63)}, {"neox": jen.Lit(2)}, {"theta": jen.Lit(0)},
			{"x": jen.Lit(0)}, {"seq": jen.Lit(1).Op("<<").Lit(40), "heads": jen.Lit(1).Op("<<").Lit(40)},
		}
	},
	noop: map[string]func() jen.Code{"x": func() jen.Code { return jen.Lit(0) }, "seq": func() jen.Code { return jen.Lit(0) }},
}

func sigGlueRoPEEmpty() *jen.Statement {
	return id("seq").Op("==").Lit(0).Op("||").Id("heads").Op("==").Lit(0).Op("||").Id("headDim").Op("==").Lit(0)
}

// sigGlueBinary: int f(const float* a, const float* b, float* out, int64_t n, forge_stream_t).
var sigGlueBinary = &signature{
	name:      "glue_binary",
	helpers:   []string{"glueElems"},
	methodDoc: glueMethodDoc,
	params: []param{
		{name: "a", cType: "const float*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "b", cType: "const float*", ptr: true, call: "X", test: ptrVal("0x500000")},
		{name: "out", cType: "float*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "n", cType: "int64_t", call: "Rows", test: i64Plus(100)},
	},
	doc:   "an element-wise\nout = op(a, b) over n float32 in device memory (out may be a or b).",
	empty: func() *jen.Statement { return id("n").Op("==").Lit(0) },
	checks: func(sym, _, _ jen.Code) []check {
		return []check{
			{id("n").Op("<").Lit(0).Op("||").Id("n").Op(">").Qual("math", "MaxInt64").Op("/").Lit(4), "%s: bad element count %d", []jen.Code{sym, id("n")}},
			{id("n").Op(">").Lit(0).Op("&&").Parens(id("a").Op("==").Lit(0).Op("||").Id("b").Op("==").Lit(0).Op("||").Id("out").Op("==").Lit(0)),
				"%s: null device pointer (a %#x, b %#x, out %#x)", []jen.Code{sym, id("a"), id("b"), id("out")}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"n": jen.Lit(-1)}, {"a": jen.Lit(0)}, {"b": jen.Lit(0)}, {"out": jen.Lit(0)},
			{"n": jen.Qual("math", "MaxInt64").Op("/").Lit(4).Op("+").Lit(1)},
		}
	},
	noop: map[string]func() jen.Code{
		"a": func() jen.Code { return jen.Lit(0) }, "b": func() jen.Code { return jen.Lit(0) }, "out": func() jen.Code { return jen.Lit(0) },
		"n": func() jen.Code { return jen.Lit(0) },
	},
}

// sigGlueLayout: int f(const void* src, void* dst, int64_t seq, int64_t heads, int64_t head_dim, int64_t pos, int64_t cap, forge_stream_t).
var sigGlueLayout = &signature{
	name:      "glue_layout",
	helpers:   []string{"glueElems"},
	methodDoc: glueMethodDoc,
	params: []param{
		{name: "src", cType: "const void*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "dst", cType: "void*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "seq", cType: "int64_t", call: "Rows", test: i64Plus(1)},
		{name: "heads", cType: "int64_t", call: "Heads", test: i64(2)},
		{name: "headDim", cType: "int64_t", call: "Cols", test: i64(64)},
		{name: "pos", cType: "int64_t", call: "Pos", test: i64(3)},
		{name: "cap", cType: "int64_t", call: "Cap", test: i64Plus(16)},
	},
	doc: "a layout change\nbetween token-major float32 [seq, heads, headDim] and rows pos..pos+seq-1 of\n" +
		"head-major f16 [heads, cap, headDim], in device memory.",
	empty: sigGlueRoPEEmpty,
	checks: func(sym, _, _ jen.Code) []check {
		return []check{
			{glueElemsCall(id("seq"), id("heads"), id("headDim")).Op("<").Lit(0).Op("||").Add(glueElemsCall(id("cap"), id("heads"), id("headDim"))).Op("<").Lit(0).Op("||").
				Id("pos").Op("<").Lit(0).Op("||").Id("pos").Op(">").Id("cap").Op("||").Id("seq").Op(">").Id("cap").Op("-").Id("pos"),
				"%s: bad size (seq %d at pos %d of cap %d, heads %d, head dim %d)", []jen.Code{sym, id("seq"), id("pos"), id("cap"), id("heads"), id("headDim")}},
			{jen.Op("!").Parens(sigGlueRoPEEmpty()).Op("&&").Parens(id("src").Op("==").Lit(0).Op("||").Id("dst").Op("==").Lit(0)),
				"%s: null device pointer (src %#x, dst %#x)", []jen.Code{sym, id("src"), id("dst")}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"seq": jen.Lit(-1)}, {"cap": jen.Lit(-1)}, {"pos": jen.Lit(-1)}, {"pos": good("cap")},
			{"src": jen.Lit(0)}, {"dst": jen.Lit(0)},
			{"heads": jen.Lit(1).Op("<<").Lit(40), "cap": jen.Lit(1).Op("<<").Lit(40)},
		}
	},
	noop: map[string]func() jen.Code{
		"src": func() jen.Code { return jen.Lit(0) }, "dst": func() jen.Code { return jen.Lit(0) }, "seq": func() jen.Code { return jen.Lit(0) },
	},
}

// sigGlueQuantize: int f(const float* x, void* xq, int64_t n, forge_stream_t):
// x quantized to the X8 layout that matvec_x8 reads (formats.QuantizeX8 is
// the reference), n a multiple of 32.
var sigGlueQuantize = &signature{
	name:      "glue_quantize",
	methodDoc: glueMethodDoc,
	params: []param{
		{name: "x", cType: "const float*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "xq", cType: "void*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "n", cType: "int64_t", call: "NBlocks", test: func() jen.Code { return jen.Int64().Call(jen.Lit(32).Op("*").Parens(jen.Lit(1).Op("+").Id("i"))) }},
	},
	doc: "an activation\nvector's quantization, n float32 at x to the X8 layout at xq (n int8 codes,\n" +
		"n/32 float32 scales, n/16 float32 sums), in device memory.",
	empty: func() *jen.Statement { return id("n").Op("==").Lit(0) },
	checks: func(sym, _, _ jen.Code) []check {
		return []check{
			{id("n").Op("<").Lit(0).Op("||").Id("n").Op(">").Qual("math", "MaxInt64").Op("/").Lit(4), "%s: bad element count %d", []jen.Code{sym, id("n")}},
			{id("n").Op("%").Lit(32).Op("!=").Lit(0), "%s: %d elements is not a multiple of 32, the quantization groups", []jen.Code{sym, id("n")}},
			{id("n").Op(">").Lit(0).Op("&&").Parens(id("x").Op("==").Lit(0).Op("||").Id("xq").Op("==").Lit(0)),
				"%s: null device pointer (x %#x, xq %#x)", []jen.Code{sym, id("x"), id("xq")}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"n": jen.Lit(-32)}, {"n": good("n").Op("+").Lit(1)}, {"x": jen.Lit(0)}, {"xq": jen.Lit(0)},
			{"n": jen.Qual("math", "MaxInt64").Op("/").Lit(4).Op("+").Lit(1)},
		}
	},
	noop: map[string]func() jen.Code{
		"x": func() jen.Code { return jen.Lit(0) }, "xq": func() jen.Code { return jen.Lit(0) }, "n": func() jen.Code { return jen.Lit(0) },
	},
}

// sigGlueAddNorm: int f(const float* a, const float* b, const float* w, float* h, void* xq,
// int64_t rows, int64_t dim, float eps, forge_stream_t): the residual add
// and the next RMSNorm in one launch, h = a + b kept (the residual stream)
// and xq = rmsnorm(h)·w in the X8 layout, so dim is a whole number of its
// 32-element groups.
var sigGlueAddNorm = &signature{
	name:      "glue_add_norm",
	helpers:   []string{"glueElems"},
	methodDoc: glueMethodDoc,
	params: []param{
		{name: "a", cType: "const float*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "b", cType: "const float*", ptr: true, call: "X", test: ptrVal("0x500000")},
		{name: "w", cType: "const float*", ptr: true, call: "V", test: ptrVal("0x700000")},
		{name: "h", cType: "float*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "xq", cType: "void*", ptr: true, call: "Aux", test: ptrVal("0xb00000")},
		{name: "rows", cType: "int64_t", call: "Rows", test: i64Plus(1)},
		{name: "dim", cType: "int64_t", call: "Cols", test: func() jen.Code { return jen.Int64().Call(jen.Lit(32).Op("*").Parens(jen.Lit(2).Op("+").Id("i"))) }},
		{name: "eps", cType: "float", goType: "float32", call: "Scale", test: func() jen.Code { return jen.Float32().Call(jen.Lit(1e-5)) }},
	},
	doc:   "a residual add\nand RMSNorm into the X8 layout, h = a + b and xq = X8(rmsnorm(h)·w), rows rows of dim\nfloat32 in device memory.",
	empty: func() *jen.Statement { return id("rows").Op("==").Lit(0).Op("||").Id("dim").Op("==").Lit(0) },
	checks: func(sym, _, _ jen.Code) []check {
		live := func() *jen.Statement { return id("rows").Op(">").Lit(0).Op("&&").Id("dim").Op(">").Lit(0) }
		return []check{
			{glueElemsCall(id("rows"), id("dim"), jen.Lit(1)).Op("<").Lit(0), "%s: bad size %d×%d (negative, or past MaxInt64/4 elements)", []jen.Code{sym, id("rows"), id("dim")}},
			{id("dim").Op("%").Lit(32).Op("!=").Lit(0), "%s: dim %d is not a multiple of 32, the quantization groups", []jen.Code{sym, id("dim")}},
			{live().Op("&&").Parens(id("a").Op("==").Lit(0).Op("||").Id("b").Op("==").Lit(0).Op("||").Id("w").Op("==").Lit(0).Op("||").Id("h").Op("==").Lit(0).Op("||").Id("xq").Op("==").Lit(0)),
				"%s: null device pointer (a %#x, b %#x, w %#x, h %#x, xq %#x)", []jen.Code{sym, id("a"), id("b"), id("w"), id("h"), id("xq")}},
			// The launcher refuses these too: a row's workgroups each read
			// all of a and b while the others write their slices of h.
			{live().Op("&&").Parens(id("h").Op("==").Id("a").Op("||").Id("h").Op("==").Id("b")),
				"%s: h %#x must not be a or b (every workgroup reads the whole row)", []jen.Code{sym, id("h")}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"rows": jen.Lit(-1)}, {"dim": jen.Lit(-1)}, {"dim": good("dim").Op("+").Lit(1)},
			{"a": jen.Lit(0)}, {"b": jen.Lit(0)}, {"w": jen.Lit(0)}, {"h": jen.Lit(0)}, {"xq": jen.Lit(0)},
			{"h": good("a")},
			// A whole number of groups, so that only the element count trips.
			{"rows": jen.Lit(2), "dim": jen.Qual("math", "MaxInt64").Op("/").Lit(4).Op("/").Lit(32).Op("*").Lit(32)},
		}
	},
	noop: map[string]func() jen.Code{
		"a": func() jen.Code { return jen.Lit(0) }, "b": func() jen.Code { return jen.Lit(0) }, "w": func() jen.Code { return jen.Lit(0) },
		"h": func() jen.Code { return jen.Lit(0) }, "xq": func() jen.Code { return jen.Lit(0) }, "rows": func() jen.Code { return jen.Lit(0) },
	},
}

// sigGlueRoPEKV: int f(const float* q, const float* k, const float* v, uint16_t* qh, uint16_t* kc,
// uint16_t* vc, int64_t seq, int64_t heads, int64_t heads_kv, int64_t head_dim, int64_t pos,
// int64_t cap, float theta, int32_t neox, forge_stream_t): a layer's
// attention inputs in one launch, glue_rope's rotation of q and k, then
// glue_layout's conversions (q to head-major f16, k and v appended to the
// caches).
var sigGlueRoPEKV = &signature{
	name:      "glue_rope_kv",
	helpers:   []string{"glueElems"},
	methodDoc: glueMethodDoc,
	params: []param{
		{name: "q", cType: "const float*", ptr: true, call: "Src", test: ptrVal("0x10000")},
		{name: "k", cType: "const float*", ptr: true, call: "X", test: ptrVal("0x500000")},
		{name: "v", cType: "const float*", ptr: true, call: "V", test: ptrVal("0x700000")},
		{name: "qh", cType: "uint16_t*", ptr: true, call: "Dst", test: ptrVal("0x900000")},
		{name: "kc", cType: "uint16_t*", ptr: true, call: "Aux", test: ptrVal("0xb00000")},
		{name: "vc", cType: "uint16_t*", ptr: true, call: "Aux2", test: ptrVal("0xd00000")},
		{name: "seq", cType: "int64_t", call: "Rows", test: i64Plus(1)},
		{name: "heads", cType: "int64_t", call: "Heads", test: i64(8)},
		{name: "headsKV", cType: "int64_t", call: "HeadsKV", test: i64(2)},
		{name: "headDim", cType: "int64_t", call: "Cols", test: i64(64)},
		{name: "pos", cType: "int64_t", call: "Pos", test: i64(3)},
		{name: "cap", cType: "int64_t", call: "Cap", test: i64Plus(16)},
		{name: "theta", cType: "float", goType: "float32", call: "Scale", test: func() jen.Code { return jen.Float32().Call(jen.Lit(10000.0)) }},
		{name: "neox", cType: "int32_t", goType: "int32", call: "Causal", test: func() jen.Code { return jen.Int32().Call(jen.Id("i").Op("%").Lit(2)) }},
	},
	doc: "rotary position\nembedding and the attention layouts in one launch: q token-major [seq, heads, headDim]\n" +
		"and k [seq, headsKV, headDim] float32 rotated, token t at position pos+t (neox as\n" +
		"glue_rope's), q into head-major f16 qh [heads, seq, headDim], k and v (as it is)\n" +
		"into rows pos..pos+seq-1 of the f16 caches kc and vc [headsKV, cap, headDim], in\ndevice memory.",
	empty: sigGlueRoPEEmpty,
	checks: func(sym, _, _ jen.Code) []check {
		// The launcher also counts the pairs it hands out, over q's, k's
		// and v's rows at once, seq·(heads + 2·headsKV)·headDim elements:
		// that count must fit as well, or it refuses what got past here.
		size := glueElemsCall(id("seq"), id("heads"), id("headDim")).Op("<").Lit(0).Op("||").
			Add(glueElemsCall(id("cap"), id("headsKV"), id("headDim"))).Op("<").Lit(0).Op("||").
			Add(glueElemsCall(id("seq"), id("heads").Op("+").Id("headsKV").Op("*").Lit(2), id("headDim"))).Op("<").Lit(0).Op("||").
			Id("pos").Op("<").Lit(0).Op("||").Id("pos").Op(">").Id("cap").Op("||").Id("seq").Op(">").Id("cap").Op("-").Id("pos")
		return []check{
			{size, "%s: bad size (seq %d at pos %d of cap %d, heads %d/%d, head dim %d)",
				[]jen.Code{sym, id("seq"), id("pos"), id("cap"), id("heads"), id("headsKV"), id("headDim")}},
			{id("heads").Op(">").Lit(0).Op("&&").Parens(id("headsKV").Op("==").Lit(0).Op("||").Id("heads").Op("%").Id("headsKV").Op("!=").Lit(0)),
				"%s: %d query heads is not a multiple of %d key/value heads", []jen.Code{sym, id("heads"), id("headsKV")}},
			{id("headDim").Op("%").Lit(2).Op("!=").Lit(0), "%s: odd head dimension %d", []jen.Code{sym, id("headDim")}},
			{id("neox").Op("!=").Lit(0).Op("&&").Id("neox").Op("!=").Lit(1), "%s: neox %d: want 0 or 1", []jen.Code{sym, id("neox")}},
			{jen.Op("!").Parens(id("theta").Op(">").Lit(0)), "%s: theta %g: want a positive base", []jen.Code{sym, id("theta")}},
			{jen.Op("!").Parens(sigGlueRoPEEmpty()).Op("&&").Parens(id("q").Op("==").Lit(0).Op("||").Id("k").Op("==").Lit(0).Op("||").Id("v").Op("==").Lit(0).Op("||").
				Id("qh").Op("==").Lit(0).Op("||").Id("kc").Op("==").Lit(0).Op("||").Id("vc").Op("==").Lit(0)),
				"%s: null device pointer (q %#x, k %#x, v %#x, qh %#x, kc %#x, vc %#x)", []jen.Code{sym, id("q"), id("k"), id("v"), id("qh"), id("kc"), id("vc")}},
		}
	},
	refused: func(good func(string) *jen.Statement, _, _ jen.Code) []map[string]jen.Code {
		return []map[string]jen.Code{
			{"seq": jen.Lit(-1)}, {"pos": jen.Lit(-1)}, {"cap": jen.Lit(-1)}, {"pos": good("cap")},
			{"headsKV": jen.Lit(3)}, {"headDim": jen.Lit(63)}, {"neox": jen.Lit(2)}, {"theta": jen.Lit(0)},
			{"q": jen.Lit(0)}, {"k": jen.Lit(0)}, {"v": jen.Lit(0)}, {"qh": jen.Lit(0)}, {"kc": jen.Lit(0)}, {"vc": jen.Lit(0)},
			// Past MaxInt64/4 elements: q's, the caches', and only the
			// pairs' count (q and the caches 2^60 elements each).
			{"heads": jen.Lit(1).Op("<<").Lit(56)},
			{"heads": jen.Lit(1).Op("<<").Lit(40), "headsKV": jen.Lit(1).Op("<<").Lit(40), "cap": jen.Lit(1).Op("<<").Lit(40)},
			{"seq": jen.Lit(1), "pos": jen.Lit(0), "cap": jen.Lit(1), "heads": jen.Lit(1).Op("<<").Lit(54), "headsKV": jen.Lit(1).Op("<<").Lit(54)},
		}
	},
	noop: map[string]func() jen.Code{
		"q": func() jen.Code { return jen.Lit(0) }, "k": func() jen.Code { return jen.Lit(0) }, "v": func() jen.Code { return jen.Lit(0) },
		"qh": func() jen.Code { return jen.Lit(0) }, "kc": func() jen.Code { return jen.Lit(0) }, "vc": func() jen.Code { return jen.Lit(0) },
		"seq": func() jen.Code { return jen.Lit(0) },
	},
}
