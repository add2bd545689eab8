package hipgen

import (
	"strings"
	"testing"

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
