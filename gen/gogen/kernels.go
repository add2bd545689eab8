package gogen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/model"
)

// cPreamble is the cgo preamble of generated/kernels: one static trampoline
// per kernel, calling a launcher through the function pointer that the
// runtime resolved. Go cannot call a C function pointer itself; the
// trampolines are plain C, so building them needs no GPU toolkit. Device
// pointers and streams cross as uintptr_t, so Go never holds them as
// pointers.
func cPreamble(s *model.Spec) string {
	var b strings.Builder
	b.WriteString(`#include <stdint.h>

// int forge_abi_version(void)
typedef int (*forge_abi_version_fn)(void);
static int forge_call_abi_version(void* fn) { return ((forge_abi_version_fn)fn)(); }
`)
	for _, fam := range s.Families {
		for _, k := range fam.Kernels {
			ct := outputs[k.Output].cType
			if harness[fam.Name].sig == sigMatVec {
				fmt.Fprintf(&b, `
// int forge_%[1]s_<format>(const void* w, const float* x, %[2]s* y, int64_t rows, int64_t cols, forge_stream_t stream)
typedef int (*forge_%[1]s_fn)(const void*, const float*, %[2]s*, int64_t, int64_t, void*);
static int forge_call_%[1]s(void* fn, uintptr_t w, uintptr_t x, uintptr_t y, int64_t rows, int64_t cols, uintptr_t stream) {
	return ((forge_%[1]s_fn)fn)((const void*)w, (const float*)x, (%[2]s*)y, rows, cols, (void*)stream);
}
`, k.Name, ct)
				continue
			}
			fmt.Fprintf(&b, `
// int forge_%[1]s_<format>(const void* src, %[2]s* dst, int64_t n_blocks, forge_stream_t stream)
typedef int (*forge_%[1]s_fn)(const void*, %[2]s*, int64_t, void*);
static int forge_call_%[1]s(void* fn, uintptr_t src, uintptr_t dst, int64_t n_blocks, uintptr_t stream) {
	return ((forge_%[1]s_fn)fn)((const void*)src, (%[2]s*)dst, n_blocks, (void*)stream);
}
`, k.Name, ct)
		}
	}
	return b.String()
}

