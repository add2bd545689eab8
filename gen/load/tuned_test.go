package load_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocmforge/forge/gen/load"
	"github.com/rocmforge/forge/internal/modtest"
)

func writeTuned(t *testing.T, dir, name, body string) {
	t.Helper()
	p := filepath.Join(dir, "specs", "tuned", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

const goodEntry = `{"knobs": {"threads": 128, "rows": 2, "chunk": 16}, "device": "Fake", "date": "2026-11-21T00:00:00Z", "shape": "14336x4096", "weights": "rotate", "winner_us": 10, "default_us": 12, "candidates": 40}`

func TestTunedFileLoaded(t *testing.T) {
	dir := modtest.Copy(t, "specs")
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matvec": {"Q4_0": {"narrow": `+goodEntry+`}}}}`)
	r, err := load.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range r.Spec.Targets {
		e := tg.Tuned.Entry("matvec", "Q4_0", "narrow")
		if (tg.Name == "sm_90") != (e != nil) {
			t.Errorf("%s: entry %+v", tg.Name, e)
		}
		if e != nil && e.Knobs["threads"] != 128 {
			t.Errorf("entry %+v", e)
		}
	}
}

func TestTunedFileErrors(t *testing.T) {
	dir := modtest.Copy(t, "specs")
	bad := strings.Replace(goodEntry, `"threads": 128`, `"threads": 100`, 1)
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matvec": {"Q4_0": {"narrow": `+bad+`, "huge": `+goodEntry+`}, "Q9_9": {}},
		"matmul": {}}}`)
	writeTuned(t, dir, "gfx1100.json", `{"target": "gfx1100", "families": {"matvec": {"Q4_0": {"wide": {"knobs": {"threads": 64, "rows": 1, "chunk": 8, "unroll": 2}}}}}}`)
	writeTuned(t, dir, "gfx9999.json", `{"target": "gfx9999", "families": {}}`)
	_, err := load.Load(dir)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"specs/tuned/sm_90.json: families.matvec.Q4_0.huge: unknown class (want one of narrow, wide)",
		"specs/tuned/sm_90.json: families.matvec.Q9_9: unknown format",
		"specs/tuned/sm_90.json: families.matmul: unknown tunable family",
		"specs/tuned/gfx1100.json: families.matvec.Q4_0.wide.knobs.unroll: unknown knob (want threads, rows, chunk)",
		"specs/tuned/gfx9999.json: no target is named gfx9999",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// A value the target cannot compile.
	dir = modtest.Copy(t, "specs")
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matvec": {"Q4_0": {"narrow": `+bad+`}}}}`)
	_, err = load.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "specs/tuned/sm_90.json: families.matvec.Q4_0.narrow.knobs: threads 100 must be a multiple of the wave size 32, at most 1024") {
		t.Errorf("err = %v", err)
	}
}

