package gogen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/ir"
)

// The model glue (model.GlueKernels, templates/hip/glue.hip.tmpl): four
// launcher shapes, each a signature descriptor as the families' are, so
// that the bindings, argument checks and launcher tests follow from them.

func i64(n int64) func() jen.Code { return func() jen.Code { return jen.Int64().Call(jen.Lit(n)) } }

func i64Plus(n int) func() jen.Code {
	return func() jen.Code { return jen.Int64().Call(jen.Lit(n).Op("+").Id("i")) }
}

// glueElemsCall is glueElems(a, b, c): the element count, -1 when negative
// or past MaxInt64/4 (kernels.go defines it).
func glueElemsCall(a, b, c jen.Code) *jen.Statement { return jen.Id("glueElems").Call(a, b, c) }

// sigGlueNorm: int f(const float* x, const float* w, float* y, int64_t rows, int64_t dim, float eps, forge_stream_t).
var sigGlueNorm = &signature{
	name: "glue_norm",
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
	name: "glue_rope",
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
	name: "glue_binary",
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
	name: "glue_layout",
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

// glueSigs maps each glue launcher to its signature, and each signature to
// the Go name of its Func type and caller.
var glueSigs = map[string]*signature{
	"glue_rmsnorm_f32":  sigGlueNorm,
	"glue_rope_f32":     sigGlueRoPE,
	"glue_silu_mul_f32": sigGlueBinary,
	"glue_add_f32":      sigGlueBinary,
	"glue_heads_f16":    sigGlueLayout,
	"glue_tokens_f32":   sigGlueLayout,
}

// glueSigOrder is the order the signatures' types and callers are rendered in.
var glueSigOrder = []*signature{sigGlueNorm, sigGlueRoPE, sigGlueBinary, sigGlueLayout}

// glueLauncher is one glue launcher with its Go names.
type glueLauncher struct {
	k      ir.GlueKernel
	sig    *signature
	method string // GlueRMSNormF32: the lookup
	index  string // fnGlueRMSNormF32
}

// glueLaunchers lists the glue launchers: rendered with the attention
// family, as hipgen renders glue.hip.
func glueLaunchers(s *ir.Spec) ([]glueLauncher, error) {
	if s.Attention == nil {
		return nil, nil
	}
	var out []glueLauncher
	for _, k := range ir.GlueKernels {
		sig, ok := glueSigs[k.Name]
		if !ok {
			return nil, fmt.Errorf("gogen: glue kernel %s has no signature (gen/gogen/glue.go)", k.Name)
		}
		m := camel(k.Name)
		out = append(out, glueLauncher{k: k, sig: sig, method: m, index: "fn" + m})
	}
	return out, nil
}

// glueTrampolines are the cgo preamble's callers of the glue signatures.
func glueTrampolines() string {
	var b strings.Builder
	for _, sig := range glueSigOrder {
		b.WriteString(trampoline(sig.name, "forge_"+sig.name+"_*", sig, ""))
	}
	return b.String()
}

// glueBindings renders the glue's Go side: per signature its Func type,
// argument check and caller; per launcher a lookup returning its Func.
func glueBindings(f *jen.File, s *ir.Spec, gls []glueLauncher) {
	abiPkg := s.Module + "/runtime/device/abi"
	stream := jen.Id("stream").Qual(abiPkg, "Stream")
	f.Line()
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
	for _, sig := range glueSigOrder {
		typ := camel(sig.name) + "Func"
		checkName := "check" + camel(sig.name) + "Args"
		f.Line()
		doc(f, fmt.Sprintf("%s is the signature of the glue launchers of %s shape: %s", typ, strings.TrimPrefix(sig.name, "glue_"), sig.doc))
		f.Type().Id(typ).Func().Params(append(sig.goParams(abiPkg), stream.Clone())...).Error()
		f.Line()
		doc(f, fmt.Sprintf("%s refuses a call that glue launcher i must not receive, before\nit crosses into C: what the launchers refuse.", checkName))
		sym := jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol")
		f.Func().Id(checkName).Params(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...)...).Error().BlockFunc(func(g *jen.Group) {
			g.Switch().BlockFunc(func(g *jen.Group) {
				for _, c := range sig.checks(sym.Clone(), nil, nil) {
					g.Case(c.cond).Block(errorf(c.msg, c.args...))
				}
			})
			g.Return(jen.Nil())
		})
		f.Line()
		caller := lowerFirst(camel(sig.name))
		f.Commentf("%s calls glue launcher i; a call that does nothing is not made.", caller)
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(caller).Params(
			append(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...), stream.Clone())...,
		).Error().Block(
			jen.If(jen.Err().Op(":=").Id(checkName).Call(append([]jen.Code{jen.Id("i")}, sig.argIDs()...)...), jen.Err().Op("!=").Nil().Op("||").Add(sig.empty())).Block(
				jen.Return(jen.Err()),
			),
			jen.Return(jen.Id("result").Call(jen.Id("i"), callLauncher(sig.name, sig))),
		)
	}
	for _, gl := range gls {
		typ := camel(gl.sig.name) + "Func"
		f.Line()
		doc(f, fmt.Sprintf(`%s returns the launcher %s (%s) as a %s,
and true: every library built with the attention family has the glue.`, gl.method, gl.k.Symbol(), gl.k.Doc, typ))
		var params []jen.Code
		params = append(params, sig0(gl.sig, abiPkg)...)
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(gl.method).Params().Params(jen.Id(typ), jen.Bool()).Block(
			jen.Return(jen.Func().Params(append(params, stream.Clone())...).Error().Block(
				jen.Return(jen.Id("l").Dot(lowerFirst(camel(gl.sig.name))).Call(append(append([]jen.Code{jen.Id(gl.index)}, gl.sig.argIDs()...), jen.Id("stream"))...)),
			), jen.True()),
		)
	}
}

// sig0 is goParams (a fresh copy: jen statements are not reused).
func sig0(sig *signature, abiPkg string) []jen.Code { return sig.goParams(abiPkg) }
