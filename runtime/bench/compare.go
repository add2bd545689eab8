package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchmath"
)

// Metrics compare knows. Time is the samples themselves (ns per
// iteration); GB/s is derived per sample from the bytes a benchmark moves.
const (
	MetricTime = "time"
	MetricGBps = "gbps"
)

// Defaults of CompareOptions.
const (
	DefaultThreshold  = 0.10
	DefaultAlpha      = 0.05
	DefaultConfidence = 0.95
)

type cmpMetric struct {
	name, label, what string
	higherIsBetter    bool
	// values returns the metric's samples of r, or false where the metric
	// does not apply to r.
	values func(r *Result) ([]float64, bool)
	format func(v float64) string
}

var cmpMetrics = []cmpMetric{
	{
		name: MetricTime, label: "time/op", what: "ns per iteration",
		values: func(r *Result) ([]float64, bool) {
			v := make([]float64, len(r.Samples))
			for i, s := range r.Samples {
				v[i] = float64(s)
			}
			return v, len(v) > 0
		},
		format: cmpFormatNs,
	},
	{
		name: MetricGBps, label: "GB/s", what: "bytes read and written per second / 1e9", higherIsBetter: true,
		values: func(r *Result) ([]float64, bool) {
			bytes := float64(r.BytesRead + r.BytesWritten)
			if bytes == 0 || len(r.Samples) == 0 {
				return nil, false
			}
			v := make([]float64, len(r.Samples))
			for i, s := range r.Samples {
				if s <= 0 {
					return nil, false // a zero time has no rate
				}
				v[i] = bytes / float64(s) // bytes per ns = GB/s
			}
			return v, true
		},
		format: func(v float64) string { return cmpSig4(v) },
	},
}

// MetricNames lists the cmpMetrics compare knows, for messages.
func MetricNames() []string {
	var n []string
	for _, m := range cmpMetrics {
		n = append(n, m.name)
	}
	return n
}

// CompareOptions sets when a change counts. A change is a regression (or an
// improvement) only when the relative change of the median is past the
// metric's threshold in the worse (better) direction AND the Mann-Whitney U
// test says the two sample sets differ with p < Alpha.
type CompareOptions struct {
	// Threshold is the relative change that counts (0.10 = 10%) for every
	// metric without its own entry in Thresholds. Zero counts every
	// significant change; use DefaultCompareOptions for the default 10%.
	Threshold float64 `json:"threshold"`
	// Thresholds overrides Threshold per metric (MetricTime, MetricGBps).
	Thresholds map[string]float64 `json:"thresholds,omitempty"`
	// Alpha is the significance level; zero means DefaultAlpha.
	Alpha float64 `json:"alpha"`
	// Confidence is the level of the medians' confidence intervals; zero
	// means DefaultConfidence.
	Confidence float64 `json:"confidence"`
}

// DefaultCompareOptions is a 10% threshold at alpha 0.05 with 95%
// confidence intervals, as benchstat reports them.
func DefaultCompareOptions() CompareOptions {
	return CompareOptions{Threshold: DefaultThreshold, Alpha: DefaultAlpha, Confidence: DefaultConfidence}
}

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Alpha <= 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Confidence <= 0 {
		o.Confidence = DefaultConfidence
	}
	return o
}

// ThresholdFor is the threshold metric is judged by.
func (o CompareOptions) ThresholdFor(metric string) float64 {
	if t, ok := o.Thresholds[metric]; ok {
		return t
	}
	return o.Threshold
}

// Verdict is the outcome for one benchmark (or one metric of it).
type Verdict string

const (
	Unchanged   Verdict = "unchanged"
	Regression  Verdict = "regression"
	Improvement Verdict = "improvement"
)

// Num is a float64 that encodes NaN and ±Inf (an unknown confidence bound,
// an undefined change) as JSON null and decodes null as NaN.
type Num float64

func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*n = Num(f)
	return err
}

