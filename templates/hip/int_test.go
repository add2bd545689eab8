package hip

import (
	"encoding/binary"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/specs/formats"
)

// intBranches are the compilations of the header's integer-form section
// that TestIntIntrinsicsEmulated runs: the host's plain C and each vendor's
// device branch, selected by the macros the device compilers define.
var intBranches = []struct {
	name   string
	macros []string
}{
	{"host", nil},
	{"nvidia", []string{"-D__CUDA_ARCH__=900"}},
	{"gfx1030", []string{"-D__HIP_DEVICE_COMPILE__=1", "-D__gfx1030__=1"}},
	{"gfx90a", []string{"-D__HIP_DEVICE_COMPILE__=1", "-D__gfx90a__=1"}},
	{"gfx1100", []string{"-D__HIP_DEVICE_COMPILE__=1", "-D__gfx1100__=1", "-D__GFX11__=1"}},
}

// TestIntIntrinsicsEmulated runs forge_lut16 and forge_dot4 as each branch
// of the header compiles them, on the host, with the device instructions
// they call (__byte_perm, __dp4a, v_perm_b32, v_dot4) emulated as NVIDIA's
// and AMD's documentation define them (testdata/int_emu_main.cc), and
// compares them with formats.Lut16 and formats.Dot4: every combination of
// four codes for several tables, with random high nibbles, and random and
// extreme dot products. It proves the selector arithmetic of each branch
// given the documented instructions; that hipcc accepts the AMD branches
// is TestHeaderCompiles' part.
func TestIntIntrinsicsEmulated(t *testing.T) {
	cxx := hiptest.CXX(t)
	tmp := t.TempDir()
	hdr, err := fs.ReadFile(FS, "forge_portability.h")
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "// Integer-form intrinsics", "\n// ----"
	i := strings.Index(string(hdr), from)
	if i < 0 {
		t.Fatalf("forge_portability.h: no %q section", from)
	}
	j := strings.Index(string(hdr[i:]), to)
	if j < 0 {
		t.Fatalf("forge_portability.h: the %q section has no end", from)
	}
	main, err := os.ReadFile(filepath.Join("testdata", "int_emu_main.cc"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(main), "// FORGE_INT_INTRINSICS", string(hdr[i:i+j]), 1)
	if src == string(main) {
		t.Fatal("testdata/int_emu_main.cc has no // FORGE_INT_INTRINSICS marker")
	}
	if err := os.WriteFile(filepath.Join(tmp, "int_emu.cc"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(16, 4))
	// Tables: ascending entries (each byte names its index), the extremes,
	// and random ones.
	var tables [][16]int8
	var asc, ext [16]int8
	for k := range 16 {
		asc[k] = int8(k*16 + k)
		ext[k] = int8([]int{-128, 127, 0, -1}[k%4])
	}
	tables = append(tables, asc, ext)
	for range 4 {
		var r [16]int8
		for k := range r {
			r[k] = int8(rng.Uint32())
		}
		tables = append(tables, r)
	}
	var lutIn []byte
	var lutWant []uint32
	for _, tab := range tables {
		for c := range uint32(1 << 16) {
			q := c&0xf | c<<4&0xf00 | c<<8&0xf0000 | c<<12&0xf000000 | rng.Uint32()&0xf0f0f0f0
			for _, v := range tab {
				lutIn = append(lutIn, byte(v))
			}
			lutIn = binary.LittleEndian.AppendUint32(lutIn, q)
			lutWant = append(lutWant, formats.Lut16(&tab, q))
		}
	}
	var dotIn []byte
	var dotWant []uint32
	dot := func(a, b uint32, c int32) {
		dotIn = binary.LittleEndian.AppendUint32(dotIn, a)
		dotIn = binary.LittleEndian.AppendUint32(dotIn, b)
		dotIn = binary.LittleEndian.AppendUint32(dotIn, uint32(c))
		dotWant = append(dotWant, uint32(formats.Dot4(a, b, c)))
	}
	dot(0x80808080, 0x80808080, 0)
	dot(0x7f7f7f7f, 0x80808080, math.MinInt32)
	dot(0x01, 0x01, math.MaxInt32)
	dot(0xffffffff, 0x01010101, 0)
	for range 100000 {
		dot(rng.Uint32(), rng.Uint32(), int32(rng.Uint32()))
	}
	for name, data := range map[string][]byte{"lut.in": lutIn, "dot.in": dotIn} {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, br := range intBranches {
		t.Run(br.name, func(t *testing.T) {
			exe := "int_emu_" + br.name
			args := append([]string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror",
				"-fsanitize=undefined", "-fno-sanitize-recover=all"}, br.macros...)
			hiptest.Run(t, tmp, cxx, append(args, "-o", exe, "int_emu.cc")...)
			for _, fn := range []struct {
				mode string
				want []uint32
			}{{"lut", lutWant}, {"dot", dotWant}} {
				out := filepath.Join(tmp, exe+"."+fn.mode)
				hiptest.Run(t, tmp, "./"+exe, fn.mode, fn.mode+".in", out)
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 4*len(fn.want) {
					t.Fatalf("%s: %d bytes out, want %d", fn.mode, len(got), 4*len(fn.want))
				}
				bad := 0
				for k, w := range fn.want {
					g := binary.LittleEndian.Uint32(got[4*k:])
					if g == w {
						continue
					}
					if bad++; bad <= 5 {
						if fn.mode == "lut" {
							t.Errorf("forge_lut16 of table %v, q %#08x = %#08x; formats.Lut16 = %#08x",
								tables[k>>16], binary.LittleEndian.Uint32(lutIn[20*k+16:]), g, w)
						} else {
							t.Errorf("forge_dot4(%#08x, %#08x, %d) = %d; formats.Dot4 = %d",
								binary.LittleEndian.Uint32(dotIn[12*k:]), binary.LittleEndian.Uint32(dotIn[12*k+4:]),
								int32(binary.LittleEndian.Uint32(dotIn[12*k+8:])), int32(g), int32(w))
						}
					}
				}
				if bad > 0 {
					t.Errorf("%s: %d of %d differ", fn.mode, bad, len(fn.want))
				}
			}
		})
	}
}
