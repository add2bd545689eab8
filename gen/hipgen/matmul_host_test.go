package hipgen_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocmforge/forge/internal/longtest"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// matmulTunes are the tunings TestMatMulKernelHost runs the formats at,
// through the -DFORGE_TUNE_MATMUL_* knobs: the generic path
// (-DFORGE_NO_MM_INT: the integer path off) at the target spec's tuning and
// at a small odd one (a K step that straddles blocks); the NVIDIA
// tensor-core path, emulated (emu.h), at sm_90's tuning, at a small one, and
// at a small one that splits K, and on gfx1100 through the header's
// nvcuda::wmma subset on RDNA3's WMMA (emulated); and the AMD integer path (the target spec's
// MatMulInt classes, which split K for batches up to 16) on gfx1100 with
// forge_dot4 and with gfx11's WMMA emulated, and on gfx90a (wave64) with
// forge_dot4 and with CDNA's MFMA emulated (FORGE_EMU_MMA16). A tuning that
// is not every format's runs only for matmulFormats (its indexing does not
// depend on the format).
var matmulTunes = []struct {
	name     string
	target   string
	every    bool
	flags    []string
	launches int  // per call of the generic and f16 paths: 2 where K is split (Y is zeroed first)
	intPath  bool // the formats with the integer form take the integer path
	// intLaunches: per call of the integer path when its configuration is
	// forced (FORGE_TUNE_MATMUL_INT_FORCE_*); 0: the classes' (X's
	// quantization and the kernel, and Y zeroed first up to batch 16).
	intLaunches int
}{
	{"spec", "gfx1100", true, []string{"-DFORGE_NO_MM_INT"}, 1, false, 0},
	{"odd", "gfx1100", true, []string{"-DFORGE_NO_MM_INT", "-DFORGE_TUNE_MATMUL_THREADS=64", "-DFORGE_TUNE_MATMUL_TM=16", "-DFORGE_TUNE_MATMUL_TN=8",
		"-DFORGE_TUNE_MATMUL_TK=48", "-DFORGE_TUNE_MATMUL_RM=2"}, 1, false, 0},
	{"wmma", "gfx1100", true, []string{"-DFORGE_NO_MM_INT", "-DFORGE_EMU_WMMA", "-DFORGE_TUNE_MATMUL_THREADS=256", "-DFORGE_TUNE_MATMUL_TM=128", "-DFORGE_TUNE_MATMUL_TN=128",
		"-DFORGE_TUNE_MATMUL_TK=32", "-DFORGE_TUNE_MATMUL_WARP_ROWS=4"}, 1, false, 0},
	{"wmma_small", "gfx1100", false, []string{"-DFORGE_NO_MM_INT", "-DFORGE_EMU_WMMA", "-DFORGE_TUNE_MATMUL_THREADS=64", "-DFORGE_TUNE_MATMUL_TM=32", "-DFORGE_TUNE_MATMUL_TN=16",
		"-DFORGE_TUNE_MATMUL_TK=16", "-DFORGE_TUNE_MATMUL_WARP_ROWS=2"}, 1, false, 0},
	// K split over 3 workgroups that add into Y (the small-batch class's
	// scheme on sm_90).
	{"wmma_split", "gfx1100", false, []string{"-DFORGE_NO_MM_INT", "-DFORGE_EMU_WMMA", "-DFORGE_TUNE_MATMUL_THREADS=64", "-DFORGE_TUNE_MATMUL_TM=32", "-DFORGE_TUNE_MATMUL_TN=16",
		"-DFORGE_TUNE_MATMUL_TK=16", "-DFORGE_TUNE_MATMUL_WARP_ROWS=2", "-DFORGE_TUNE_MATMUL_SPLIT_K=3"}, 2, false, 0},
	// The f16 tensor-core path on RDNA3's WMMA (the header's nvcuda::wmma
	// subset, the instruction emulated), at gfx1100's tuning.
	{"amd_wmma", "gfx1100", true, []string{"-DFORGE_NO_MM_INT", "-DFORGE_EMU_AMD_WMMA"}, 1, false, 0},
	// CDNA's MFMA (wave64) under the same subset, at gfx90a's tuning.
	{"amd_mfma", "gfx90a", true, []string{"-DFORGE_NO_MM_INT", "-DFORGE_EMU_AMD_WMMA=2"}, 1, false, 0},
	{"int_dot4", "gfx1100", true, nil, 1, true, 0},
	{"int_wmma", "gfx1100", true, []string{"-DFORGE_EMU_MMA16=1"}, 1, true, 0},
	{"int_dot4_wave64", "gfx90a", false, nil, 1, true, 0},
	{"int_mfma", "gfx90a", true, []string{"-DFORGE_EMU_MMA16=2"}, 1, true, 0},
	// One configuration forced for every batch, as forgebench tune
	// --family matmul_int compiles its candidates: 2 waves, 32 × 16 tiles,
	// K split 3 ways (so Y is zeroed first at every batch); the knobs left
	// out take the last class's.
	{"int_forced", "gfx1100", false, []string{"-DFORGE_EMU_MMA16=1", "-DFORGE_TUNE_MATMUL_INT_FORCE_THREADS=64", "-DFORGE_TUNE_MATMUL_INT_FORCE_TM=32",
		"-DFORGE_TUNE_MATMUL_INT_FORCE_TN=16", "-DFORGE_TUNE_MATMUL_INT_FORCE_WARP_ROWS=2", "-DFORGE_TUNE_MATMUL_INT_FORCE_SPLIT_K=3"}, 1, true, 3},
	// K steps of two 256-element blocks (the super form's X scale a block).
	{"int_forced_k512", "gfx1100", false, []string{"-DFORGE_EMU_MMA16=1", "-DFORGE_TUNE_MATMUL_INT_FORCE_THREADS=64", "-DFORGE_TUNE_MATMUL_INT_FORCE_TM=32",
		"-DFORGE_TUNE_MATMUL_INT_FORCE_TN=16", "-DFORGE_TUNE_MATMUL_INT_FORCE_TK=512", "-DFORGE_TUNE_MATMUL_INT_FORCE_WARP_ROWS=2", "-DFORGE_TUNE_MATMUL_INT_FORCE_SPLIT_K=1"}, 1, true, 2},
	{"int_forced_wave64", "gfx90a", false, []string{"-DFORGE_TUNE_MATMUL_INT_FORCE_THREADS=128", "-DFORGE_TUNE_MATMUL_INT_FORCE_TM=32",
		"-DFORGE_TUNE_MATMUL_INT_FORCE_TN=32", "-DFORGE_TUNE_MATMUL_INT_FORCE_TK=256", "-DFORGE_TUNE_MATMUL_INT_FORCE_WARP_ROWS=1"}, 1, true, 2},
}

