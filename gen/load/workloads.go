package load

import (
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/rocmforge/forge/gen/ir"
)

// workloads collects `var X = register(T{...})` from specs/workloads. The
// checks here are the ones every kind shares (a kind's own constraints,
// such as which head dimensions a kernel has, are its constructor's and
// its tests'): a known spec type, Name "<family>/<lower_name>" unique,
// a Doc, every integer and float positive, every list other than a Quick
// one non-empty, and each Quick list a subset of the list it shortens.
func (l *loader) workloads(p *packages.Package) []*ir.Workload {
	var out []*ir.Workload
	names := map[string]*ir.Workload{}
	for _, r := range l.registrations(p) {
		v, ok := l.value(p.TypesInfo, r.call.Args[0], "workload "+r.name)
		s, isStruct := v.(*structLit)
		if !ok || !isStruct {
			continue
		}
		kind, known := ir.WorkloadKinds[s.typ]
		if !known {
			var kinds []string
			for k := range ir.WorkloadKinds {
				kinds = append(kinds, k)
			}
			slices.Sort(kinds)
			l.errorf(s.node.Pos(), "workload %s: type %s has no scenario (gen/ir.WorkloadKinds has %s)", r.name, s.typ, strings.Join(kinds, ", "))
			continue
		}
		w := &ir.Workload{
			Name: l.str(s, "Name"), Family: kind.Family, Kind: s.typ, Doc: l.str(s, "Doc"),
			GoVar: r.name, File: r.file, Pos: l.pos(r.call.Pos()), Fields: plain(s).(map[string]any),
		}
		fam, name, _ := strings.Cut(w.Name, "/")
		if fam != kind.Family || !validLower(name) {
			l.errorf(s.at("Name").Pos(), "workload %s: Name %q must be %q followed by a lower_case name", r.name, w.Name, kind.Family+"/")
		}
		if prev := names[w.Name]; prev != nil {
			l.errorf(s.at("Name").Pos(), "workload name %s is also used by %s (%s)", w.Name, prev.GoVar, prev.Pos)
		}
		names[w.Name] = w
		if w.Doc == "" {
			l.errorf(s.node.Pos(), "workload %s: Doc is empty; say what it measures", w.Name)
		}
		l.checkWorkloadValues(w.Name, s)
		out = append(out, w)
	}
	return out
}

// checkWorkloadValues applies the shared checks to a literal and the
// struct literals inside it.
func (l *loader) checkWorkloadValues(name string, s *structLit) {
	for _, key := range sortedKeys(s.fields) {
		at := s.at(key).Pos()
		switch v := s.fields[key].(type) {
		case int64:
			if v <= 0 {
				l.errorf(at, "workload %s: %s.%s is %d; it must be positive", name, s.typ, key, v)
			}
		case float64:
			if v <= 0 {
				l.errorf(at, "workload %s: %s.%s is %g; it must be positive", name, s.typ, key, v)
			}
		case []any:
			if len(v) == 0 && !strings.HasPrefix(key, "Quick") {
				l.errorf(at, "workload %s: %s.%s is empty", name, s.typ, key)
			}
			for i, x := range v {
				switch x := x.(type) {
				case int64:
					if x <= 0 {
						l.errorf(at, "workload %s: %s.%s[%d] is %d; it must be positive", name, s.typ, key, i, x)
					}
				case *structLit:
					l.checkWorkloadValues(name, x)
				}
			}
			if full, ok := strings.CutPrefix(key, "Quick"); ok && full != "" {
				l.checkQuick(name, s, key, full, v)
			}
		case *structLit:
			l.checkWorkloadValues(name, v)
		}
	}
}

// checkQuick checks that Quick<Full> lists only values of <Full> (or, for
// a list of structs, of their Name fields).
func (l *loader) checkQuick(name string, s *structLit, key, full string, quick []any) {
	all, ok := s.fields[full].([]any)
	if !ok {
		l.errorf(s.at(key).Pos(), "workload %s: %s.%s shortens %s, which the spec does not have", name, s.typ, key, full)
		return
	}
	var valid []any
	for _, x := range all {
		if st, ok := x.(*structLit); ok {
			x = st.fields["Name"]
		}
		valid = append(valid, x)
	}
	for _, q := range quick {
		if !slices.Contains(valid, q) {
			l.errorf(s.at(key).Pos(), "workload %s: %s.%s has %v, which %s does not", name, s.typ, key, q, full)
		}
	}
}

// plain turns a spec value into plain Go values: int, float64, string,
// bool, []any and map[string]any.
func plain(v any) any {
	switch x := v.(type) {
	case int64:
		return int(x)
	case *structLit:
		m := map[string]any{}
		for k, f := range x.fields {
			m[k] = plain(f)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