// MedianSummary is a sample set's median with its confidence interval (Lo, Hi;
// infinite, null in JSON, when there are too few samples for one).
type MedianSummary struct {
	N          int     `json:"n"`
	Center     float64 `json:"median"`
	Lo         Num     `json:"lo"`
	Hi         Num     `json:"hi"`
	Confidence float64 `json:"confidence"`
}

// PctRange is the interval's half-width relative to the median, as
// benchstat prints it ("± 2%"); "∞" when the interval is unbounded.
func (s MedianSummary) PctRange() string {
	lo, hi := float64(s.Lo), float64(s.Hi)
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return "∞"
	}
	if s.Center == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*math.Max(hi/s.Center-1, 1-lo/s.Center))
}

// MetricDelta compares one metric of one benchmark.
type MetricDelta struct {
	Metric         string        `json:"metric"`
	HigherIsBetter bool          `json:"higher_is_better"`
	Old            MedianSummary `json:"old"`
	New            MedianSummary `json:"new"`
	// Delta is the relative change of the median, new/old - 1 (NaN, null
	// in JSON, when the old median is 0).
	Delta       Num     `json:"delta"`
	P           float64 `json:"p"`
	Alpha       float64 `json:"alpha"`
	Threshold   float64 `json:"threshold"`
	Significant bool    `json:"significant"` // P < Alpha
	// TooFewSamples: with this many samples no difference can reach p <
	// Alpha, so the verdict is unchanged whatever the numbers say.
	TooFewSamples bool     `json:"too_few_samples,omitempty"`
	Verdict       Verdict  `json:"verdict"`
	Notes         []string `json:"notes,omitempty"`
}

// BenchDelta is one benchmark present in both runs. Its Verdict is a
// regression if any metric regressed, else an improvement if any improved.
type BenchDelta struct {
	Name     string        `json:"name"`
	Verdict  Verdict       `json:"verdict"`
	Metrics  []MetricDelta `json:"cmpMetrics"`
	Warnings []string      `json:"warnings,omitempty"`
}

// ComparedRun identifies one side of a comparison.
type ComparedRun struct {
	Label       string    `json:"label"` // the baseline's name or the file, for people
	Name        string    `json:"name,omitempty"`
	Started     time.Time `json:"started"`
	Meta        Meta      `json:"meta"`
	Roofline    *Roofline `json:"roofline,omitempty"`
	Results     int       `json:"results"`
	Interrupted bool      `json:"interrupted,omitempty"`
}

// ComparisonKind tells the JSON of a Comparison apart from runs and
// baselines.
const ComparisonKind = "forgebench.comparison"

// Comparison is the outcome of Compare: forgebench compare prints it and
// writes it as JSON.
type Comparison struct {
	Kind     string         `json:"kind"`           // ComparisonKind
	Schema   int            `json:"schema_version"` // SchemaVersion
	Baseline ComparedRun    `json:"baseline"`
	Current  ComparedRun    `json:"current"`
	Options  CompareOptions `json:"options"`
	// Comparable is false when the runs differ in hardware or in the
	// software that sets performance (see Warnings).
	Comparable bool `json:"comparable"`
	// Warnings: differences that make numbers not comparable, interrupted
	// runs. Notes: differences worth knowing that do not (Go or forge
	// version, host, the copy roofline).
	Warnings     []string     `json:"warnings,omitempty"`
	Notes        []string     `json:"notes,omitempty"`
	Benchmarks   []BenchDelta `json:"benchmarks"`
	New          []string     `json:"new,omitempty"`     // in the current run only
	Missing      []string     `json:"missing,omitempty"` // in the baseline only
	Regressions  int          `json:"regressions"`
	Improvements int          `json:"improvements"`
	Unchanged    int          `json:"unchanged"`
}

// Regressed reports whether any benchmark regressed.
func (c *Comparison) Regressed() bool { return c.Regressions > 0 }

