package translate

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/gen/ir"
)

// FormatsPath is the import path of the spec package whose scalar types
// (Half, BFloat16, E8M0) and conversions map to the portability header's
// intrinsics.
const FormatsPath = "github.com/rocmforge/forge/specs/formats"

// Package is a type-checked spec package.
type Package struct {
	Fset  *token.FileSet
	Files []*ast.File
	Types *types.Package
	Info  *types.Info // Types, Defs, Uses and Selections must be filled
	Root  string      // module root; positions in errors and #line directives are relative to it

}

// Error is one construct outside the subset, at its position.
type Error struct {
	Pos token.Position // Filename relative to Package.Root, slash-separated
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is every error found, sorted by position.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := ""
	for i, e := range l {
		if i > 0 {
			s += "\n"
		}
		s += e.Error()
	}
	return s
}

// Block translates the struct typeName and its Dequant method, with every
// helper function and table Dequant reaches, into self-contained HIP. The
// error, if any, is an ErrorList.
func Block(pkg *Package, typeName string) (*ir.Device, error) {
	t := newTranslator(pkg)
	dev := t.translateBlock(typeName)
	if len(t.errs) > 0 {
		return nil, t.sortedErrors()
	}
	return dev, nil
}

// translator holds the state of one Block call.
type translator struct {
	pkg  *Package
	errs ErrorList
	seen map[string]bool // error dedup: "pos\x00msg"

	funcDecls map[*types.Func]*ast.FuncDecl
	varInits  map[*types.Var]ast.Expr // package-level var → its initialiser (nil if none)
	varSpecs  map[*types.Var]*ast.ValueSpec

	block      *types.Named // the block type being translated
	blockC     string
	blockRecvC string // "const forge_BlockX* __restrict__"

	state    map[*types.Func]int // 0 unvisited, 1 translating, 2 done
	funcs    []string            // translated functions, callees first
	tables   []string            // translated tables, in first-use order
	tableC   map[*types.Var]string
	globals  map[string]token.Pos // emitted top-level C names, for collision checks
	fieldC   map[*types.Var]string
	fieldOff map[*types.Var]int64 // byte offset of each block field
	// blockAlign is the alignment the translation assumes of a block's
	// address: the largest power of two dividing its size, at most 4 (see
	// ir.IntForm.Align).
	blockAlign int64
	allNames   map[string]bool
}

func newTranslator(pkg *Package) *translator {
	t := &translator{
		pkg:       pkg,
		seen:      map[string]bool{},
		funcDecls: map[*types.Func]*ast.FuncDecl{},
		varInits:  map[*types.Var]ast.Expr{},
		varSpecs:  map[*types.Var]*ast.ValueSpec{},
		state:     map[*types.Func]int{},
		tableC:    map[*types.Var]string{},
		globals:   map[string]token.Pos{},
		fieldC:    map[*types.Var]string{},
		fieldOff:  map[*types.Var]int64{},
	}
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if fn, ok := pkg.Info.Defs[d.Name].(*types.Func); ok {
					t.funcDecls[fn] = d
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						v, ok := pkg.Info.Defs[n].(*types.Var)
						if !ok {
							continue
						}
						t.varSpecs[v] = vs
						if len(vs.Values) == len(vs.Names) {
							t.varInits[v] = vs.Values[i]
						} else if len(vs.Values) == 1 {
							t.varInits[v] = vs.Values[0] // multi-value call
						} else {
							t.varInits[v] = nil
						}
					}
				}
			}
		}
	}
	return t
}

// errorf records an error at node position p.
func (t *translator) errorf(p token.Pos, format string, args ...any) {
	pos := t.position(p)
	msg := fmt.Sprintf(format, args...)
	key := pos.String() + "\x00" + msg
	if t.seen[key] {
		return
	}
	t.seen[key] = true
	t.errs = append(t.errs, &Error{Pos: pos, Msg: msg})
}

// position is p with its file name relative to the module root.
func (t *translator) position(p token.Pos) token.Position {
	if !p.IsValid() {
		return token.Position{}
	}
	pos := t.pkg.Fset.Position(p)
	pos.Filename = t.relPath(pos.Filename)
	return pos
}

func (t *translator) relPath(name string) string {
	if t.pkg.Root != "" {
		if r, err := filepath.Rel(t.pkg.Root, name); err == nil && !strings.HasPrefix(r, "..") {
			name = r
		}
	}
	return filepath.ToSlash(name)
}

// line is the #line directive for the source line of p.
func (t *translator) line(p token.Pos) string {
	pos := t.position(p)
	return "#line " + strconv.Itoa(pos.Line) + " " + cString(pos.Filename) + "\n"
}

func (t *translator) sortedErrors() ErrorList {
	l := append(ErrorList(nil), t.errs...)
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return l[i].Msg < l[j].Msg
	})
	return l
}

// global reserves a top-level C name, reporting a collision at p.
func (t *translator) global(name string, p token.Pos, what string) {
	if headerNames[name] {
		t.errorf(p, "%s would be emitted as %s, which the portability header already defines; rename it", what, name)
		return
	}
	if q, dup := t.globals[name]; dup && q != p {
		t.errorf(p, "%s would be emitted as %s, which another declaration (%s) already uses; rename one of them", what, name, t.position(q))
		return
	}
	t.globals[name] = p
}

