package load

import (
	"cmp"
	"fmt"
	"go/types"
	"sort"

	"golang.org/x/tools/go/packages"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/specs/check"
	"github.com/rocmforge/forge/specs/formats"
)

// Each collector decodes a spec package's registrations into the spec's
// own types (decode), reports each value's problems (the Problems method
// next to its type) at their fields, and adds the checks across values:
// unique names, one default target, a block struct of the declared size.

// formats collects `var X = register(Meta{...}, rows)` from specs/formats.
func (l *loader) formats(p *packages.Package) []*ir.Format {
	sizes := types.SizesFor("gc", "amd64")
	var out []*ir.Format
	names, ids := map[string]*ir.Format{}, map[int]*ir.Format{}
	for _, r := range l.registrations(p) {
		if len(r.call.Args) != 2 {
			l.errorf(r.call.Pos(), "format %s: register takes (Meta{...}, row loop)", r.name)
			continue
		}
		f := &ir.Format{GoVar: r.name, File: r.file, Pos: l.pos(r.call.Pos())}
		var ok bool
		if f.Fields, ok = l.decode(p.TypesInfo, r.call.Args[0], &f.Meta, "format "+r.name); !ok {
			continue
		}
		if r.inst.TypeArgs == nil || r.inst.TypeArgs.Len() == 0 {
			l.errorf(r.call.Pos(), "format %s: cannot tell the block type of this register call", r.name)
			continue
		}
		named, _ := r.inst.TypeArgs.At(0).(*types.Named)
		if named == nil {
			l.errorf(r.call.Pos(), "format %s: the block type must be a named struct", r.name)
			continue
		}
		f.BlockType = named.Obj().Name()
		if st, ok := named.Underlying().(*types.Struct); !ok {
			l.errorf(named.Obj().Pos(), "format %s: block type %s is not a struct", f.Name, f.BlockType)
		} else if size := sizes.Sizeof(st); size != int64(f.BlockBytes) {
			l.errorf(named.Obj().Pos(), "format %s: block struct %s is %d bytes, but the spec declares BlockBytes %d",
				f.Name, f.BlockType, size, f.BlockBytes)
		}
		for _, pr := range f.Problems() {
			what := "format " + cmp.Or(f.Name, f.GoVar)
			if pr.Field == "Name" { // the name is what is wrong: say which variable
				what = "format " + f.GoVar
			}
			l.errorAt(f.Fields.Of(pr.Field), "%s: %s", what, pr.Msg)
		}
		if prev := names[f.Name]; prev != nil && f.Name != "" {
			l.errorAt(f.Fields.Of("Name"), "format name %s is also used by %s (%s)", f.Name, prev.GoVar, prev.Pos)
		}
		names[f.Name] = f
		if f.GGMLType != formats.NoGGMLType {
			if prev := ids[f.GGMLType]; prev != nil {
				l.errorAt(f.Fields.Of("GGMLType"), "ggml type %d of %s is also used by %s (%s)", f.GGMLType, f.Name, prev.Name, prev.Pos)
			}
			ids[f.GGMLType] = f
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		l.errs = append(l.errs, l.errAtPkg(p, "no formats registered in "+FormatsDir))
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if (a.GGMLType == formats.NoGGMLType) != (b.GGMLType == formats.NoGGMLType) {
			return b.GGMLType == formats.NoGGMLType
		}
		if a.GGMLType != b.GGMLType {
			return a.GGMLType < b.GGMLType
		}
		return a.Name < b.Name
	})
	return out
}