// matvec_x8 winners: loaded for a format with an integer form; rejected,
// key by key, for a format without one, an unknown format, and knobs the
// target cannot compile (threads 48 on wave64, rows 0).
func TestTunedX8Entries(t *testing.T) {
	const x8 = `{"knobs": {"threads": 256, "rows": 2, "lanes": 1, "groups": 1}, "device": "Fake", "date": "2026-11-21T00:00:00Z", "shape": "4096x14336", "weights": "rotate", "winner_us": 18, "default_us": 19, "candidates": 9}`
	dir := modtest.Copy(t, "specs")
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matvec": {"Q4_0": {"narrow": `+goodEntry+`}}, "matvec_x8": {"Q4_K": {"wide": `+x8+`}}}}`)
	r, err := load.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range r.Spec.Targets {
		if e := tg.Tuned.Entry("matvec_x8", "Q4_K", "wide"); (tg.Name == "sm_90") != (e != nil) || e != nil && e.Knobs["threads"] != 256 {
			t.Errorf("%s: entry %+v", tg.Name, e)
		}
	}

	dir = modtest.Copy(t, "specs")
	writeTuned(t, dir, "gfx90a.json", `{"target": "gfx90a", "families": {"matvec_x8": {
		"Q4_0": {"wide": `+strings.Replace(x8, `"threads": 256`, `"threads": 48`, 1)+`},
		"Q4_K": {"narrow": `+strings.Replace(x8, `"rows": 2`, `"rows": 0`, 1)+`},
		"F16": {"wide": `+x8+`},
		"Q8_0": {"all": `+x8+`, "wide": {"knobs": {"threads": 64, "rows": 1, "chunk": 8}}}}}}`)
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matvec_x8": {"Q9_9": {"all": `+x8+`}}}}`)
	_, err = load.Load(dir)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"specs/tuned/gfx90a.json: families.matvec_x8.Q8_0.all: unknown class (want one of narrow, wide)",
		"specs/tuned/gfx90a.json: families.matvec_x8.Q8_0.wide.knobs.chunk: unknown knob (want threads, rows, lanes, groups)",
		"specs/tuned/sm_90.json: families.matvec_x8.Q9_9: unknown format",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// The knob values and the integer form are checked once the keys are good.
	dir = modtest.Copy(t, "specs")
	writeTuned(t, dir, "gfx90a.json", `{"target": "gfx90a", "families": {"matvec_x8": {
		"Q4_0": {"wide": `+strings.Replace(x8, `"threads": 256`, `"threads": 48`, 1)+`},
		"Q4_K": {"narrow": `+strings.Replace(x8, `"rows": 2`, `"rows": 0`, 1)+`},
		"F16": {"wide": `+x8+`}}}}`)
	_, err = load.Load(dir)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"specs/tuned/gfx90a.json: families.matvec_x8.Q4_0.wide.knobs: threads 48 must be a multiple of the wave size 64, at most 1024",
		"specs/tuned/gfx90a.json: families.matvec_x8.Q4_K.narrow.knobs: rows 0 must be in [1, 16]",
		"specs/tuned/gfx90a.json: families.matvec_x8.F16: F16 has no integer form (its spec's SubBlock is 0), so no matvec_x8 kernel",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// matmul_int winners: loaded for a class the target has (sm_90's b16), and
// refused for a class of a MaxBatch the target lacks (gfx1100 has no class
// up to 64) and for tiles the target's warps cannot cover.
func TestTunedMatMulIntEntries(t *testing.T) {
	const mm = `{"knobs": {"threads": 256, "tm": 128, "tn": 16, "tk": 256, "warp_rows": 8, "split_k": 4}, "device": "Fake", "date": "2026-11-27T00:00:00Z", "shape": "4096x14336x16", "weights": "rotate", "winner_us": 80, "default_us": 95, "candidates": 84}`
	dir := modtest.Copy(t, "specs")
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matmul_int": {"Q4_0": {"b16": `+mm+`}}}}`)
	r, err := load.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range r.Spec.Targets {
		if e := tg.Tuned.Entry("matmul_int", "Q4_0", "b16"); (tg.Name == "sm_90") != (e != nil) {
			t.Errorf("%s: entry %+v", tg.Name, e)
		}
	}
	dir = modtest.Copy(t, "specs")
	writeTuned(t, dir, "gfx1100.json", `{"target": "gfx1100", "families": {"matmul_int": {"Q4_0": {"b64": `+mm+`, "b16": `+strings.Replace(mm, `"tm": 128`, `"tm": 48`, 1)+`}}}}`)
	_, err = load.Load(dir)
	for _, want := range []string{
		"specs/tuned/gfx1100.json: families.matmul_int.Q4_0.b64: gfx1100 has no MatMulInt class of MaxBatch 64 for the winner to replace",
		"specs/tuned/gfx1100.json: families.matmul_int.Q4_0.b16.knobs: MatMulInt.TileRows 48 must be in [16, 256] and a multiple of 16·WarpRows = 128",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// matmul_half winners: loaded for F16 at a class sm_90 has, refused for a
// format not stored as plain binary16, for a target without MatMulHalf
// classes, and for tiles whose two stages overflow shared memory.
func TestTunedMatMulHalfEntries(t *testing.T) {
	const mm = `{"knobs": {"threads": 256, "tm": 128, "tn": 128, "tk": 32, "warp_rows": 2, "split_k": 4}, "device": "Fake", "date": "2026-11-27T00:00:00Z", "shape": "4096x14336x256", "weights": "rotate", "winner_us": 120, "default_us": 139, "candidates": 88}`
	dir := modtest.Copy(t, "specs")
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matmul_half": {"F16": {"b256": `+mm+`}}}}`)
	r, err := load.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range r.Spec.Targets {
		if e := tg.Tuned.Entry("matmul_half", "F16", "b256"); (tg.Name == "sm_90") != (e != nil) {
			t.Errorf("%s: entry %+v", tg.Name, e)
		}
	}
	dir = modtest.Copy(t, "specs")
	big := strings.NewReplacer(`"tm": 128`, `"tm": 256`, `"tn": 128`, `"tn": 256`, `"tk": 32`, `"tk": 256`, `"warp_rows": 2`, `"warp_rows": 4`).Replace(mm)
	writeTuned(t, dir, "sm_90.json", `{"target": "sm_90", "families": {"matmul_half": {"Q4_0": {"b256": `+mm+`}, "F16": {"large": `+big+`}}}}`)
	writeTuned(t, dir, "gfx1100.json", `{"target": "gfx1100", "families": {"matmul_half": {"F16": {"b256": `+mm+`}}}}`)
	_, err = load.Load(dir)
	for _, want := range []string{
		"specs/tuned/sm_90.json: families.matmul_half.Q4_0: Q4_0 is not stored as plain binary16, so it has no mma.sync f16 path of its own",
		"specs/tuned/sm_90.json: families.matmul_half.F16.large.knobs: two stages of 256 × 256 tiles at K step 256 exceed 227 KiB of shared memory",
		"specs/tuned/gfx1100.json: families.matmul_half.F16.b256: gfx1100 has no MatMulHalf class of MaxBatch 256 for the winner to replace",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
