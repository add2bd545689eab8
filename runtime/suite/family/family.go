// Package family holds the run-time half of forge's kernel families: one
// Descriptor per family, registered here under the family's name in
// specs/families, carrying what running the family takes: the operation
// its kernels run through, its reference and tolerance (Check), its
// default benchmark shapes (from the spec, or $FORGE_BENCH_<FAMILY>), how
// one benchmark is measured (Measure), and how a profiler's kernel names
// map back to its launchers (Profile). The generated suites' harness
// (runtime/suite/suitetest), forgebench's engine and its profiler find a
// suite's family here, so none of them names a family. The generator-side
// half is the family's spec entry and template; a test checks that both
// halves list the same families and signatures.
package family

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/families"
	"github.com/rocmforge/forge/specs/formats"
)

// Descriptor is one kernel family at run time.
type Descriptor struct {
	// Name is the family's name in specs/families; Spec is that entry
	// (set by register).
	Name string
	Spec *families.Family
	// Signatures are the C signatures of the family's launchers, which
	// its operation runs; a test checks them against the spec's.
	Signatures []string
	// Runs reports whether backend b runs the family's kernels (has the
	// family's backend operation); nil for a family that only scenario
	// suites run (attention in the attention suite, the glue in the model
	// suite).
	Runs func(b backend.Backend) bool
	// Check checks suite s, one kernel of the family for one format, on
	// backend b against the family's reference and tolerance, reporting
	// what differs to t. nil for a family with no suites of its own.
	Check func(t T, b backend.Backend, s suite.Suite)
	// Dims names the dimensions of a benchmark shape ("rows", "cols",
	// "batch"; the one named "cols" is rounded to whole blocks); nil for
	// a family measured at an element count, whose shape is any list of
	// dimensions of a whole number of blocks (a tensor's).
	Dims []string
	// Blocks says the family's benchmarks decode blocks of the format:
	// a benchmark may take its input from outside (a GGUF tensor's), and
	// the family's kernels of one format share their generated input.
	Blocks bool
	// Measure prepares one benchmark of suite s on b at shape (checked
	// by Plan), on input (Blocks families; nil: generated), holding a
	// weight matrix as mode says.
	Measure func(b backend.Backend, s suite.Suite, shape []int, input []byte, mode backend.WeightMode) (*Benchmark, error)
	// Profile maps the names profilers print for the family's kernels to
	// its launchers.
	Profile Profile
}

// T is what a check reports to: the methods of testing.TB it uses, so
// that this package does not import testing.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// Benchmark is one benchmark, prepared: the kernel resident on the
// backend, and the work one run does.
type Benchmark struct {
	Resident     backend.Resident
	Shape        []int
	Elements     int64 // elements produced (or, for matvec, of W decoded) per run
	BytesRead    int64 // per run: one copy of the weights, whatever the weight mode
	BytesWritten int64
	FLOPs        int64
	Weights      *backend.Weights // how the weight matrix is held; nil without one
	WeightBytes  int64            // one copy of the weights: what one run reads of them
	CopyElems    int              // the float32 elements a device copy roofline for it is sized by
}

// Profile is how the names profilers print for a family's kernels map to
// its launchers.
type Profile struct {
	// Kernels are the __global__ kernels launcher symbol launches, as a
	// profiler names them without template arguments; nil: the templates'
	// convention, <symbol>_kernel (and <symbol>_kernel_wmma, a
	// tensor-core path).
	Kernels func(symbol string) []string
	// Templates are __global__ templates that several launchers share,
	// and Launcher picks the launcher from one's template arguments (as
	// the profiler printed them after the name, demangled or mangled).
	Templates []string
	Launcher  func(template, args string) (symbol string, ok bool)
}

// KernelNames are the __global__ kernels of launcher symbol (Profile.Kernels).
func (p Profile) KernelNames(symbol string) []string {
	if p.Kernels != nil {
		return p.Kernels(symbol)
	}
	return []string{symbol + "_kernel", symbol + "_kernel_wmma"}
}

var registry []*Descriptor

// register adds a descriptor, finding its spec entry; a descriptor whose
// family has no spec entry is a bug the package's tests report.
func register(d *Descriptor) *Descriptor {
	d.Spec, _ = families.ByName(d.Name)
	registry = append(registry, d)
	return d
}

// All returns every descriptor, in registration order.
func All() []*Descriptor { return slices.Clone(registry) }

// ByName finds a family's descriptor.
func ByName(name string) (*Descriptor, bool) {
	i := slices.IndexFunc(registry, func(d *Descriptor) bool { return d.Name == name })
	if i < 0 {
		return nil, false
	}
	return registry[i], true
}

// Of is suite s's family's descriptor, or an error naming the family.
func Of(s suite.Suite) (*Descriptor, error) {
	d, ok := ByName(s.Family)
	if !ok {
		return nil, fmt.Errorf("%s: family %q has no run-time descriptor (runtime/suite/family)", s.Name, s.Family)
	}
	return d, nil
}

// Kernel is suite s's kernel as a backend runs it.
func (d *Descriptor) Kernel(s suite.Suite) backend.Kernel {
	k := backend.Kernel{Family: d.Name, Name: s.Kernel, Output: s.Output, Format: s.Format}
	if d.Spec != nil {
		for _, sk := range d.Spec.Kernels {
			if sk.Name == s.Kernel {
				k.Signature = d.Spec.SignatureOf(sk)
			}
		}
	}
	return k
}