// kernelsFile renders generated/kernels/kernels.go.
func kernelsFile(s *model.Spec, ls []launcher) *jen.File {
	abiPkg := s.Module + "/runtime/abi"
	f := newFile(s, KernelsDir, "kernels", allSources(s))
	f.PackageComment(`// Package kernels binds the launchers of a forge kernel library (built by
// forgegen build from generated/hip) to typed Go: Bind resolves every
// launcher through the runtime's resolver (dlsym on the loaded library) and
// checks the library's ABI version; each method validates its arguments,
// calls its launcher through a C trampoline and turns a non-zero return
// code into an *abi.LaunchError.`)
	f.CgoPreamble(cPreamble(s))
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
		g.Line()
	})
	f.Line()
	f.Comment("Kernels lists every launcher a kernel library exports besides")
	f.Comment("forge_abi_version, by family, kernel, then format. It is a copy: changing")
	f.Comment("it changes nothing that Bind resolves.")
	f.Var().Id("Kernels").Op("=").Append(jen.Index().Qual(abiPkg, "KernelInfo").Values(), jen.Id("kernelTable").Index(jen.Empty(), jen.Empty()).Op("..."))
	f.Line()

	f.Comment("maxBlocks[i] is the largest block count of launcher i whose input and")
	f.Comment("output sizes in bytes fit in an int64 (for matvec: W's blocks, and one")
	f.Comment("row's blocks with x's floats).")
	f.Var().Id("maxBlocks").Op("=").Index(jen.Id("numKernels")).Int64().ValuesFunc(func(g *jen.Group) {
		for _, l := range ls {
			per := max(l.format.BlockBytes, l.format.BlockElems*outputs[l.kernel.Output].size)
			if harness[l.family.Name].sig == sigMatVec {
				per = max(l.format.BlockBytes, l.format.BlockElems*4) // W's blocks and x's floats
			}
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
			jen.If(jen.Id("v").Op(":=").Int().Call(jen.Qual("C", "forge_call_abi_version").Call(jen.Id("version"))), jen.Id("v").Op("!=").Qual(abiPkg, "ABIVersion")).Block(
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

	doc(f, `checkArgs refuses a call that launcher i must not receive, before it
crosses into C.`)
	f.Func().Id("checkArgs").Params(jen.Id("i").Int(), jen.List(jen.Id("src"), jen.Id("dst")).Qual(abiPkg, "DevicePtr"), jen.Id("nBlocks").Int64()).Error().Block(
		jen.Switch().Block(
			jen.Case(jen.Id("nBlocks").Op("<").Lit(0)).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: negative block count %d"), jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol"), jen.Id("nBlocks"))),
			),
			jen.Case(jen.Id("nBlocks").Op(">").Id("maxBlocks").Index(jen.Id("i"))).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: %d blocks overflow an int64 byte count"), jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol"), jen.Id("nBlocks"))),
			),
			jen.Case(jen.Id("nBlocks").Op(">").Lit(0).Op("&&").Parens(jen.Id("src").Op("==").Lit(0).Op("||").Id("dst").Op("==").Lit(0))).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: null device pointer (src %#x, dst %#x) for %d blocks"), jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol"), jen.Id("src"), jen.Id("dst"), jen.Id("nBlocks"))),
			),
		),
		jen.Return(jen.Nil()),
	)
	f.Line()

	f.Comment("result turns launcher i's return code into an error.")
	f.Func().Id("result").Params(jen.Id("i").Int(), jen.Id("code").Qual("C", "int")).Error().Block(
		jen.If(jen.Id("code").Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Op("&").Qual(abiPkg, "LaunchError").Values(fields(
			"Symbol", jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol"),
			"Code", jen.Int().Call(jen.Id("code")),
		)...)),
	)

	for _, fam := range s.Families {
		if harness[fam.Name].sig == sigMatVec {
			matVecFamily(f, s, fam, ls)
			continue
		}
		famType := camel(fam.Name) + "Func"
		f.Line()
		f.Commentf("%s is the signature of the %s family's launchers: decode nBlocks", famType, fam.Name)
		f.Comment("blocks at src into dst on stream.")
		f.Type().Id(famType).Func().Params(jen.List(jen.Id("src"), jen.Id("dst")).Qual(abiPkg, "DevicePtr"), jen.Id("nBlocks").Int64(), jen.Id("stream").Qual(abiPkg, "Stream")).Error()

		// One unexported caller per kernel, through its trampoline.
		for _, k := range fam.Kernels {
			f.Line()
			f.Commentf("%s calls launcher i of kernel %s; zero blocks is a no-op.", lowerFirst(camel(k.Name)), k.Name)
			f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(lowerFirst(camel(k.Name))).Params(
				jen.Id("i").Int(), jen.List(jen.Id("src"), jen.Id("dst")).Qual(abiPkg, "DevicePtr"), jen.Id("nBlocks").Int64(), jen.Id("stream").Qual(abiPkg, "Stream"),
			).Error().Block(
				jen.If(jen.Err().Op(":=").Id("checkArgs").Call(jen.Id("i"), jen.Id("src"), jen.Id("dst"), jen.Id("nBlocks")), jen.Err().Op("!=").Nil().Op("||").Id("nBlocks").Op("==").Lit(0)).Block(
					jen.Return(jen.Err()),
				),
				jen.Return(jen.Id("result").Call(jen.Id("i"), jen.Qual("C", "forge_call_"+k.Name).Call(
					jen.Id("l").Dot("fn").Index(jen.Id("i")),
					jen.Qual("C", "uintptr_t").Call(jen.Id("src")),
					jen.Qual("C", "uintptr_t").Call(jen.Id("dst")),
					jen.Qual("C", "int64_t").Call(jen.Id("nBlocks")),
					jen.Qual("C", "uintptr_t").Call(jen.Id("stream")),
				))),
			)
		}

		for _, l := range ls {
			if l.family != fam {
				continue
			}
			o := outputs[l.kernel.Output]
			f.Line()
			doc(f, fmt.Sprintf(`%s calls %s, which decodes nBlocks %s blocks
(%d bytes, %d %s each) at src into %s at dst, on stream. Zero
blocks is a no-op; a negative or overflowing count, or a null pointer, is
an error before the call.`, l.method, l.symbol, l.format.Name, l.format.BlockBytes, l.format.BlockElems, plural(l.format.BlockElems, "element"), o.doc))
			f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(l.method).Params(
				jen.List(jen.Id("src"), jen.Id("dst")).Qual(abiPkg, "DevicePtr"), jen.Id("nBlocks").Int64(), jen.Id("stream").Qual(abiPkg, "Stream"),
			).Error().Block(
				jen.Return(jen.Id("l").Dot(lowerFirst(camel(l.kernel.Name))).Call(jen.Id(l.index), jen.Id("src"), jen.Id("dst"), jen.Id("nBlocks"), jen.Id("stream"))),
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
	return f
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

// matVecFamily renders the matvec family's Go side: y = W·x launchers taking
// (w, x, y, rows, cols, stream).
func matVecFamily(f *jen.File, s *model.Spec, fam *model.Family, ls []launcher) {
	abiPkg := s.Module + "/runtime/abi"
	famType := camel(fam.Name) + "Func"
	ptrs := jen.List(jen.Id("w"), jen.Id("x"), jen.Id("y")).Qual(abiPkg, "DevicePtr")
	counts := jen.List(jen.Id("rows"), jen.Id("cols")).Int64()
	sym := jen.Id("kernelTable").Index(jen.Id("i")).Dot("Symbol")
	f.Line()
	f.Commentf("%s is the signature of the %s family's launchers: y = W·x, W", famType, fam.Name)
	f.Comment("rows rows of cols elements (cols/BlockElems whole blocks each, rows")
	f.Comment("contiguous), x cols float32 and y rows float32, all in device memory.")
	f.Type().Id(famType).Func().Params(ptrs.Clone(), counts.Clone(), jen.Id("stream").Qual(abiPkg, "Stream")).Error()
	f.Line()
	doc(f, `checkMatVecArgs refuses a call that matvec launcher i must not receive,
before it crosses into C: negative counts, cols not a whole number of
blocks, sizes whose byte counts overflow an int64, and (rows > 0) null
pointers.`)
	f.Func().Id("checkMatVecArgs").Params(jen.Id("i").Int(), ptrs.Clone(), counts.Clone()).Error().Block(
		jen.Id("be").Op(":=").Int64().Call(jen.Id("kernelTable").Index(jen.Id("i")).Dot("BlockElems")),
		jen.Switch().Block(
			jen.Case(jen.Id("rows").Op("<").Lit(0).Op("||").Id("cols").Op("<").Lit(0)).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: negative size %d×%d"), sym.Clone(), jen.Id("rows"), jen.Id("cols"))),
			),
			jen.Case(jen.Id("cols").Op("%").Id("be").Op("!=").Lit(0)).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: %d columns is not a whole number of %d-element blocks"), sym.Clone(), jen.Id("cols"), jen.Id("be"))),
			),
			jen.Case(jen.Id("cols").Op("/").Id("be").Op(">").Id("maxBlocks").Index(jen.Id("i")).Op("||").Id("rows").Op(">").Qual("math", "MaxInt64").Op("/").Lit(4).Op("||").
				Id("cols").Op(">").Lit(0).Op("&&").Id("rows").Op(">").Id("maxBlocks").Index(jen.Id("i")).Op("/").Parens(jen.Id("cols").Op("/").Id("be"))).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: a %d×%d matrix overflows an int64 byte count"), sym.Clone(), jen.Id("rows"), jen.Id("cols"))),
			),
			jen.Case(jen.Id("rows").Op(">").Lit(0).Op("&&").Parens(jen.Id("w").Op("==").Lit(0).Op("||").Id("x").Op("==").Lit(0).Op("||").Id("y").Op("==").Lit(0))).Block(
				jen.Return(jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: null device pointer (w %#x, x %#x, y %#x) for %d rows"), sym.Clone(), jen.Id("w"), jen.Id("x"), jen.Id("y"), jen.Id("rows"))),
			),
		),
		jen.Return(jen.Nil()),
	)
	for _, k := range fam.Kernels {
		f.Line()
		f.Commentf("%s calls matvec launcher i of kernel %s; zero rows is a no-op.", lowerFirst(camel(k.Name)), k.Name)
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(lowerFirst(camel(k.Name))).Params(
			jen.Id("i").Int(), ptrs.Clone(), counts.Clone(), jen.Id("stream").Qual(abiPkg, "Stream"),
		).Error().Block(
			jen.If(jen.Err().Op(":=").Id("checkMatVecArgs").Call(jen.Id("i"), jen.Id("w"), jen.Id("x"), jen.Id("y"), jen.Id("rows"), jen.Id("cols")), jen.Err().Op("!=").Nil().Op("||").Id("rows").Op("==").Lit(0)).Block(
				jen.Return(jen.Err()),
			),
			jen.Return(jen.Id("result").Call(jen.Id("i"), jen.Qual("C", "forge_call_"+k.Name).Call(
				jen.Id("l").Dot("fn").Index(jen.Id("i")),
				jen.Qual("C", "uintptr_t").Call(jen.Id("w")),
				jen.Qual("C", "uintptr_t").Call(jen.Id("x")),
				jen.Qual("C", "uintptr_t").Call(jen.Id("y")),
				jen.Qual("C", "int64_t").Call(jen.Id("rows")),
				jen.Qual("C", "int64_t").Call(jen.Id("cols")),
				jen.Qual("C", "uintptr_t").Call(jen.Id("stream")),
			))),
		)
	}
	for _, l := range ls {
		if l.family != fam {
			continue
		}
		f.Line()
		doc(f, fmt.Sprintf(`%s calls %s: y = W·x, W rows rows of cols %s elements
(cols/%d blocks of %d bytes each), x cols float32 and y rows float32, on
stream. Zero rows is a no-op; negative counts, cols not a multiple of %d,
overflowing sizes and null pointers are errors before the call.`, l.method, l.symbol, l.format.Name, l.format.BlockElems, l.format.BlockBytes, l.format.BlockElems))
		f.Func().Params(jen.Id("l").Op("*").Id("Library")).Id(l.method).Params(
			ptrs.Clone(), counts.Clone(), jen.Id("stream").Qual(abiPkg, "Stream"),
		).Error().Block(
			jen.Return(jen.Id("l").Dot(lowerFirst(camel(l.kernel.Name))).Call(jen.Id(l.index), jen.Id("w"), jen.Id("x"), jen.Id("y"), jen.Id("rows"), jen.Id("cols"), jen.Id("stream"))),
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
