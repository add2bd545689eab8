package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/specs/formats"
)

// Defaults of Options' zero values.
const (
	DefaultWarmup     = 2
	DefaultCount      = 10
	DefaultMaxTime    = 5 * time.Second
	DefaultPrecision  = 0.01
	DefaultMaxSamples = 10000
)

// ErrInterrupted is returned (wrapped with the context's error) by Measure
// when its context ends before every target ran; the Run it returns still
// holds the benchmarks that finished, and has Interrupted set.
var ErrInterrupted = errors.New("interrupted")

// Options control how Measure samples each benchmark.
//
// One sample is one iteration: one run of the benchmark's resident kernel
// (its family's Measure; Resident.Run(1)), one launch timed with device
// events on a backend.Device, one call timed with the wall clock on the
// cpu. Each
// benchmark first runs Warmup iterations, then samples until:
//   - by default, Count samples;
//   - with MinTime, at least Count samples adding up to at least MinTime of
//     measured time;
//   - with Auto, at least Count samples and the 95% confidence interval of
//     the median (benchmath, as benchstat computes it) within ±Precision
//     of the median: a relative precision of the centre, Criterion's and
//     benchstat's notion of a settled measurement.
//
// MinTime and Auto also stop at MaxTime of wall-clock time per benchmark
// or at MaxSamples samples, whichever comes first.
//
// With LaunchesPerSample n > 1, a kernel suite's sample is instead the
// mean of n back-to-back runs (Resident.Run(n) / n), timed as one: the
// launch gap that one launch per event pair includes is then hidden as it
// is in go test -bench and in llama.cpp's test-backend-ops perf.
type Options struct {
	Warmup     int           // warm-up iterations; 0: DefaultWarmup; negative: none
	Count      int           // samples; the least with MinTime or Auto; 0: DefaultCount
	MinTime    time.Duration // measured time each benchmark adds up to at least
	Auto       bool          // sample until the median is known within ±Precision
	Precision  float64       // Auto's half-width of the median's interval, a fraction of it; 0: DefaultPrecision (±1%)
	MaxTime    time.Duration // per benchmark, for MinTime and Auto; 0: DefaultMaxTime
	MaxSamples int           // per benchmark, for MinTime and Auto; 0: DefaultMaxSamples
	// Elems is the elements per iteration of targets without a Shape,
	// rounded down to whole blocks (at least one); 0: suite.DefaultElems
	// (16 Mi on the cpu, 64 Mi on a GPU).
	Elems int
	// LaunchesPerSample is the back-to-back runs each sample of a kernel
	// suite averages (0 or 1: one); scenario suites get it as
	// suite.Env.LaunchesPerSample (the attention suite honours it, the
	// others sample as they do).
	LaunchesPerSample int
	// Weights is how a device holds a weight matrix (matvec's W):
	// backend.WeightsRotate (byte-identical copies totalling at least twice
	// the L2, one per launch in turn) or backend.WeightsReuse (one copy);
	// "": rotate on a device backend. The cpu always reuses its one host
	// buffer. Each Result records what was done (Result.Weights).
	Weights backend.WeightMode
	// CopyBytes sizes the copy roofline's buffers; 0: suite.HostCopyBytes
	// on the cpu, suite.CopyBytes on a GPU; negative: no roofline (and no
	// %copy).
	CopyBytes int64
	// Quick runs the scenario suites' small cases only (suite.Env.Quick).
	Quick bool
	// Shapes, when given, replace the default benchmark shapes (and
	// $FORGE_BENCH_<FAMILY>) of every family whose shapes have as many
	// dimensions: [rows, cols] for matvec, [rows, cols, batch] for matmul;
	// each is rounded down to whole blocks of the format.
	Shapes [][]int
	// Logf, when set, receives the scenario suites' log lines.
	Logf func(format string, args ...any)
	// Progress, when set, is called before each benchmark with the number
	// done, the total and the benchmark's name, before the copy roofline
	// with the name "copy roofline", and at the end with done = total and
	// no name.
	Progress func(done, total int, name string)
	// Done, when set, is called with each finished benchmark's result.
	Done func(r *Result)
}

