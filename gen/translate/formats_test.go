package translate_test

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/internal/qvec"
	"github.com/rocmforge/forge/internal/sharedtest"
	"github.com/rocmforge/forge/specs/formats"
)

func loadFormats(t testing.TB) *translate.Package {
	pkg, _ := load(t, "specs/formats")
	return pkg
}

// TestFormats translates every block type of specs/formats without errors.
func TestFormats(t *testing.T) {
	pkg := loadFormats(t)
	bts := blockTypes(pkg)
	if len(bts) < 15 {
		t.Fatalf("found %d block types in specs/formats", len(bts))
	}
	for _, bt := range bts {
		dev, err := translate.Block(pkg, bt.name)
		if err != nil {
			t.Errorf("%s:\n%v", bt.name, err)
			continue
		}
		if testing.Verbose() {
			t.Logf("%s\n%s", bt.name, dev.Code)
		}
	}
}

// formatBlocks maps each registered format's name to its block type, read
// from the register calls: var X = register(Meta{Name: "..."}, func(dst
// []float32, src []BlockX) {...}).
func formatBlocks(t *testing.T, pkg *translate.Package) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range pkg.Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				for _, v := range s.(*ast.ValueSpec).Values {
					call, ok := v.(*ast.CallExpr)
					if !ok || len(call.Args) != 2 {
						continue
					}
					if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "register" {
						continue
					}
					var name, block string
					if lit, ok := call.Args[0].(*ast.CompositeLit); ok {
						for _, e := range lit.Elts {
							if kv, ok := e.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Name" {
								name = constant.StringVal(pkg.Info.Types[kv.Value].Value)
							}
						}
					}
					if fl, ok := call.Args[1].(*ast.FuncLit); ok && len(fl.Type.Params.List) == 2 {
						if at, ok := fl.Type.Params.List[1].Type.(*ast.ArrayType); ok {
							block = fmt.Sprint(at.Elt)
						}
					}
					if name == "" || block == "" {
						t.Fatalf("%s: cannot read the register call", pkg.Fset.Position(call.Pos()))
					}
					out[name] = block
				}
			}
		}
	}
	return out
}

// formatUnits translates every registered format.
func formatUnits(t *testing.T) ([]unit, []*formats.Format) {
	t.Helper()
	pkg := loadFormats(t)
	blocks := formatBlocks(t, pkg)
	var units []unit
	var fs []*formats.Format
	for _, f := range formats.All() {
		bt, ok := blocks[f.Name]
		if !ok {
			t.Fatalf("no register call found for %s", f.Name)
		}
		dev, err := translate.Block(pkg, bt)
		if err != nil {
			t.Fatalf("%s:\n%v", bt, err)
		}
		units = append(units, unit{name: bt, dev: dev, elems: f.BlockElems, sub: max(f.SubBlock, 1)})
		fs = append(fs, f)
	}
	return units, fs
}

// fmaOps are the AMDGPU instructions a contracted multiply-add becomes.
var fmaOps = regexp.MustCompile(`\bv_(fma|fmac|mad|mac|fma_mix|pk_fma)_f32\b`)

// TestFormatsHIP compiles the translation of every format for gfx1030 with
// hipcc, as the kernel library build does: it must be valid HIP, and with
// contraction off no multiply-add may be fused. (The same source compiled
// with contraction on does fuse, which shows the check can fail.)
func TestFormatsHIP(t *testing.T) {
	hiptest.HIPCC(t)
	units, _ := formatUnits(t)
	asm := compileDevice(t, units, "-ffp-contract=off")
	if m := fmaOps.FindAllString(asm, -1); len(m) > 0 {
		t.Errorf("with -ffp-contract=off the device code has %d fused multiply-adds (%s)", len(m), m[0])
	}
	for _, u := range units {
		if !strings.Contains(asm, "k_"+u.name) {
			t.Errorf("no kernel for %s in the assembly", u.name)
		}
	}
	if asm := compileDevice(t, units, "-ffp-contract=fast"); !fmaOps.MatchString(asm) {
		t.Errorf("with -ffp-contract=fast no multiply-add was fused: the FMA check above proves nothing")
	}
}