// targets collects `var X = register(Target{...})` from specs/targets:
// one name each and exactly one Default. Each target's own problems are
// checkTargets', once the attention family is known.
func (l *loader) targets(p *packages.Package) []*ir.Target {
	var out []*ir.Target
	names := map[string]*ir.Target{}
	var defaults []*ir.Target
	for _, r := range l.registrations(p) {
		t := &ir.Target{GoVar: r.name, File: r.file, Pos: l.pos(r.call.Pos())}
		var ok bool
		if t.Fields, ok = l.decode(p.TypesInfo, r.call.Args[0], &t.Target, "target "+r.name); !ok {
			continue
		}
		if prev := names[t.Name]; prev != nil {
			l.errorAt(t.Fields.Of("Name"), "target name %s is also used by %s (%s)", t.Name, prev.GoVar, prev.Pos)
		}
		names[t.Name] = t
		if t.Default {
			defaults = append(defaults, t)
		}
		out = append(out, t)
	}
	switch {
	case len(out) == 0:
		l.errs = append(l.errs, l.errAtPkg(p, "no targets registered in "+TargetsDir))
	case len(defaults) == 0:
		l.errs = append(l.errs, l.errAtPkg(p, "no target is Default: true; exactly one must be"))
	}
	for _, t := range defaults[min(1, len(defaults)):] {
		l.errs = append(l.errs, &translate.Error{Pos: t.Pos, Msg: fmt.Sprintf(
			"target %s is Default, and so is %s (%s): exactly one target must be", t.Name, defaults[0].Name, defaults[0].Pos)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// checkTargets reports each target's problems, its attention tuning
// checked against the attention family's head dimensions (none: no
// attention family).
func (l *loader) checkTargets(ts []*ir.Target, attn *ir.AttentionFamily) {
	var dims []int
	if attn != nil {
		dims = attn.HeadDims
	}
	for _, t := range ts {
		l.problems(t.Fields, "target "+cmp.Or(t.Name, t.GoVar), t.Problems(dims))
	}
}

// families collects `var X = register(Family{...})` from specs/families,
// each name once.
func (l *loader) families(p *packages.Package) []*ir.Family {
	var out []*ir.Family
	names := map[string]*ir.Family{}
	for _, r := range l.registrations(p) {
		fam := &ir.Family{GoVar: r.name, File: r.file, Pos: l.pos(r.call.Pos())}
		var ok bool
		if fam.Fields, ok = l.decode(p.TypesInfo, r.call.Args[0], &fam.Family, "family "+r.name); !ok {
			continue
		}
		l.problems(fam.Fields, "family "+cmp.Or(fam.Name, fam.GoVar), fam.Problems())
		if prev := names[fam.Name]; prev != nil {
			l.errorAt(fam.Fields.Of("Name"), "family name %s is also used by %s (%s)", fam.Name, prev.GoVar, prev.Pos)
		}
		names[fam.Name] = fam
		out = append(out, fam)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// attention collects `var X = registerAttention(AttentionFamily{...})`
// from specs/families, at most one. None registered: nil, and no
// attention kernels.
func (l *loader) attention(p *packages.Package) *ir.AttentionFamily {
	var out *ir.AttentionFamily
	for _, r := range l.registrationsOf(p, "registerAttention") {
		if out != nil {
			l.errorf(r.call.Pos(), "attention family %s: %s (%s) is one already; register one", r.name, out.GoVar, out.Pos)
			continue
		}
		a := &ir.AttentionFamily{GoVar: r.name, File: r.file, Pos: l.pos(r.call.Pos())}
		var ok bool
		if a.Fields, ok = l.decode(p.TypesInfo, r.call.Args[0], &a.AttentionFamily, "attention family "+r.name); !ok {
			continue
		}
		l.problems(a.Fields, "attention family "+r.name, a.Problems())
		out = a
	}
	return out
}

// problems reports a spec value's problems, each at its field.
func (l *loader) problems(at ir.Positions, what string, ps []check.Problem) {
	for _, p := range ps {
		l.errorAt(at.Of(p.Field), "%s: %s", what, p.Msg)
	}
}

func (l *loader) errAtPkg(p *packages.Package, msg string) *translate.Error {
	pos := l.pos(0)
	if len(p.Syntax) > 0 {
		pos = l.pos(p.Syntax[0].Package)
	}
	return &translate.Error{Pos: pos, Msg: msg}
}
