package suitetest

import (
	"context"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/rocmforge/forge/internal/race"
	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
)

// EnvScenarioFull names the variable that makes CheckScenario run a
// scenario's full cases instead of its quick ones (a GPU run's tests).
const EnvScenarioFull = "FORGE_SCENARIO_FULL"

// CheckScenario runs the scenario suite registered as name on the chosen
// backend, quick (its small cases) unless $FORGE_SCENARIO_FULL=1, with
// three samples per case (under the race detector, smoke: suite.Env.Smoke,
// so that go test -race ./generated/suites fits go test's default 10-minute
// timeout on two cores), and fails the test when the scenario fails
// (its own checks: byte counts, agreement with the device's free-memory
// report, GPU against cpu results) or reports nothing, a case without a
// name, or a metric that is not a finite number.
func CheckScenario(t *testing.T, name string) {
	t.Helper()
	s, ok := suite.ByName(name)
	if !ok || !s.IsScenario() {
		t.Fatalf("%s is not a registered scenario suite", name)
	}
	be := Backend(t)
	full := os.Getenv(EnvScenarioFull) == "1"
	ms, err := runScenario(context.Background(), s, be, !full, race.Enabled && !full, 3, t.Logf)
	if err != nil {
		t.Fatalf("%s on %s: %v", name, be.Name(), err)
	}
	if len(ms) == 0 {
		t.Fatalf("%s on %s reported no case", name, be.Name())
	}
	for _, m := range ms {
		if m.Case == "" {
			t.Errorf("%s: a case without a name: %+v", name, m)
		}
		for _, x := range m.Metrics {
			if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
				t.Errorf("%s/%s: metric %s = %v", name, m.Case, x.Name, x.Value)
			}
		}
		for _, d := range m.Samples {
			if d < 0 {
				t.Errorf("%s/%s: negative sample %v", name, m.Case, d)
			}
		}
	}
}

// BenchScenario runs the scenario suite registered as name b.N times
// (full cases unless -short), each case sampled five times, and reports
// each case's median time per sample and its metrics as the benchmark's
// metrics ("<case>-ns/sample", "<case>-<metric>-<unit>"), from the last
// run. forgebench run --suite <name> is the better view: a table per
// scenario.
func BenchScenario(b *testing.B, name string) {
	s, ok := suite.ByName(name)
	if !ok || !s.IsScenario() {
		b.Fatalf("%s is not a registered scenario suite", name)
	}
	be := Backend(b)
	var ms []suite.Measurement
	for range b.N {
		var err error
		if ms, err = runScenario(context.Background(), s, be, testing.Short(), false, 5, b.Logf); err != nil {
			b.Fatalf("%s on %s: %v", name, be.Name(), err)
		}
	}
	b.StopTimer()
	for _, m := range ms {
		if len(m.Samples) > 0 {
			b.ReportMetric(float64(medianDuration(m.Samples)), m.Case+"-ns/sample")
		}
		for _, x := range m.Metrics {
			unit := m.Case + "-" + x.Name
			if x.Unit != "" {
				unit += "-" + x.Unit
			}
			b.ReportMetric(x.Value, unit)
		}
	}
}

// runScenario runs s with n samples per case (after one warm-up) and
// returns its measurements.
func runScenario(ctx context.Context, s suite.Suite, be backend.Backend, quick, smoke bool, n int, logf func(string, ...any)) ([]suite.Measurement, error) {
	var ms []suite.Measurement
	env := &suite.Env{
		Ctx:     ctx,
		Backend: be,
		Quick:   quick,
		Smoke:   smoke,
		Sample: func(once func() (time.Duration, error)) ([]time.Duration, error) {
			if _, err := once(); err != nil {
				return nil, err
			}
			out := make([]time.Duration, 0, n)
			for range n {
				d, err := once()
				if err != nil {
					return nil, err
				}
				out = append(out, d)
			}
			return out, nil
		},
		Report: func(m suite.Measurement) { ms = append(ms, m) },
		Logf:   logf,
	}
	err := s.Scenario.Run(env)
	return ms, err
}

func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