// ErrNoResults is wrapped by CheckHasResults' errors, ErrNothingToCompare
// by CheckComparable's: a comparison that would judge nothing, and so a
// gate built on it that would pass whatever was measured.
var (
	ErrNoResults        = errors.New("no results")
	ErrNothingToCompare = errors.New("nothing to compare")
)

// CheckHasResults returns an error wrapping ErrNoResults, naming run by
// label, when run has no results: a file whose results are null or [],
// or a run interrupted before its first benchmark finished.
func CheckHasResults(run *Run, label string) error {
	if len(run.Results) > 0 {
		return nil
	}
	why := ""
	if run.Interrupted {
		why = " (it was interrupted before its first benchmark finished)"
	}
	return fmt.Errorf("%s has %w%s", Printable(label), ErrNoResults, why)
}

// CheckComparable returns an error wrapping ErrNothingToCompare when
// comparing cur with base would judge nothing: either has no results
// (CheckHasResults), they have no benchmark in common, or the ones in
// common have no samples to compare (a scenario's figures alone).
// Benchmarks in one run only are not an error as long as some are
// compared: Compare lists them as new or missing.
func CheckComparable(base, cur *Run, baseLabel, curLabel string) error {
	for _, side := range []struct {
		run   *Run
		label string
	}{{base, baseLabel}, {cur, curLabel}} {
		if err := CheckHasResults(side.run, side.label); err != nil {
			return fmt.Errorf("%w: %w", err, ErrNothingToCompare)
		}
	}
	old := make(map[string]*Result, len(base.Results))
	for i := range base.Results {
		old[base.Results[i].Name] = &base.Results[i]
	}
	common := 0
	for i := range cur.Results {
		b, ok := old[cur.Results[i].Name]
		if !ok {
			continue
		}
		common++
		for _, m := range cmpMetrics {
			_, ok1 := m.values(b)
			_, ok2 := m.values(&cur.Results[i])
			if ok1 && ok2 {
				return nil
			}
		}
	}
	if common == 0 {
		return fmt.Errorf("no benchmark in common: %s has %s; %s has %s: %w",
			Printable(baseLabel), cmpSomeNames(base), Printable(curLabel), cmpSomeNames(cur), ErrNothingToCompare)
	}
	return fmt.Errorf("the %d benchmark(s) that %s and %s have in common carry no samples (a scenario's figures alone), which compare does not judge: %w",
		common, Printable(baseLabel), Printable(curLabel), ErrNothingToCompare)
}

// cmpSomeNames is "N (a, b, c, ...)": run's result count and enough of
// its names to see why two runs do not meet.
func cmpSomeNames(run *Run) string {
	const show = 3
	var names []string
	for i := range min(show, len(run.Results)) {
		names = append(names, Printable(run.Results[i].Name))
	}
	if len(run.Results) > show {
		names = append(names, "...")
	}
	return fmt.Sprintf("%d (%s)", len(run.Results), strings.Join(names, ", "))
}

// Compare compares the benchmarks of cur with those of base by name. Each
// metric's samples are summarised by their median with a confidence
// interval and compared with the Mann-Whitney U test, through
// golang.org/x/perf/benchmath's AssumeNothing, as benchstat does.
func Compare(base, cur *Run, opts CompareOptions) *Comparison {
	opts = opts.withDefaults()
	c := &Comparison{
		Kind:     ComparisonKind,
		Schema:   SchemaVersion,
		Baseline: cmpInfo(base, "baseline"),
		Current:  cmpInfo(cur, "current"),
		Options:  opts,
	}
	c.checkMeta(base, cur)

	old := make(map[string]*Result, len(base.Results))
	for i := range base.Results {
		old[base.Results[i].Name] = &base.Results[i]
	}
	now := make(map[string]bool, len(cur.Results))
	for i := range cur.Results {
		r := &cur.Results[i]
		now[r.Name] = true
		b, ok := old[r.Name]
		if !ok {
			c.New = append(c.New, r.Name)
			continue
		}
		d := cmpResult(b, r, opts)
		switch d.Verdict {
		case Regression:
			c.Regressions++
		case Improvement:
			c.Improvements++
		default:
			c.Unchanged++
		}
		c.Benchmarks = append(c.Benchmarks, d)
	}
	for _, b := range base.Results {
		if !now[b.Name] {
			c.Missing = append(c.Missing, b.Name)
		}
	}
	return c
}