func (o Options) withDefaults() Options {
	if o.Warmup == 0 {
		o.Warmup = DefaultWarmup
	}
	o.Warmup = max(0, o.Warmup)
	if o.Count <= 0 {
		o.Count = DefaultCount
	}
	if o.Precision <= 0 {
		o.Precision = DefaultPrecision
	}
	if o.MaxTime <= 0 {
		o.MaxTime = DefaultMaxTime
	}
	if o.MaxSamples <= 0 {
		o.MaxSamples = DefaultMaxSamples
	}
	return o
}

// Target is one benchmark: a registered suite, optionally at a shape of
// its own and on data of its own (a GGUF tensor's).
type Target struct {
	Suite suite.Suite
	// Name is the result's name; "" for the suite's.
	Name string
	// Shape is the benchmark's shape, checked by its family
	// (family.Descriptor.Plan): for dequant the elements per dimension,
	// their product a whole number of the format's blocks (nil:
	// [Options.Elems rounded down to whole blocks]); for matvec [rows,
	// cols] (nil: each of the family's shapes, ExpandShapes).
	Shape []int
	// Input returns the blocks to decode (a family of Blocks only),
	// exactly the Shape's elements' worth; nil: reference-quantized data
	// (suite.QuantizedBlocks, the same the generated benchmarks decode).
	// It is called when the benchmark runs, so that a model's tensors are
	// read one at a time.
	Input func() ([]byte, error)
}

// SuiteTargets returns one target per suite, at the default shape (or,
// for a family with a default shape set, such as matvec, one per shape
// when Measure runs them: see ExpandShapes).
func SuiteTargets(ss []suite.Suite) []Target {
	ts := make([]Target, len(ss))
	for i, s := range ss {
		ts[i] = Target{Suite: s}
	}
	return ts
}

// name is the target's result name.
func (t *Target) name() string {
	if t.Name != "" {
		return t.Name
	}
	return t.Suite.Name
}

// plan is a checked target: its family, its shape and its input's
// cache key.
type plan struct {
	t       *Target
	fam     *family.Descriptor // nil for a scenario
	shape   []int
	nBlocks int // the blocks a Blocks family's benchmark decodes
	// scenario targets (suite.Suite.Scenario): they run and report their
	// own cases.
	scenario bool
}

func (t *Target) plan(b backend.Backend, elems int) (plan, error) {
	f := t.Suite.Format
	if t.Suite.IsScenario() {
		if t.Shape != nil || t.Input != nil {
			return plan{}, fmt.Errorf("%s: a scenario suite takes no shape or input of its own", t.name())
		}
		return plan{t: t, scenario: true}, nil
	}
	switch {
	case f == nil:
		return plan{}, fmt.Errorf("%s: suite has no format", t.name())
	case backend.OutputSize(t.Suite.Output) == 0:
		return plan{}, fmt.Errorf("%s: unknown output %q", t.name(), t.Suite.Output)
	}
	fam, err := family.Of(t.Suite)
	if err != nil {
		return plan{}, err
	}
	if fam.Measure == nil || fam.Runs == nil {
		return plan{}, fmt.Errorf("%s: the %s family has no benchmark of its own", t.name(), fam.Name)
	}
	if !fam.Runs(b) {
		return plan{}, fmt.Errorf("%s: backend %s does not run %s (leave the family out: --family dequant)", t.name(), b.Name(), fam.Name)
	}
	if t.Input != nil && !fam.Blocks {
		return plan{}, fmt.Errorf("%s: %s targets take no input of their own", t.name(), fam.Name)
	}
	shape, err := fam.Plan(f, t.Shape, elems)
	if err != nil {
		return plan{}, fmt.Errorf("%s: %w", t.name(), err)
	}
	p := plan{t: t, fam: fam, shape: shape}
	if fam.Blocks {
		n := 1
		for _, x := range shape {
			n *= x
		}
		p.nBlocks = n / f.BlockElems
	}
	return p, nil
}

