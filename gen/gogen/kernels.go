package gogen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/ir"
)

// cPreamble is the cgo preamble of generated/kernels: one static trampoline
// per kernel, calling a launcher through the function pointer that the
// runtime resolved. Go cannot call a C function pointer itself; the
// trampolines are plain C, so building them needs no GPU toolkit. Device
// pointers and streams cross as uintptr_t, so Go never holds them as
// pointers.
func cPreamble(s *ir.Spec) string {
	var b strings.Builder
	b.WriteString(`#include <stdint.h>

// int forge_abi_version(void)
typedef int (*forge_abi_version_fn)(void);
static int forge_call_abi_version(void* fn) { return ((forge_abi_version_fn)fn)(); }
`)
	for _, fam := range s.Families {
		sig := harness[fam.Name].sig
		for _, k := range fam.Kernels {
			ct := outputs[k.Output].cType
			var types, uparams, cargs []string
			for _, p := range sig.params {
				t := strings.ReplaceAll(p.cType, "OUT", ct)
				types = append(types, t)
				if p.ptr {
					uparams = append(uparams, "uintptr_t "+p.name)
					cargs = append(cargs, "("+t+")"+p.name)
				} else {
					uparams = append(uparams, t+" "+p.name)
					cargs = append(cargs, p.name)
				}
			}
			fmt.Fprintf(&b, `
// int forge_%[1]s_<format>(%[2]s, forge_stream_t stream)
typedef int (*forge_%[1]s_fn)(%[3]s, void*);
static int forge_call_%[1]s(void* fn, %[4]s, uintptr_t stream) {
	return ((forge_%[1]s_fn)fn)(%[5]s, (void*)stream);
}
`, k.Name, sig.cParams(ct), strings.Join(types, ", "), strings.Join(uparams, ", "), strings.Join(cargs, ", "))
		}
	}
	if s.Attention != nil {
		b.WriteString(trampoline("attention", "forge_attention_<dtype>_d<dim>", sigAttention, ""))
		b.WriteString(glueTrampolines())
	}
	return b.String()
}

// trampoline is the C typedef and static caller forge_call_<name> of a
// launcher signature (out: the C type OUT stands for).
func trampoline(name, what string, sig *signature, out string) string {
	var types, uparams, cargs []string
	for _, p := range sig.params {
		t := strings.ReplaceAll(p.cType, "OUT", out)
		types = append(types, t)
		if p.ptr {
			uparams = append(uparams, "uintptr_t "+p.name)
			cargs = append(cargs, "("+t+")"+p.name)
		} else {
			uparams = append(uparams, t+" "+p.name)
			cargs = append(cargs, p.name)
		}
	}
	return fmt.Sprintf(`
// int %[6]s(%[2]s, forge_stream_t stream)
typedef int (*forge_%[1]s_fn)(%[3]s, void*);
static int forge_call_%[1]s(void* fn, %[4]s, uintptr_t stream) {
	return ((forge_%[1]s_fn)fn)(%[5]s, (void*)stream);
}
`, name, sig.cParams(out), strings.Join(types, ", "), strings.Join(uparams, ", "), strings.Join(cargs, ", "), what)
}

