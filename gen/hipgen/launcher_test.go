package hipgen

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/hipgen/hiptest"
	"github.com/rocmforge/forge/gen/ir"
)

// TestLauncherHost runs the generated launchers on the host, without a GPU:
// the generated file is compiled host-only (hipcc --cuda-host-only: the
// launchers and the kernels' host stubs) and linked with testdata/hipstub.cc,
// which stands in for the HIP runtime and records each launch. So the
// argument checks, the grid arithmetic and the error plumbing are tested as
// compiled, not as read. (The kernels themselves need a GPU.)
func TestLauncherHost(t *testing.T) {
	hipcc := hiptest.HIPCC(t)
	cxx := hiptest.CXX(t)
	s := testSpec()
	tmp := t.TempDir()
	writeTree(t, tmp, mustFiles(t, s))
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	hiptest.Run(t, tmp, cxx, "-O1", "-c", filepath.Join(testdata, "hipstub.cc"), "-o", "hipstub.o")

	for _, tg := range s.Targets {
		if tg.Vendor != "amd" || tg.Name == "gfx1030" { // gfx1030's host code is gfx1100's
			continue
		}
		for _, f := range s.Formats {
			if f.Name != "Q4_0" && f.Name != "SUPER256" {
				continue
			}
			src := filepath.Join(tmp, "generated", "hip", tg.Name, f.Lower()+"_dequant.hip")
			obj := fmt.Sprintf("%s_%s.o", tg.Name, f.Lower())
			hiptest.Run(t, tmp, hipcc, "--offload-arch="+tg.Name, "--cuda-host-only", "-O2", "-Wall", "-Wextra", "-Werror",
				"-Wno-unused-command-line-argument", "-c", src, "-o", obj)
			for _, k := range s.Families[0].Kernels {
				name := fmt.Sprintf("%s/%s", tg.Name, k.Symbol(f.Name))
				t.Run(name, func(t *testing.T) {
					dst := map[string]string{"f32": "float", "f16": "uint16_t"}[k.Output]
					exe := fmt.Sprintf("%s_%s", tg.Name, k.Symbol(f.Name))
					hiptest.Run(t, tmp, cxx, "-O1", "-DFORGE_LAUNCHER="+k.Symbol(f.Name), "-DFORGE_DST="+dst,
						filepath.Join(testdata, "launcher_main.cc"), obj, "hipstub.o", "-o", exe)
					// A workgroup's step: ThreadsPerBlock·VectorsPerThread 16-byte vectors, in blocks.
					vec := int64(16 / map[string]int{"f32": 4, "f16": 2}[k.Output])
					tile := int64(tg.Dequant.ThreadsPerBlock*tg.Dequant.VectorsPerThread) * vec / int64(f.BlockElems)
					maxBlocks := int64(1) << 62 / int64(f.BlockElems)
					out := hiptest.Run(t, tmp, "./"+exe, fmt.Sprint(tile), fmt.Sprint(maxBlocks))
					checkLauncherCases(t, out, tg, tile, maxBlocks)
				})
			}
		}
	}
}

func checkLauncherCases(t *testing.T, out string, tg *ir.Target, tile, maxBlocks int64) {
	t.Helper()
	block := fmt.Sprintf("block=%d,1,1", tg.Dequant.ThreadsPerBlock)
	launched := func(n int64) string {
		grid := (n + tile - 1) / tile
		if grid > GridCap {
			grid = GridCap
		}
		return fmt.Sprintf("rc=0 launches=1 grid=%d,1,1 %s shared=0 n=%d args=ok", grid, block, n)
	}
	const refused = "rc=1 launches=0 grid=0,0,0 block=0,0,0 shared=0 n=-1 args=ok"
	want := map[string]string{
		"null_src":       refused,
		"null_dst":       refused,
		"negative":       refused,
		"most_negative":  refused,
		"too_many":       refused,
		"src_misaligned": refused,
		"dst_misaligned": refused,
		"zero":           "rc=0 launches=0 grid=0,0,0 block=0,0,0 shared=0 n=-1 args=ok",
		"zero_null":      "rc=0 launches=0 grid=0,0,0 block=0,0,0 shared=0 n=-1 args=ok",
		"one":            launched(1),
		"tile":           launched(tile),
		"tile_plus_one":  launched(tile + 1),
		"huge":           launched(1 << 40),
		"max":            launched(maxBlocks),
		"launch_error":   strings.Replace(launched(5), "rc=0", "rc=98", 1),
		"stale_error":    launched(5),
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, got, _ := strings.Cut(line, " ")
		seen[name] = true
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected case %q", line)
			continue
		}
		if got != w {
			t.Errorf("%s:\n got %s\nwant %s", name, got, w)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("case %s did not run:\n%s", name, out)
		}
	}
}
