package hipgen

import (
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/load"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/internal/modtest"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// TestTunedDispatch: a winner for one class is launched for that class's
// shapes, the spec default for the other, and the header says which came
// from where.
func TestTunedDispatch(t *testing.T) {
	s := testSpec()
	for _, tg := range s.Targets {
		if tg.Name != "gfx1030" {
			continue
		}
		tg.Tuned = &tuned.File{Target: tg.Name}
		tg.Tuned.Set("matvec", "Q4_0", "wide", &tuned.Entry{Knobs: map[string]int{"threads": 128, "rows": 1, "chunk": 16},
			Device: "Fake GPU", Date: "2026-11-21T00:00:00Z", Rev: "abc", Shape: "4096x14336", WinnerUS: 10, DefaultUS: 12.5, Candidates: 40})
	}
	files := byPath(mustFiles(t, s))
	mv := string(files["generated/hip/gfx1030/q4_0_matvec.hip"])
	for _, want := range []string{
		"\tif (cols <= 8192) { // narrow\n\t\tforge_matvec_f32_q4_0_kernel_launch<256, 2, 8>(blocks, x, y, rows, cols, stream);\n" +
			"\t} else { // wide\n\t\tforge_matvec_f32_q4_0_kernel_launch<128, 1, 16>(blocks, x, y, rows, cols, stream);\n\t}\n#endif",
		"//   narrow, cols ≤ 8192 (tuned at 14336×4096: FFN up/gate): 256 threads, 2 rows, chunk 8: the target spec's default",
		"//   wide, cols > 8192 (tuned at 4096×14336: FFN down): 128 threads, 1 rows, chunk 16: tuned (specs/tuned/gfx1030.json: Fake GPU, 2026-11-21T00:00:00Z, forge abc; 10.00 µs at 4096x14336 vs the default's 12.50, best of 40)",
	} {
		if !strings.Contains(mv, want) {
			t.Errorf("lacks %q", want)
		}
	}
	// Other formats and targets keep the default in both classes.
	if other := string(files["generated/hip/gfx1100/q4_0_matvec.hip"]); strings.Contains(other, "tuned (") {
		t.Error("gfx1100 took gfx1030's winner")
	}
}

// TestTunedX8: a matvec_x8 winner becomes its shape class's branch of the
// launcher's dispatch, for that format and target only; the class without
// one keeps the default rule's configuration (targets.MatVecX8Default),
// and -D macros still force one configuration for every shape (the test
// spec's one format with an integer form is Q4_0).
func TestTunedX8(t *testing.T) {
	s := testSpec()
	for _, tg := range s.Targets {
		if tg.Name != "gfx1030" {
			continue
		}
		tg.Tuned = &tuned.File{Target: tg.Name}
		tg.Tuned.Set("matvec_x8", "Q4_0", "wide", &tuned.Entry{Knobs: map[string]int{"threads": 256, "rows": 2, "lanes": 2, "groups": 1},
			Device: "Fake GPU", Date: "2026-11-21T00:00:00Z", Shape: "4096x14336", WinnerUS: 18, DefaultUS: 19.5, Candidates: 9})
	}
	files := byPath(mustFiles(t, s))
	mv, ok := files["generated/hip/gfx1030/q4_0_matvec.hip"]
	if !ok {
		t.Fatal("no gfx1030 Q4_0 matvec file")
	}
	src := string(mv)
	for _, want := range []string{
		"\tif (cols <= 8192) { // narrow\n\t\tforge_matvec_x8_q4_0_kernel_launch<64, 2, 1, 1>(blocks, x8, y, rows, cols, stream);\n" +
			"\t} else { // wide (tuned)\n\t\tforge_matvec_x8_q4_0_kernel_launch<256, 2, 2, 1>(blocks, x8, y, rows, cols, stream);\n\t}\n",
		"#if defined(FORGE_MATVEC_X8_FORCED)\n\tforge_matvec_x8_q4_0_kernel_launch<FORGE_TUNE_MATVEC_X8_THREADS, FORGE_TUNE_MATVEC_X8_ROWS, FORGE_TUNE_MATVEC_X8_LANES, FORGE_TUNE_MATVEC_X8_GROUPS>",
		// A knob left out of a forced configuration takes the last class's value.
		"#ifndef FORGE_TUNE_MATVEC_X8_THREADS\n#define FORGE_TUNE_MATVEC_X8_THREADS 256\n#endif\n",
		"//   wide, cols > 8192 (tuned at 4096×14336: FFN down): 256 threads, 2 rows, 2 lanes per group, 1 groups per lane: " +
			"tuned (specs/tuned/gfx1030.json: Fake GPU, 2026-11-21T00:00:00Z; 18.00 µs at 4096x14336 vs the default's 19.50, best of 9)",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("lacks %q", want)
		}
	}
	// Other targets keep the rule in both classes.
	other := string(files["generated/hip/gfx1100/q4_0_matvec.hip"])
	if !strings.Contains(other, "} else { // wide\n\t\tforge_matvec_x8_q4_0_kernel_launch<64, 2, 1, 1>") || strings.Contains(other, "(tuned)") {
		t.Error("gfx1100's Q4_0 took gfx1030's winner")
	}
	if n := strings.Count(src, "tuned (specs/tuned/gfx1030.json"); n != 2 {
		t.Errorf("%d mentions of the winner, want 2 (the header, the tuning paragraph)", n)
	}
}

