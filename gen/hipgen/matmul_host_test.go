package hipgen_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen"
	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/internal/modtest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// TestMatMulKernelHost runs the generic matmul kernel of every format, as
// generated from the real specs, on the host: the generated file is
// compiled by a plain C++ compiler against testdata/matmul_emu.h, which
// runs a workgroup's threads as std::threads meeting at a barrier (and the
// real header's scalar intrinsics), so the tiling, the staging, the edge
// guards and the register tiles are tested as written, without a GPU. Each
// format runs at the spec's tuning and at a small odd one set through the
// -DFORGE_TUNE_MATMUL_* knobs (a K step that straddles blocks), on shapes
// whose rows and batch are multiples of no tile, against the float64
// reference (suite.MatMulRef) within suite.MatMulTolerance. The NVIDIA
// tensor-core path runs too, with nvcuda::wmma emulated on the host (its
// f16 rounding included), which checks its tiling and indexing; nvcc
// itself is not here, so its compilation is checked only where nvcc is.
func TestMatMulKernelHost(t *testing.T) {
	cxx := hiptest.CXX(t)
	if testing.Short() {
		t.Skip("compiles a kernel per format")
	}
	root := modtest.Root(t)
	_, files, err := gen.Render(root)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	writeEmuHeader(t, root, tmp)
	mainSrc, err := filepath.Abs(filepath.Join("testdata", "matmul_emu_main.cc"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "gfx1100"), 0o755); err != nil {
		t.Fatal(err)
	}
	const target = "gfx1100"
	n := 0
	for _, file := range files {
		name, ok := strings.CutPrefix(file.Path, "generated/hip/"+target+"/")
		if !ok || !strings.HasSuffix(name, "_matmul.hip") {
			continue
		}
		n++
		lower := strings.TrimSuffix(name, "_matmul.hip")
		f, ok := formats.ByName(strings.ToUpper(lower))
		if !ok {
			t.Errorf("%s: no format %s", file.Path, strings.ToUpper(lower))
			continue
		}
		src := filepath.Join(tmp, target, name)
		if err := os.WriteFile(src, file.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tune := range []struct {
			name  string
			flags []string
		}{
			{"spec", nil},
			{"odd", []string{"-DFORGE_TUNE_MATMUL_THREADS=64", "-DFORGE_TUNE_MATMUL_TM=16", "-DFORGE_TUNE_MATMUL_TN=8",
				"-DFORGE_TUNE_MATMUL_TK=48", "-DFORGE_TUNE_MATMUL_RM=2"}},
			// The NVIDIA tensor-core path, emulated (matmul_emu.h), at
			// sm_90's tuning and at a small one.
			{"wmma", []string{"-DFORGE_EMU_WMMA", "-DFORGE_TUNE_MATMUL_THREADS=256", "-DFORGE_TUNE_MATMUL_TM=128", "-DFORGE_TUNE_MATMUL_TN=128",
				"-DFORGE_TUNE_MATMUL_TK=32", "-DFORGE_TUNE_MATMUL_WARP_ROWS=4"}},
			{"wmma_small", []string{"-DFORGE_EMU_WMMA", "-DFORGE_TUNE_MATMUL_THREADS=64", "-DFORGE_TUNE_MATMUL_TM=32", "-DFORGE_TUNE_MATMUL_TN=16",
				"-DFORGE_TUNE_MATMUL_TK=16", "-DFORGE_TUNE_MATMUL_WARP_ROWS=2"}},
		} {
			if tune.name == "wmma_small" && f.Name != "Q4_0" && f.Name != "Q4_K" && f.Name != "F32" {
				continue // the path's indexing does not depend on the format
			}
			t.Run(f.Name+"/"+tune.name, func(t *testing.T) {
				t.Parallel()
				exe := filepath.Join(tmp, lower+"_"+tune.name)
				args := append([]string{"-std=c++17", "-O1", "-pthread", "-x", "c++", src, "-x", "none", mainSrc,
					"-DFORGE_LAUNCHER=forge_matmul_f32_" + lower, "-o", exe}, tune.flags...)
				hiptest.Run(t, tmp, cxx, args...)
				for _, sh := range []struct{ rows, blocks, batch int }{{37, 3, 7}, {70, 1, 19}, {5, 0, 3}} {
					rows, cols, batch := sh.rows, sh.blocks*f.BlockElems, sh.batch
					if f.BlockElems == 1 {
						cols = sh.blocks * 37
					}
					runHostMatMul(t, tmp, exe, f, rows, cols, batch)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no matmul files rendered")
	}
}

// writeEmuHeader writes dir/forge_portability.h: testdata/matmul_emu.h
// with the real header's scalar intrinsics spliced in, which the generated
// files in dir/<target>/ include as "../forge_portability.h".
// writeTargetFiles writes each target's rendered generated/hip/<target>/name
// (a per-target family file: attention.hip, glue.hip) under dir/<target>/
// and returns the paths by target.
func writeTargetFiles(t *testing.T, files []ir.File, dir, name string) map[string]string {
	t.Helper()
	src := map[string]string{}
	for _, f := range files {
		sub, base := filepath.Split(strings.TrimPrefix(f.Path, "generated/hip/"))
		if base != name {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, sub, base)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		src[strings.TrimSuffix(sub, "/")] = p
	}
	return src
}

func writeEmuHeader(t *testing.T, root, dir string) {
	t.Helper()
	hdr, err := os.ReadFile(filepath.Join(root, "templates", "hip", "forge_portability.h"))
	if err != nil {
		t.Fatal(err)
	}
	const from, to = "// Scalar types of the format specs", "// The host runtime API"
	i, j := strings.Index(string(hdr), from), strings.Index(string(hdr), to)
	if i < 0 || j < i {
		t.Fatalf("forge_portability.h: no %q ... %q section", from, to)
	}
	i = strings.LastIndex(string(hdr[:i]), "\n// ----")
	emu, err := os.ReadFile(filepath.Join("testdata", "matmul_emu.h"))
	if err != nil {
		t.Fatal(err)
	}
	shim := strings.Replace(string(emu), "// FORGE_EMU_INTRINSICS", string(hdr[i:j]), 1)
	if err := os.WriteFile(filepath.Join(dir, "forge_portability.h"), []byte(shim), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runHostMatMul(t *testing.T, dir, exe string, f *formats.Format, rows, cols, batch int) {
	t.Helper()
	w, x, err := suite.MatMulData(f, rows, cols, batch, suite.Seed(f.Name)+uint64(rows))
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("%s_%d_%d_%d", filepath.Base(exe), rows, cols, batch)
	wp, xp, yp := filepath.Join(dir, base+".w"), filepath.Join(dir, base+".x"), filepath.Join(dir, base+".y")
	xb := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(xb[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(wp, w, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(xp, xb, 0o644); err != nil {
		t.Fatal(err)
	}
	out := hiptest.Run(t, dir, exe, wp, xp, yp, fmt.Sprint(rows), fmt.Sprint(cols), fmt.Sprint(batch))
	if want := "rc=0 launches=1\n"; out != want {
		t.Errorf("%d×%d×%d: %q, want %q", rows, cols, batch, out, want)
	}
	yb, err := os.ReadFile(yp)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float32, len(yb)/4)
	for i := range y {
		y[i] = math.Float32frombits(binary.LittleEndian.Uint32(yb[4*i:]))
	}
	if len(y) != rows*batch {
		t.Fatalf("%d×%d×%d: %d values of Y", rows, cols, batch, len(y))
	}
	ref, mag := suite.MatMulRef(f, w, x, rows, cols, batch)
	if nmse, bad := suite.NMSE(y, ref), suite.BadEntries(y, ref, mag); !(nmse <= suite.MatMulTolerance) || bad > 0 {
		msg := fmt.Sprintf("%s %d×%d×%d: NMSE %.3g, %d bad entries; worst:", f.Name, rows, cols, batch, nmse, bad)
		for _, e := range suite.WorstEntries(y, ref, rows, 5) {
			msg += "\n\t" + e.String()
		}
		t.Error(msg)
	}
}