// Measure runs targets on backend b and returns the Run: the machine's
// Meta, the copy roofline (unless opts.CopyBytes < 0) and one Result per
// target. Every target is checked before anything runs. Targets that
// decode the same generated input (a format's f32 and f16 kernels) run one
// after the other, so that the reference quantizer runs once per format;
// otherwise results keep the targets' order.
//
// When ctx ends, Measure stops at the next sample and returns the results
// that finished, Run.Interrupted set, and an error wrapping ErrInterrupted.
// On a failure it returns the results so far and the error.
func Measure(ctx context.Context, b backend.Backend, targets []Target, opts Options) (*Run, error) {
	opts = opts.withDefaults()
	elems := opts.Elems
	if elems <= 0 {
		elems = suite.DefaultElems(b)
	}
	targets, err := ExpandShapes(b, targets, opts.Shapes...)
	if err != nil {
		return nil, err
	}
	plans := make([]plan, len(targets))
	for i := range targets {
		p, err := targets[i].plan(b, elems)
		if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	plans = groupByInput(plans)

	run := &Run{Kind: Kind, Schema: SchemaVersion, Started: time.Now(), Meta: CollectMeta(b), Results: []Result{}}
	finish := func(err error) (*Run, error) {
		run.Finished = time.Now()
		if ctx.Err() != nil {
			run.Interrupted = true
			return run, fmt.Errorf("%w (%w): %d of %d benchmarks ran", ErrInterrupted, ctx.Err(), len(run.Results), len(plans))
		}
		return run, err
	}
	progress := func(done int, name string) {
		if opts.Progress != nil {
			opts.Progress(done, len(plans), name)
		}
	}

	if opts.CopyBytes >= 0 && slices.ContainsFunc(plans, func(p plan) bool { return !p.scenario }) {
		progress(0, "copy roofline")
		roof, err := measureRoofline(b, opts.CopyBytes, elems)
		if err != nil {
			return finish(fmt.Errorf("copy roofline on %s: %w", b.Name(), err))
		}
		run.Roofline = roof
	}
	for i, p := range plans {
		if ctx.Err() != nil {
			return finish(nil)
		}
		progress(i, p.t.name())
		if p.scenario {
			err := runScenario(ctx, b, p, opts, func(res *Result) {
				res.Stats = Summarize(res.Samples, res.BytesRead+res.BytesWritten, res.Elements, res.FLOPs, RooflineFor(run.Roofline, res.BytesRead+res.BytesWritten))
				run.Results = append(run.Results, *res)
				if opts.Done != nil {
					opts.Done(&run.Results[len(run.Results)-1])
				}
			})
			if err != nil {
				return finish(err)
			}
			continue
		}
		res, err := measureOne(ctx, b, p, opts)
		if err != nil {
			return finish(err)
		}
		if res == nil { // interrupted mid-benchmark: its samples are dropped
			return finish(nil)
		}
		res.Stats = Summarize(res.Samples, res.BytesRead+res.BytesWritten, res.Elements, res.FLOPs, RooflineFor(run.Roofline, res.BytesRead+res.BytesWritten))
		run.Results = append(run.Results, *res)
		if opts.Done != nil {
			opts.Done(&run.Results[len(run.Results)-1])
		}
	}
	progress(len(plans), "")
	return finish(nil)
}

// defaultShapes is the shape set of suite s's family on backend b: the
// given shapes of as many dimensions as the family's, else its defaults;
// nil for a family whose targets run at one default size (dequant), and
// for one b does not run (Measure says why).
func defaultShapes(b backend.Backend, s suite.Suite, given [][]int) ([]suite.BenchShape, error) {
	fam, err := family.Of(s)
	if err != nil || fam.Runs == nil || !fam.Runs(b) {
		return nil, nil
	}
	var shapes []suite.BenchShape
	for _, dims := range given {
		if fam.Dims != nil && len(dims) == len(fam.Dims) {
			shapes = append(shapes, suite.BenchShape{Name: suite.ShapeName(dims...), Dims: slices.Clone(dims)})
		}
	}
	if shapes != nil {
		return suite.WholeBlockShapes(s.Format, shapes), nil
	}
	return fam.Shapes(b, s.Format)
}

// ExpandShapes replaces each target without a Shape whose family has a
// default shape set on b (family.Descriptor.Shapes: matvec's four on a
// device) by one target per shape, named
// "<target>/<shape name>": "matvec_f32/Q4_0/4096x14336",
// "matvec_f32/Q4_0/output". Other targets are kept as they are. Shapes
// given replace the defaults of the families of their dimensions
// (Options.Shapes).
func ExpandShapes(b backend.Backend, targets []Target, given ...[]int) ([]Target, error) {
	var out []Target
	used := map[int]bool{} // the dimension counts of the shapes taken
	for _, t := range targets {
		if t.Shape != nil || t.Suite.Format == nil {
			out = append(out, t)
			continue
		}
		shapes, err := defaultShapes(b, t.Suite, given)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name(), err)
		}
		for _, sh := range shapes {
			used[len(sh.Dims)] = true
		}
		if shapes == nil {
			out = append(out, t)
			continue
		}
		for _, sh := range shapes {
			e := t
			e.Name, e.Shape = t.name()+"/"+sh.Name, sh.Dims
			out = append(out, e)
		}
	}
	for _, dims := range given {
		if !used[len(dims)] {
			return nil, fmt.Errorf("shape %s: no selected benchmark takes a shape of %d dimensions (matvec takes ROWSxCOLS, matmul ROWSxCOLSxBATCH)", suite.ShapeName(dims...), len(dims))
		}
	}
	return out, nil
}

