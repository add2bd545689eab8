// Package suitetest is the harness that forge's generated tests and
// benchmarks (generated/suites) call: Check checks a suite's kernel on the
// chosen backend against its family's reference and Bench measures it,
// both through the family's run-time descriptor (runtime/suite/family). It
// is the only part of the suite runtime that imports package testing.
//
// The backend is chosen by the test flags -backend and -lib (package
// runtime/suite/suiteflags, which this package imports: go test
// ./generated/suites -args -backend=cuda -lib=build/libforge_sm_90.so),
// else by $FORGE_BACKEND and $FORGE_LIB; a flag wins over its variable.
// Importing this package links the cpu backend (runtime/backend/cpu) and
// the GPU backends (runtime/backend/gpu).
package suitetest

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	_ "github.com/rocmforge/forge/runtime/backend/cpu" // registers the cpu backend
	_ "github.com/rocmforge/forge/runtime/backend/gpu" // registers the cuda and hip backends
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/family"
	"github.com/rocmforge/forge/runtime/suite/suiteflags"
)

// EnvBenchElems sets how many elements a benchmark decodes per operation.
const EnvBenchElems = "FORGE_BENCH_ELEMS"

// Benchmark sizes when EnvBenchElems is unset (see suite.DefaultElems).
const (
	DefaultBenchElems       = suite.DefaultBenchElems
	DefaultDeviceBenchElems = suite.DefaultDeviceBenchElems
)

// Choice is the backend and library the flags and environment name, and
// where each came from ("-backend", "$FORGE_BACKEND", "default").
type Choice struct {
	Backend, Lib     string
	BackendBy, LibBy string
}

// Chosen reads the backend choice: the -backend and -lib flags, else
// $FORGE_BACKEND and $FORGE_LIB.
func Chosen() Choice {
	c := Choice{Backend: suiteflags.Backend(), BackendBy: "-backend", Lib: suiteflags.Lib(), LibBy: "-lib"}
	if c.Backend == "" {
		c.Backend, c.BackendBy = os.Getenv(backend.EnvBackend), "$"+backend.EnvBackend
		if c.Backend == "" {
			c.Backend, c.BackendBy = backend.DefaultBackend, "default"
		}
	}
	if c.Lib == "" {
		c.Lib, c.LibBy = os.Getenv(backend.EnvLib), "$"+backend.EnvLib
	}
	return c
}

// announced records the selections already logged to stderr, so that a
// run names its GPU device once, not once per test.
var (
	announceMu sync.Mutex
	announced  = map[string]bool{}
)

// Select opens the chosen backend (see Chosen).
func Select() (*backend.Selection, error) {
	c := Chosen()
	s, err := backend.Select(c.Backend, c.Lib)
	if err != nil {
		by := c.BackendBy + "=" + c.Backend
		if c.Lib != "" {
			by += ", " + c.LibBy + "=" + c.Lib
		}
		return nil, fmt.Errorf("%s: %w", by, err)
	}
	return s, nil
}

// Backend returns the chosen backend (see Chosen), failing the test, with
// the reason, when it is unknown or unavailable. A GPU backend, or any
// choice "auto" makes, is announced on stderr once per process: which
// backend, library and device the run uses.
func Backend(tb testing.TB) backend.Backend {
	tb.Helper()
	s, err := Select()
	if err != nil {
		tb.Fatal(err)
	}
	msg := "forge: " + s.Why
	if db, ok := backend.DeviceOf(s.Backend); ok {
		msg += ": " + db.Describe()
	}
	announceMu.Lock()
	first := !announced[msg]
	announced[msg] = true
	announceMu.Unlock()
	if first && (s.Name != backend.DefaultBackend || Chosen().Backend == backend.AutoBackend) {
		fmt.Fprintln(os.Stderr, msg)
	}
	tb.Log(msg)
	return s.Backend
}

// runnable finds the registered suite name, its family's descriptor and
// the chosen backend; it fails the test when the family has no check or
// benchmark of its own (has says whether it has: what is "check" or
// "benchmark"), and skips it on a backend that does not run the family.
func runnable(tb testing.TB, name, what string, has func(*family.Descriptor) bool) (suite.Suite, *family.Descriptor, backend.Backend) {
	tb.Helper()
	s, ok := suite.ByName(name)
	if !ok {
		tb.Fatalf("%s is not a registered suite", name)
	}
	d, err := family.Of(s)
	if err != nil {
		tb.Fatal(err)
	}
	be := Backend(tb)
	if !has(d) {
		tb.Fatalf("%s: the %s family has no %s of its own", name, d.Name, what)
	}
	if d.Runs == nil || !d.Runs(be) {
		tb.Skipf("backend %s does not run the %s family", be.Name(), d.Name)
	}
	return s, d, be
}

