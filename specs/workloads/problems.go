package workloads

import (
	"reflect"
	"slices"
	"strings"

	"github.com/rocmforge/forge/specs/check"
)

// About is a spec's Name and Doc, which every spec type has.
func About(w any) (name, doc string) {
	v := reflect.Indirect(reflect.ValueOf(w))
	if v.Kind() != reflect.Struct {
		return "", ""
	}
	if f := v.FieldByName("Name"); f.Kind() == reflect.String {
		name = f.String()
	}
	if f := v.FieldByName("Doc"); f.Kind() == reflect.String {
		doc = f.String()
	}
	return name, doc
}

// Problems lists what is wrong with w, a value of one of this package's
// spec types, by the rules every type follows: Name is "<family>/<name>"
// with family the suite family w's type belongs to and name lower_case;
// there is a Doc; every integer and float is positive, as is every
// integer in a list; every list but a Quick one has values; and each
// Quick<X> list holds only values of X (for a list of structs, their
// Name fields). A type's own constraints (which head dimensions a kernel
// has, say) are its scenario constructor's.
func Problems(w any, family string) []check.Problem {
	var l check.List
	name, doc := About(w)
	fam, rest, _ := strings.Cut(name, "/")
	if fam != family || !check.LowerName(rest) {
		l.Add("Name", "Name %q must be %q followed by a lower_case name", name, family+"/")
	}
	if doc == "" {
		l.Add("", "Doc is empty; say what it measures")
	}
	if v := reflect.Indirect(reflect.ValueOf(w)); v.Kind() == reflect.Struct {
		values(&l, v, "")
	}
	return l
}

// values checks the numbers and lists of the struct v, the part at path.
func values(l *check.List, v reflect.Value, path string) {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() {
			continue
		}
		at := check.Join(path, f.Name)
		switch fv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if fv.Int() <= 0 {
				l.Add(at, "%s.%s is %d; it must be positive", t.Name(), f.Name, fv.Int())
			}
		case reflect.Float32, reflect.Float64:
			if fv.Float() <= 0 {
				l.Add(at, "%s.%s is %g; it must be positive", t.Name(), f.Name, fv.Float())
			}
		case reflect.Struct:
			values(l, fv, at)
		case reflect.Slice:
			if fv.Len() == 0 && !strings.HasPrefix(f.Name, "Quick") {
				l.Add(at, "%s.%s is empty", t.Name(), f.Name)
			}
			for j := range fv.Len() {
				switch e := fv.Index(j); e.Kind() {
				case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
					if e.Int() <= 0 {
						l.Add(check.Index(at, j), "%s.%s[%d] is %d; it must be positive", t.Name(), f.Name, j, e.Int())
					}
				case reflect.Struct:
					values(l, e, check.Index(at, j))
				}
			}
			if full, ok := strings.CutPrefix(f.Name, "Quick"); ok && full != "" {
				quick(l, v, at, f.Name, full)
			}
		}
	}
}

// quick checks that the list Quick<full> of the struct v holds only values
// of full (or of its elements' Name fields).
func quick(l *check.List, v reflect.Value, at, key, full string) {
	t := v.Type()
	all := v.FieldByName(full)
	if all.Kind() != reflect.Slice {
		l.Add(at, "%s.%s shortens %s, which the spec does not have", t.Name(), key, full)
		return
	}
	var valid []any
	for j := range all.Len() {
		e := all.Index(j)
		if e.Kind() == reflect.Struct {
			e = e.FieldByName("Name")
		}
		if e.IsValid() {
			valid = append(valid, e.Interface())
		}
	}
	q := v.FieldByName(key)
	for j := range q.Len() {
		if x := q.Index(j).Interface(); !slices.Contains(valid, x) {
			l.Add(check.Index(at, j), "%s.%s has %v, which %s does not", t.Name(), key, x, full)
		}
	}
}
