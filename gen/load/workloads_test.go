package load_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/rocmforge/forge/gen/load"
	"github.com/rocmforge/forge/gen/translate"
	"github.com/rocmforge/forge/internal/modtest"
	"github.com/rocmforge/forge/specs/workloads"
)

// writeWorkloads adds a spec file to the copied tree's specs/workloads.
func writeWorkloads(t *testing.T, dir, body string) {
	t.Helper()
	p := filepath.Join(dir, "specs/workloads/zz_test_specs.go")
	if err := os.WriteFile(p, []byte("package workloads\n\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWorkloadsLoaded(t *testing.T) {
	dir := modtest.Copy(t, "specs")
	writeWorkloads(t, dir, `var Tiny = register(KVCache{
	Name: "memory/tiny", Doc: "a tiny cache",
	Layers: 2, Heads: 4, HeadDim: 8, ElemBytes: 2,
	Tokens: []int{16, 32}, QuickTokens: []int{16}, PageTokens: []int{4},
})
`)
	res, err := load.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, w := range res.Spec.Workloads {
		if w.GoVar != "Tiny" {
			continue
		}
		found = true
		if w.Name != "memory/tiny" || w.Family != "memory" || w.Kind != "KVCache" || w.Doc != "a tiny cache" {
			t.Errorf("workload %+v", w)
		}
		kv, ok := w.Value.(workloads.KVCache)
		if !ok || !slices.Equal(kv.Tokens, []int{16, 32}) || kv.Layers != 2 || !slices.Equal(kv.QuickTokens, []int{16}) {
			t.Errorf("value %#v", w.Value)
		}
		if w.File != "specs/workloads/zz_test_specs.go" || w.Pos.Line != 3 || w.Fields.Of("Tokens[1]").Line != 6 {
			t.Errorf("positions: %s %v %v", w.File, w.Pos, w.Fields.Of("Tokens[1]"))
		}
	}
	if !found {
		t.Fatalf("Tiny not loaded: %v", res.Spec.Workloads)
	}
}

// TestWorkloadValidation: every problem of the shared checks is reported
// at its position, in one run.
func TestWorkloadValidation(t *testing.T) {
	dir := modtest.Copy(t, "specs")
	writeWorkloads(t, dir, `var A = register(KVCache{
	Name: "attention/kv", Doc: "",
	Layers: 0, Heads: 4, HeadDim: 8, ElemBytes: 2,
	Tokens: []int{16, -1}, QuickTokens: []int{64}, PageTokens: []int{},
})

var B = register(Quantize{
	Name: "quantize/Models", Doc: "d", Formats: []string{"Q8_0"},
	Models: []Model{{Name: "m", Layers: 1, Rows: 2, Cols: -3}}, QuickModels: []string{"x"},
	TargetStreamingRatio: 0.5, TargetModels: []string{"m"},
})

type Unknown struct{ Name, Doc string }

var C = register(Unknown{Name: "memory/u", Doc: "d"})

var D = register(Scratch{Name: "memory/tiny", Doc: "d", Sizes: []int{1}, FragmentTotal: 1, FragmentChunks: []int{1}, Reuses: []int{1}})

var E = register(Scratch{Name: "memory/tiny", Doc: "d", Sizes: []int{1}, FragmentTotal: 1, FragmentChunks: []int{1}, Reuses: []int{1}})
`)
	_, err := load.Load(dir)
	var list translate.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want an ErrorList, got %v", err)
	}
	f := `^specs/workloads/zz_test_specs\.go:\d+:\d+: `
	want := []string{
		f + `workload A: Name "attention/kv" must be "memory/" followed by a lower_case name$`,
		f + `workload attention/kv: Doc is empty; say what it measures$`,
		f + `workload attention/kv: KVCache\.Layers is 0; it must be positive$`,
		f + `workload attention/kv: KVCache\.Tokens\[1\] is -1; it must be positive$`,
		f + `workload attention/kv: KVCache\.QuickTokens has 64, which Tokens does not$`,
		f + `workload attention/kv: KVCache\.PageTokens is empty$`,
		f + `workload B: Name "quantize/Models" must be "quantize/" followed by a lower_case name$`,
		f + `workload quantize/Models: Model\.Cols is -3; it must be positive$`,
		f + `workload quantize/Models: Quantize\.QuickModels has x, which Models does not$`,
		f + `workload C: type Unknown has no scenario \(gen/ir\.WorkloadKinds has .*\)$`,
		f + `workload name memory/tiny is also used by D \(specs/workloads/zz_test_specs\.go:\d+:\d+\)$`,
	}
	for _, w := range want {
		re := regexp.MustCompile(w)
		found := false
		for _, e := range list {
			if re.MatchString(e.Error()) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error matching %s; got:\n%v", w, list)
		}
	}
}
