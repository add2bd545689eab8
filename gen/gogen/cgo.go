package gogen

import (
	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/ir"
)

// generated/kernels builds with and without cgo. kernels.go, shared by
// both builds, holds everything but the calls into C: each wrapper calls a
// Go function call<Name> per trampoline. kernels_cgo.go (build tag cgo)
// holds the cgo preamble and those functions; kernels_nocgo.go (!cgo)
// holds stand-ins for them, and its cgoEnabled = false makes Bind refuse
// every library with abi.ErrNoCgo, so no Library exists whose launchers
// they would have to call.

// cCall is one trampoline of the cgo preamble (cPreamble): C's
// forge_call_<name>, Go's call<Name>.
type cCall struct {
	name string // "blocks_f32", "matvec", "glue_norm"
	sig  *signature
}

// cCalls lists the trampolines of ls, in the order they first occur.
func cCalls(ls []launcher) []cCall {
	var out []cCall
	seen := map[string]bool{}
	for _, l := range ls {
		if tr := l.trampoline(); !seen[tr] {
			seen[tr] = true
			out = append(out, cCall{tr, l.sig})
		}
	}
	return out
}

// goCaller is the Go function that calls trampoline name.
func goCaller(name string) string { return "call" + camel(name) }

// callLauncher is a wrapper's call of launcher i (l.fn[i]) through
// trampoline name, with sig's arguments and the stream: the launcher's
// return code.
func callLauncher(name string, sig *signature) *jen.Statement {
	args := append([]jen.Code{jen.Id("l").Dot("fn").Index(jen.Id("i"))}, sig.argIDs()...)
	return jen.Id(goCaller(name)).Call(append(args, jen.Id("stream"))...)
}

// callerParams are call<Name>'s parameters: the launcher's address, then
// the wrapper's.
func callerParams(sig *signature, abiPkg string) []jen.Code {
	ps := append([]jen.Code{jen.Id("fn").Qual("unsafe", "Pointer")}, sig.goParams(abiPkg)...)
	return append(ps, jen.Id("stream").Qual(abiPkg, "Stream"))
}

// buildIf gives f a build constraint ("cgo", "!cgo"): a //go:build line
// after the header, before the package clause.
func buildIf(constraint string, f *jen.File) *jen.File {
	f.HeaderComment("//go:build " + constraint)
	return f
}

// kernelsCgoFile renders generated/kernels/kernels_cgo.go: the cgo
// preamble and the Go side of each trampoline.
func kernelsCgoFile(s *ir.Spec, ls []launcher) *jen.File {
	abiPkg := s.Module + "/runtime/device/abi"
	f := buildIf("cgo", newFile(s, KernelsDir, "kernels", allSources(s)))
	f.CgoPreamble(cPreamble(ls))
	f.ImportName(abiPkg, "abi")
	f.Comment("cgoEnabled is true: Bind can call a library's forge_abi_version and the")
	f.Comment("wrappers its launchers.")
	f.Const().Id("cgoEnabled").Op("=").True()
	f.Line()
	f.Comment("callABIVersion calls a library's forge_abi_version at fn.")
	f.Func().Id("callABIVersion").Params(jen.Id("fn").Qual("unsafe", "Pointer")).Int().Block(
		jen.Return(jen.Int().Call(jen.Qual("C", "forge_call_abi_version").Call(jen.Id("fn")))),
	)
	for _, c := range cCalls(ls) {
		args := []jen.Code{jen.Id("fn")}
		for _, p := range c.sig.params {
			args = append(args, p.cArg())
		}
		args = append(args, jen.Qual("C", "uintptr_t").Call(jen.Id("stream")))
		f.Line()
		f.Commentf("%s calls the launcher at fn through forge_call_%s.", goCaller(c.name), c.name)
		f.Func().Id(goCaller(c.name)).Params(callerParams(c.sig, abiPkg)...).Int().Block(
			jen.Return(jen.Int().Call(jen.Qual("C", "forge_call_"+c.name).Call(args...))),
		)
	}
	return f
}

// kernelsNoCgoFile renders generated/kernels/kernels_nocgo.go: what
// kernels.go calls, for a build without cgo.
func kernelsNoCgoFile(s *ir.Spec, ls []launcher) *jen.File {
	abiPkg := s.Module + "/runtime/device/abi"
	f := buildIf("!cgo", newFile(s, KernelsDir, "kernels", allSources(s)))
	f.ImportName(abiPkg, "abi")
	f.Comment("cgoEnabled is false: Bind refuses every library (abi.ErrNoCgo), so no")
	f.Comment("Library exists whose launchers the functions below would call. Each")
	f.Comment("stands in for its namesake in kernels_cgo.go.")
	f.Const().Id("cgoEnabled").Op("=").False()
	f.Line()
	f.Func().Id("callABIVersion").Params(jen.Qual("unsafe", "Pointer")).Int().Block(jen.Panic(jen.Qual(abiPkg, "ErrNoCgo")))
	for _, c := range cCalls(ls) {
		f.Line()
		f.Func().Id(goCaller(c.name)).Params(callerParams(c.sig, abiPkg)...).Int().Block(jen.Panic(jen.Qual(abiPkg, "ErrNoCgo")))
	}
	return f
}

// kernelsNoCgoTestFile renders generated/kernels/kernels_nocgo_test.go:
// without cgo, Bind refuses before it resolves anything.
func kernelsNoCgoTestFile(s *ir.Spec) *jen.File {
	abiPkg := s.Module + "/runtime/device/abi"
	f := buildIf("!cgo", newFile(s, KernelsDir, "kernels", allSources(s)))
	f.ImportName(abiPkg, "abi")
	t := jen.Id("t")
	f.Func().Id("TestBindWithoutCgo").Params(t.Clone().Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("l"), jen.Err()).Op(":=").Id("Bind").Call(
			jen.Func().Params(jen.Id("symbol").String()).Params(jen.Qual("unsafe", "Pointer"), jen.Error()).Block(
				t.Clone().Dot("Errorf").Call(jen.Lit("Bind resolved %s in a build without cgo"), jen.Id("symbol")),
				jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("not resolved"))),
			),
		),
		jen.If(jen.Id("l").Op("!=").Nil().Op("||").Op("!").Qual("errors", "Is").Call(jen.Err(), jen.Qual(abiPkg, "ErrNoCgo"))).Block(
			t.Clone().Dot("Fatalf").Call(jen.Lit("Bind = %v, %v; want abi.ErrNoCgo"), jen.Id("l"), jen.Err()),
		),
		jen.If(jen.Op("!").Qual("strings", "Contains").Call(jen.Err().Dot("Error").Call(), jen.Lit("CGO_ENABLED=1"))).Block(
			t.Clone().Dot("Errorf").Call(jen.Lit("Bind's error %q does not say how to build with cgo"), jen.Err()),
		),
	)
	return f
}

// bindRefusesWithoutCgo is Bind's first statement: the refusal that
// kernels_nocgo.go's cgoEnabled turns on.
func bindRefusesWithoutCgo(abiPkg string) jen.Code {
	return jen.If(jen.Op("!").Id("cgoEnabled")).Block(
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("kernels: Bind: %w"), jen.Qual(abiPkg, "ErrNoCgo"))),
	)
}