// matmulFormats run in every run of TestMatMulKernelHost: a 32-element
// block, a 256-element super-block and a one-element "block" (F32: columns
// that are a multiple of nothing). The other formats run with the long
// tests.
var matmulFormats = map[string]bool{"Q4_0": true, "Q4_K": true, "F32": true}

// TestMatMulKernelHost runs the matmul kernels, as generated from the real
// specs for gfx1100 (and gfx90a, wave64, for the AMD integer path), on the
// host (emuHost), so that the tiling, the staging, the edge guards and the
// register tiles are tested as written, without a GPU: every format
// (matmulFormats unless FORGE_LONG_TESTS=1) at every tuning of
// matmulTunes, on shapes whose rows and batch are multiples of no tile,
// against the float64 reference (suite.MatMulRef) within
// suite.MatMulTolerance, each entry within suite.MatMulEntryTolerance of
// its magnitude (plus suite.MatMulX8Slack on the integer path). The
// NVIDIA tensor-core path runs with nvcuda::wmma emulated (its f16
// rounding included), which checks its tiling and indexing; nvcc itself
// is not here, so its compilation is checked only where nvcc is. The AMD
// matrix instructions run emulated from the layouts forge_portability.h
// documents; hipcc compiles the real ones (.ci/hipcc-check). The formats a
// tuning runs are compiled together, as one translation unit.
func TestMatMulKernelHost(t *testing.T) {
	e := newEmuHost(t)
	type format struct {
		*formats.Format
		lower string
	}
	var all []format
	for _, spec := range e.spec.Formats {
		f, ok := formats.ByName(spec.Name)
		if !ok {
			t.Errorf("%s: no format %s in specs/formats", spec.File, spec.Name)
			continue
		}
		all = append(all, format{f, spec.Lower()})
	}
	if len(all) == 0 {
		t.Fatal("no formats rendered")
	}
	for _, tune := range matmulTunes {
		t.Run(tune.name, func(t *testing.T) {
			t.Parallel()
			var run []format
			var files []string
			for _, f := range all {
				if matmulFormats[f.Name] || (tune.every && longtest.Enabled()) {
					run = append(run, f)
					files = append(files, f.lower+"_matmul.hip")
				}
			}
			obj := e.unity(t, tune.target, files, "matmul_"+tune.name, tune.flags...)
			exe := e.link(t, "matmul", "matmul_"+tune.name, obj)
			for _, f := range all {
				if !tune.every && !matmulFormats[f.Name] {
					continue
				}
				t.Run(f.Name, func(t *testing.T) {
					if !slices.Contains(run, f) {
						longtest.Skip(t, "the matmul kernel of every format, emulated")
					}
					for _, sh := range []struct{ rows, blocks, batch int }{{37, 3, 7}, {70, 1, 19}, {5, 0, 3}} {
						rows, cols, batch := sh.rows, sh.blocks*f.BlockElems, sh.batch
						if f.BlockElems == 1 {
							cols = sh.blocks * 37
						}
						launches, x8 := tune.launches, tune.intPath && f.HasIntForm()
						if x8 { // the quantization of X, then (a batch up to 16: K split, Y zeroed) the kernel
							launches = 2
							if batch <= 16 {
								launches = 3
							}
							if tune.intLaunches > 0 {
								launches = tune.intLaunches
							}
						}
						runHostMatMul(t, e, exe, "forge_matmul_f32_"+f.lower, f.Format, rows, cols, batch, launches, x8)
					}
				})
			}
		})
	}
}