// translateBlock translates the block type typeName.
func (t *translator) translateBlock(typeName string) *ir.Device {
	obj := t.pkg.Types.Scope().Lookup(typeName)
	tn, ok := obj.(*types.TypeName)
	if !ok {
		t.errorf(token.NoPos, "package %s has no type %s", t.pkg.Types.Path(), typeName)
		return nil
	}
	named, ok := tn.Type().(*types.Named)
	if !ok || tn.IsAlias() {
		t.errorf(tn.Pos(), "%s must be a defined struct type", typeName)
		return nil
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		t.errorf(tn.Pos(), "block type %s must be a struct, not %s", typeName, named.Underlying())
		return nil
	}
	if !asciiIdent(typeName) {
		t.errorf(tn.Pos(), "identifier %s is not ASCII; device code names must be", typeName)
		return nil
	}
	t.block = named
	t.blockC = "forge_" + typeName
	t.blockRecvC = "const " + t.blockC + "* __restrict__"
	t.global(t.blockC, tn.Pos(), "type "+typeName)

	var dq *types.Func
	for i := 0; i < named.NumMethods(); i++ {
		if m := named.Method(i); m.Name() == "Dequant" {
			dq = m
		}
	}
	if dq == nil {
		t.errorf(tn.Pos(), "block type %s has no Dequant method", typeName)
		return nil
	}
	structCode := t.structDecl(tn, st)

	sig := dq.Type().(*types.Signature)
	decl := t.funcDecls[dq]
	if decl == nil {
		t.errorf(dq.Pos(), "no source for %s.Dequant", typeName)
		return nil
	}
	ok = true
	if _, ptr := sig.Recv().Type().(*types.Pointer); !ptr {
		t.errorf(decl.Recv.Pos(), "Dequant must have a pointer receiver: func (b *%s) Dequant(j int32) float32", typeName)
		ok = false
	}
	if sig.Params().Len() != 1 || !types.Identical(sig.Params().At(0).Type(), types.Typ[types.Int32]) ||
		sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.Float32]) {
		t.errorf(decl.Type.Pos(), "Dequant must have the signature func (b *%s) Dequant(j int32) float32", typeName)
		ok = false
	}
	if !ok {
		return nil
	}
	fn := t.need(dq, decl.Name.Pos())
	dev := &ir.Device{Block: t.blockC, Func: fn}
	t.intForm(dev)
	if len(t.errs) > 0 {
		return nil
	}
	var code strings.Builder
	code.WriteString(structCode)
	for _, s := range t.tables {
		code.WriteString(s)
	}
	for _, s := range t.funcs {
		code.WriteString(s)
	}
	dev.Code = code.String()
	return dev
}

// structDecl emits the block struct and its layout asserts, checking that
// the Go layout is packed (no padding) so that the C struct, laid out by
// the same natural-alignment rules, has the same bytes.
func (t *translator) structDecl(tn *types.TypeName, st *types.Struct) string {
	sizes := types.SizesFor("gc", "amd64")
	var b strings.Builder
	b.WriteString(t.line(tn.Pos()))
	b.WriteString("struct " + t.blockC + " {\n")
	fields := make([]*types.Var, st.NumFields())
	names := map[string]bool{}
	for i := range fields {
		fields[i] = st.Field(i)
		names[fields[i].Name()] = true
	}
	offsets := sizes.Offsetsof(fields)
	var asserts strings.Builder
	packed := int64(0)
	pad := 0
	badField := false
	for i, f := range fields {
		if f.Embedded() {
			t.errorf(f.Pos(), "embedded field %s is not in the device subset; name the field", f.Name())
			packed, badField = offsets[i]+sizes.Sizeof(f.Type()), true
			continue
		}
		cname := f.Name()
		if cname == "_" {
			for {
				cname = "pad" + strconv.Itoa(pad)
				pad++
				if !names[cname] {
					break
				}
			}
			names[cname] = true
		} else if !asciiIdent(cname) {
			t.errorf(f.Pos(), "identifier %s is not ASCII; device code names must be", cname)
			packed, badField = offsets[i]+sizes.Sizeof(f.Type()), true
			continue
		} else if reservedName(cname) {
			cname = uniqueName(localName(cname), names)
		}
		t.fieldC[f] = cname
		t.fieldOff[f] = offsets[i]
		if offsets[i] != packed && !badField {
			t.errorf(f.Pos(), "field %s is at offset %d in Go but would be at %d packed: the block struct has padding; ggml block layouts have none (reorder the fields or make the padding an explicit _ field)", f.Name(), offsets[i], packed)
		}
		packed = offsets[i] + sizes.Sizeof(f.Type())
		decl, msg := t.cDecl(f.Type(), cname)
		if msg != "" {
			t.errorf(f.Pos(), "field %s: %s", f.Name(), msg)
			badField = true // later offsets follow from its Go layout; do not report them
			continue
		}
		b.WriteString(t.line(f.Pos()))
		b.WriteString("\t" + decl + ";\n")
		asserts.WriteString(t.line(f.Pos()))
		fmt.Fprintf(&asserts, "static_assert(__builtin_offsetof(%s, %s) == %d, %s);\n", t.blockC, cname, offsets[i],
			cString(fmt.Sprintf("%s.%s must be at byte %d, as in the Go struct", t.blockC, cname, offsets[i])))
	}
	size := sizes.Sizeof(st)
	t.blockAlign = min(4, lowBit(uint64(size)))
	if len(fields) > 0 && packed != size && !badField {
		t.errorf(tn.Pos(), "block type %s is %d bytes in Go but its fields take %d: the struct has trailing padding; ggml block layouts have none", tn.Name(), size, packed)
	}
	b.WriteString("};\n")
	b.WriteString(t.line(tn.Pos()))
	fmt.Fprintf(&b, "static_assert(sizeof(%s) == %d, %s);\n", t.blockC, size,
		cString(fmt.Sprintf("%s must be %d bytes, as the Go struct %s", t.blockC, size, tn.Name())))
	b.WriteString(asserts.String())
	return b.String()
}

// cString is s as a C string literal; bytes outside printable ASCII are
// octal escapes (which, unlike \x, cannot swallow a following digit).
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