// TestFormatsHost is the semantic check: the translated code of every
// format, compiled for the host, dequantizes the known-answer blocks and
// random blocks to exactly the bits the Go spec gives.
func TestFormatsHost(t *testing.T) {
	units, fs := formatUnits(t)
	exe := buildHost(t, units)
	rng := rand.New(rand.NewPCG(7, 11))
	for i, u := range units {
		f := fs[i]
		t.Run(f.Name, func(t *testing.T) {
			var raw []byte
			var known []float32
			// Random blocks always; ggml's known answers when the shared
			// folder is there (sharedtest.Path fails instead of skipping
			// when $FORGE_REQUIRE_SHARED=1) and its manifest lists the
			// format's dequant vectors (a format ggml lacks has none).
			if dir := sharedtest.Dir(); dir != "" || os.Getenv(sharedtest.EnvRequire) == "1" {
				m, err := qvec.ReadManifest(sharedtest.Path(t, "vectors/manifest.json"))
				if err != nil {
					t.Fatal(err)
				}
				if name := m.File(f.Name, "dequant"); name != "" {
					v, err := qvec.Read(sharedtest.Path(t, "vectors/"+name))
					if err != nil {
						t.Fatal(err)
					}
					raw, known = v.Raw, v.Floats
				}
			}
			nKnown := len(raw) / f.BlockBytes
			random := make([]byte, 512*f.BlockBytes)
			for k := range random {
				random[k] = byte(rng.Uint32())
			}
			raw = append(raw, random...)
			want := make([]float32, len(raw)/f.BlockBytes*f.BlockElems)
			if err := f.Dequantize(want, raw); err != nil {
				t.Fatal(err)
			}
			got := runHost(t, exe, i, u, raw)
			compareBits(t, f.Name+" (translated C++ vs Go spec)", got, want, f.BlockElems)
			if known != nil {
				compareBits(t, f.Name+" (translated C++ vs ggml known answers)", got[:len(known)], known, f.BlockElems)
			}
			t.Logf("%d known-answer and 512 random blocks agree bit for bit", nKnown)
			if (u.dev.Int != nil) != f.HasIntForm() {
				t.Fatalf("translated integer form: %v; the Go format has one: %v", u.dev.Int != nil, f.HasIntForm())
			}
			if u.dev.Int == nil {
				return
			}
			// The integer form: Codes, Scale and Offset of every word and
			// sub-block, bit for bit, on the same blocks (any bytes: the
			// methods, unlike the contract they satisfy, are defined for
			// every block).
			got = runHost(t, exe, i, u, raw, "int")
			nw, ns := f.BlockElems/4, f.BlockElems/f.SubBlock
			per := nw + 2*ns
			if len(got) != len(raw)/f.BlockBytes*per {
				t.Fatalf("integer form: %d words from the harness, want %d", len(got), len(raw)/f.BlockBytes*per)
			}
			bad := 0
			for b := 0; b < len(raw)/f.BlockBytes && bad < 5; b++ {
				blk := raw[b*f.BlockBytes : (b+1)*f.BlockBytes]
				g := got[b*per : (b+1)*per]
				for w := range nw {
					if c, want := math.Float32bits(g[w]), f.IntCodes(blk, int32(w)); c != want {
						bad++
						t.Errorf("block %d: Codes(%d) = %#08x in C++, %#08x in Go", b, w, c, want)
					}
				}
				for s := range ns {
					sc, off := g[nw+2*s], g[nw+2*s+1]
					if want := f.IntScale(blk, int32(s)); math.Float32bits(sc) != math.Float32bits(want) {
						bad++
						t.Errorf("block %d: Scale(%d) = %g (%#08x) in C++, %g in Go", b, s, sc, math.Float32bits(sc), want)
					}
					if want := f.IntOffset(blk, int32(s)); math.Float32bits(off) != math.Float32bits(want) {
						bad++
						t.Errorf("block %d: Offset(%d) = %g (%#08x) in C++, %g in Go", b, s, off, math.Float32bits(off), want)
					}
				}
			}
		})
	}
}