func runHostMatMul(t *testing.T, e *emuHost, exe, launcher string, f *formats.Format, rows, cols, batch, launches int, x8 bool) {
	t.Helper()
	w, x, err := suite.MatMulData(f, rows, cols, batch, suite.Seed(f.Name)+uint64(rows))
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("%s_%s_%d_%d_%d", filepath.Base(exe), launcher, rows, cols, batch)
	wp, xp, yp := e.write(t, base+".w", w), e.write(t, base+".x", f32Bytes(x)), filepath.Join(e.dir, base+".y")
	if out, want := e.run(t, exe, launcher, wp, xp, yp, rows, cols, batch), launched(0, launches); out != want {
		t.Errorf("%d×%d×%d: %q, want %q", rows, cols, batch, out, want)
	}
	y := readFloats(t, yp)
	if len(y) != rows*batch {
		t.Fatalf("%d×%d×%d: %d values of Y", rows, cols, batch, len(y))
	}
	ref, mag := suite.MatMulRef(f, w, x, rows, cols, batch)
	bad := 0
	if x8 {
		bad = suite.BadEntriesX8(y, ref, mag, suite.MatMulX8Slack(f, w, x, rows, cols, batch))
	} else {
		bad = suite.BadEntries(y, ref, mag)
	}
	if nmse := suite.NMSE(y, ref); !(nmse <= suite.MatMulTolerance) || bad > 0 {
		msg := fmt.Sprintf("%s %d×%d×%d: NMSE %.3g, %d bad entries; worst:", f.Name, rows, cols, batch, nmse, bad)
		for _, e := range suite.WorstEntries(y, ref, rows, 5) {
			msg += "\n\t" + e.String()
		}
		t.Error(msg)
	}
}