func cmpInfo(r *Run, label string) ComparedRun {
	if r.Name != "" {
		label = r.Name
	}
	return ComparedRun{Label: label, Name: r.Name, Started: r.Started, Meta: r.Meta, Roofline: r.Roofline,
		Results: len(r.Results), Interrupted: r.Interrupted}
}

// checkMeta warns about hardware and software differences that make the
// numbers not comparable, and notes those that do not.
func (c *Comparison) checkMeta(base, cur *Run) {
	a, b := base.Meta, cur.Meta
	differs := func(what, x, y string) {
		// An empty field is unknown, not different.
		if x != "" && y != "" && x != y {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s differs: baseline %q, current %q", what, x, y))
		}
	}
	differs("backend", a.Backend, b.Backend)
	differs("device", a.Device, b.Device)
	differs("arch", a.Arch, b.Arch)
	differs("target", a.Target, b.Target)
	differs("driver", a.Driver, b.Driver)
	differs("toolkit", a.Toolkit, b.Toolkit)
	differs("os", a.OS, b.OS)
	num := func(v int) string {
		if v == 0 {
			return ""
		}
		return strconv.Itoa(v)
	}
	differs("compute units", num(a.ComputeUnits), num(b.ComputeUnits))
	if a.MemoryBytes != 0 && b.MemoryBytes != 0 && a.MemoryBytes != b.MemoryBytes {
		differs("device memory", strconv.FormatUint(a.MemoryBytes, 10), strconv.FormatUint(b.MemoryBytes, 10))
	}
	if a.Backend == "cpu" && b.Backend == "cpu" {
		// The cpu backend runs on GOMAXPROCS goroutines.
		differs("CPUs (GOMAXPROCS)", num(a.CPUs), num(b.CPUs))
	}
	// The benchmarks of a --gguf run are named by tensor ("gguf/<tensor>/
	// <kernel>"): two models share names but not what stands behind them.
	if w := modelDiffers(a.Model, b.Model); w != "" {
		c.Warnings = append(c.Warnings, w)
	}
	if len(c.Warnings) > 0 {
		c.Warnings = append(c.Warnings, "the numbers are not comparable: the runs differ in hardware or in software that sets performance; verdicts below compare them anyway")
	}
	c.Comparable = len(c.Warnings) == 0

	note := func(what, x, y string) {
		if x != y && (x != "" || y != "") {
			c.Notes = append(c.Notes, fmt.Sprintf("%s differs: baseline %s, current %s", what, cmpOrUnknown(x), cmpOrUnknown(y)))
		}
	}
	note("go version", a.GoVersion, b.GoVersion)
	note("forge version", a.ForgeVersion, b.ForgeVersion)
	mod := func(m Meta) string {
		if m.ForgeCommit == "" {
			return ""
		}
		if m.ForgeModified {
			return m.ForgeCommit + " (modified)"
		}
		return m.ForgeCommit
	}
	note("forge commit", mod(a), mod(b))
	note("kernel library", a.Library, b.Library)
	note("host", a.Hostname, b.Hostname)
	if ra, rb := base.Roofline, cur.Roofline; ra != nil && rb != nil && ra.GBps > 0 {
		d := rb.GBps/ra.GBps - 1
		if math.Abs(d) >= 0.05 {
			c.Notes = append(c.Notes, fmt.Sprintf("copy roofline changed: baseline %s GB/s, current %s GB/s (%+.1f%%): the machine itself may be faster or slower", cmpSig4(ra.GBps), cmpSig4(rb.GBps), 100*d))
		}
	}
	if base.Interrupted {
		c.Warnings = append(c.Warnings, "the baseline run was interrupted: it lacks some benchmarks")
	}
	if cur.Interrupted {
		c.Warnings = append(c.Warnings, "the current run was interrupted: benchmarks it did not reach are listed as missing")
	}
}

