package bench_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/suite"
)

// pair is a baseline and a current run of the default benchmarks: two
// measurements (different noise) of an unchanged build.
func pair() (base, cur *bench.Run) {
	return benchtest.Run(1, benchtest.Defaults()...), benchtest.Run(2, benchtest.Defaults()...)
}

func metricOf(t *testing.T, c *bench.Comparison, name, metric string) bench.MetricDelta {
	t.Helper()
	for _, d := range c.Benchmarks {
		if d.Name != name {
			continue
		}
		for _, m := range d.Metrics {
			if m.Metric == metric {
				return m
			}
		}
	}
	t.Fatalf("no %s comparison for %s", metric, name)
	return bench.MetricDelta{}
}

func text(t *testing.T, c *bench.Comparison) string {
	t.Helper()
	var b strings.Builder
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestUnchangedBuild(t *testing.T) {
	base, cur := pair()
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	if c.Regressed() || c.Improvements != 0 || c.Unchanged != len(base.Results) {
		t.Errorf("unchanged build: %d regressions, %d improvements, %d unchanged:\n%s", c.Regressions, c.Improvements, c.Unchanged, text(t, c))
	}
	if !c.Comparable || len(c.Warnings) != 0 || len(c.New) != 0 || len(c.Missing) != 0 {
		t.Errorf("unexpected warnings/new/missing: %+v", c)
	}
	for _, d := range c.Benchmarks {
		if len(d.Metrics) != 2 {
			t.Errorf("%s: %d metrics compared, want time and gbps", d.Name, len(d.Metrics))
		}
	}
}

func TestPlantedSlowdown(t *testing.T) {
	base, cur := pair()
	const slow = "dequant_f32/Q4_0"
	benchtest.Scale(cur, slow, 1.3)
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	if c.Regressions != 1 || c.Improvements != 0 {
		t.Fatalf("%d regressions, %d improvements, want 1 and 0:\n%s", c.Regressions, c.Improvements, text(t, c))
	}
	for _, d := range c.Benchmarks {
		if want := map[bool]bench.Verdict{true: bench.Regression, false: bench.Unchanged}[d.Name == slow]; d.Verdict != want {
			t.Errorf("%s: verdict %s, want %s", d.Name, d.Verdict, want)
		}
	}
	tm := metricOf(t, c, slow, bench.MetricTime)
	if d := float64(tm.Delta); math.Abs(d-0.3) > 0.03 || !tm.Significant || tm.P >= 0.05 || tm.Verdict != bench.Regression {
		t.Errorf("time: delta %.3f p %.4f significant %v verdict %s; want +0.30, p < 0.05, regression", d, tm.P, tm.Significant, tm.Verdict)
	}
	gb := metricOf(t, c, slow, bench.MetricGBps)
	if d := float64(gb.Delta); math.Abs(d-(1/1.3-1)) > 0.03 || gb.Verdict != bench.Regression {
		t.Errorf("gbps: delta %.3f verdict %s; want %.3f, regression", d, gb.Verdict, 1/1.3-1)
	}
	out := text(t, c)
	for _, want := range []string{"REGRESSION", slow, "1 regression,"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
}

func TestImprovement(t *testing.T) {
	base, cur := pair()
	benchtest.Scale(cur, "copy/f32", 0.7)
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	if c.Regressed() || c.Improvements != 1 {
		t.Fatalf("%d regressions, %d improvements, want 0 and 1:\n%s", c.Regressions, c.Improvements, text(t, c))
	}
}

// A significant 5% slowdown is under the default 10% threshold; a 3%
// threshold, for every metric or for time only, catches it.
func TestThresholds(t *testing.T) {
	base, cur := pair()
	const name = "dequant_f16/Q4_K"
	benchtest.Scale(cur, name, 1.05)

	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	tm := metricOf(t, c, name, bench.MetricTime)
	if c.Regressed() || !tm.Significant || tm.Verdict != bench.Unchanged {
		t.Errorf("5%% with a 10%% threshold: %d regressions, significant %v (p %.4f), verdict %s; want none, true, unchanged",
			c.Regressions, tm.Significant, tm.P, tm.Verdict)
	}
	if out := text(t, c); !strings.Contains(out, "within threshold") {
		t.Errorf("text does not say the significant change is within the threshold:\n%s", out)
	}

	o := bench.DefaultCompareOptions()
	o.Threshold = 0.03
	if c := bench.Compare(base, cur, o); c.Regressions != 1 {
		t.Errorf("5%% with a 3%% threshold: %d regressions, want 1", c.Regressions)
	}

	o = bench.DefaultCompareOptions()
	o.Thresholds = map[string]float64{bench.MetricTime: 0.03}
	c = bench.Compare(base, cur, o)
	if c.Regressions != 1 || metricOf(t, c, name, bench.MetricTime).Verdict != bench.Regression ||
		metricOf(t, c, name, bench.MetricGBps).Verdict != bench.Unchanged {
		t.Errorf("time=3%%: want a time regression and unchanged GB/s (10%% default):\n%s", text(t, c))
	}
}

// With 2 samples a side the U test cannot reach p < 0.05 (its smallest p is
// 1/3), so even a 30% slowdown is reported as not significant, and why.
func TestTooFewSamples(t *testing.T) {
	b := []benchtest.Bench{{Name: "dequant_f32/Q5_0", Center: 50 * time.Microsecond, Samples: 2}}
	base, cur := benchtest.Run(1, b...), benchtest.Run(2, b...)
	benchtest.Scale(cur, "", 1.3)
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	tm := metricOf(t, c, b[0].Name, bench.MetricTime)
	if c.Regressed() || tm.Significant || !tm.TooFewSamples || tm.Verdict != bench.Unchanged {
		t.Fatalf("verdict %s significant %v too-few %v p %.3f; want unchanged, not significant, too few", tm.Verdict, tm.Significant, tm.TooFewSamples, tm.P)
	}
	if math.Abs(float64(tm.Delta)-0.3) > 0.03 {
		t.Errorf("delta %.3f, want about +0.30 (shown, though not significant)", float64(tm.Delta))
	}
	out := text(t, c)
	for _, want := range []string{"~", "p=0.333 n=2", "need >= 4 samples to detect a difference"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// Infinite confidence bounds must still encode.
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("json: %v", err)
	}
}

func TestNewAndMissing(t *testing.T) {
	d := benchtest.Defaults()
	base := benchtest.Run(1, d[:4]...)
	cur := benchtest.Run(2, append(d[1:4:4], d[4], d[5])...)
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	if got := strings.Join(c.New, ","); got != d[4].Name+","+d[5].Name {
		t.Errorf("new = %v", c.New)
	}
	if got := strings.Join(c.Missing, ","); got != d[0].Name {
		t.Errorf("missing = %v", c.Missing)
	}
	if len(c.Benchmarks) != 3 || c.Regressed() {
		t.Errorf("%d compared, %d regressions", len(c.Benchmarks), c.Regressions)
	}
	out := text(t, c)
	for _, want := range []string{"new (in the current run only): " + d[4].Name, "missing (in the baseline only): " + d[0].Name} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestHardwareDiffers(t *testing.T) {
	base, cur := pair()
	cur.Meta.Device = "Other CPU"
	cur.Meta.GoVersion = "go1.27.0"
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	if c.Comparable {
		t.Error("a different device is comparable")
	}
	joined := strings.Join(c.Warnings, "\n")
	for _, want := range []string{`device differs: baseline "Synthetic CPU @ 3.0GHz", current "Other CPU"`, "not comparable"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q: %q", want, c.Warnings)
		}
	}
	if strings.Contains(joined, "go version") || !strings.Contains(strings.Join(c.Notes, "\n"), "go version differs") {
		t.Errorf("a Go version difference is a note, not a warning: warnings %q notes %q", c.Warnings, c.Notes)
	}
	if out := text(t, c); !strings.Contains(out, "WARNING: device differs") || !strings.Contains(out, "NOT comparable") {
		t.Errorf("text lacks the warning:\n%s", out)
	}

	// Software that sets performance (driver, toolkit, target) warns too;
	// a field one side does not know is not a difference.
	base, cur = pair()
	base.Meta.Driver, cur.Meta.Driver = "550.54", "560.28"
	cur.Meta.Toolkit = "12.4"
	if c := bench.Compare(base, cur, bench.DefaultCompareOptions()); c.Comparable || len(c.Warnings) != 2 {
		t.Errorf("driver differs: comparable %v, warnings %q", c.Comparable, c.Warnings)
	}
}

// TestModelDiffers: runs of two GGUF files (by content, else by size and
// type), or of one and none, are not comparable; the same file under
// another path is.
func TestModelDiffers(t *testing.T) {
	m := func(path string, size int64, sha, ft string) *bench.Model {
		return &bench.Model{Path: path, Size: size, SHA256: sha, FileType: ft, Tensors: 291}
	}
	for _, tc := range []struct {
		name     string
		a, b     *bench.Model
		warn     string // "" for none
		wantComp bool
	}{
		{"same file elsewhere", m("a.gguf", 100, "ab", "Q4_K_M"), m("/x/b.gguf", 100, "ab", "Q4_K_M"), "", true},
		{"other content", m("a.gguf", 100, "ab", "Q4_K_M"), m("a.gguf", 100, "cd", "Q4_K_M"), `model differs: baseline a.gguf (100 bytes, Q4_K_M), current a.gguf (100 bytes, Q4_K_M)`, false},
		{"no hash, other type", m("a.gguf", 100, "", "Q4_K_M"), m("a.gguf", 100, "", "Q8_0"), "Q8_0", false},
		{"no hash, same", m("a.gguf", 100, "", "Q4_K_M"), m("b.gguf", 100, "", "Q4_K_M"), "", true},
		{"baseline only", m("a.gguf", 100, "ab", ""), nil, "the baseline measured the GGUF file a.gguf (100 bytes), the current run none", false},
		{"current only", nil, m("a.gguf", 100, "ab", ""), "the current run measured the GGUF file a.gguf", false},
	} {
		base, cur := pair()
		base.Meta.Model, cur.Meta.Model = tc.a, tc.b
		c := bench.Compare(base, cur, bench.DefaultCompareOptions())
		joined := strings.Join(c.Warnings, "\n")
		if c.Comparable != tc.wantComp || (tc.warn == "") != !strings.Contains(joined, "model differs") || !strings.Contains(joined, tc.warn) {
			t.Errorf("%s: comparable %v, warnings %q; want comparable %v and %q", tc.name, c.Comparable, c.Warnings, tc.wantComp, tc.warn)
		}
	}
}

func TestSizeDiffers(t *testing.T) {
	base, cur := pair()
	cur.Results[0].BytesRead *= 2
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	if len(c.Benchmarks[0].Warnings) == 0 || !strings.Contains(c.Benchmarks[0].Warnings[0], "size differs") {
		t.Errorf("no size warning: %q", c.Benchmarks[0].Warnings)
	}
}

func TestComparisonJSON(t *testing.T) {
	base, cur := pair()
	benchtest.Scale(cur, "copy/f32", 1.3)
	c := bench.Compare(base, cur, bench.DefaultCompareOptions())
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back bench.Comparison
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Regressions != 1 || len(back.Benchmarks) != len(c.Benchmarks) || back.Options.Threshold != 0.10 {
		t.Errorf("round trip: %+v", back)
	}
}

func TestParseThresholds(t *testing.T) {
	for s, want := range map[string]float64{"10%": 0.10, "10": 0.10, " 2.5% ": 0.025, "0%": 0, "1000%": 10} {
		if got, err := bench.ParseThreshold(s); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("ParseThreshold(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	// Past 1000% a threshold turns the gate off: 1e99% was taken.
	for _, s := range []string{"", "ten", "-5%", "NaN", "1000.5%", "1e99%", "9223372036854775807", "Inf%"} {
		if _, err := bench.ParseThreshold(s); err == nil {
			t.Errorf("ParseThreshold(%q) accepted", s)
		}
	}
	m, err := bench.ParseMetricThresholds("time=5%,gbps=10%")
	if err != nil || m["time"] != 0.05 || m["gbps"] != 0.10 {
		t.Errorf("ParseMetricThresholds = %v, %v", m, err)
	}
	if _, err := bench.ParseMetricThresholds("flops=5%"); err == nil || !strings.Contains(err.Error(), "time, gbps") {
		t.Errorf("unknown metric: %v", err)
	}
}

// TestCheckComparable: a comparison that would judge nothing is an error
// wrapping ErrNothingToCompare (Compare itself reported such a pair as
// "N new" or "N missing" and no regression).
func TestCheckComparable(t *testing.T) {
	base, cur := benchtest.Run(1, benchtest.Defaults()...), benchtest.Run(2, benchtest.Defaults()...)
	if err := bench.CheckComparable(base, cur, "base", "cur"); err != nil {
		t.Fatalf("the same benchmarks: %v", err)
	}
	partial := benchtest.Run(2, benchtest.Defaults()[:1]...)
	if err := bench.CheckComparable(base, partial, "base", "cur"); err != nil {
		t.Errorf("one benchmark in common: %v", err)
	}
	empty := benchtest.Run(3)
	other := benchtest.Run(4, benchtest.Bench{Name: "x/\x1b[31m", Center: 1000})
	figures := benchtest.Run(5)
	figures.Results = []bench.Result{{Name: "memory/a", Metrics: []suite.Metric{{Name: "peak", Value: 1}}}}
	for _, c := range []struct {
		name      string
		base, cur *bench.Run
		want      string
	}{
		{"empty baseline", empty, cur, "base has no results: nothing to compare"},
		{"empty run", base, empty, "cur has no results: nothing to compare"},
		{"disjoint", base, other, `no benchmark in common: base has 6 (dequant_f32/F16, dequant_f32/Q4_0, dequant_f32/Q8_0, ...); cur has 1 (x/\x1b[31m): nothing to compare`},
		{"figures only", figures, figures, "the 1 benchmark(s) that base and cur have in common carry no samples"},
	} {
		err := bench.CheckComparable(c.base, c.cur, "base", "cur")
		if !errors.Is(err, bench.ErrNothingToCompare) || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	empty.Interrupted = true
	if err := bench.CheckHasResults(empty, "r.json"); !errors.Is(err, bench.ErrNoResults) || err.Error() != "r.json has no results (it was interrupted before its first benchmark finished)" {
		t.Errorf("CheckHasResults: %v", err)
	}
}
