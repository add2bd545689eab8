package profile

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/suite/family"
)

// Identity is a profiled kernel as forge knows it.
type Identity struct {
	Symbol string `json:"symbol"`           // launcher: "forge_matvec_f32_q4_k"
	Kernel string `json:"kernel"`           // "matvec_f32"
	Family string `json:"family"`           // "matvec"
	Format string `json:"format,omitempty"` // "Q4_K"; "" for attention and copy
	Output string `json:"output,omitempty"`
	// Variant is the __global__ kernel's own name when a launcher has
	// several ("forge_matmul_f32_q4_k_kernel_wmma", "forge_attn_generic").
	Variant string `json:"variant"`
	Target  string `json:"target,omitempty"` // from the run (the library's target)
}

// Identifier maps kernel names, as profilers print them, to forge's
// launchers, through each launcher's family's profiler mapping
// (runtime/suite/family.Profile): by default the templates name each
// launcher's __global__ kernel <symbol>_kernel (matmul's NVIDIA
// tensor-core path <symbol>_kernel_wmma); the glue's drop the element type;
// the attention launchers share templates (forge_attn_generic<T, D, ...>,
// forge_attn_wmma<D, ...>, forge_attn_mma<D, ...>) whose arguments name
// the launcher; the copy roofline is forge_copy_kernel. Names come
// demangled ("void forge_matvec_f32_q4_k_kernel<256u, 4u, 8u, true,
// unsigned int>(forge_BlockQ4_K const*, ...)", also nvcc's "(unsigned
// int)256" spelling) or mangled ("_Z28forge_matvec_f32_q4_k_kernelILj256E...").
type Identifier struct {
	byKernel  map[string]abi.KernelInfo // a __global__ kernel's name → its launcher
	bySymbol  map[string]abi.KernelInfo
	templates map[string]func(template, args string) (string, bool) // shared templates → the launcher of their arguments
	Target    string
}

// NewIdentifier indexes a kernel table (generated/kernels.Kernels).
func NewIdentifier(table []abi.KernelInfo, target string) *Identifier {
	id := &Identifier{byKernel: map[string]abi.KernelInfo{}, bySymbol: map[string]abi.KernelInfo{},
		templates: map[string]func(string, string) (string, bool){}, Target: target}
	for _, k := range table {
		id.bySymbol[k.Symbol] = k
		var p family.Profile
		if d, ok := family.ByName(k.Family); ok {
			p = d.Profile
		}
		for _, name := range p.KernelNames(k.Symbol) {
			if _, taken := id.byKernel[name]; !taken {
				id.byKernel[name] = k
			}
		}
		for _, t := range p.Templates {
			id.templates[t] = p.Launcher
		}
	}
	return id
}

// identifiers returns the forge_* identifiers of a kernel name in order:
// in a mangled name each is length-prefixed (<n><identifier>), elsewhere
// an identifier is a maximal run of [A-Za-z0-9_].
func identifiers(name string) []string {
	var out []string
	for i := 0; i < len(name); {
		j := strings.Index(name[i:], "forge_")
		if j < 0 {
			break
		}
		j += i
		// Length prefix?
		k := j
		for k > 0 && name[k-1] >= '0' && name[k-1] <= '9' {
			k--
		}
		if k < j {
			if n, err := strconv.Atoi(name[k:j]); err == nil && j+n <= len(name) && n >= len("forge_") {
				out = append(out, name[j:j+n])
				i = j + n
				continue
			}
		}
		e := j
		for e < len(name) && isIdent(name[e]) {
			e++
		}
		if j > 0 && isIdent(name[j-1]) { // part of a longer identifier
			i = e
			continue
		}
		out = append(out, name[j:e])
		i = e
	}
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// blockType is a format's block type among a kernel's parameters.
var blockType = regexp.MustCompile(`forge_Block([A-Za-z0-9_]+?)(?:_Dequant)?$`)

// Identify maps one kernel name; ok is false for a kernel forge did not
// generate (a runtime's fill or copy kernel, another library's).
func (id *Identifier) Identify(name string) (Identity, bool) {
	idents := identifiers(name)
	for n, ident := range idents {
		if k, ok := id.byKernel[ident]; ok {
			out := Identity{Symbol: k.Symbol, Kernel: k.Kernel, Family: k.Family, Format: k.Format, Output: k.Output, Variant: ident, Target: id.Target}
			// The block type among the parameters must be the format's.
			for _, other := range idents[n+1:] {
				if m := blockType.FindStringSubmatch(other); m != nil && k.Format != "" &&
					!strings.EqualFold(strings.ReplaceAll(m[1], "_", ""), strings.ReplaceAll(k.Format, "_", "")) {
					return Identity{}, false
				}
			}
			return out, true
		}
		if ident == "forge_copy_kernel" {
			return Identity{Symbol: "forge_copy", Kernel: "copy", Family: "copy", Variant: ident, Target: id.Target}, true
		}
		if launcher := id.templates[ident]; launcher != nil {
			sym, ok := launcher(ident, name[strings.Index(name, ident)+len(ident):])
			if k, found := id.bySymbol[sym]; ok && found {
				return Identity{Symbol: k.Symbol, Kernel: k.Kernel, Family: k.Family, Output: k.Output, Variant: ident, Target: id.Target}, true
			}
		}
	}
	return Identity{}, false
}
