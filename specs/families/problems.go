package families

import (
	"strings"

	"github.com/rocmforge/forge/specs/check"
)

// Symbol is the extern "C" launcher of kernel k for the format named
// format: forge_<Name>_<format in lower case>, or forge_<Name> for a Shared
// family's kernel (format ""). Every target's library exports the same
// names; runtime/device/abi.Symbol spells them the same way.
func (k Kernel) Symbol(format string) string {
	if format == "" {
		return "forge_" + k.Name
	}
	return "forge_" + k.Name + "_" + strings.ToLower(format)
}

// Problems lists what is wrong with f: a Name and kernel names usable in
// file and symbol names, at least one kernel, each writing f32 or f16,
// IntForm only on a format-specific family's kernels (a shared family's
// have no format whose integer form they could use), and at least one
// kernel without it (a format without an integer form gets the family's
// other kernels, and must get some).
// Checks across families (unique names) are gen/load's.
func (f *Family) Problems() []check.Problem {
	var l check.List
	if !check.LowerName(f.Name) {
		l.Add("Name", "Name %q must be lower-case letters, digits and underscores", f.Name)
	}
	seen := map[string]bool{}
	generic := 0
	for i, k := range f.Kernels {
		at := check.Index("Kernels", i)
		if !check.LowerName(k.Name) || seen[k.Name] {
			l.Add(at+".Name", "kernel name %q must be unique, lower-case letters, digits and underscores", k.Name)
		}
		seen[k.Name] = true
		if k.Output != "f32" && k.Output != "f16" {
			l.Add(at+".Output", "kernel %s: Output %q must be \"f32\" or \"f16\"", k.Name, k.Output)
		}
		if f.SignatureOf(k) == "" {
			l.Add(at, "kernel %s has no Signature, and neither has its family", k.Name)
		}
		if k.IntForm && f.Shared {
			l.Add(at+".IntForm", "kernel %s: IntForm on a shared family's kernel, which has no format", k.Name)
		}
		if !k.IntForm {
			generic++
		}
	}
	if len(f.Kernels) == 0 {
		l.Add("Kernels", "no kernels")
	} else if generic == 0 {
		l.Add("Kernels", "every kernel is IntForm: a format without an integer form would get none")
	}
	return l
}

// Problems lists what is wrong with a: the name its template has, a Doc,
// DTypes a non-empty subset of "f16" and "f32", HeadDims distinct
// multiples of 16 in [16, 256].
func (a *AttentionFamily) Problems() []check.Problem {
	var l check.List
	if a.Name != "attention" {
		l.Add("Name", "Name %q must be \"attention\" (its template is templates/hip/attention.hip.tmpl)", a.Name)
	}
	if a.Doc == "" {
		l.Add("", "Doc is empty")
	}
	seen := map[string]bool{}
	for i, d := range a.DTypes {
		if d != "f16" && d != "f32" || seen[d] {
			l.Add(check.Index("DTypes", i), "DTypes: %q must be \"f16\" or \"f32\", each at most once", d)
		}
		seen[d] = true
	}
	if len(a.DTypes) == 0 {
		l.Add("DTypes", "DTypes is empty")
	}
	dims := map[int]bool{}
	for i, d := range a.HeadDims {
		if d < 16 || d > 256 || d%16 != 0 || dims[d] {
			l.Add(check.Index("HeadDims", i), "HeadDims: %d must be a multiple of 16 in [16, 256], each at most once", d)
		}
		dims[d] = true
	}
	if len(a.HeadDims) == 0 {
		l.Add("HeadDims", "HeadDims is empty")
	}
	return l
}