// KernelsOf are the family's kernels that format f gets: all of the
// spec's, less those on the integer form (families.Kernel.IntForm) when
// f's spec has none. The generated suites are these, per format.
func (d *Descriptor) KernelsOf(f *formats.Format) []families.Kernel {
	if d.Spec == nil {
		return nil
	}
	var out []families.Kernel
	for _, k := range d.Spec.Kernels {
		if !k.IntForm || f.HasIntForm() {
			out = append(out, k)
		}
	}
	return out
}

// EnvShape is the variable that sets the family's benchmark shape instead
// of its defaults: FORGE_BENCH_MATVEC ("ROWSxCOLS").
func (d *Descriptor) EnvShape() string { return "FORGE_BENCH_" + strings.ToUpper(d.Name) }

// DefaultShapes are the family's default benchmark shapes for format f on
// a device or on the cpu (specs/families' Bench), each "cols" rounded down
// to whole blocks; nil for a family measured at an element count.
func (d *Descriptor) DefaultShapes(device bool, f *formats.Format) []suite.BenchShape {
	if d.Spec == nil || d.Dims == nil {
		return nil
	}
	spec := d.Spec.Bench.CPU
	if device {
		spec = d.Spec.Bench.Device
	}
	var shapes []suite.BenchShape
	for _, sh := range spec {
		shapes = append(shapes, suite.BenchShape{Name: sh.Name, Dims: slices.Clone(sh.Dims)})
	}
	return suite.WholeBlockShapes(f, shapes)
}

// Shapes are the benchmark shapes of the family's suites of format f on
// backend b: the one $FORGE_BENCH_<FAMILY> names ("ROWSxCOLS", named so),
// else DefaultShapes for b (a device or the cpu); nil for a family
// measured at an element count.
func (d *Descriptor) Shapes(b backend.Backend, f *formats.Format) ([]suite.BenchShape, error) {
	if d.Dims == nil {
		return nil, nil
	}
	if s := os.Getenv(d.EnvShape()); s != "" {
		dims, err := d.ParseShape(s)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w", d.EnvShape(), err)
		}
		return suite.WholeBlockShapes(f, []suite.BenchShape{{Name: suite.ShapeName(dims...), Dims: dims}}), nil
	}
	_, device := backend.DeviceOf(b)
	return d.DefaultShapes(device, f), nil
}

// ParseShape parses a shape of the family's dimensions, "4096x4096",
// every one positive.
func (d *Descriptor) ParseShape(s string) ([]int, error) {
	dims, ok := suite.ParseShape(s)
	if !ok || len(dims) != len(d.Dims) {
		eg := strings.Repeat("x4096", len(d.Dims))[1:]
		if d.Spec != nil && len(d.Spec.Bench.Device) > 0 {
			eg = suite.ShapeName(d.Spec.Bench.Device[0].Dims...)
		}
		return nil, fmt.Errorf("shape %q: want %s, %s positive, e.g. %s", s, strings.Join(upper(d.Dims), "x"), allOrBoth(len(d.Dims)), eg)
	}
	return dims, nil
}

func allOrBoth(n int) string {
	if n == 2 {
		return "both"
	}
	return "all"
}

// maxElems bounds a benchmark's elements (and a matrix's rows × cols).
const maxElems = 1 << 40

// Plan checks a benchmark shape of the family for format f and returns
// it: for a family measured at an element count, nil means elems elements
// rounded down to whole blocks (at least one), and any other shape must
// hold a whole number of blocks; for a family of Dims, the shape has one
// positive size per dimension, "cols" a whole number of blocks.
func (d *Descriptor) Plan(f *formats.Format, shape []int, elems int) ([]int, error) {
	if d.Dims == nil {
		if shape == nil {
			return []int{max(1, elems/f.BlockElems) * f.BlockElems}, nil
		}
		n := int64(1)
		for _, x := range shape {
			if x <= 0 {
				return nil, fmt.Errorf("shape %v: every dimension must be positive", shape)
			}
			if n *= int64(x); n > maxElems {
				return nil, fmt.Errorf("shape %v: too many elements", shape)
			}
		}
		if n%int64(f.BlockElems) != 0 {
			return nil, fmt.Errorf("shape %v: %d elements is not a whole number of %d-element %s blocks", shape, n, f.BlockElems, f.Name)
		}
		return slices.Clone(shape), nil
	}
	if shape == nil {
		return nil, fmt.Errorf("no shape (ExpandShapes gives one)")
	}
	if len(shape) != len(d.Dims) || slices.ContainsFunc(shape, func(x int) bool { return x <= 0 }) {
		return nil, fmt.Errorf("shape %v: want [%s], %s positive", shape, strings.Join(d.Dims, ", "), allOrBoth(len(d.Dims)))
	}
	for i, x := range shape {
		if d.Dims[i] == "cols" && x%f.BlockElems != 0 {
			return nil, fmt.Errorf("shape %v: %d columns is not a whole number of %d-element %s blocks", shape, x, f.BlockElems, f.Name)
		}
	}
	// Dims beyond rows and cols (matmul's batch) multiply X and Y.
	if int64(shape[0])*int64(shape[1]) > maxElems || len(shape) > 2 && int64(shape[2])*int64(max(shape[0], shape[1])) > maxElems {
		return nil, fmt.Errorf("shape %v: too many elements", shape)
	}
	return slices.Clone(shape), nil
}

// opRuns is a Descriptor.Runs of an operation.
func opRuns[R any](op backend.Op[R]) func(b backend.Backend) bool {
	return func(b backend.Backend) bool {
		_, ok := op.Of(b)
		return ok
	}
}

func upper(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strings.ToUpper(x)
	}
	return out
}