// groupByInput moves each target that decodes generated blocks of the
// same format and size as an earlier one (a Blocks family's: dequant's f32
// and f16) right after it (a stable grouping), so that the family's input
// cache quantizes once per format.
func groupByInput(plans []plan) []plan {
	type key struct {
		f       *formats.Format
		nBlocks int
	}
	var order []key
	groups := map[key][]plan{}
	var out []plan
	for _, p := range plans {
		if p.t.Input != nil || p.scenario || !p.fam.Blocks {
			k := key{nil, len(order)} // a group of its own
			order = append(order, k)
			groups[k] = []plan{p}
			continue
		}
		k := key{p.t.Suite.Format, p.nBlocks}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p)
	}
	for _, k := range order {
		out = append(out, groups[k]...)
	}
	return out
}

// RooflineMinBytes is the least a benchmark moves per iteration (bytes
// read + written) to be judged against the copy roofline (Stats.PctCopy):
// below it, or below the roofline's own buffer when that is smaller
// (--copy-bytes), a time is the launch's and the caches' more than the
// memory's, and a percentage of a large copy's bandwidth (a 16 KiB tensor
// at "51% of copy" of a 256 MiB roofline) would mislead; such a
// benchmark gets no %copy ("-").
const RooflineMinBytes = 16 << 20

// RooflineFor is the copy bandwidth (GB/s) a benchmark moving bytes per
// iteration is judged against: roof's, or 0 (no %copy) without a roofline
// or when bytes are below RooflineMinBytes (or roof's buffer, if smaller;
// a run that did not record its buffer's size is judged by the constant).
func RooflineFor(roof *Roofline, bytes int64) float64 {
	if roof == nil {
		return 0
	}
	floor := int64(RooflineMinBytes)
	if roof.Bytes > 0 {
		floor = min(floor, roof.Bytes)
	}
	if bytes < floor {
		return 0
	}
	return roof.GBps
}

// measureRoofline measures the copy bandwidth on b.
func measureRoofline(b backend.Backend, bytes int64, elems int) (*Roofline, error) {
	if db, ok := backend.DeviceOf(b); ok {
		if bytes == 0 {
			bytes = suite.CopyBytes(db, elems)
		}
		r, err := suite.MeasureCopy(db, bytes)
		if err != nil {
			return nil, err
		}
		return &Roofline{Bytes: r.Bytes, GBps: r.GBps, Method: "forge_copy"}, nil
	}
	if bytes == 0 {
		bytes = suite.HostCopyBytes
	}
	r, err := suite.MeasureHostCopy(bytes)
	if err != nil {
		return nil, err
	}
	return &Roofline{Bytes: r.Bytes, GBps: r.GBps, Method: fmt.Sprintf("go copy, %d goroutines", runtime.GOMAXPROCS(0))}, nil
}

