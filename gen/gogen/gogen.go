// Package gogen renders forge's generated Go with jennifer, from the loaded
// specs (gen/ir):
//
//   - generated/kernels: the cgo wrappers of the kernel libraries' launchers
//     (one typed Go method per launcher, calling the C function pointer the
//     runtime resolved through a static C trampoline), grouped by the
//     launchers' C signature (signature.go: the Func type, argument checks
//     and lookup of each), Bind, the kernel table, and tests that run every
//     wrapper against the fake library of runtime/device/abi/abitest; the
//     trampolines' Go callers sit in a file of their own, beside stand-ins
//     for a build without cgo (cgo.go);
//   - generated/suites: the suite registry's init (one suite per format ×
//     kernel of each format-specific family) and, per format, the tests
//     and benchmarks that call the harness in runtime/suite/suitetest,
//     which runs them through their family's run-time descriptor.
//
// Every file starts with model.GeneratedHeader and a line naming its
// sources, and pins the generation version (runtime/device/abi.GenVersion) at
// compile time. Rendering is pure and deterministic: it never touches the
// disk, and the same Spec always gives the same bytes.
package gogen

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/specs/families"
)

// Output directories, relative to the module root.
const (
	KernelsDir = "generated/kernels"
	SuitesDir  = "generated/suites"
)

// genVersion is stamped into generated code; see abi.GenVersion.
const genVersion = abi.GenVersion

// outputs maps a dequant kernel's Output to its C element type and size.
var outputs = map[string]struct {
	cType string
	size  int
	doc   string
}{
	"f32": {"float", 4, "float32"},
	"f16": {"uint16_t", 2, "IEEE binary16 (uint16 bits)"},
}

// launcher is one launcher: a kernel of a family, for one format unless
// the family is shared, with its signature and Go names.
type launcher struct {
	family *ir.Family
	kernel families.Kernel
	format *ir.Format // nil for a shared family's
	sig    *signature
	symbol string // forge_dequant_f32_q4_0
	method string // DequantF32Q4_0
	index  string // fnDequantF32Q4_0
}

// trampoline is the name of the launcher's C trampoline, forge_call_<it>:
// its signature's, and its output type's where a parameter has it.
func (l launcher) trampoline() string {
	if l.sig.outTyped() {
		return l.sig.name + "_" + l.kernel.Output
	}
	return l.sig.name
}

// caller is the Go method that calls the launcher's trampoline.
func (l launcher) caller() string { return lowerFirst(camel(l.trampoline())) }

// funcType is the Go type of the signature's launchers: "BlocksFunc".
func (s *signature) funcType() string { return camel(s.name) + "Func" }