// Check checks the suite registered as name on the chosen backend against
// its family's reference and tolerance (family.Descriptor.Check: dequant's
// kernels bit for bit against the spec, matvec's and matmul's against
// float64 products by NMSE and per entry). A backend that does not run the
// family skips.
func Check(tb testing.TB, name string) {
	tb.Helper()
	s, d, be := runnable(tb, name, "check", func(d *family.Descriptor) bool { return d.Check != nil })
	d.Check(tb, be, s)
}

// Bench measures the suite registered as name on the chosen backend: one
// sub-benchmark per shape of its family's (family.Descriptor.Shapes: a
// matvec's [rows, cols], "4096x14336", "output"; $FORGE_BENCH_<FAMILY>
// names one instead), or, for a family measured at an element count
// (dequant), BenchElems elements rounded down to whole blocks. The input is
// the family's own, made before the timer starts.
//
// On the cpu backend it times whole runs and reports bytes read plus
// written per operation (MB/s) and elements/s. On a device backend
// (backend.Device) the data stays in device memory and only the kernels
// are timed, with device events around b.N back-to-back launches; it
// reports GB/s (bytes read + written per second of device time), elems/s,
// dev-ns/op, and %copy: GB/s as a percentage of the library's forge_copy
// bandwidth (CopyBandwidth), the roofline. ns/op there is host time,
// including one synchronisation per run. A family with a weight matrix
// also reports weight-GB/s (one W's bytes per run, per second: what bounds
// a matvec) and, on a device, weight-copies: W is held as
// $FORGE_BENCH_WEIGHTS says, "rotate" (the default: byte-identical copies
// totalling at least twice the L2, each launch reading the next, so W comes
// from memory) or "reuse" (one copy, as llama.cpp's test-backend-ops perf);
// the log says which. A family that computes reports GFLOPS.
func Bench(b *testing.B, name string) {
	s, d, be := runnable(b, name, "benchmark", func(d *family.Descriptor) bool { return d.Measure != nil })
	mode, err := backend.WeightModeFromEnv()
	if err != nil {
		b.Fatal(err)
	}
	shapes, err := d.Shapes(be, s.Format)
	if err != nil {
		b.Fatal(err)
	}
	if shapes == nil {
		elems, err := BenchElems(be)
		if err != nil {
			b.Fatal(err)
		}
		shape, err := d.Plan(s.Format, nil, elems)
		if err != nil {
			b.Fatal(err)
		}
		benchShape(b, be, d, s, shape, mode)
		return
	}
	for _, sh := range shapes {
		b.Run(sh.Name, func(b *testing.B) { benchShape(b, be, d, s, sh.Dims, mode) })
	}
}

// benchShape measures suite s at one shape (see Bench).
func benchShape(b *testing.B, be backend.Backend, d *family.Descriptor, s suite.Suite, shape []int, mode backend.WeightMode) {
	what := fmt.Sprintf("%s %v on %s", s.Name, shape, be.Name())
	m, err := d.Measure(be, s, shape, nil, mode)
	if err != nil {
		b.Fatalf("%s: %v", what, err)
	}
	defer m.Resident.Close()
	bytes := m.BytesRead + m.BytesWritten
	if m.Weights != nil {
		b.Logf("%s weights %s", what, m.Weights)
	}
	var secs float64
	if db, ok := backend.DeviceOf(be); ok {
		secs = benchDevice(b, db, m.Resident, bytes, int(m.Elements), m.CopyElems)
		if m.Weights != nil {
			b.ReportMetric(float64(m.Weights.Copies), "weight-copies")
		}
	} else {
		b.SetBytes(bytes)
		for b.Loop() {
			if _, err := m.Resident.Run(1); err != nil {
				b.Fatalf("%s: %v", what, err)
			}
		}
		if secs = b.Elapsed().Seconds(); secs > 0 {
			b.ReportMetric(float64(m.Elements)*float64(b.N)/secs, "elems/s")
		}
	}
	if secs <= 0 {
		return
	}
	if m.WeightBytes > 0 {
		b.ReportMetric(float64(m.WeightBytes)*float64(b.N)/secs/1e9, "weight-GB/s")
	}
	if m.FLOPs > 0 {
		b.ReportMetric(float64(m.FLOPs)*float64(b.N)/secs/1e9, "GFLOPS")
	}
}

