package suite

import (
	"context"
	"fmt"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
)

// Scenario is a suite that is not one kernel over one format's blocks:
// the memory, quantize and attention suites. Run runs its cases
// itself, timing each through env.Sample (so forgebench's --count,
// --min-time and --auto apply to it as to the kernel suites), and reports
// one Measurement per case through env.Report. It returns an error for a
// failure (a case that could not run, a check that did not hold); a
// context that ended is not one (Sample returns nil samples then, and the
// scenario returns at once).
//
// Scenarios are registered by the generated package generated/suites,
// one per workload spec (specs/workloads), as Suite.Scenario; a pointer,
// so that Suites stay comparable.
type Scenario struct {
	Doc string // one line: what the scenario measures
	Run func(env *Env) error
}

// Env is what a Scenario runs with.
type Env struct {
	Ctx     context.Context
	Backend backend.Backend
	// Quick asks for the scenario's small cases only: the ones that keep
	// the cpu backend under a few seconds per suite (CI's `forgebench run
	// --quick`, `go test -short`). A scenario says in each Measurement's
	// name what it ran, so a quick run never passes for a full one.
	Quick bool
	// Smoke asks for less still, where neither speed nor memory is what a
	// run is for: the smallest cases that take every code path. suitetest
	// sets it under the race detector, which slows a scenario's work
	// 2–20× and triples its memory. A scenario whose quick cases take
	// minutes there honours it, naming its smoke cases so that they never
	// pass for quick ones; the others run their quick cases.
	Smoke bool
	// Sample runs once as the run's options say (warm-up, then the sample
	// count, minimum time or precision) and returns the samples; it
	// returns nil, nil when Ctx ended first.
	Sample func(once func() (time.Duration, error)) ([]time.Duration, error)
	// LaunchesPerSample asks a scenario whose case is one kernel call (the
	// attention suite's) to time that many calls back to back per sample
	// and record their mean (backend.Resident.Run(n) / n), hiding the
	// launch gap as forgebench's kernel suites do with
	// --launches-per-sample; 0 or 1: one call per sample. Scenarios of
	// whole forwards or allocation sequences sample as they do.
	LaunchesPerSample int
	// Report adds one measurement to the run.
	Report func(m Measurement)
	// Logf says something on the run's log (stderr under forgebench, the
	// test log under go test).
	Logf func(format string, args ...any)
}

// Measurement is one case of a Scenario: a name below the suite's, the
// samples (empty for a case of counts alone, such as a peak-memory
// figure), the work per sample that throughputs are computed from, and the
// scenario's own figures.
type Measurement struct {
	Case         string          // "b1_h32_s2048": the result is named "<suite>/<case>"
	Shape        []int           // the case's dimensions, for the record
	Elements     int64           // elements produced per sample
	BytesRead    int64           // bytes read per sample
	BytesWritten int64           // bytes written per sample
	FLOPs        int64           // floating-point operations per sample
	Samples      []time.Duration // one per timed iteration
	// LaunchesPerSample is the calls each sample averages (0: one), as
	// Env.LaunchesPerSample asked and the scenario honoured.
	LaunchesPerSample int
	Metrics           []Metric // in the order a table shows them
}

// Metric is one figure of a Measurement that the generic columns (times,
// GB/s, GFLOPS) do not hold: "bytes_per_token" 524288 "B".
type Metric struct {
	Name  string  `json:"name"`           // lower_snake_case: "hit_rate"
	Value float64 `json:"value"`          // in Unit
	Unit  string  `json:"unit,omitempty"` // "B", "B/s", "%", "x", "1/s", "s", or "" for a count
}

// Metric finds a metric of m by name.
func (m *Measurement) Metric(name string) (Metric, bool) {
	for _, x := range m.Metrics {
		if x.Name == name {
			return x, true
		}
	}
	return Metric{}, false
}

// Add appends a metric and returns m, for chaining in scenario code.
func (m *Measurement) Add(name string, value float64, unit string) *Measurement {
	m.Metrics = append(m.Metrics, Metric{Name: name, Value: value, Unit: unit})
	return m
}

// IsScenario tells scenario suites from format × kernel suites.
func (s Suite) IsScenario() bool { return s.Scenario != nil }

// checkScenario validates a scenario suite for Register.
func checkScenario(s Suite) error {
	switch {
	case s.Scenario.Run == nil:
		return fmt.Errorf("scenario suite %s without a Run function", s.Name)
	case s.Name == "" || s.Family == "":
		return fmt.Errorf("scenario suite without a name or family")
	case s.Format != nil || s.Output != "":
		return fmt.Errorf("scenario suite %s has a format or output (scenarios choose their own data)", s.Name)
	}
	return nil
}
