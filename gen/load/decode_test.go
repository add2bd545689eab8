package load

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The Go side of the decoder tests: the types the source below declares,
// as a spec package's compiled types would be. Spec lacks the source's
// Extra field, and Small is narrower than the source's.
type (
	Kind  string
	Inner struct {
		A int
		B []string
	}
	Spec struct {
		Name   string
		Count  int
		Small  int8
		Mask   uint16
		Ratio  float64
		Scale  float32
		On     bool
		Kind   Kind
		Ints   []int
		Strs   []string
		In     Inner
		Ins    []Inner
		Ptr    *Inner
		Ptrs   []*Inner
		Pair   [2]int
		ByName map[string]int
		Empty  []int
		Nil    []int
	}
)

const decodeSrc = `package specs

const N = 4

type Kind string

const F16 Kind = "f16"

type Inner struct {
	A int
	B []string
}

type Spec struct {
	Name   string
	Count  int
	Small  int
	Mask   uint16
	Ratio  float64
	Scale  float32
	On     bool
	Kind   Kind
	Ints   []int
	Strs   []string
	In     Inner
	Ins    []Inner
	Ptr    *Inner
	Ptrs   []*Inner
	Pair   [2]int
	ByName map[string]int
	Empty  []int
	Nil    []int
	Extra  int
}

var n = 3

func f() int { return 1 }

var Good = Spec{
	Name:  "good" + "_spec",
	Count: N * 2,
	Small: -7,
	Mask:  0xff00,
	Ratio: 1.5,
	Scale: 2,
	On:    N > 3,
	Kind:  F16,
	Ints:  []int{1, N, 1 << 10},
	Strs:  []string{"a", string(F16)},
	In:    Inner{A: 9, B: []string{"x"}},
	Ins: []Inner{
		{A: 1},
		{A: 2, B: []string{"y", "z"}},
	},
	Ptr:    &Inner{A: 3},
	Ptrs:   []*Inner{{A: 4}},
	Pair:   [2]int{5},
	ByName: map[string]int{"wide": 2, "narrow": 1},
	Empty:  []int{},
	Nil:    nil,
}

var Bad = Spec{
	Name:  "bad",
	Count: n,
	Small: 300,
	Ints:  []int{1, f(), 3},
	In:    Inner{9, nil},
	Extra: 1,
	Ins:   []Inner{{A: len("abc") + n}},
}
`

// parseSpec type-checks decodeSrc and returns a loader for it and the
// initialiser of each package-level variable.
func parseSpec(t *testing.T) (*loader, *types.Info, map[string]ast.Expr) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "specs/x/x.go", decodeSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("specs", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	vars := map[string]ast.Expr{}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			vs := gd.Specs[0].(*ast.ValueSpec)
			vars[vs.Names[0].Name] = vs.Values[0]
		}
	}
	return &loader{fset: fset}, info, vars
}

func TestDecodeValues(t *testing.T) {
	l, info, vars := parseSpec(t)
	var got Spec
	at, ok := l.decode(info, vars["Good"], &got, "spec Good")
	if !ok || len(l.errs) > 0 {
		t.Fatalf("errors: %v", l.errs)
	}
	want := Spec{
		Name: "good_spec", Count: 8, Small: -7, Mask: 0xff00, Ratio: 1.5, Scale: 2, On: true, Kind: "f16",
		Ints: []int{1, 4, 1024}, Strs: []string{"a", "f16"},
		In:  Inner{A: 9, B: []string{"x"}},
		Ins: []Inner{{A: 1}, {A: 2, B: []string{"y", "z"}}},
		Ptr: &Inner{A: 3}, Ptrs: []*Inner{{A: 4}}, Pair: [2]int{5, 0},
		ByName: map[string]int{"wide": 2, "narrow": 1}, Empty: []int{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%#v\nwant\n%#v", got, want)
	}
	// Each part's position is its value's, by path.
	line := func(text string) int {
		for i, l := range strings.Split(decodeSrc, "\n") {
			if strings.Contains(l, text) {
				return i + 1
			}
		}
		t.Fatalf("no line has %q", text)
		return 0
	}
	for path, text := range map[string]string{
		"":               "var Good = Spec{",
		"Count":          "Count: N * 2",
		"In.B[0]":        `In:    Inner{A: 9, B: []string{"x"}}`,
		"Ins[1]":         `{A: 2, B: []string{"y", "z"}}`,
		"Ins[1].B[1]":    `{A: 2, B: []string{"y", "z"}}`,
		"Ptrs[0].A":      "Ptrs:   []*Inner{{A: 4}}",
		`ByName["wide"]`: `ByName: map[string]int{"wide": 2`,
	} {
		if pos := at[path]; pos.Filename != "specs/x/x.go" || pos.Line != line(text) {
			t.Errorf("%s at %v, want line %d", path, pos, line(text))
		}
	}
	if pos := at["Ins[1].A"]; pos.Column != strings.Index(`		{A: 2, B: []string{"y", "z"}},`, "2")+1 {
		t.Errorf("Ins[1].A at column %d", pos.Column)
	}
	if _, ok := at["Ins[0].B"]; ok {
		t.Error("a field the literal leaves out has a position")
	}
}

// Every problem of a literal is reported, each at its position, and the
// rest of it still decoded.
func TestDecodeErrors(t *testing.T) {
	l, info, vars := parseSpec(t)
	var got Spec
	_, ok := l.decode(info, vars["Bad"], &got, "spec Bad")
	if ok {
		t.Fatal("decoded a broken literal")
	}
	want := []string{
		`^specs/x/x\.go:\d+:9: spec Bad\.Count is not a constant or a composite literal of constants: specs are read from source, never run$`,
		`^specs/x/x\.go:\d+:9: spec Bad\.Small: constant 300 cannot be a int8$`,
		`^specs/x/x\.go:\d+:18: spec Bad\.Ints\[1\] is not a constant or a composite literal of constants`,
		`^specs/x/x\.go:\d+:15: spec Bad\.In: use keyed fields \(Name: value\) in spec literals$`,
		`^specs/x/x\.go:\d+:2: spec Bad: the generator's load\.Spec has no field Extra`,
		`^specs/x/x\.go:\d+:\d+: spec Bad\.Ins\[0\]\.A is not a constant`,
	}
	if len(l.errs) != len(want) {
		t.Errorf("%d errors, want %d:\n%v", len(l.errs), len(want), l.errs)
	}
	for _, w := range want {
		re := regexp.MustCompile(w)
		found := false
		for _, e := range l.errs {
			found = found || re.MatchString(e.Error())
		}
		if !found {
			t.Errorf("no error matching %s; got:\n%v", w, l.errs)
		}
	}
	if got.Name != "bad" || len(got.Ints) != 3 || got.Ints[2] != 3 {
		t.Errorf("the valid parts were not decoded: %+v", got)
	}
}

// A literal of another type than the Go value's is refused.
func TestDecodeTypeMismatch(t *testing.T) {
	l, info, vars := parseSpec(t)
	var got Inner
	if _, ok := l.decode(info, vars["Good"], &got, "spec Good"); ok || len(l.errs) != 1 ||
		!strings.Contains(l.errs[0].Error(), "spec Good: a Spec literal cannot be a load.Inner") {
		t.Errorf("errors: %v", l.errs)
	}
}