// BenchElems is the benchmark size on backend be: $FORGE_BENCH_ELEMS,
// default DefaultDeviceBenchElems on a device backend and DefaultBenchElems
// on the cpu.
func BenchElems(be backend.Backend) (int, error) {
	s := os.Getenv(EnvBenchElems)
	if s == "" {
		return suite.DefaultElems(be), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("$%s=%q: want a positive element count", EnvBenchElems, s)
	}
	return n, nil
}

// benchDevice times b.N back-to-back runs of r, which moves bytes bytes
// and produces elems elements per run, after one warm-up run (which loads
// the kernel: CUDA loads modules lazily). copyElems sizes the copy
// roofline. It returns the device time of the b.N runs, in seconds.
func benchDevice(b *testing.B, db backend.Device, r backend.Resident, bytes int64, elems, copyElems int) float64 {
	if _, err := r.Run(1); err != nil {
		b.Fatalf("warm-up on %s: %v", db.Name(), err)
	}
	roof, err := CopyBandwidth(db, copyElems)
	if err != nil {
		b.Fatalf("copy roofline on %s: %v", db.Name(), err)
	}
	b.ResetTimer()
	dt, err := r.Run(b.N)
	b.StopTimer()
	if err != nil {
		b.Fatalf("on %s: %v", db.Name(), err)
	}
	s := dt.Seconds()
	if s <= 0 {
		b.Fatalf("on %s: the device timer measured %v for %d runs", db.Name(), dt, b.N)
	}
	gbps := float64(bytes) * float64(b.N) / s / 1e9
	b.ReportMetric(gbps, "GB/s")
	b.ReportMetric(float64(elems)*float64(b.N)/s, "elems/s")
	b.ReportMetric(s*1e9/float64(b.N), "dev-ns/op")
	b.ReportMetric(100*gbps/roof.GBps, "%copy")
	return s
}

// Roofline is a measured copy bandwidth.
type Roofline = suite.Roofline

// CopyBytes is the size of the copy roofline's buffers (suite.CopyBytes).
func CopyBytes(db backend.Device, elems int) int64 { return suite.CopyBytes(db, elems) }

var (
	rooflineMu sync.Mutex
	rooflines  = map[string]Roofline{}
)

// CopyBandwidth measures, once per process and backend, the bandwidth of
// the library's forge_copy kernel over CopyBytes(db, elems)
// (suite.MeasureCopy: the best of 3 trials of back-to-back copies lasting
// about 50 ms each, timed with device events). It is what %copy compares
// kernels with.
func CopyBandwidth(db backend.Device, elems int) (Roofline, error) {
	rooflineMu.Lock()
	defer rooflineMu.Unlock()
	key := db.Describe()
	if r, ok := rooflines[key]; ok {
		return r, nil
	}
	roof, err := suite.MeasureCopy(db, CopyBytes(db, elems))
	if err != nil {
		return Roofline{}, err
	}
	rooflines[key] = roof
	fmt.Fprintf(os.Stderr, "forge: copy roofline on %s: forge_copy of %d MiB: %.1f GB/s (read + written; best of 3 trials of %d copies)\n",
		db.Name(), roof.Bytes>>20, roof.GBps, roof.Runs)
	return roof, nil
}

// BenchCopy measures the copy roofline itself: on a device backend, the
// library's forge_copy kernel over CopyBytes (device to device, timed with
// device events; GB/s counts bytes read + written); on the cpu backend,
// Go's copy of 4 × BenchElems bytes on one goroutine (MB/s and GB/s).
func BenchCopy(b *testing.B) {
	be := Backend(b)
	elems, err := BenchElems(be)
	if err != nil {
		b.Fatal(err)
	}
	if db, ok := backend.DeviceOf(be); ok {
		bytes := CopyBytes(db, elems)
		r, err := db.PrepareCopy(bytes)
		if err != nil {
			b.Fatalf("forge_copy on %s: %v", be.Name(), err)
		}
		defer r.Close()
		benchDevice(b, db, r, 2*bytes, int(bytes/4), elems)
		return
	}
	n := 4 * elems
	src, dst := make([]byte, n), make([]byte, n)
	for i := range src {
		src[i] = byte(i)
	}
	b.SetBytes(2 * int64(n))
	for b.Loop() {
		copy(dst, src)
	}
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(2*float64(n)*float64(b.N)/s/1e9, "GB/s")
	}
}
