package gogen

import (
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/ir"
)

// suiteName is a suite's name in the registry and in forgebench:
// "dequant_f32/Q4_0".
func suiteName(l launcher) string { return l.kernel.Name + "/" + l.format.Name }

// suiteLaunchers are the launchers that are suites of their own: the
// format-specific families' (a shared family's run in scenario suites:
// attention's in the attention suite, the glue's in the model suite).
func suiteLaunchers(ls []launcher) []launcher {
	var out []launcher
	for _, l := range ls {
		if l.format != nil {
			out = append(out, l)
		}
	}
	return out
}

// suitesFile renders generated/suites/suites.go: the registration of every
// format × kernel suite.
func suitesFile(s *ir.Spec, ls []launcher) *jen.File {
	suitePkg := s.Module + "/runtime/suite"
	formatsPkg := s.Module + "/specs/formats"
	f := newFile(s, SuitesDir, "suites", allSources(s))
	f.PackageComment(`// Package suites registers forge's generated suites, one per format ×
// kernel, with runtime/suite; its tests and benchmarks (one file per format)
// run them on the backend $FORGE_BACKEND names (default cpu) through the
// harness in runtime/suite/suitetest. forgebench imports it for the registry.`)
	f.ImportName(s.Module+"/runtime/device/abi", "abi")
	f.ImportName(suitePkg, "suite")
	f.ImportName(formatsPkg, "formats")
	f.Add(enforceVersion(s))
	f.Line()
	f.Func().Id("init").Params().BlockFunc(func(g *jen.Group) {
		for _, l := range suiteLaunchers(ls) {
			g.Qual(suitePkg, "Register").Call(jen.Qual(suitePkg, "Suite").Values(fields(
				"Name", jen.Lit(suiteName(l)),
				"Family", jen.Lit(l.family.Name),
				"Kernel", jen.Lit(l.kernel.Name),
				"Output", jen.Lit(l.kernel.Output),
				"Format", jen.Qual(formatsPkg, l.format.GoVar),
			)...))
		}
		for _, w := range s.Workloads {
			k := ir.WorkloadKinds[w.Kind]
			g.Qual(suitePkg, "Register").Call(jen.Qual(suitePkg, "Suite").Values(fields(
				"Name", jen.Lit(w.Name),
				"Family", jen.Lit(w.Family),
				"Scenario", jen.Qual(s.Module+"/"+k.Pkg, k.Func).Call(jen.Qual(s.Module+"/"+WorkloadsSpecDir, w.GoVar)),
			)...))
		}
	})
	return f
}

// WorkloadsSpecDir is the package of the scenario suites' specs.
const WorkloadsSpecDir = "specs/workloads"

// workloadsTestFile renders generated/suites/workloads_test.go: a test and
// a benchmark per scenario suite.
func workloadsTestFile(s *ir.Spec) *jen.File {
	testPkg := s.Module + "/runtime/suite/suitetest"
	var src []string
	for _, w := range s.Workloads {
		src = append(src, w.File)
	}
	slices.Sort(src)
	file := newFile(s, SuitesDir, "suites", slices.Compact(src))
	file.ImportName(testPkg, "suitetest")
	for _, w := range s.Workloads {
		id := scenarioIdent(w.Name)
		file.Commentf("Test%s runs the %s suite's quick cases on $FORGE_BACKEND ($%s=1: all of them); the scenario checks its own figures.", id, w.Name, "FORGE_SCENARIO_FULL")
		file.Func().Id("Test" + id).Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
			jen.Qual(testPkg, "CheckScenario").Call(jen.Id("t"), jen.Lit(w.Name)),
		)
		file.Line()
		file.Commentf("Benchmark%s runs the %s suite on $FORGE_BACKEND: %s", id, w.Name, w.Doc)
		file.Func().Id("Benchmark" + id).Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
			jen.Qual(testPkg, "BenchScenario").Call(jen.Id("b"), jen.Lit(w.Name)),
		)
		file.Line()
	}
	return file
}

