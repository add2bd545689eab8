package bench

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// fakeScenario reports a timed case and a case of figures alone, and
// records the Env it ran with.
func fakeScenario(got *suite.Env) *suite.Scenario {
	return &suite.Scenario{Run: func(env *suite.Env) error {
		*got = *env
		samples, err := env.Sample(func() (time.Duration, error) { return time.Millisecond, nil })
		if err != nil || samples == nil {
			return err
		}
		m := suite.Measurement{Case: "timed", Shape: []int{2, 3}, BytesRead: 1e6, Samples: samples}
		m.Add("hit_rate", 99.5, "%")
		env.Report(m)
		figures := suite.Measurement{Case: "peak"}
		figures.Add("peak_in_use", 3<<20, "B").Add("allocs", 42, "")
		env.Report(figures)
		return nil
	}}
}

func TestMeasureScenario(t *testing.T) {
	var env suite.Env
	targets := SuiteTargets([]suite.Suite{
		dequantSuite(formats.Q4_0, "f32"),
		{Name: "memory/fake", Family: "memory", Scenario: fakeScenario(&env)},
	})
	opts := quick()
	opts.Quick = true
	run, err := Measure(context.Background(), cpu.New(0), targets, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !env.Quick || env.Backend == nil || env.Ctx == nil {
		t.Errorf("scenario env: quick %v, backend %v", env.Quick, env.Backend)
	}
	var names []string
	for _, r := range run.Results {
		names = append(names, r.Name)
	}
	if got, want := strings.Join(names, " "), "dequant_f32/Q4_0 memory/fake/timed memory/fake/peak"; got != want {
		t.Fatalf("results %q, want %q", got, want)
	}
	timed, peak := run.Results[1], run.Results[2]
	if timed.Stats.N != opts.Count || timed.Stats.GBps <= 0 || timed.Family != "memory" || timed.Suite != "memory/fake" {
		t.Errorf("timed case: %+v", timed)
	}
	if peak.Stats.N != 0 || len(peak.Metrics) != 2 {
		t.Errorf("figures case: %+v", peak)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"memory/fake  hit_rate (%)  peak_in_use (B)  allocs", "timed", "99.50%", "3 MiB", "42"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := WriteGoBench(&b, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "hit_rate-%") || !strings.Contains(b.String(), "peak_in_use-B") {
		t.Errorf("Go benchmark format lacks the metrics:\n%s", b.String())
	}
}

func TestScenarioErrorAndInterrupt(t *testing.T) {
	boom := errors.New("boom")
	fail := suite.Suite{Name: "quantize/fail", Family: "quantize", Scenario: &suite.Scenario{Run: func(*suite.Env) error { return boom }}}
	if _, err := Measure(context.Background(), cpu.New(0), SuiteTargets([]suite.Suite{fail}), quick()); !errors.Is(err, boom) || !strings.Contains(err.Error(), "quantize/fail on cpu") {
		t.Errorf("failing scenario: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop := suite.Suite{Name: "quantize/stop", Family: "quantize", Scenario: &suite.Scenario{Run: func(env *suite.Env) error {
		cancel()
		s, err := env.Sample(func() (time.Duration, error) { return time.Millisecond, nil })
		if s != nil || err != nil {
			t.Errorf("Sample after the context ended: %v, %v", s, err)
		}
		return env.Ctx.Err()
	}}}
	run, err := Measure(ctx, cpu.New(0), SuiteTargets([]suite.Suite{stop}), quick())
	if !errors.Is(err, ErrInterrupted) || !run.Interrupted {
		t.Errorf("interrupted scenario: %v", err)
	}
}