// modelDiffers says how the GGUF files of two runs differ ("" where they
// are the same file, or neither run measured one): by content where both
// know it (SHA-256), else by size, name and file type.
func modelDiffers(a, b *Model) string {
	id := func(m *Model) string {
		s := fmt.Sprintf("%s (%d bytes", m.Path, m.Size)
		if m.FileType != "" {
			s += ", " + m.FileType
		}
		return s + ")"
	}
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil:
		return "model differs: the current run measured the GGUF file " + id(b) + ", the baseline none"
	case b == nil:
		return "model differs: the baseline measured the GGUF file " + id(a) + ", the current run none"
	}
	same := a.Size == b.Size && a.Name == b.Name && a.FileType == b.FileType && a.Tensors == b.Tensors
	if a.SHA256 != "" && b.SHA256 != "" {
		same = a.SHA256 == b.SHA256
	}
	if same {
		return ""
	}
	return "model differs: baseline " + id(a) + ", current " + id(b)
}

func cmpOrUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func cmpResult(b, r *Result, opts CompareOptions) BenchDelta {
	d := BenchDelta{Name: r.Name, Verdict: Unchanged}
	if b.Elements != r.Elements || b.BytesRead != r.BytesRead || b.BytesWritten != r.BytesWritten || !slices.Equal(b.Shape, r.Shape) {
		d.Warnings = append(d.Warnings, fmt.Sprintf(
			"the benchmark's size differs (baseline %d elements, %d bytes moved; current %d elements, %d bytes moved): its times are not comparable",
			b.Elements, b.BytesRead+b.BytesWritten, r.Elements, r.BytesRead+r.BytesWritten))
	}
	for _, m := range cmpMetrics {
		ov, ok1 := m.values(b)
		nv, ok2 := m.values(r)
		if !ok1 || !ok2 {
			continue
		}
		md := cmpMetricDelta(m, ov, nv, opts)
		d.Metrics = append(d.Metrics, md)
		switch {
		case md.Verdict == Regression:
			d.Verdict = Regression
		case md.Verdict == Improvement && d.Verdict == Unchanged:
			d.Verdict = Improvement
		}
	}
	return d
}

func cmpMetricDelta(m cmpMetric, ov, nv []float64, opts CompareOptions) MetricDelta {
	th := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	s1, s2 := benchmath.NewSample(ov, th), benchmath.NewSample(nv, th)
	a := benchmath.AssumeNothing
	sum1, sum2 := a.Summary(s1, opts.Confidence), a.Summary(s2, opts.Confidence)
	cmp := a.Compare(s1, s2)

	md := MetricDelta{
		Metric: m.name, HigherIsBetter: m.higherIsBetter,
		Old: cmpSummary(len(ov), sum1), New: cmpSummary(len(nv), sum2),
		P: cmp.P, Alpha: opts.Alpha, Threshold: opts.ThresholdFor(m.name),
		Significant: cmp.P < opts.Alpha,
		Verdict:     Unchanged,
	}
	var notes []string
	for _, w := range append(append(sum1.Warnings, sum2.Warnings...), cmp.Warnings...) {
		notes = append(notes, w.Error())
	}
	if minP := cmpMinUTestP(len(ov), len(nv)); minP >= opts.Alpha {
		md.TooFewSamples = true
		if len(cmp.Warnings) == 0 {
			notes = append(notes, fmt.Sprintf("with %d and %d samples the smallest possible p is %.3f: no difference can be significant at alpha level %v", len(ov), len(nv), minP, opts.Alpha))
		}
	}
	slices.Sort(notes)
	md.Notes = slices.Compact(notes)

	if sum1.Center == 0 {
		md.Delta = Num(math.NaN())
		md.Notes = append(md.Notes, "the baseline median is 0: no relative change")
		return md
	}
	delta := sum2.Center/sum1.Center - 1
	md.Delta = Num(delta)
	if !md.Significant {
		return md
	}
	worse, better := delta > md.Threshold, delta < -md.Threshold
	if m.higherIsBetter {
		worse, better = better, worse
	}
	switch {
	case worse:
		md.Verdict = Regression
	case better:
		md.Verdict = Improvement
	}
	return md
}