// TestMatMulHMMAHost runs F16's matmul as generated for sm_90, whose f16
// path on NVIDIA is the mma.sync kernel (X converted to f16 by a kernel of
// its own, W and X staged by cp.async, ldmatrix operands), with mma.sync,
// ldmatrix and cp.async emulated from the layouts forge_portability.h
// documents (emu.h, FORGE_EMU_MMA_SYNC; a copy lands at its wait, so a
// stage read too early or overwritten too soon reads wrong data): at
// sm_90's MatMulHalf classes (X converted, Y zeroed where the class
// splits K, the kernel) and at small forced tiles with two stages and no split (X
// converted, the kernel), on shapes whose rows and batch are multiples of
// no tile and whose K takes many steps. The launch count tells the mma.sync
// kernel from the wmma one (which converts nothing). Then the quantized
// formats' route through f16 (MatMulF16MinBatch, forced on every batch):
// Q4_0's and Q4_K's matmul files linked with their dequant files and F16's,
// W dequantized to f16 (one more launch) and multiplied by F16's launcher.
func TestMatMulHMMAHost(t *testing.T) {
	e := newEmuHost(t)
	small := []string{"-DFORGE_MATMUL_HMMA_SMEM=4096"}
	for _, class := range []string{"FORGE_TUNE_MATMUL_HALF_", "FORGE_TUNE_MATMUL_HALF_UPTO16_", "FORGE_TUNE_MATMUL_HALF_UPTO64_", "FORGE_TUNE_MATMUL_HALF_UPTO256_"} {
		small = append(small, "-D"+class+"THREADS=64", "-D"+class+"TM=32", "-D"+class+"TN=16", "-D"+class+"TK=32",
			"-D"+class+"WARP_ROWS=2", "-D"+class+"SPLIT_K=1")
	}
	// One warp of 64 × 64 (4 × 8 products a k16 slice): each slice's
	// operands are loaded once, not one slice ahead.
	wide := []string{}
	for _, class := range []string{"FORGE_TUNE_MATMUL_HALF_", "FORGE_TUNE_MATMUL_HALF_UPTO16_", "FORGE_TUNE_MATMUL_HALF_UPTO64_", "FORGE_TUNE_MATMUL_HALF_UPTO256_"} {
		wide = append(wide, "-D"+class+"THREADS=32", "-D"+class+"TM=64", "-D"+class+"TN=64", "-D"+class+"TK=64",
			"-D"+class+"WARP_ROWS=1", "-D"+class+"SPLIT_K=1")
	}
	for _, tune := range []struct {
		name     string
		formats  []string
		files    []string
		flags    []string
		launches func(cols, batch int) int
	}{
		{"spec", []string{"F16"}, []string{"f16_matmul.hip"}, nil, func(int, int) int { return 2 }},
		{"small", []string{"F16"}, []string{"f16_matmul.hip"}, small, func(int, int) int { return 2 }},
		{"wide_warp", []string{"F16"}, []string{"f16_matmul.hip"}, wide, func(int, int) int { return 2 }},
		// The wgmma product above batch 64 (X converted and Y zeroed in one
		// launch: every shape here is under 128 tiles, so K is split; the
		// 128 × 256 tile from batch 129, whatever K), on the kernel that
		// stages by cp.async (the default fed by TMA is below).
		{"wgmma", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0", "-DFORGE_MM_WGMMA_TMA=0"}, func(int, int) int { return 2 }},
		{"wgmma_n128x2", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0", "-DFORGE_MM_WGMMA_TMA=0", "-DFORGE_MM_WGMMA_N128X2=1", "-DFORGE_MM_WGMMA_ISSUE_FIRST=1"}, func(int, int) int { return 2 }},
		// One configuration forced on every batch, as forgebench tune
		// --family matmul_half compiles its candidates: K split 3 ways.
		{"forced", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_TUNE_MATMUL_HALF_FORCE_THREADS=64", "-DFORGE_TUNE_MATMUL_HALF_FORCE_TM=32",
			"-DFORGE_TUNE_MATMUL_HALF_FORCE_TN=16", "-DFORGE_TUNE_MATMUL_HALF_FORCE_TK=32", "-DFORGE_TUNE_MATMUL_HALF_FORCE_WARP_ROWS=2",
			"-DFORGE_TUNE_MATMUL_HALF_FORCE_SPLIT_K=3"}, func(int, int) int { return 2 }},
		// W dequantized inside the wgmma product (-DFORGE_MM_WGMMA_Q, forced
		// on every batch): X converted (and Y zeroed) and the kernel, for
		// formats with an offset term (Q4_1, Q4_K), a zero code (Q4_0,
		// Q3_K, Q6_K), signed codes (Q8_0, MXFP4), sub-blocks of 16 (Q3_K,
		// Q6_K), blocks of 32 and 256 and 2-byte-aligned blocks (no
		// columns: the generic path, two launches).
		{"wgmma_q", []string{"Q4_0", "Q4_1", "Q8_0", "MXFP4", "Q3_K", "Q4_K", "Q6_K"},
			[]string{"q4_0_matmul.hip", "q4_1_matmul.hip", "q8_0_matmul.hip", "mxfp4_matmul.hip", "q3_k_matmul.hip", "q4_k_matmul.hip", "q6_k_matmul.hip"},
			[]string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_Q", "-DFORGE_MM_WGMMA_Q_MIN_BATCH=1", "-DFORGE_NO_MM_F16_ROUTE"},
			func(int, int) int { return 2 }},
		// The same with copies landing as they are issued: a buffer
		// refilled while other warps still decode from it is caught.
		{"wgmma_q_early", []string{"Q4_0", "Q4_K"}, []string{"q4_0_matmul.hip", "q4_k_matmul.hip"},
			[]string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_Q", "-DFORGE_MM_WGMMA_Q_MIN_BATCH=1", "-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_EMU_CP_ASYNC_EARLY"},
			func(int, int) int { return 2 }},
		// The integer path (mma.sync on int8, llama.cpp's MMQ design: the
		// int8 knob forced to 1 in files that build the f16 fragments), one
		// configuration forced on every batch (X quantized, Y zeroed, the
		// kernel; no columns: the generic path's two launches): one warp
		// column (each lane decodes its own A fragments) with K split 3
		// ways, and 2 × 2 warps (codes staged, ldmatrix) unsplit with K
		// steps of two 256-element blocks; formats
		// with an offset term (Q4_1, Q2_K, Q4_K, Q5_K), a zero code (Q4_0,
		// Q3_K, Q6_K), table codes (MXFP4), sub-blocks of 16, the super
		// form (the K-quants: integer sums a block) and, below, the
		// K-quants without it (-DFORGE_MM_INT_SUPER=0).
		{"int_direct", intFormats, intFiles, append([]string{"-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_TUNE_MATMUL_INT_FORCE_INT8=1"}, intForce(64, 32, 16, 128, 2, 3)...),
			intSplitLaunches},
		{"int_staged", intFormats, intFiles, append([]string{"-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_TUNE_MATMUL_INT_FORCE_INT8=1"}, intForce(128, 32, 32, 512, 2, 1)...),
			func(int, int) int { return 2 }},
		{"int_nosuper", []string{"Q2_K", "Q4_K", "Q6_K"}, []string{"q2_k_matmul.hip", "q4_k_matmul.hip", "q6_k_matmul.hip"},
			append([]string{"-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_TUNE_MATMUL_INT_FORCE_INT8=1", "-DFORGE_MM_INT_SUPER=0"}, intForce(64, 32, 16, 128, 2, 3)...),
			intSplitLaunches},
		// Warps of more pieces than the super form takes (4 × 8 of 16 × 8):
		// with -DFORGE_MM_INT_SUPER_SHRINK=0, the K-quants' plain integer
		// form, X quantized per 32; by default the columns halved until the
		// super form fits.
		{"int_big", []string{"Q4_K", "Q6_K"}, []string{"q4_k_matmul.hip", "q6_k_matmul.hip"},
			append([]string{"-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_TUNE_MATMUL_INT_FORCE_INT8=1", "-DFORGE_MM_INT_SUPER_SHRINK=0"}, intForce(64, 128, 64, 256, 2, 1)...),
			func(int, int) int { return 2 }},
		{"int_shrink", []string{"Q4_K"}, []string{"q4_k_matmul.hip"},
			append([]string{"-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_TUNE_MATMUL_INT_FORCE_INT8=1"}, intForce(64, 128, 64, 256, 2, 1)...),
			func(int, int) int { return 2 }},
		{"int_early", []string{"Q4_K", "Q6_K"}, []string{"q4_k_matmul.hip", "q6_k_matmul.hip"},
			append([]string{"-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_TUNE_MATMUL_INT_FORCE_INT8=1", "-DFORGE_EMU_CP_ASYNC_EARLY"}, intForce(128, 32, 32, 256, 2, 1)...),
			func(int, int) int { return 2 }},
		// The integer form decoded to f16 in the fragments
		// (the int8 knob 0, on every batch here): X converted (and Y
		// zeroed where K is split) and the kernel; its warps one above the
		// other, one 16-row piece each with K split 3 ways, two each with
		// 64 columns, and with copies landing as issued (a stage refilled
		// while a warp still decodes it is caught).
		{"f16frag", intFormats, intFiles, append(append([]string{}, f16Frag...), intForce(64, 32, 16, 128, 2, 3)...), func(int, int) int { return 2 }},
		{"f16frag_mt2", intFormats, intFiles, append(append([]string{}, f16Frag...), intForce(64, 64, 64, 256, 2, 1)...), func(int, int) int { return 2 }},
		{"f16frag_early", []string{"Q4_0", "Q4_K", "Q6_K"}, []string{"q4_0_matmul.hip", "q4_k_matmul.hip", "q6_k_matmul.hip"},
			append(append([]string{"-DFORGE_EMU_CP_ASYNC_EARLY"}, f16Frag...), intForce(128, 64, 32, 256, 4, 2)...), func(int, int) int { return 2 }},
		{"wgmma_early", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_TMA=0", "-DFORGE_EMU_CP_ASYNC_EARLY"}, func(int, int) int { return 2 }},
		// The warp-specialized wgmma kernel (a copying warpgroup and two
		// multiplying ones meeting at mbarriers; a wait gives way to the
		// other threads), with copies landing when their thread's arrival
		// signals them and as issued (a stage refilled before both
		// multiplying warpgroups released it is caught).
		{"wgmma_ws", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0", "-DFORGE_MM_WGMMA_TMA=0", "-DFORGE_MM_WGMMA_WS=1"}, func(int, int) int { return 2 }},
		{"wgmma_ws_early", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_TMA=0", "-DFORGE_MM_WGMMA_WS=1", "-DFORGE_EMU_CP_ASYNC_EARLY"}, func(int, int) int { return 2 }},
		{"wgmma_ws32", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_TMA=0", "-DFORGE_MM_WGMMA_WS=1", "-DFORGE_MM_WGMMA_WS_COPIERS=32"}, func(int, int) int { return 2 }},
		// The same fed by TMA: one thread's two box copies a stage and an
		// arrival that counts their bytes (copies land as issued, swizzled,
		// zeros past the edges), at the default stages and at two (a stage
		// refilled as soon as both warpgroups released it).
		{"wgmma_tma", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0"}, func(int, int) int { return 2 }},
		{"wgmma_tma_nopdl", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_PDL=0", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0"}, func(int, int) int { return 2 }},
		{"wgmma_tma2", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA",
			"-DFORGE_MM_WGMMA_STAGES_BN16=2", "-DFORGE_MM_WGMMA_STAGES_BN32=2", "-DFORGE_MM_WGMMA_STAGES_BN64=2", "-DFORGE_MM_WGMMA_STAGES_BN128=2",
			"-DFORGE_MM_WGMMA_STAGES_BN256=2"}, func(int, int) int { return 2 }},
		// In clusters of two sharing X's copies (TMA multicast, an
		// arrival at each workgroup's barrier releasing a stage; the
		// emulation runs a cluster's workgroups at once, each with its own
		// shared memory), with the 256-column tile (as the conversion's
		// dependent, the default), as a plain launch, and at two stages.
		// 260×16384×16 besides: both workgroups of a cluster store rows,
		// and each takes 32 K steps, more than its stages.
		{"wgmma_tma_cl2", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_CLUSTER=2", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0"}, func(int, int) int { return 2 }},
		{"wgmma_tma_cl2_plain", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_CLUSTER=2", "-DFORGE_MM_WGMMA_PDL=0"}, func(int, int) int { return 2 }},
		{"wgmma_tma_cl2_2", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_CLUSTER=2",
			"-DFORGE_MM_WGMMA_STAGES_BN16=2", "-DFORGE_MM_WGMMA_STAGES_BN32=2", "-DFORGE_MM_WGMMA_STAGES_BN64=2", "-DFORGE_MM_WGMMA_STAGES_BN128=2",
			"-DFORGE_MM_WGMMA_STAGES_BN256=2"}, func(int, int) int { return 2 }},
		// Launched as the conversion's dependent (FORGE_MM_WGMMA_PDL=1, the
		// default, named: the first stages' W copied before X's is waited
		// for; the emulation's dependent launch is a launch), at the
		// default stages and at two; wgmma_tma_nopdl above is the plain
		// launch.
		{"wgmma_tma_pdl", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_PDL=1", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0"}, func(int, int) int { return 2 }},
		{"wgmma_tma_pdl2", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_PDL=1",
			"-DFORGE_MM_WGMMA_STAGES_BN16=2", "-DFORGE_MM_WGMMA_STAGES_BN32=2", "-DFORGE_MM_WGMMA_STAGES_BN64=2", "-DFORGE_MM_WGMMA_STAGES_BN128=2",
			"-DFORGE_MM_WGMMA_STAGES_BN256=2"}, func(int, int) int { return 2 }},
		// As the dependent of the conversion that publishes X a K chunk
		// at a time (-DFORGE_MM_WGMMA_PDL=2: the filling thread waits for
		// each chunk's counter; the emulation runs the conversion first,
		// so a counter short of its slices is a unit never converted, and
		// aborts), with the 256-column tile (units of 128 vectors, the
		// carveout preference asked), and with a conversion grid of three
		// workgroups (each converting many units of 16 vectors, the parts
		// of a split K interleaved) at two stages.
		{"wgmma_tma_chunks", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_PDL=2", "-DFORGE_MM_WGMMA_BN256_MIN_COLS=0",
			"-DFORGE_MM_XH_CARVEOUT=1", "-DFORGE_MM_XH_CHUNKS_VECS=128"}, func(int, int) int { return 2 }},
		{"wgmma_tma_chunks_g3", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_MM_WGMMA_PDL=2", "-DFORGE_MM_XH_CHUNKS_GRID=3", "-DFORGE_MM_XH_CHUNKS_VECS=16",
			"-DFORGE_MM_WGMMA_STAGES_BN16=2", "-DFORGE_MM_WGMMA_STAGES_BN32=2", "-DFORGE_MM_WGMMA_STAGES_BN64=2", "-DFORGE_MM_WGMMA_STAGES_BN128=2",
			"-DFORGE_MM_WGMMA_STAGES_BN256=2"}, func(int, int) int { return 2 }},
		// A driver that refuses TMA maps: the kernel that stages by
		// cp.async instead (X converted once).
		{"wgmma_no_tma", []string{"F16"}, []string{"f16_matmul.hip"}, []string{"-DFORGE_EMU_WGMMA", "-DFORGE_EMU_NO_TMA"}, func(int, int) int { return 2 }},
		// One configuration of the integer path forced, the route's files
		// linked and the route not turned off: the integer kernel serves
		// every batch (X quantized and the kernel, K unsplit; no columns:
		// the generic path), as forgebench tune must time it.
		{"int_forced_no_route", []string{"Q4_0"}, []string{"q4_0_matmul.hip", "q4_0_dequant.hip", "f16_matmul.hip"},
			intForce(128, 32, 32, 256, 2, 1), func(int, int) int { return 2 }},
		// The dequantization launches nothing for no columns.
		{"route", []string{"Q4_0", "Q4_K"}, []string{"q4_0_matmul.hip", "q4_0_dequant.hip", "q4_k_matmul.hip", "q4_k_dequant.hip", "f16_matmul.hip"},
			[]string{"-DFORGE_MATMUL_F16_MIN_BATCH=1"}, func(c, _ int) int { return 2 + min(c, 1) }},
	} {
		t.Run(tune.name, func(t *testing.T) {
			t.Parallel()
			flags := append([]string{"-DFORGE_EMU_WMMA", "-DFORGE_EMU_MMA_SYNC"}, tune.flags...)
			obj := e.unity(t, "sm_90", tune.files, "matmul_hmma_"+tune.name, flags...)
			exe := e.link(t, "matmul", "matmul_hmma_"+tune.name, obj)
			for _, name := range tune.formats {
				f, ok := formats.ByName(name)
				if !ok {
					t.Fatalf("no format %s", name)
				}
				for _, sh := range append([]hostShape{{37, 256, 7}, {70, 1024, 19}, {5, 0, 3}, {20, 8192, 9}, {45, 768, 50}, {130, 512, 70}, {19, 512, 300}, {70, 4096, 100}}, extraShapes[tune.name]...) {
					x8 := strings.HasPrefix(tune.name, "int_") && sh.cols > 0
					runHostMatMul(t, e, exe, "forge_matmul_f32_"+strings.ToLower(name), f, sh.rows, sh.cols, sh.batch, tune.launches(sh.cols, sh.batch), x8)
				}
			}
		})
	}
}