// TestTunedMatMulInt: a matmul_int winner replaces the integer path's
// class of its MaxBatch for that format (the macros' defaults, with where
// they came from); the other classes keep the target spec's, and
// FORGE_TUNE_MATMUL_INT_FORCE_* still force one configuration for every
// batch, a knob left out taking the last class's.
func TestTunedMatMulInt(t *testing.T) {
	s := testSpec()
	for _, tg := range s.Targets {
		if tg.Name != "sm_90" {
			continue
		}
		tg.MatMulInt = targets.SM90.MatMulInt
		tg.Tuned = &tuned.File{Target: tg.Name}
		tg.Tuned.Set("matmul_int", "Q4_0", "b16", &tuned.Entry{Knobs: map[string]int{"threads": 128, "tm": 64, "tn": 16, "tk": 256, "warp_rows": 4, "split_k": 4},
			Device: "Fake GPU", Date: "2026-11-27T00:00:00Z", Shape: "4096x14336x16", WinnerUS: 80, DefaultUS: 95, Candidates: 84})
	}
	files := byPath(mustFiles(t, s))
	src := string(files["generated/hip/sm_90/q4_0_matmul.hip"])
	for _, want := range []string{
		"each knob overridable as FORGE_TUNE_MATMUL_INT_UPTO16_<KNOB>: tuned (specs/tuned/sm_90.json: Fake GPU, 2026-11-27T00:00:00Z; 80.00 µs at 4096x14336x16 vs the default's 95.00, best of 84).",
		"#define FORGE_TUNE_MATMUL_INT_UPTO16_TM 64\n",
		"#define FORGE_TUNE_MATMUL_INT_UPTO16_SPLIT_K 4\n",
		"#define FORGE_TUNE_MATMUL_INT_UPTO16_WARP_ROWS 4\n",
		"each knob overridable as FORGE_TUNE_MATMUL_INT_UPTO64_<KNOB>: the target spec's (specs/targets/nvidia.go).",
		"#define FORGE_TUNE_MATMUL_INT_UPTO64_TN 64\n",
		"#ifndef FORGE_TUNE_MATMUL_INT_FORCE_TK\n#define FORGE_TUNE_MATMUL_INT_FORCE_TK FORGE_TUNE_MATMUL_INT_TK\n#endif",
		"#if defined(FORGE_MATMUL_INT_FORCED)\n\treturn forge_matmul_f32_q4_0_kernel_int_launch<FORGE_TUNE_MATMUL_INT_FORCE_THREADS,",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if strings.Contains(src, "#define FORGE_TUNE_MATMUL_INT_UPTO16_TM 128\n") {
		t.Error("the b16 class kept the spec's 128-row tiles")
	}
}

// TestTunedMatMulHalf: a matmul_half winner replaces F16's mma.sync class
// of its MaxBatch (with where it came from); the other classes keep the
// spec's, FORGE_TUNE_MATMUL_HALF_FORCE_* still force one configuration,
// and the quantized formats' files have no such classes.
func TestTunedMatMulHalf(t *testing.T) {
	r, err := load.Load(modtest.Root(t)) // the real specs (F16 and Q4_0 of them): the synthetic one has no F16
	if err != nil {
		t.Fatal(err)
	}
	s := r.Spec
	var keep []*ir.Format
	for _, f := range s.Formats {
		if f.Name == "F16" || f.Name == "Q4_0" {
			if f.Device, err = translate.Format(r.Formats, f); err != nil {
				t.Fatal(err)
			}
			keep = append(keep, f)
		}
	}
	s.Formats = keep
	for _, tg := range s.Targets {
		if tg.Name != "sm_90" {
			continue
		}
		tg.MatMulHalf = targets.SM90.MatMulHalf
		tg.Tuned = &tuned.File{Target: tg.Name}
		tg.Tuned.Set("matmul_half", "F16", "b256", &tuned.Entry{Knobs: map[string]int{"threads": 256, "tm": 64, "tn": 128, "tk": 64, "warp_rows": 2, "split_k": 8},
			Device: "Fake GPU", Date: "2026-11-27T00:00:00Z", Shape: "4096x14336x256", WinnerUS: 120, DefaultUS: 139, Candidates: 88})
	}
	files := byPath(mustFiles(t, s))
	src := string(files["generated/hip/sm_90/f16_matmul.hip"])
	if src == "" {
		t.Fatal("no sm_90 F16 matmul file")
	}
	for _, want := range []string{
		"each knob overridable as FORGE_TUNE_MATMUL_HALF_UPTO256_<KNOB>: tuned (specs/tuned/sm_90.json: Fake GPU, 2026-11-27T00:00:00Z; 120.00 µs at 4096x14336x256 vs the default's 139.00, best of 88).",
		"#define FORGE_TUNE_MATMUL_HALF_UPTO256_TM 64\n",
		"#define FORGE_TUNE_MATMUL_HALF_UPTO256_SPLIT_K 8\n",
		"each knob overridable as FORGE_TUNE_MATMUL_HALF_UPTO64_<KNOB>: the target spec's (specs/targets/nvidia.go).",
		"#ifndef FORGE_TUNE_MATMUL_HALF_FORCE_TK\n#define FORGE_TUNE_MATMUL_HALF_FORCE_TK FORGE_TUNE_MATMUL_HALF_TK\n#endif",
		"#if defined(FORGE_MATMUL_HALF_FORCED)\n\tif (forge_matmul_f32_f16_kernel_hmma_launch<FORGE_TUNE_MATMUL_HALF_FORCE_THREADS,",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if q := string(files["generated/hip/sm_90/q4_0_matmul.hip"]); strings.Contains(q, "FORGE_TUNE_MATMUL_HALF") {
		t.Error("Q4_0's file has the mma.sync f16 path's classes")
	}
}