// SummarizeMetric is the median of one metric of r with its confidence interval
// at the given level (0 means DefaultConfidence), as compare reports it;
// false when the metric does not apply to r (GB/s of a result that moves no
// bytes) or is unknown.
func SummarizeMetric(r *Result, metric string, confidence float64) (MedianSummary, bool) {
	if confidence <= 0 {
		confidence = DefaultConfidence
	}
	for _, m := range cmpMetrics {
		if m.name != metric {
			continue
		}
		v, ok := m.values(r)
		if !ok {
			return MedianSummary{}, false
		}
		s := benchmath.NewSample(v, &benchmath.DefaultThresholds)
		return cmpSummary(len(v), benchmath.AssumeNothing.Summary(s, confidence)), true
	}
	return MedianSummary{}, false
}

// FormatMetric prints a value of metric as compare's tables do: times with
// a unit and 4 significant digits ("1.234µs"), rates as numbers.
func FormatMetric(metric string, v float64) string {
	for _, m := range cmpMetrics {
		if m.name == metric {
			return m.format(v)
		}
	}
	return cmpSig4(v)
}

func cmpSummary(n int, s benchmath.Summary) MedianSummary {
	return MedianSummary{N: n, Center: s.Center, Lo: Num(s.Lo), Hi: Num(s.Hi), Confidence: s.Confidence}
}

// minUTestP is the smallest two-sided p-value the Mann-Whitney U test can
// give for sample sizes n1 and n2 (the samples fully separated):
// 2 / C(n1+n2, n1).
func cmpMinUTestP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
		if c > 1e12 {
			break
		}
	}
	return math.Min(1, 2/c)
}

// ParseThreshold reads a relative threshold written as a percentage:
// "10%", "10" and "2.5%" are 0.10, 0.10 and 0.025. It refuses a negative
// one and one above MaxThresholdPct, which would turn a gate off without
// saying so.
func ParseThreshold(s string) (float64, error) {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("threshold %q is not a percentage (e.g. 10%%)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("threshold %q is negative", s)
	}
	if v > MaxThresholdPct {
		return 0, fmt.Errorf("threshold %q is above %d%%", s, MaxThresholdPct)
	}
	return v / 100, nil
}

// MaxThresholdPct bounds ParseThreshold: a threshold of 1000% still
// catches a slowdown past 11× (a broken build); much past it, nothing.
const MaxThresholdPct = 1000

// ParseMetricThresholds reads per-metric thresholds, "time=5%,gbps=10%";
// each item may also be given separately.
func ParseMetricThresholds(items ...string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, item := range items {
		for _, kv := range strings.Split(item, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("metric threshold %q: want METRIC=PERCENT, e.g. time=5%%", kv)
			}
			k = strings.TrimSpace(k)
			if !slices.Contains(MetricNames(), k) {
				return nil, fmt.Errorf("unknown metric %q (cmpMetrics: %s)", k, strings.Join(MetricNames(), ", "))
			}
			t, err := ParseThreshold(v)
			if err != nil {
				return nil, fmt.Errorf("metric %s: %w", k, err)
			}
			out[k] = t
		}
	}
	return out, nil
}

// cmpFormatNs prints a time in ns with 4 significant digits and a unit.
func cmpFormatNs(ns float64) string {
	switch a := math.Abs(ns); {
	case a >= 1e9:
		return cmpSig4(ns/1e9) + "s"
	case a >= 1e6:
		return cmpSig4(ns/1e6) + "ms"
	case a >= 1e3:
		return cmpSig4(ns/1e3) + "µs"
	}
	return cmpSig4(ns) + "ns"
}

func cmpSig4(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
