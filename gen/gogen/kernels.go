package gogen

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/ir"
)

// cPreamble is the cgo preamble of generated/kernels: one static trampoline
// per launcher shape (per signature, and per output type where a
// parameter's type is the output's), calling a launcher through the
// function pointer that the runtime resolved. Go cannot call a C function
// pointer itself; the trampolines are plain C, so building them needs no
// GPU toolkit. Device pointers and streams cross as uintptr_t, so Go never
// holds them as pointers.
func cPreamble(ls []launcher) string {
	var b strings.Builder
	b.WriteString(`#include <stdint.h>

// int forge_abi_version(void)
typedef int (*forge_abi_version_fn)(void);
static int forge_call_abi_version(void* fn) { return ((forge_abi_version_fn)fn)(); }
`)
	seen := map[string]bool{}
	for _, l := range ls {
		name := l.trampoline()
		if seen[name] {
			continue
		}
		seen[name] = true
		what := "forge_<kernel>"
		if l.sig.perFormat {
			what += "_<format>"
		}
		b.WriteString(trampoline(name, what, l.sig, outputs[l.kernel.Output].cType))
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
func kernelsFile(s *ir.Spec, ls []launcher) *jen.File {
	abiPkg := s.Module + "/runtime/device/abi"
	f := newFile(s, KernelsDir, "kernels", allSources(s))
	f.PackageComment(`// Package kernels binds the launchers of a forge kernel library (built by
// forgegen build from generated/hip) to typed Go: Bind resolves every
// launcher through the runtime's resolver (dlsym on the loaded library) and
// checks the library's ABI version; each method validates its arguments,
// calls its launcher through a C trampoline and turns a non-zero return
// code into an *abi.LaunchError. The launchers are grouped by their C
// signature: one Func type and one lookup per signature.`)
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
		g.Id("numKernels")
	})
	f.Line()

	f.Comment("kernelTable describes every launcher, by family, kernel, then format.")
	f.Var().Id("kernelTable").Op("=").Index(jen.Id("numKernels")).Qual(abiPkg, "KernelInfo").ValuesFunc(func(g *jen.Group) {
		for _, l := range ls {
			kv := []any{
				"Symbol", jen.Lit(l.symbol),
			}
			if l.format != nil {
				kv = append(kv, "Format", jen.Lit(l.format.Name))
			}
			kv = append(kv,
				"Family", jen.Lit(l.family.Name),
				"Kernel", jen.Lit(l.kernel.Name),
				"Output", jen.Lit(l.kernel.Output),
				"Signature", jen.Lit(l.sig.name),
			)
			if l.format != nil {
				kv = append(kv, "BlockElems", jen.Lit(l.format.BlockElems), "BlockBytes", jen.Lit(l.format.BlockBytes))
			}
			if l.kernel.HeadDim != 0 {
				kv = append(kv, "HeadDim", jen.Lit(l.kernel.HeadDim))
			}
			g.Line().Values(fields(kv...)...)
		}
		g.Line()
	})
	f.Line()
	f.Comment("Kernels lists every launcher a kernel library exports besides")
	f.Comment("forge_abi_version, by family, kernel, then format. It is a copy: changing")
	f.Comment("it changes nothing that Bind resolves.")
	f.Var().Id("Kernels").Op("=").Append(jen.Index().Qual(abiPkg, "KernelInfo").Values(), jen.Id("kernelTable").Index(jen.Empty(), jen.Empty()).Op("..."))
	f.Line()

	f.Comment("maxBlocks[i] is the largest block count of format launcher i whose input")
	f.Comment("and output sizes in bytes fit in an int64 (for matvec and matmul: W's")
	f.Comment("blocks, and one row's blocks with x's floats).")
	f.Var().Id("maxBlocks").Op("=").Index(jen.Id("numKernels")).Int64().ValuesFunc(func(g *jen.Group) {
		for _, l := range ls {
			if l.sig.perBlock == nil {
				continue
			}
			per := l.sig.perBlock(l.format.BlockBytes, l.format.BlockElems, outputs[l.kernel.Output].size)
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

	helpers := map[string]bool{}
	for _, sig := range usedSignatures(ls) {
		for _, h := range sig.helpers {
			if !helpers[h] {
				helpers[h] = true
				f.Line()
				helperFuncs[h](f)
			}
		}
		signatureBindings(f, s, sig, ls)
	}
	for _, sig := range unusedSignatures(s, ls) {
		emptyBindings(f, s, sig)
	}
	return f
}

// unusedSignatures are the signatures that the spec's kernels name but no
// launcher has (an IntForm kernel when no format has the integer form), in
// family and kernel order.
func unusedSignatures(s *ir.Spec, ls []launcher) []*signature {
	used := usedSignatures(ls)
	var out []*signature
	for _, fam := range s.Families {
		for _, k := range fam.Kernels {
			if sig, ok := signatures[fam.SignatureOf(k)]; ok && !slices.Contains(used, sig) && !slices.Contains(out, sig) {
				out = append(out, sig)
			}
		}
	}
	return out
}

// emptyBindings renders a signature's Func type and a lookup that finds
// nothing, for a signature with no launchers: the runtime's callers of
// the lookup compile whichever formats have the kernels.
func emptyBindings(f *jen.File, s *ir.Spec, sig *signature) {
	abiPkg := s.Module + "/runtime/device/abi"
	typ := sig.funcType()
	f.Line()
	doc(f, fmt.Sprintf("%s is the signature of the %s launchers: %s\nThis library has none: no format has what their kernels need.", typ, sig.name, sig.doc))
	f.Type().Id(typ).Func().Params(append(sig.goParams(abiPkg), jen.Id("stream").Qual(abiPkg, "Stream"))...).Error()
	f.Line()
	lookup := camel(sig.name)
	params := []jen.Code{jen.Id("kernel").String()}
	if sig.perFormat {
		params = []jen.Code{jen.List(jen.Id("kernel"), jen.Id("format")).String()}
	}
	f.Commentf("%s returns the %s launcher of a kernel: false, there are none.", lookup, sig.name)
	f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(lookup).Params(params...).Params(jen.Id(typ), jen.Bool()).Block(
		jen.Return(jen.Nil(), jen.False()),
	)
}

// helperFuncs render the functions signatures' checks call, by name.
var helperFuncs = map[string]func(f *jen.File){"glueElems": glueElemsFunc}

// usedSignatures are the signatures of ls, in the order they first occur.
func usedSignatures(ls []launcher) []*signature {
	var out []*signature
	for _, l := range ls {
		if !slices.Contains(out, l.sig) {
			out = append(out, l.sig)
		}
	}
	return out
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

// signatureBindings renders the Go side of the launchers of one signature:
// the Func type, the argument check, one caller per trampoline, one method
// per launcher, and the lookup (by kernel and format for a format
// signature, by kernel otherwise).
func signatureBindings(f *jen.File, s *ir.Spec, sig *signature, ls []launcher) {
	abiPkg := s.Module + "/runtime/device/abi"
	typ := sig.funcType()
	checkName := "check" + camel(sig.name) + "Args"
	stream := jen.Id("stream").Qual(abiPkg, "Stream")
	var mine []launcher
	var fams []string
	for _, l := range ls {
		if l.sig == sig {
			mine = append(mine, l)
			if !slices.Contains(fams, l.family.Name) {
				fams = append(fams, l.family.Name)
			}
		}
	}
	f.Line()
	doc(f, fmt.Sprintf("%s is the signature of the %s launchers (%s): %s", typ, sig.name, strings.Join(fams, ", "), sig.doc))
	f.Type().Id(typ).Func().Params(append(sig.goParams(abiPkg), stream.Clone())...).Error()
	f.Line()
	doc(f, fmt.Sprintf(`%s refuses a call that %s launcher i must not receive,
before it crosses into C.`, checkName, sig.name))
	sym := func() jen.Code { return jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol") }
	f.Func().Id(checkName).Params(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...)...).Error().BlockFunc(func(g *jen.Group) {
		var be, max jen.Code
		if sig.dim != "" {
			g.Id("be").Op(":=").Int64().Call(jen.Id("kernelTable").Index(jen.Id("i")).Dot(sig.dim))
			be = jen.Id("be")
		}
		if sig.perBlock != nil {
			max = jen.Id("maxBlocks").Index(jen.Id("i"))
		}
		g.Switch().BlockFunc(func(g *jen.Group) {
			for _, c := range sig.checks(sym(), be, max) {
				g.Case(c.cond).Block(errorf(c.msg, c.args...))
			}
		})
		g.Return(jen.Nil())
	})
	callers := map[string]bool{}
	for _, l := range mine {
		tr := l.trampoline()
		if callers[tr] {
			continue
		}
		callers[tr] = true
		f.Line()
		f.Commentf("%s calls %s launcher i through forge_call_%s; a call that does nothing is not made.", l.caller(), sig.name, tr)
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(l.caller()).Params(
			append(append([]jen.Code{jen.Id("i").Int()}, sig.goParams(abiPkg)...), stream.Clone())...,
		).Error().Block(
			jen.If(jen.Err().Op(":=").Id(checkName).Call(append([]jen.Code{jen.Id("i")}, sig.argIDs()...)...), jen.Err().Op("!=").Nil().Op("||").Add(sig.empty())).Block(
				jen.Return(jen.Err()),
			),
			jen.Return(jen.Id("result").Call(jen.Id("i"), callLauncher(tr, sig))),
		)
	}
	for _, l := range mine {
		f.Line()
		doc(f, sig.methodDoc(l))
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(l.method).Params(
			append(sig.goParams(abiPkg), stream.Clone())...,
		).Error().Block(
			jen.Return(jen.Id("l").Dot(l.caller()).Call(append(append([]jen.Code{jen.Id(l.index)}, sig.argIDs()...), jen.Id("stream"))...)),
		)
	}
	f.Line()
	lookup := camel(sig.name)
	if sig.perFormat {
		f.Commentf("%s returns the %s launcher of kernel (%q) for format (%q), false if", lookup, sig.name, mine[0].kernel.Name, mine[0].format.Name)
		f.Comment("there is none.")
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(lookup).Params(jen.List(jen.Id("kernel"), jen.Id("format")).String()).Params(jen.Id(typ), jen.Bool()).Block(
			jen.Switch(jen.Id("kernel").Op("+").Lit("/").Op("+").Id("format")).BlockFunc(func(g *jen.Group) {
				for _, l := range mine {
					g.Case(jen.Lit(l.kernel.Name + "/" + l.format.Name)).Block(jen.Return(jen.Id("l").Dot(l.method), jen.True()))
				}
			}),
			jen.Return(jen.Nil(), jen.False()),
		)
		return
	}
	f.Commentf("%s returns the %s launcher of kernel (%q), false if there is none.", lookup, sig.name, mine[0].kernel.Name)
	f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(lookup).Params(jen.Id("kernel").String()).Params(jen.Id(typ), jen.Bool()).Block(
		jen.Switch(jen.Id("kernel")).BlockFunc(func(g *jen.Group) {
			for _, l := range mine {
				g.Case(jen.Lit(l.kernel.Name)).Block(jen.Return(jen.Id("l").Dot(l.method), jen.True()))
			}
		}),
		jen.Return(jen.Nil(), jen.False()),
	)
}