// kernelsFile renders generated/kernels/kernels.go.
func kernelsFile(s *ir.Spec, ls []launcher, als []attnLauncher, gls []glueLauncher) *jen.File {
	abiPkg := s.Module + "/runtime/device/abi"
	f := newFile(s, KernelsDir, "kernels", allSources(s))
	f.PackageComment(`// Package kernels binds the launchers of a forge kernel library (built by
// forgegen build from generated/hip) to typed Go: Bind resolves every
// launcher through the runtime's resolver (dlsym on the loaded library) and
// checks the library's ABI version; each method validates its arguments,
// calls its launcher through a C trampoline and turns a non-zero return
// code into an *abi.LaunchError.
//
// The trampolines are kernels_cgo.go's. Without cgo (CGO_ENABLED=0) the
// package still builds, kernel table and argument checks included, but
// Bind refuses every library with abi.ErrNoCgo.`)
	f.ImportName(abiPkg, "abi")

	f.Add(enforceVersion(s))
	f.Line()

	// Indices into Library.fn.
	f.Comment("Indices of the launchers in kernelTable and Library.fn.")
	f.Const().DefsFunc(func(g *jen.Group) {
		for i, l := range ls {
			if i == 0 {
				g.Id(l.index).Op("=").Iota()
			} else {
				g.Id(l.index)
			}
		}
		for _, l := range als {
			g.Id(l.index)
		}
		for _, l := range gls {
			g.Id(l.index)
		}
		g.Id("numKernels")
	})
	f.Line()

	f.Comment("kernelTable describes every launcher, by family, kernel, then format; the")
	f.Comment("attention family's (no format), then the model glue's, last.")
	f.Var().Id("kernelTable").Op("=").Index(jen.Id("numKernels")).Qual(abiPkg, "KernelInfo").ValuesFunc(func(g *jen.Group) {
		for _, l := range ls {
			g.Line().Values(fields(
				"Symbol", jen.Lit(l.symbol),
				"Format", jen.Lit(l.format.Name),
				"Family", jen.Lit(l.family.Name),
				"Kernel", jen.Lit(l.kernel.Name),
				"Output", jen.Lit(l.kernel.Output),
				"BlockElems", jen.Lit(l.format.BlockElems),
				"BlockBytes", jen.Lit(l.format.BlockBytes),
			)...)
		}
		for _, l := range als {
			g.Line().Values(fields(
				"Symbol", jen.Lit(l.symbol),
				"Family", jen.Lit(s.Attention.Name),
				"Kernel", jen.Lit(l.v.Name()),
				"Output", jen.Lit(l.v.DType),
			)...)
		}
		for _, l := range gls {
			g.Line().Values(fields(
				"Symbol", jen.Lit(l.k.Symbol()),
				"Family", jen.Lit(ir.GlueFamily),
				"Kernel", jen.Lit(l.k.Name),
				"Output", jen.Lit(l.k.Output),
			)...)
		}
		g.Line()
	})
	f.Line()
	f.Comment("Kernels lists every launcher a kernel library exports besides")
	f.Comment("forge_abi_version, by family, kernel, then format. It is a copy: changing")
	f.Comment("it changes nothing that Bind resolves.")
	f.Var().Id("Kernels").Op("=").Append(jen.Index().Qual(abiPkg, "KernelInfo").Values(), jen.Id("kernelTable").Index(jen.Empty(), jen.Empty()).Op("..."))
	f.Line()

	f.Comment("maxBlocks[i] is the largest block count of launcher i whose input and")
	f.Comment("output sizes in bytes fit in an int64 (for matvec and matmul: W's")
	f.Comment("blocks, and one row's blocks with x's floats).")
	f.Var().Id("maxBlocks").Op("=").Index(jen.Id("numKernels")).Int64().ValuesFunc(func(g *jen.Group) {
		for _, l := range ls {
			per := harness[l.family.Name].sig.perBlock(l.format.BlockBytes, l.format.BlockElems, outputs[l.kernel.Output].size)
			g.Line().Id(l.index).Op(":").Op(strconv.FormatInt(math.MaxInt64/int64(per), 10))
		}
		g.Line()
	})
	f.Line()

	f.Comment("Library is a bound kernel library: the address of every launcher.")
	f.Type().Id("Library").Struct(jen.Id("fn").Index(jen.Id("numKernels")).Qual("unsafe", "Pointer"))
	f.Line()

	doc(f, `Bind resolves every launcher of a kernel library and checks that the
library's forge_abi_version is abi.ABIVersion. A library that lacks symbols
is refused with one error naming all of them.`)
	f.Func().Id("Bind").Params(jen.Id("resolve").Qual(abiPkg, "Resolver")).Params(jen.Op("*").Id("Library"), jen.Error()).Block(
		bindRefusesWithoutCgo(abiPkg),
		jen.If(jen.Id("resolve").Op("==").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("kernels: Bind: nil resolver"))),
		),
		jen.Var().Defs(
			jen.Id("missing").Index().String(),
			jen.Id("firstErr").Error(),
		),
		jen.Id("lookup").Op(":=").Func().Params(jen.Id("symbol").String()).Qual("unsafe", "Pointer").Block(
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Id("resolve").Call(jen.Id("symbol")),
			jen.If(jen.Err().Op("==").Nil().Op("&&").Id("p").Op("!=").Nil()).Block(jen.Return(jen.Id("p"))),
			jen.If(jen.Id("firstErr").Op("==").Nil()).Block(jen.Id("firstErr").Op("=").Err()),
			jen.Id("missing").Op("=").Append(jen.Id("missing"), jen.Id("symbol")),
			jen.Return(jen.Nil()),
		),
		jen.Id("l").Op(":=").Op("&").Id("Library").Values(),
		jen.If(jen.Id("version").Op(":=").Id("lookup").Call(jen.Qual(abiPkg, "ABIVersionSymbol")), jen.Id("version").Op("!=").Nil()).Block(
			jen.Comment("A library of another ABI version may lack symbols too; its version is the error."),
			jen.If(jen.Id("v").Op(":=").Id("callABIVersion").Call(jen.Id("version")), jen.Id("v").Op("!=").Qual(abiPkg, "ABIVersion")).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("kernels: the kernel library has ABI version %d, but this build of forge needs %d: rebuild it with forgegen build"), jen.Id("v"), jen.Qual(abiPkg, "ABIVersion"))),
			),
		),
		jen.For(jen.Id("i").Op(":=").Range().Id("l").Dot("fn")).Block(
			jen.Id("l").Dot("fn").Index(jen.Id("i")).Op("=").Id("lookup").Call(jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol")),
		),
		jen.If(jen.Len(jen.Id("missing")).Op(">").Lit(0)).Block(
			jen.Err().Op(":=").Qual("fmt", "Errorf").Call(
				jen.Lit("kernels: the kernel library lacks %d of its %d symbols: %s"),
				jen.Len(jen.Id("missing")), jen.Id("numKernels").Op("+").Lit(1),
				jen.Qual("strings", "Join").Call(jen.Id("missing"), jen.Lit(", ")),
			),
			jen.If(jen.Id("firstErr").Op("!=").Nil()).Block(
				jen.Err().Op("=").Qual("fmt", "Errorf").Call(jen.Lit("%w (first lookup error: %w)"), jen.Err(), jen.Id("firstErr")),
			),
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Return(jen.Id("l"), jen.Nil()),
	)
	f.Line()

	f.Comment("result turns launcher i's return code into an error.")
	f.Func().Id("result").Params(jen.Id("i").Int(), jen.Id("code").Int()).Error().Block(
		jen.If(jen.Id("code").Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Op("&").Qual(abiPkg, "LaunchError").Values(fields(
			"Symbol", jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol"),
			"Code", jen.Id("code"),
		)...)),
	)

	for _, fam := range s.Families {
		familyBindings(f, s, fam, ls)
	}
	if len(als) > 0 {
		attentionBindings(f, s, als)
	}
	if len(gls) > 0 {
		glueBindings(f, s, gls)
	}
	return f
}

