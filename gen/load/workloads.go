package load

import (
	"go/types"
	"maps"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/specs/workloads"
)

// workloads collects `var X = register(T{...})` from specs/workloads: a
// known spec type (gen/ir.WorkloadKinds), decoded into it, its problems
// (workloads.Problems) and its Name unique.
func (l *loader) workloads(p *packages.Package) []*ir.Workload {
	var out []*ir.Workload
	names := map[string]*ir.Workload{}
	for _, r := range l.registrations(p) {
		arg := r.call.Args[0]
		kind, known := ir.WorkloadKinds[typeName(p.TypesInfo.TypeOf(arg))]
		if !known {
			kinds := slices.Sorted(maps.Keys(ir.WorkloadKinds))
			l.errorf(arg.Pos(), "workload %s: type %s has no scenario (gen/ir.WorkloadKinds has %s)",
				r.name, typeName(p.TypesInfo.TypeOf(arg)), strings.Join(kinds, ", "))
			continue
		}
		v := reflect.New(kind.Type)
		at, ok := l.decode(p.TypesInfo, arg, v.Interface(), "workload "+r.name)
		if !ok {
			continue
		}
		w := &ir.Workload{Family: kind.Family, Kind: kind.Type.Name(), GoVar: r.name, File: r.file,
			Pos: l.pos(r.call.Pos()), Value: v.Elem().Interface(), Fields: at}
		w.Name, w.Doc = workloads.About(w.Value)
		for _, pr := range workloads.Problems(w.Value, kind.Family) {
			// A Name that is not the suite's is reported by variable.
			what := "workload " + w.Name
			if pr.Field == "Name" {
				what = "workload " + r.name
			}
			l.errorAt(at.Of(pr.Field), "%s: %s", what, pr.Msg)
		}
		if prev := names[w.Name]; prev != nil {
			l.errorAt(at.Of("Name"), "workload name %s is also used by %s (%s)", w.Name, prev.GoVar, prev.Pos)
		}
		names[w.Name] = w
		out = append(out, w)
	}
	return out
}

// typeName is the name of a spec literal's type without its package:
// "KVCache", "Target".
func typeName(t types.Type) string {
	return types.TypeString(t, func(*types.Package) string { return "" })
}