// measureOne samples one benchmark through its family's Measure; it
// returns nil, nil when ctx ended before it finished.
func measureOne(ctx context.Context, b backend.Backend, p plan, opts Options) (*Result, error) {
	s, f := p.t.Suite, p.t.Suite.Format
	what := fmt.Sprintf("%s on %s", p.t.name(), b.Name())
	var input []byte
	if p.t.Input != nil {
		var err error
		if input, err = p.t.Input(); err != nil {
			return nil, fmt.Errorf("%s: %w", p.t.name(), err)
		}
		if len(input) != p.nBlocks*f.BlockBytes {
			return nil, fmt.Errorf("%s: input of %d bytes, want %d (%d %s blocks)", p.t.name(), len(input), p.nBlocks*f.BlockBytes, p.nBlocks, f.Name)
		}
	}
	m, err := p.fam.Measure(b, s, p.shape, input, opts.Weights)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer m.Resident.Close()
	res := &Result{
		Name:         p.t.name(),
		Suite:        s.Name,
		Family:       s.Family,
		Kernel:       s.Kernel,
		Format:       f.Name,
		Output:       s.Output,
		Shape:        m.Shape,
		Elements:     m.Elements,
		BytesRead:    m.BytesRead,
		BytesWritten: m.BytesWritten,
		FLOPs:        m.FLOPs,
		Compression:  4 * float64(f.BlockElems) / float64(f.BlockBytes),
		Weights:      m.Weights,
		Warmup:       opts.Warmup,
	}
	n := max(1, opts.LaunchesPerSample)
	if n > 1 {
		res.LaunchesPerSample = n
	}
	return sample(ctx, res, what, func() (time.Duration, error) {
		d, err := m.Resident.Run(n)
		return d / time.Duration(n), err
	}, opts)
}

// sample runs once opts.Warmup times, then samples it into res as Options
// say; it returns nil, nil when ctx ended first.
func sample(ctx context.Context, res *Result, what string, once func() (time.Duration, error), opts Options) (*Result, error) {
	for range opts.Warmup {
		if ctx.Err() != nil {
			return nil, nil
		}
		if _, err := once(); err != nil {
			return nil, fmt.Errorf("%s: warm-up: %w", what, err)
		}
	}
	start := time.Now()
	var total time.Duration
	nextCheck := 0
	for {
		if ctx.Err() != nil {
			return nil, nil
		}
		dt, err := once()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		res.Samples = append(res.Samples, dt)
		total += dt
		n := len(res.Samples)
		if n < opts.Count {
			continue
		}
		if !opts.Auto && opts.MinTime <= 0 {
			break
		}
		if n >= opts.MaxSamples || time.Since(start) >= opts.MaxTime {
			break
		}
		if opts.MinTime > 0 && total < opts.MinTime {
			continue
		}
		if !opts.Auto {
			break
		}
		// The interval needs a sort: check it at ~10% steps of n.
		if n >= nextCheck {
			if medianPrecise(res.Samples, opts.Precision) {
				break
			}
			nextCheck = n + max(1, n/10)
		}
	}
	return res, nil
}

// runScenario runs a scenario suite: its Env samples as opts say and
// turns each Measurement into a Result named "<suite>/<case>", handed to
// add. A context that ends stops it without an error (Measure reports the
// interruption).
func runScenario(ctx context.Context, b backend.Backend, p plan, opts Options, add func(*Result)) error {
	s := p.t.Suite
	what := fmt.Sprintf("%s on %s", p.t.name(), b.Name())
	env := &suite.Env{
		Ctx:               ctx,
		Backend:           b,
		Quick:             opts.Quick,
		LaunchesPerSample: opts.LaunchesPerSample,
		Sample: func(once func() (time.Duration, error)) ([]time.Duration, error) {
			res, err := sample(ctx, &Result{}, what, once, opts)
			if res == nil || err != nil {
				return nil, err
			}
			return res.Samples, nil
		},
		Report: func(m suite.Measurement) {
			name := p.t.name()
			if m.Case != "" {
				name += "/" + m.Case
			}
			add(&Result{
				Name:         name,
				Suite:        s.Name,
				Family:       s.Family,
				Kernel:       s.Kernel,
				Shape:        m.Shape,
				Elements:     m.Elements,
				BytesRead:    m.BytesRead,
				BytesWritten: m.BytesWritten,
				FLOPs:        m.FLOPs,
				Metrics:      m.Metrics,
				Warmup:       opts.Warmup,
				Samples:      m.Samples,
				// A scenario that honoured LaunchesPerSample says so.
				LaunchesPerSample: m.LaunchesPerSample,
			})
		},
		Logf: func(format string, args ...any) {
			if opts.Logf != nil {
				opts.Logf(format, args...)
			}
		},
	}
	if err := s.Scenario.Run(env); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
