package forge

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// The module's packages form two towers over a common base, and a package
// may import only its own layer or the layers below it:
//
//	base:    internal/...           (leaf utilities: import nothing of ours)
//	specs:   specs/..., templates/hip, runtime/device/abi
//	gen:     gen/...                (the generator; reads specs, never runs kernels)
//	device:  runtime/device/..., runtime/gguf/..., generated/kernels
//	backend: runtime/backend/...
//	suite:   runtime/suite/..., generated/suites
//	bench:   runtime/bench/...
//	cmd:     cmd/..., the module root
//
// gen sits beside the run-time tower, not under it: nothing in runtime/
// imports gen except the tuner (runtime/bench/tune), which compiles
// candidate kernels with gen/build; and gen imports nothing of runtime/
// but the ABI constants the generated code binds to.
var layers = []struct {
	name     string
	prefixes []string
}{
	{"base", []string{"internal/"}},
	{"specs", []string{"specs/", "templates/hip", "runtime/device/abi"}},
	{"gen", []string{"gen/", "gen"}},
	{"device", []string{"runtime/device/", "runtime/gguf", "runtime/gguf/", "generated/kernels"}},
	{"backend", []string{"runtime/backend/", "runtime/backend"}},
	{"suite", []string{"runtime/suite/", "runtime/suite", "generated/suites"}},
	{"bench", []string{"runtime/bench/", "runtime/bench"}},
	{"cmd", []string{"cmd/", ""}},
}

// allowed lists the edges that cross from the run-time tower into gen, or
// the other way, on purpose.
var allowed = map[[2]string]string{
	{"runtime/bench/tune", "gen/build"}:  "the tuner compiles candidate kernels",
	{"runtime/bench/tune", "gen/hipgen"}: "the tuner renders candidate kernels",
}

// layerOf returns the index in layers of a module-relative package path:
// the longest matching prefix wins ("runtime/device/abi" is specs, not
// device).
func layerOf(rel string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l.prefixes {
			match := rel == strings.TrimSuffix(p, "/") || (strings.HasSuffix(p, "/") && strings.HasPrefix(rel, p))
			if p == "" {
				match = rel == ""
			}
			if match && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

// TestLayers walks every package's imports (`go list -deps`) and fails on
// an edge that points up a layer or across the towers, and on a package
// that belongs to no layer. It checks what ships, not tests: a test of a
// lower layer may check its code through a higher layer's harness (the
// generated launchers' tests run under the suite harness's flags).
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps",
		"-f", `{{.ImportPath}}|{{.Standard}}|{{join .Imports " "}}`, "./...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/rocmforge/forge"
	rel := func(p string) (string, bool) {
		if p == mod {
			return "", true
		}
		r, ok := strings.CutPrefix(p, mod+"/")
		return r, ok
	}
	var bad []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	packages := 0
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), "|", 3)
		from, ok := rel(fields[0])
		if !ok {
			continue
		}
		packages++
		lf := layerOf(from)
		if lf < 0 {
			if !seen["?"+from] {
				bad = append(bad, fmt.Sprintf("%s belongs to no layer (add it to layers in layers_test.go)", from))
				seen["?"+from] = true
			}
			continue
		}
		for _, imp := range strings.Fields(fields[2]) {
			to, ok := rel(imp)
			if !ok {
				continue
			}
			lt := layerOf(to)
			if lt < 0 {
				continue // reported as its own package
			}
			key := from + " -> " + to
			if seen[key] {
				continue
			}
			seen[key] = true
			if _, ok := allowed[[2]string{from, to}]; ok {
				continue
			}
			gen := func(i int) bool { return layers[i].name == "gen" }
			runtimeTower := func(i int) bool { return i > 2 && layers[i].name != "cmd" }
			switch {
			case lt > lf:
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s): an edge up the layers", from, layers[lf].name, to, layers[lt].name))
			case gen(lt) && runtimeTower(lf):
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s: the run-time tower does not import the generator", from, layers[lf].name, to))
			case layers[lf].name == "base" && lt != lf:
				bad = append(bad, fmt.Sprintf("%s imports %s: internal/ holds leaf utilities that import nothing of ours", from, to))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if packages < 10 {
		t.Fatalf("go list reported %d packages of the module: the walk is broken", packages)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// TestLayerOf pins the prefix rules the walk depends on.
func TestLayerOf(t *testing.T) {
	for rel, want := range map[string]string{
		"":                         "cmd",
		"cmd/forgebench":           "cmd",
		"internal/atomicfile":      "base",
		"specs/formats":            "specs",
		"runtime/device/abi":       "specs",
		"runtime/device/gpu":       "device",
		"generated/kernels":        "device",
		"generated/suites":         "suite",
		"runtime/backend":          "backend",
		"runtime/backend/cpu":      "backend",
		"runtime/suite":            "suite",
		"runtime/suite/modelsuite": "suite",
		"runtime/bench/report":     "bench",
		"gen":                      "gen",
		"gen/ir":                   "gen",
		"templates/hip":            "specs",
	} {
		if i := layerOf(rel); i < 0 || layers[i].name != want {
			got := "none"
			if i >= 0 {
				got = layers[i].name
			}
			t.Errorf("layerOf(%q) = %s, want %s", rel, got, want)
		}
	}
	if i := layerOf("runtime/devicex"); i >= 0 {
		t.Errorf("layerOf(runtime/devicex) = %s, want none", layers[i].name)
	}
}