// hostShape is a matmul shape the host emulation runs.
type hostShape struct{ rows, cols, batch int }

// clusterShapes: a shape on which both workgroups of a cluster of two
// (FORGE_MM_WGMMA_CLUSTER=2) store rows of Y and take more K steps than
// they have stages, so that a workgroup refilling the other's stages too
// early shows.
var clusterShapes = []hostShape{{260, 16384, 16}}

// extraShapes are the shapes a TestMatMulHMMAHost configuration runs
// besides the common ones.
var extraShapes = map[string][]hostShape{"wgmma_tma_cl2": clusterShapes, "wgmma_tma_cl2_2": clusterShapes, "wgmma_tma_cl2_plain": clusterShapes}

// intFormats are the formats TestMatMulHMMAHost runs on sm_90's integer
// path, and intFiles their matmul files.
var (
	intFormats = []string{"Q4_0", "Q4_1", "MXFP4", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"}
	intFiles   = []string{"q4_0_matmul.hip", "q4_1_matmul.hip", "mxfp4_matmul.hip", "q2_k_matmul.hip", "q3_k_matmul.hip", "q4_k_matmul.hip", "q5_k_matmul.hip", "q6_k_matmul.hip"}
)

// f16Frag takes the f16-fragment path (the int8 knob forced to 0) at
// every batch, the route off.
var f16Frag = []string{"-DFORGE_NO_MM_F16_ROUTE", "-DFORGE_TUNE_MATMUL_INT_FORCE_INT8=0", "-DFORGE_MM_INT_F16_MAX_BATCH=1000000"}

// intSplitLaunches: X quantized, Y zeroed and the kernel, or the generic
// path's two launches for no columns.
func intSplitLaunches(cols, _ int) int {
	if cols == 0 {
		return 2
	}
	return 3
}

// intForce is the -D flags that force one configuration of the integer
// path on every batch, as forgebench tune --family matmul_int compiles its
// candidates.
func intForce(threads, tm, tn, tk, warpRows, splitK int) []string {
	var out []string
	for _, kv := range []struct {
		k string
		v int
	}{{"THREADS", threads}, {"TM", tm}, {"TN", tn}, {"TK", tk}, {"WARP_ROWS", warpRows}, {"SPLIT_K", splitK}} {
		out = append(out, fmt.Sprintf("-DFORGE_TUNE_MATMUL_INT_FORCE_%s=%d", kv.k, kv.v))
	}
	return out
}
