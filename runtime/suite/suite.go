// Package suite owns the registry of forge's generated suites and what
// checking and measuring them takes: deterministic inputs, the references
// and tolerances they are compared with, and the copy roofline. The
// generated package generated/suites registers one Suite per format ×
// kernel (and one per scenario) in its init; its generated tests and
// benchmarks call the harness in runtime/suite/suitetest, which draws the
// inputs, expected values and comparisons from here. forgebench imports
// this package for the same registry and data without importing package
// testing. The backends the suites run on are runtime/backend's.
package suite

import (
	"fmt"
	"slices"
	"sync"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

// Suite is one generated suite: a kernel of a family, for one format; or
// a Scenario (memory, quantize, attention), which has neither kernel
// output nor format of its own.
type Suite struct {
	Name     string // "dequant_f32/Q4_0", "memory/kv_cache"
	Family   string // "dequant", "memory"
	Kernel   string // "dequant_f32"
	Output   string // "f32" or "f16"
	Format   *formats.Format
	Scenario *Scenario // set for scenario suites only
}

var (
	mu     sync.Mutex
	suites []Suite
)

// Register adds a suite. It panics on a suite without a name or format, an
// unknown output, or a name already registered: these are generator bugs,
// and generated init code is their only caller.
func Register(s Suite) {
	mu.Lock()
	defer mu.Unlock()
	if s.IsScenario() {
		if err := checkScenario(s); err != nil {
			panic(fmt.Sprintf("suite: Register(%s): %v", s.Name, err))
		}
		if slices.ContainsFunc(suites, func(t Suite) bool { return t.Name == s.Name }) {
			panic(fmt.Sprintf("suite: Register(%s): registered twice", s.Name))
		}
		suites = append(suites, s)
		return
	}
	switch {
	case s.Name == "" || s.Format == nil:
		panic(fmt.Sprintf("suite: Register(%+v): missing name or format", s))
	case backend.OutputSize(s.Output) == 0:
		panic(fmt.Sprintf("suite: Register(%s): unknown output %q", s.Name, s.Output))
	case slices.ContainsFunc(suites, func(t Suite) bool { return t.Name == s.Name }):
		panic(fmt.Sprintf("suite: Register(%s): registered twice", s.Name))
	}
	suites = append(suites, s)
}

// All returns the registered suites in registration order (the generator's
// order: family, kernel, then format by ggml id).
func All() []Suite {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(suites)
}

// ByName finds a registered suite.
func ByName(name string) (Suite, bool) {
	mu.Lock()
	defer mu.Unlock()
	i := slices.IndexFunc(suites, func(s Suite) bool { return s.Name == name })
	if i < 0 {
		return Suite{}, false
	}
	return suites[i], true
}
