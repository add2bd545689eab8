package gogen

import (
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/ir"
)

// kernelsTestFile renders generated/kernels/kernels_test.go: tests that run
// every generated wrapper, through its trampoline, against the fake kernel
// library of runtime/device/abi/abitest.
func kernelsTestFile(s *ir.Spec, ls []launcher) *jen.File {
	abiPkg := s.Module + "/runtime/device/abi"
	fakePkg := s.Module + "/runtime/device/abi/abitest"
	suitePkg := s.Module + "/runtime/suite"
	backendPkg := s.Module + "/runtime/backend"
	formatsPkg := s.Module + "/specs/formats"
	f := newFile(s, KernelsDir, "kernels", allSources(s))
	f.ImportName(abiPkg, "abi")
	f.ImportName(fakePkg, "abitest")
	f.ImportName(backendPkg, "backend")
	f.ImportName(suitePkg, "suite")
	f.ImportName(formatsPkg, "formats")
	// The suites' -backend and -lib flags, so that
	// `go test ./generated/... -args -backend=cuda -lib=...` parses here too.
	f.Anon(s.Module + "/runtime/suite/suiteflags")

	t := jen.Id("t")
	errf := func(args ...jen.Code) jen.Code { return t.Clone().Dot("Errorf").Call(args...) }
	contains := func(s jen.Code, sub jen.Code) *jen.Statement { return jen.Qual("strings", "Contains").Call(s, sub) }

	f.Comment("bind binds the generated wrappers to a fake kernel library, which")
	f.Comment("records each launcher's calls by the launcher's signature.")
	f.Func().Id("bind").Params(jen.Id("t").Op("*").Qual("testing", "T"), jen.Id("o").Qual(fakePkg, "Options")).Params(jen.Op("*").Qual(fakePkg, "Lib"), jen.Op("*").Id("Library")).Block(
		t.Clone().Dot("Helper").Call(),
		jen.Id("o").Dot("Kernels").Op("=").Id("Kernels"),
		jen.Id("fake").Op(":=").Qual(fakePkg, "Open").Call(jen.Id("o")),
		t.Clone().Dot("Cleanup").Call(jen.Id("fake").Dot("Close")),
		jen.List(jen.Id("l"), jen.Err()).Op(":=").Id("Bind").Call(jen.Id("fake").Dot("Resolve")),
		jen.If(jen.Err().Op("!=").Nil()).Block(t.Clone().Dot("Fatal").Call(jen.Err())),
		jen.Return(jen.Id("fake"), jen.Id("l")),
	)
	f.Line()

	f.Comment("bindErr is Bind's error for a fake library with options o.")
	f.Func().Id("bindErr").Params(jen.Id("o").Qual(fakePkg, "Options")).String().Block(
		jen.Id("o").Dot("Kernels").Op("=").Id("Kernels"),
		jen.Id("fake").Op(":=").Qual(fakePkg, "Open").Call(jen.Id("o")),
		jen.Defer().Id("fake").Dot("Close").Call(),
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("Bind").Call(jen.Id("fake").Dot("Resolve")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Err().Dot("Error").Call()),
		),
		jen.Return(jen.Lit("")),
	)
	f.Line()

	k := jen.Id("k")
	f.Func().Id("TestKernelTable").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.If(jen.Len(jen.Id("Kernels")).Op("!=").Id("numKernels")).Block(
			t.Clone().Dot("Fatalf").Call(jen.Lit("%d kernels listed, %d bound"), jen.Len(jen.Id("Kernels")), jen.Id("numKernels")),
		),
		jen.Id("seen").Op(":=").Map(jen.String()).Bool().Values(),
		jen.For(jen.List(jen.Id("_"), k).Op(":=").Range().Id("Kernels")).BlockFunc(func(g *jen.Group) {
			g.If(jen.Id("seen").Index(k.Clone().Dot("Symbol"))).Block(errf(jen.Lit("%s listed twice"), k.Clone().Dot("Symbol")))
			g.Id("seen").Index(k.Clone().Dot("Symbol")).Op("=").True()
			g.If(jen.Id("want").Op(":=").Qual(abiPkg, "Symbol").Call(k.Clone().Dot("Kernel"), k.Clone().Dot("Format")), k.Clone().Dot("Symbol").Op("!=").Id("want")).Block(
				errf(jen.Lit("%s: want symbol %s"), k.Clone().Dot("Symbol"), jen.Id("want")),
			)
			g.If(k.Clone().Dot("Signature").Op("==").Lit("").Op("||").Qual(backendPkg, "OutputSize").Call(k.Clone().Dot("Output")).Op("==").Lit(0)).Block(
				errf(jen.Lit("%s: signature %q, output %q"), k.Clone().Dot("Symbol"), k.Clone().Dot("Signature"), k.Clone().Dot("Output")),
			)
			g.Comment("A shared family's launcher has no format.")
			g.If(k.Clone().Dot("Format").Op("==").Lit("")).Block(jen.Continue())
			g.List(jen.Id("f"), jen.Id("ok")).Op(":=").Qual(formatsPkg, "ByName").Call(k.Clone().Dot("Format"))
			g.If(jen.Op("!").Id("ok").Op("||").Id("f").Dot("BlockElems").Op("!=").Add(k.Clone().Dot("BlockElems")).Op("||").Id("f").Dot("BlockBytes").Op("!=").Add(k.Clone().Dot("BlockBytes"))).Block(
				errf(jen.Lit("%s: format %s is not the registered spec's (%d elements in %d bytes)"), k.Clone().Dot("Symbol"), k.Clone().Dot("Format"), k.Clone().Dot("BlockElems"), k.Clone().Dot("BlockBytes")),
			)
		}),
	)
	f.Line()

	first := jen.Id("Kernels").Index(jen.Lit(0)).Dot("Symbol")
	last := jen.Id("Kernels").Index(jen.Id("numKernels").Op("-").Lit(1)).Dot("Symbol")
	f.Func().Id("TestBindRefuses").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Id("Bind").Call(jen.Nil()), jen.Err().Op("==").Nil()).Block(
			errf(jen.Lit("Bind(nil) succeeded")),
		),
		jen.Id("msg").Op(":=").Id("bindErr").Call(jen.Qual(fakePkg, "Options").Values(jen.Dict{
			jen.Id("Missing"): jen.Index().String().Values(first.Clone(), last.Clone()),
		})),
		jen.If(jen.Op("!").Add(contains(jen.Id("msg"), jen.Qual("fmt", "Sprintf").Call(jen.Lit("lacks 2 of its %d symbols"), jen.Id("numKernels").Op("+").Lit(1)))).Op("||").
			Op("!").Add(contains(jen.Id("msg"), first.Clone())).Op("||").Op("!").Add(contains(jen.Id("msg"), last.Clone()))).Block(
			errf(jen.Lit("two missing symbols: %q"), jen.Id("msg")),
		),
		jen.Id("msg").Op("=").Id("bindErr").Call(jen.Qual(fakePkg, "Options").Values(jen.Dict{
			jen.Id("Missing"): jen.Index().String().Values(jen.Qual(abiPkg, "ABIVersionSymbol")),
		})),
		jen.If(jen.Op("!").Add(contains(jen.Id("msg"), jen.Qual(abiPkg, "ABIVersionSymbol")))).Block(
			errf(jen.Lit("missing %s: %q"), jen.Qual(abiPkg, "ABIVersionSymbol"), jen.Id("msg")),
		),
		jen.Id("msg").Op("=").Id("bindErr").Call(jen.Qual(fakePkg, "Options").Values(jen.Dict{
			jen.Id("ABIVersion"): jen.Qual(abiPkg, "ABIVersion").Op("+").Lit(1),
		})),
		jen.If(jen.Op("!").Add(contains(jen.Id("msg"), jen.Qual("fmt", "Sprintf").Call(jen.Lit("ABI version %d, but this build of forge needs %d"), jen.Qual(abiPkg, "ABIVersion").Op("+").Lit(1), jen.Qual(abiPkg, "ABIVersion"))))).Block(
			errf(jen.Lit("ABI version mismatch: %q"), jen.Id("msg")),
		),
	)

	for _, sig := range usedSignatures(ls) {
		launchersTest(f, s, sig)
	}
	if slices.ContainsFunc(ls, func(l launcher) bool { return l.sig == sigBlocks }) {
		lookup := camel(sigBlocks.name)
		f.Line()
		f.Commentf("Test%sHostKernels runs the launchers that the fake library implements on", lookup)
		f.Comment("host memory (dequant launchers) and compares their output with the format")
		f.Comment("spec bit for bit: the data path through the trampolines, end to end.")
		nBlocks := jen.Id("nBlocks")
		f.Func().Id("Test"+lookup+"HostKernels").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
			jen.List(jen.Id("_"), jen.Id("l")).Op(":=").Id("bind").Call(t.Clone(), jen.Qual(fakePkg, "Options").Values()),
			jen.For(jen.List(jen.Id("_"), jen.Id("sym")).Op(":=").Range().Qual(fakePkg, "HostKernels").Call()).Block(
				jen.Id("i").Op(":=").Qual("slices", "IndexFunc").Call(jen.Id("Kernels"), jen.Func().Params(k.Clone().Qual(abiPkg, "KernelInfo")).Bool().Block(
					jen.Return(k.Clone().Dot("Symbol").Op("==").Id("sym")),
				)),
				jen.If(jen.Id("i").Op("<").Lit(0)).Block(
					errf(jen.Lit("the fake library implements %s, which no generated launcher calls"), jen.Id("sym")),
					jen.Continue(),
				),
				k.Clone().Op(":=").Id("Kernels").Index(jen.Id("i")),
				jen.List(jen.Id("f"), jen.Id("_")).Op(":=").Qual(formatsPkg, "ByName").Call(k.Clone().Dot("Format")),
				jen.List(jen.Id("fn"), jen.Id("_")).Op(":=").Id("l").Dot(lookup).Call(k.Clone().Dot("Kernel"), k.Clone().Dot("Format")),
				nBlocks.Clone().Op(":=").Lit(1003),
				jen.List(jen.Id("quantized"), jen.Err()).Op(":=").Qual(suitePkg, "QuantizedBlocks").Call(jen.Id("f"), nBlocks.Clone(), jen.Qual(suitePkg, "Seed").Call(jen.Id("f").Dot("Name"))),
				jen.If(jen.Err().Op("!=").Nil()).Block(t.Clone().Dot("Fatal").Call(jen.Err())),
				jen.For(jen.List(jen.Id("_"), jen.Id("src")).Op(":=").Range().Index().Index().Byte().Values(
					jen.Id("quantized"), jen.Qual(suitePkg, "RandomBlocks").Call(jen.Id("f"), nBlocks.Clone(), jen.Lit(1)),
				)).Block(
					jen.Id("elems").Op(":=").Add(nBlocks.Clone()).Op("*").Id("f").Dot("BlockElems"),
					jen.List(jen.Id("in"), jen.Id("out")).Op(":=").List(
						jen.Qual(fakePkg, "Alloc").Call(jen.Len(jen.Id("src"))),
						jen.Qual(fakePkg, "Alloc").Call(jen.Id("elems").Op("*").Qual(backendPkg, "OutputSize").Call(k.Clone().Dot("Output"))),
					),
					jen.Qual(fakePkg, "Upload").Call(jen.Id("in"), jen.Id("src")),
					jen.Var().Id("count").Int(),
					jen.Var().Id("first").Index().Qual(suitePkg, "Mismatch"),
					jen.If(jen.Err().Op(":=").Id("fn").Call(jen.Id("in"), jen.Id("out"), jen.Int64().Call(nBlocks.Clone()), jen.Lit(0)), jen.Err().Op("!=").Nil()).Block(
						errf(jen.Lit("%s: %v"), jen.Id("sym"), jen.Err()),
					).Else().If(k.Clone().Dot("Output").Op("==").Qual(backendPkg, "OutputF32")).Block(
						jen.Id("got").Op(":=").Make(jen.Index().Float32(), jen.Id("elems")),
						jen.Qual(fakePkg, "Download").Call(jen.Id("got"), jen.Id("out")),
						jen.List(jen.Id("count"), jen.Id("first")).Op("=").Qual(suitePkg, "CompareF32").Call(jen.Id("f"), jen.Id("got"), jen.Qual(suitePkg, "WantF32").Call(jen.Id("f"), jen.Id("src")), jen.Lit(5)),
					).Else().Block(
						jen.Id("got").Op(":=").Make(jen.Index().Uint16(), jen.Id("elems")),
						jen.Qual(fakePkg, "Download").Call(jen.Id("got"), jen.Id("out")),
						jen.List(jen.Id("count"), jen.Id("first")).Op("=").Qual(suitePkg, "CompareF16").Call(jen.Id("f"), jen.Id("got"), jen.Qual(suitePkg, "WantF16").Call(jen.Id("f"), jen.Id("src")), jen.Lit(5)),
					),
					jen.If(jen.Id("count").Op(">").Lit(0)).Block(
						errf(jen.Lit("%s: %d elements differ from the spec; first: %v"), jen.Id("sym"), jen.Id("count"), jen.Id("first")),
					),
					jen.Qual(fakePkg, "Free").Call(jen.Id("in")),
					jen.Qual(fakePkg, "Free").Call(jen.Id("out")),
				),
			),
		)
	}
	return f
}