// scenarioIdent is a scenario suite's Go name, each path element in
// CamelCase: "memory/kv_cache" → "MemoryKVCache".
func scenarioIdent(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "/") {
		b.WriteString(camel(part))
	}
	return b.String()
}

// suitesTestFile renders generated/suites/suites_test.go, which checks the
// registration itself.
func suitesTestFile(s *ir.Spec, ls []launcher) *jen.File {
	suitePkg := s.Module + "/runtime/suite"
	f := newFile(s, SuitesDir, "suites", allSources(s))
	f.ImportName(suitePkg, "suite")
	f.Comment("TestRegistered checks that init registered every generated suite, in order.")
	f.Func().Id("TestRegistered").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("want").Op(":=").Index().String().ValuesFunc(func(g *jen.Group) {
			for _, l := range suiteLaunchers(ls) {
				g.Line().Lit(suiteName(l))
			}
			for _, w := range s.Workloads {
				g.Line().Lit(w.Name)
			}
			g.Line()
		}),
		jen.Id("all").Op(":=").Qual(suitePkg, "All").Call(),
		jen.If(jen.Len(jen.Id("all")).Op("!=").Len(jen.Id("want"))).Block(
			jen.Id("t").Dot("Fatalf").Call(jen.Lit("%d suites registered, want %d"), jen.Len(jen.Id("all")), jen.Len(jen.Id("want"))),
		),
		jen.For(jen.List(jen.Id("i"), jen.Id("s")).Op(":=").Range().Id("all")).Block(
			jen.If(jen.Id("s").Dot("IsScenario").Call()).Block(
				jen.If(jen.Id("s").Dot("Name").Op("!=").Id("want").Index(jen.Id("i")).Op("||").Id("s").Dot("Format").Op("!=").Nil()).Block(
					jen.Id("t").Dot("Errorf").Call(jen.Lit("suite %d is scenario %s, want %s"), jen.Id("i"), jen.Id("s").Dot("Name"), jen.Id("want").Index(jen.Id("i"))),
				),
				jen.Continue(),
			),
			jen.If(jen.Id("s").Dot("Name").Op("!=").Id("want").Index(jen.Id("i")).Op("||").Id("s").Dot("Kernel").Op("+").Lit("/").Op("+").Id("s").Dot("Format").Dot("Name").Op("!=").Id("s").Dot("Name")).Block(
				jen.Id("t").Dot("Errorf").Call(jen.Lit("suite %d is %+v, want %s"), jen.Id("i"), jen.Id("s"), jen.Id("want").Index(jen.Id("i"))),
			),
		),
	)
	f.Comment("BenchmarkCopy measures the device-to-device copy roofline on $FORGE_BACKEND")
	f.Comment("(the forge_copy kernel on a GPU): the bandwidth the dequant benchmarks' %copy compares with.")
	f.Func().Id("BenchmarkCopy").Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
		jen.Qual(s.Module+"/runtime/suite/suitetest", "BenchCopy").Call(jen.Id("b")),
	)
	return f
}

// formatTestFile renders generated/suites/<lower>_test.go: format f's test
// and benchmark of every kernel.
func formatTestFile(s *ir.Spec, f *ir.Format, ls []launcher) *jen.File {
	testPkg := s.Module + "/runtime/suite/suitetest"
	file := newFile(s, SuitesDir, "suites", formatSources(s, f))
	file.ImportName(testPkg, "suitetest")
	for _, l := range ls {
		if l.format != f {
			continue
		}
		file.Commentf("Test%s checks %s against the %s family's reference on $FORGE_BACKEND.", l.method, l.symbol, l.family.Name)
		file.Func().Id("Test" + l.method).Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
			jen.Qual(testPkg, "Check").Call(jen.Id("t"), jen.Lit(suiteName(l))),
		)
		file.Line()
		file.Commentf("Benchmark%s measures %s on $FORGE_BACKEND.", l.method, l.symbol)
		file.Func().Id("Benchmark" + l.method).Params(jen.Id("b").Op("*").Qual("testing", "B")).Block(
			jen.Qual(testPkg, "Bench").Call(jen.Id("b"), jen.Lit(suiteName(l))),
		)
		file.Line()
	}
	return file
}