// attentionBindings renders the attention family's Go side from
// sigAttention: AttentionFunc, the argument check, the caller through the
// one trampoline, one method per variant, and the lookup by input type and
// head dimension.
func attentionBindings(f *jen.File, s *ir.Spec, als []attnLauncher) {
	abiPkg := s.Module + "/runtime/device/abi"
	sig := sigAttention
	stream := jen.Id("stream").Qual(abiPkg, "Stream")
	f.Line()
	doc(f, "AttentionFunc is the signature of the attention family's launchers: "+sig.doc)
	f.Type().Id("AttentionFunc").Func().Params(append(sig.goParams(abiPkg), stream.Clone())...).Error()
	f.Line()
	doc(f, `attentionHeadDim is launcher i's head dimension.`)
	f.Var().Id("attentionHeadDim").Op("=").Map(jen.Int()).Int64().ValuesFunc(func(g *jen.Group) {
		for _, l := range als {
			g.Line().Id(l.index).Op(":").Lit(l.v.HeadDim)
		}
		g.Line()
	})
	f.Line()
	doc(f, `checkAttentionArgs refuses a call that attention launcher i must not
receive, before it crosses into C: what the launchers refuse.`)
	sym := jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol")
	f.Func().Id("checkAttentionArgs").Params(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...)...).Error().BlockFunc(func(g *jen.Group) {
		g.Id("d").Op(":=").Id("attentionHeadDim").Index(jen.Id("i"))
		g.Switch().BlockFunc(func(g *jen.Group) {
			for _, c := range sig.checks(sym.Clone(), jen.Id("d"), nil) {
				g.Case(c.cond).Block(errorf(c.msg, c.args...))
			}
		})
		g.Return(jen.Nil())
	})
	f.Line()
	f.Comment("attention calls attention launcher i; a call that does nothing is not made.")
	f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id("attention").Params(
		append(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...), stream.Clone())...,
	).Error().Block(
		jen.If(jen.Err().Op(":=").Id("checkAttentionArgs").Call(append([]jen.Code{jen.Id("i")}, sig.argIDs()...)...), jen.Err().Op("!=").Nil().Op("||").Add(sig.empty())).Block(
			jen.Return(jen.Err()),
		),
		jen.Return(jen.Id("result").Call(jen.Id("i"), callLauncher("attention", sig))),
	)
	for _, l := range als {
		f.Line()
		doc(f, fmt.Sprintf(`%s calls %s: flash attention over %s q, k, v and o of
head dimension %d (layout [batch, heads, seq, %d]), on stream. No batch,
heads or query rows is a no-op; what the launcher refuses is an error
before the call.`, l.method, l.symbol, l.v.DType, l.v.HeadDim, l.v.HeadDim))
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(l.method).Params(
			append(sig.goParams(abiPkg), stream.Clone())...,
		).Error().Block(
			jen.Return(jen.Id("l").Dot("attention").Call(append(append([]jen.Code{jen.Id(l.index)}, sig.argIDs()...), jen.Id("stream"))...)),
		)
	}
	f.Line()
	f.Comment(`Attention returns the attention launcher for input type dtype ("f16",`)
	f.Comment(`"f32") and head dimension headDim, false if there is none.`)
	f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id("Attention").Params(jen.Id("dtype").String(), jen.Id("headDim").Int()).Params(jen.Id("AttentionFunc"), jen.Bool()).Block(
		jen.Switch(jen.Qual("fmt", "Sprintf").Call(jen.Lit("%s/%d"), jen.Id("dtype"), jen.Id("headDim"))).BlockFunc(func(g *jen.Group) {
			for _, l := range als {
				g.Case(jen.Lit(fmt.Sprintf("%s/%d", l.v.DType, l.v.HeadDim))).Block(jen.Return(jen.Id("l").Dot(l.method), jen.True()))
			}
		}),
		jen.Return(jen.Nil(), jen.False()),
	)
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// doc adds a comment of several lines as // lines (jennifer would render a
// multi-line Comment as a /* */ block).
func doc(f *jen.File, text string) {
	for line := range strings.SplitSeq(text, "\n") {
		f.Comment(line)
	}
}