// launchersTest renders Test<Signature>Launchers from a signature: every
// wrapper of that signature, found through the signature's lookup (by
// kernel and format, or by kernel), reaches its own recording launcher
// with its own arguments; refused arguments and no-op calls never reach C;
// return codes become errors.
func launchersTest(f *jen.File, s *ir.Spec, sig *signature) {
	abiPkg := s.Module + "/runtime/device/abi"
	fakePkg := s.Module + "/runtime/device/abi/abitest"
	name := sig.name
	lookup := camel(name)
	k := jen.Id("k")
	lookupArgs := []jen.Code{k.Clone().Dot("Kernel")}
	unknownArgs := []jen.Code{jen.Lit("no_such_kernel")}
	if sig.perFormat {
		lookupArgs = append(lookupArgs, k.Clone().Dot("Format"))
		unknownArgs = append(unknownArgs, jen.Lit("NO_SUCH_FORMAT"))
	}
	t := jen.Id("t")
	errf := func(args ...jen.Code) jen.Code { return t.Clone().Dot("Errorf").Call(args...) }
	contains := func(s jen.Code, sub jen.Code) *jen.Statement { return jen.Qual("strings", "Contains").Call(s, sub) }
	field := map[string]string{}
	for _, p := range sig.params {
		field[p.name] = p.call
	}
	good := func(name string) *jen.Statement { return jen.Id("want").Dot(field[name]) }
	call := func(args []jen.Code, stream jen.Code) *jen.Statement {
		return jen.Id("fn").Call(append(args, stream)...)
	}
	goodArgs := func() []jen.Code {
		var a []jen.Code
		for _, p := range sig.params {
			a = append(a, good(p.name))
		}
		return a
	}
	// argSet is one refused argument set: the good arguments with overrides.
	argSet := func(over map[string]jen.Code) jen.Code {
		var a []jen.Code
		for _, p := range sig.params {
			if v, ok := over[p.name]; ok {
				a = append(a, v)
			} else {
				a = append(a, good(p.name))
			}
		}
		return jen.Values(a...)
	}
	var argFields []jen.Code
	badArgs := []jen.Code{}
	for _, p := range sig.params {
		typ := jen.Int64()
		if p.ptr {
			typ = jen.Qual(abiPkg, "DevicePtr")
		} else if p.goType != "" {
			typ = jen.Id(p.goType)
		}
		argFields = append(argFields, jen.Id(p.name).Add(typ))
		badArgs = append(badArgs, jen.Id("bad").Dot(p.name))
	}
	var noopArgs []jen.Code
	for _, p := range sig.params {
		if v, ok := sig.noop[p.name]; ok {
			noopArgs = append(noopArgs, v())
		} else {
			noopArgs = append(noopArgs, good(p.name))
		}
	}
	be := jen.Int64().Call(k.Clone().Dot("BlockElems"))
	wantFields := []any{"Symbol", k.Clone().Dot("Symbol")}
	for _, p := range sig.params {
		wantFields = append(wantFields, p.call, p.test())
	}
	wantFields = append(wantFields, "Stream", jen.Qual(abiPkg, "Stream").Call(jen.Op("0x70").Op("+").Id("i")))
	var max jen.Code
	if sig.perBlock != nil {
		max = jen.Id("maxBlocks").Index(jen.Id("i"))
	}
	refused := sig.refused(good, be, max)
	var refusedSets []jen.Code
	for _, r := range refused {
		refusedSets = append(refusedSets, argSet(r))
	}

	f.Line()
	f.Commentf("Test%sLaunchers calls every wrapper of the %s signature, found through Library.%s,", lookup, name, lookup)
	f.Comment("and checks that its own symbol received its arguments, that refused")
	f.Comment("arguments and calls that do nothing never reach C, and that return codes")
	f.Comment("become errors.")
	f.Func().Id("Test"+lookup+"Launchers").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("fake"), jen.Id("l")).Op(":=").Id("bind").Call(t.Clone(), jen.Qual(fakePkg, "Options").Values()),
		jen.Id("host").Op(":=").Qual(fakePkg, "HostKernels").Call(),
		jen.Id("n").Op(":=").Lit(0),
		jen.For(jen.List(jen.Id("i"), k).Op(":=").Range().Id("Kernels")).BlockFunc(func(g *jen.Group) {
			g.If(k.Clone().Dot("Signature").Op("!=").Lit(name).Op("||").Qual("slices", "Contains").Call(jen.Id("host"), k.Clone().Dot("Symbol"))).Block(jen.Continue())
			g.Id("n").Op("++")
			g.List(jen.Id("fn"), jen.Id("ok")).Op(":=").Id("l").Dot(lookup).Call(lookupArgs...)
			g.If(jen.Op("!").Id("ok")).Block(
				errf(jen.Lit(lookup+" found no launcher for %s"), k.Clone().Dot("Symbol")),
				jen.Continue(),
			)
			g.Id("want").Op(":=").Qual(fakePkg, "Call").Values(fields(wantFields...)...)
			g.Id("calls").Op(":=").Id("fake").Dot("Calls").Call()
			g.If(jen.Err().Op(":=").Add(call(goodArgs(), jen.Id("want").Dot("Stream"))), jen.Err().Op("!=").Nil()).Block(
				errf(jen.Lit("%s: %v"), k.Clone().Dot("Symbol"), jen.Err()),
			)
			g.If(jen.List(jen.Id("got"), jen.Id("_")).Op(":=").Id("fake").Dot("LastCall").Call(), jen.Id("got").Op("!=").Id("want").Op("||").Id("fake").Dot("Calls").Call().Op("!=").Id("calls").Op("+").Lit(1)).Block(
				errf(jen.Lit("%s: the fake library received %+v, want %+v"), k.Clone().Dot("Symbol"), jen.Id("got"), jen.Id("want")),
			)
			g.Comment("Refused before the call.")
			g.Type().Id("args").Struct(argFields...)
			g.Id("refused").Op(":=").Index().Id("args").Values(refusedSets...)
			if sig.partial != nil {
				g.If(k.Clone().Dot("BlockElems").Op(">").Lit(1)).Block(
					jen.Id("refused").Op("=").Append(jen.Id("refused"), jen.Id("args").Add(argSet(sig.partial(good)))),
				)
			}
			g.For(jen.List(jen.Id("_"), jen.Id("bad")).Op(":=").Range().Id("refused")).Block(
				jen.If(jen.Err().Op(":=").Add(call(badArgs, jen.Id("want").Dot("Stream"))),
					jen.Err().Op("==").Nil().Op("||").Op("!").Add(contains(jen.Err().Dot("Error").Call(), k.Clone().Dot("Symbol")))).Block(
					errf(jen.Lit("%s(%+v): error %v, want one naming the symbol"), k.Clone().Dot("Symbol"), jen.Id("bad"), jen.Err()),
				),
			)
			g.If(jen.Err().Op(":=").Add(call(noopArgs, jen.Lit(0))), jen.Err().Op("!=").Nil()).Block(
				errf(jen.Lit("%s: a call that does nothing: %v"), k.Clone().Dot("Symbol"), jen.Err()),
			)
			g.If(jen.Id("fake").Dot("Calls").Call().Op("!=").Id("calls").Op("+").Lit(1)).Block(
				errf(jen.Lit("%s: refused or empty calls reached the library"), k.Clone().Dot("Symbol")),
			)
			g.Comment("A non-zero return code is an *abi.LaunchError naming the symbol.")
			g.Id("fake").Dot("SetCode").Call(jen.Lit(700))
			g.Var().Id("le").Op("*").Qual(abiPkg, "LaunchError")
			g.If(jen.Err().Op(":=").Add(call(goodArgs(), jen.Id("want").Dot("Stream"))),
				jen.Op("!").Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("le")).Op("||").Op("*").Id("le").Op("!=").Parens(jen.Qual(abiPkg, "LaunchError").Values(fields(
					"Symbol", k.Clone().Dot("Symbol"),
					"Code", jen.Lit(700),
				)...))).Block(
				errf(jen.Lit("%s: return code 700 gave %v"), k.Clone().Dot("Symbol"), jen.Err()),
			)
			g.Id("fake").Dot("SetCode").Call(jen.Lit(0))
		}),
		jen.If(jen.Id("n").Op("==").Lit(0)).Block(errf(jen.Lit("no "+name+" launcher was exercised"))),
		jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("l").Dot(lookup).Call(unknownArgs...), jen.Id("ok")).Block(
			errf(jen.Lit(lookup+" found a launcher it should not have")),
		),
	)
}
