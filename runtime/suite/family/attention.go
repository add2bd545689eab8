package family

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/specs/families"
)

// Attention is flash attention forward (specs/families.Attention), not
// format-specific, run through the backend.Attention operation. It has no
// suites of its own: the attention scenario suite (runtime/suite/attnsuite,
// shapes from specs/workloads) checks each variant against the cpu's
// reference (cpu.AttentionRef) within suite.AttentionTolerances and
// measures it. Its launchers share seven __global__ templates (the generic,
// wmma, mma.sync and wgmma paths, and the split-KV decode path's generic
// and mma.sync kernels and its merge),
// whose template arguments name the launcher.
var Attention = register(&Descriptor{
	Name:       "attention",
	Signatures: []string{"attention"},
	Runs:       opRuns(backend.AttentionOp),
	Profile: Profile{
		Kernels:   func(string) []string { return nil },
		Templates: []string{"forge_attn_generic", "forge_attn_wmma", "forge_attn_mma", "forge_attn_wgmma", "forge_attn_split", "forge_attn_split_mma", "forge_attn_merge"},
		Launcher:  attentionLauncher,
	},
})

var (
	// Template arguments after forge_attn_*: demangled "<unsigned short,
	// 128u, ..." or "<float, (unsigned int)128, ...", mangled "ItLj128E" /
	// "IfLj128E"; the wmma, mma, wgmma and split mma paths' first argument
	// is the head dimension.
	attnDemangled = regexp.MustCompile(`^<\s*(?:(unsigned short|float|__half|half|uint16_t)\s*,\s*)?(?:\(unsigned int\))?(\d+)`)
	attnMangled   = regexp.MustCompile(`^I([tf])?Lj(\d+)E`)
)

// attentionLauncher is the launcher a forge_attn_* kernel instance
// belongs to, from its template arguments: the element type (f16
// travels as uint16_t; the wmma, mma and wgmma paths are f16 only) and the head
// dimension.
func attentionLauncher(template, args string) (string, bool) {
	var dtype, dim string
	if m := attnMangled.FindStringSubmatch(args); m != nil {
		dtype, dim = m[1], m[2]
	} else if m := attnDemangled.FindStringSubmatch(strings.TrimSpace(args)); m != nil {
		dtype, dim = m[1], m[2]
	} else {
		return "", false
	}
	switch {
	case template == "forge_attn_wmma", template == "forge_attn_mma", template == "forge_attn_wgmma", template == "forge_attn_split_mma", dtype == "t", dtype == "unsigned short", dtype == "uint16_t", strings.Contains(dtype, "half"):
		dtype = "f16"
	case dtype == "f", dtype == "float":
		dtype = "f32"
	default:
		return "", false
	}
	d, err := strconv.Atoi(dim)
	if err != nil {
		return "", false
	}
	return abi.Symbol(families.AttentionKernel(dtype, d), ""), true
}