// Files renders every generated Go file of s. All problems are reported
// together; on error no files are returned.
func Files(s *ir.Spec) ([]ir.File, error) {
	ls, err := launchers(s)
	if err != nil {
		return nil, err
	}
	var files []ir.File
	var errs []error
	add := func(p string, f *jen.File) {
		var buf bytes.Buffer
		if err := f.Render(&buf); err != nil {
			errs = append(errs, fmt.Errorf("gogen: %s: %w", p, err))
			return
		}
		data, err := groupImports(buf.Bytes())
		if err != nil {
			errs = append(errs, fmt.Errorf("gogen: %s: %w", p, err))
			return
		}
		files = append(files, ir.File{Path: p, Data: data})
	}
	add(KernelsDir+"/kernels.go", kernelsFile(s, ls))
	add(KernelsDir+"/kernels_cgo.go", kernelsCgoFile(s, ls))
	add(KernelsDir+"/kernels_nocgo.go", kernelsNoCgoFile(s, ls))
	add(KernelsDir+"/kernels_test.go", buildIf("cgo", kernelsTestFile(s, ls)))
	add(KernelsDir+"/kernels_nocgo_test.go", kernelsNoCgoTestFile(s))
	add(SuitesDir+"/suites.go", suitesFile(s, ls))
	add(SuitesDir+"/suites_test.go", suitesTestFile(s, ls))
	for _, f := range s.Formats {
		add(SuitesDir+"/"+f.Lower()+"_test.go", formatTestFile(s, f, ls))
	}
	if len(s.Workloads) > 0 {
		add(SuitesDir+"/workloads_test.go", workloadsTestFile(s))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return files, nil
}

// groupImports puts the standard library's imports in a group of their
// own before the others, as goimports does; jennifer sorts them into one.
func groupImports(src []byte) ([]byte, error) {
	const open, closing = "\nimport (\n", "\n)\n"
	i := bytes.Index(src, []byte(open))
	if i < 0 {
		return src, nil
	}
	body := i + len(open)
	j := bytes.Index(src[body:], []byte(closing))
	if j < 0 {
		return nil, errors.New("unterminated import block")
	}
	var std, other []string
	for line := range strings.SplitSeq(string(src[body:body+j]), "\n") {
		path := strings.Trim(line[strings.LastIndexByte(line, ' ')+1:], "\t\"")
		if strings.Contains(strings.Split(path, "/")[0], ".") {
			other = append(other, line)
		} else {
			std = append(std, line)
		}
	}
	block := strings.Join(std, "\n")
	if len(std) > 0 && len(other) > 0 {
		block += "\n\n"
	}
	block += strings.Join(other, "\n")
	out := slices.Concat(src[:body], []byte(block), src[body+j:])
	return format.Source(out)
}

// launchers validates what gogen relies on and lists every launcher: by
// family (by name), kernel, then format (in the spec's order).
func launchers(s *ir.Spec) ([]launcher, error) {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("gogen: "+format, a...)) }
	if s.Module == "" {
		bad("the spec has no module path")
	}
	if len(s.Formats) == 0 {
		bad("the spec has no formats")
	}
	seen := map[string]string{} // Go identifier or file name → what claimed it
	claim := func(key, what string) {
		if prev, dup := seen[key]; dup {
			bad("%s and %s both map to %q", prev, what, key)
		}
		seen[key] = what
	}
	for _, f := range s.Formats {
		where := fmt.Sprintf("%s: format %q", f.Pos, f.Name)
		if !isIdent(f.Name) {
			bad("%s: the name is not a Go identifier, which its wrappers and tests are named by", where)
		}
		if !isIdent(f.GoVar) {
			bad("%s: no Go variable (GoVar %q)", where, f.GoVar)
		}
		if f.BlockElems <= 0 || f.BlockBytes <= 0 {
			bad("%s: %d elements in %d bytes per block", where, f.BlockElems, f.BlockBytes)
		}
		if f.File == "" {
			bad("%s: no spec file", where)
		}
		claim("file "+f.Lower()+"_test.go", "format "+f.Name)
	}
	// Every signature the spec names gets a lookup, a method of Library as
	// the launchers' own are: claimed first, so that a launcher whose method
	// would take a lookup's name (a kernel named as its signature,
	// glue_rope_kv) yields it, and any other clash is reported.
	lookups := map[string]string{} // lookup → its signature
	for _, fam := range s.Families {
		for _, k := range fam.Kernels {
			if sig, ok := signatures[fam.SignatureOf(k)]; ok {
				lookups[camel(sig.name)] = sig.name
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(lookups)) {
		claim("method "+name, "the "+lookups[name]+" lookup")
	}
	var ls []launcher
	for _, fam := range s.Families {
		if fam.File == "" {
			bad("%s: family %q: no spec file", fam.Pos, fam.Name)
		}
		if len(fam.Kernels) == 0 {
			bad("%s: family %q has no kernels", fam.Pos, fam.Name)
		}
		for _, k := range fam.Kernels {
			sig, ok := signatures[fam.SignatureOf(k)]
			switch {
			case !ok:
				bad("%s: family %q kernel %q: gen/gogen has no launcher signature %q (it binds: %s)", fam.Pos, fam.Name, k.Name, fam.SignatureOf(k), strings.Join(slices.Sorted(maps.Keys(signatures)), ", "))
				continue
			case sig.perFormat == fam.Shared:
				bad("%s: family %q kernel %q: signature %q is for %s families", fam.Pos, fam.Name, k.Name, sig.name, map[bool]string{true: "format-specific", false: "shared"}[sig.perFormat])
				continue
			}
			if _, ok := outputs[k.Output]; !ok {
				bad("%s: family %q kernel %q: unknown output %q (want f32 or f16)", fam.Pos, fam.Name, k.Name, k.Output)
				continue
			}
			if sig.outF32 && k.Output != "f32" {
				bad("%s: family %q kernel %q: output %q: %s kernels write float32", fam.Pos, fam.Name, k.Name, k.Output, sig.name)
				continue
			}
			if !isIdent(k.Name) || !strings.HasPrefix(k.Name, fam.Name) {
				bad("%s: family %q: kernel name %q is not an identifier starting with the family's name", fam.Pos, fam.Name, k.Name)
				continue
			}
			formats := s.Formats
			if fam.Shared {
				formats = []*ir.Format{nil}
			}
			for _, f := range formats {
				if k.IntForm && (f == nil || f.Device == nil || f.Device.Int == nil) {
					continue // the kernel runs on the integer form, which f's spec lacks
				}
				l := launcher{family: fam, kernel: k, format: f, sig: sig, symbol: k.Symbol(formatName(f)), method: camel(k.Name)}
				if f != nil {
					l.method += f.Name
				}
				if _, clash := lookups[l.method]; clash {
					// The lookup keeps the name its callers spell every
					// signature's lookup by: GlueRoPEKV("glue_rope_kv")
					// returns GlueRoPEKVKernel.
					l.method += "Kernel"
				}
				l.index = "fn" + l.method
				claim("method "+l.method, l.symbol)
				ls = append(ls, l)
			}
		}
	}
	if len(ls) == 0 && len(errs) == 0 {
		bad("the spec yields no kernels")
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ls, nil
}

// words spells the parts of kernel names that are two words run together,
// so that Go names read as they are said: "matvec" is MatVec; and the
// initialisms Go spells in capitals: "kv" is KV (glue_rope_kv's GlueRoPEKV).
var words = map[string]string{"matvec": "MatVec", "matmul": "MatMul", "rmsnorm": "RMSNorm", "rope": "RoPE", "silu": "SiLU", "kv": "KV"}

// camel turns "dequant_f32" into "DequantF32" and "matvec_f32" into "MatVecF32".
func camel(s string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(s, "_") {
		if w, ok := words[part]; ok {
			b.WriteString(w)
		} else if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// isIdent reports whether s is an ASCII Go identifier starting with a
// letter, so it can be embedded in exported names.
func isIdent(s string) bool {
	if s == "" || !(s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// newFile starts a generated file: the header, its sources, and the
// package clause.
func newFile(s *ir.Spec, dir, name string, sources []string) *jen.File {
	f := jen.NewFilePathName(s.Module+"/"+dir, name)
	f.HeaderComment(ir.GeneratedHeader)
	f.HeaderComment("// Sources: " + strings.Join(sources, ", ") + "; rendered by gen/gogen.")
	return f
}

// allSources names the specs an aggregate file follows from: the family
// files, and each directory of format files.
func allSources(s *ir.Spec) []string {
	var src []string
	for _, f := range s.Formats {
		src = append(src, path.Dir(f.File)+"/*.go")
	}
	for _, fam := range s.Families {
		src = append(src, fam.File)
	}
	slices.Sort(src)
	return slices.Compact(src)
}

// formatSources names the specs a per-format file follows from.
func formatSources(s *ir.Spec, f *ir.Format) []string {
	src := []string{f.File}
	for _, fam := range s.Families {
		if !fam.Shared {
			src = append(src, fam.File)
		}
	}
	slices.Sort(src)
	return slices.Compact(src)
}

// enforceVersion pins the generation version at compile time.
func enforceVersion(s *ir.Spec) jen.Code {
	abiPkg := s.Module + "/runtime/device/abi"
	return jen.Comment("Fail to compile against a runtime of another generation version; see abi.GenVersion.").Line().
		Const().Defs(
		jen.Id("_").Op("=").Qual(abiPkg, "EnforceVersion").Call(jen.Qual(abiPkg, "GenVersion").Op("-").Lit(genVersion)),
		jen.Id("_").Op("=").Qual(abiPkg, "EnforceVersion").Call(jen.Lit(genVersion).Op("-").Qual(abiPkg, "MinGenVersion")),
	)
}

// formatName is f's name, "" for a shared family's launcher (f nil).
func formatName(f *ir.Format) string {
	if f == nil {
		return ""
	}
	return f.Name
}
