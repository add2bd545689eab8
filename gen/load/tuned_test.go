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