// fields is a keyed composite literal's elements in the given order
// (jen.Dict sorts its keys).
func fields(kv ...any) []jen.Code {
	var out []jen.Code
	for i := 0; i < len(kv); i += 2 {
		out = append(out, jen.Id(kv[i].(string)).Op(":").Add(kv[i+1].(jen.Code)))
	}
	return out
}

// familyBindings renders a family's Go side from its signature: the Func
// type, the argument check, one caller per kernel through its trampoline,
// one method per format, and the lookup by kernel and format.
func familyBindings(f *jen.File, s *ir.Spec, fam *ir.Family, ls []launcher) {
	abiPkg := s.Module + "/runtime/device/abi"
	sig := harness[fam.Name].sig
	famType := camel(fam.Name) + "Func"
	checkName := "check" + camel(fam.Name) + "Args"
	stream := jen.Id("stream").Qual(abiPkg, "Stream")
	f.Line()
	doc(f, fmt.Sprintf("%s is the signature of the %s family's launchers: %s", famType, fam.Name, sig.doc))
	f.Type().Id(famType).Func().Params(append(sig.goParams(abiPkg), stream.Clone())...).Error()
	f.Line()
	doc(f, fmt.Sprintf(`%s refuses a call that %s launcher i must not receive,
before it crosses into C.`, checkName, fam.Name))
	sym := func() jen.Code { return jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol") }
	f.Func().Id(checkName).Params(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...)...).Error().BlockFunc(func(g *jen.Group) {
		if sig.blockElems {
			g.Id("be").Op(":=").Int64().Call(jen.Id("kernelTable").Index(jen.Id("i")).Dot("BlockElems"))
		}
		g.Switch().BlockFunc(func(g *jen.Group) {
			for _, c := range sig.checks(sym(), jen.Id("be"), jen.Id("maxBlocks").Index(jen.Id("i"))) {
				g.Case(c.cond).Block(errorf(c.msg, c.args...))
			}
		})
		g.Return(jen.Nil())
	})
	for _, k := range fam.Kernels {
		f.Line()
		f.Commentf("%s calls %s launcher i of kernel %s; a call that does nothing is not made.", lowerFirst(camel(k.Name)), fam.Name, k.Name)
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(lowerFirst(camel(k.Name))).Params(
			append(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...), stream.Clone())...,
		).Error().Block(
			jen.If(jen.Err().Op(":=").Id(checkName).Call(append([]jen.Code{jen.Id("i")}, sig.argIDs()...)...), jen.Err().Op("!=").Nil().Op("||").Add(sig.empty())).Block(
				jen.Return(jen.Err()),
			),
			jen.Return(jen.Id("result").Call(jen.Id("i"), callLauncher(k.Name, sig))),
		)
	}
	for _, l := range ls {
		if l.family != fam {
			continue
		}
		f.Line()
		doc(f, sig.methodDoc(l))
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(l.method).Params(
			append(sig.goParams(abiPkg), stream.Clone())...,
		).Error().Block(
			jen.Return(jen.Id("l").Dot(lowerFirst(camel(l.kernel.Name))).Call(append(append([]jen.Code{jen.Id(l.index)}, sig.argIDs()...), jen.Id("stream"))...)),
		)
	}
	f.Line()
	f.Commentf("%s returns the launcher of kernel (%q) for format (%q), false if", camel(fam.Name), fam.Kernels[0].Name, s.Formats[0].Name)
	f.Comment("there is none.")
	f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(camel(fam.Name)).Params(jen.List(jen.Id("kernel"), jen.Id("format")).String()).Params(jen.Id(famType), jen.Bool()).Block(
		jen.Switch(jen.Id("kernel").Op("+").Lit("/").Op("+").Id("format")).BlockFunc(func(g *jen.Group) {
			for _, l := range ls {
				if l.family == fam {
					g.Case(jen.Lit(l.kernel.Name + "/" + l.format.Name)).Block(jen.Return(jen.Id("l").Dot(l.method), jen.True()))
				}
			}
		}),
		jen.Return(jen.Nil(), jen.False()),
	)
}
