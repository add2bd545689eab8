// Package suitetest is the harness that forge's generated tests and
// benchmarks (generated/suites) call: it checks a backend's kernels against
// the format specs bit for bit and measures them. It is the only part of the
// suite runtime that imports package testing.
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
	"math"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/rocmforge/forge/runtime/backend"
	_ "github.com/rocmforge/forge/runtime/backend/cpu" // registers the cpu backend
	_ "github.com/rocmforge/forge/runtime/backend/gpu" // registers the cuda and hip backends
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/runtime/suite/suiteflags"
	"github.com/rocmforge/forge/specs/formats"
)

// EnvBenchElems sets how many elements a benchmark decodes per operation.
const EnvBenchElems = "FORGE_BENCH_ELEMS"

// Benchmark sizes when EnvBenchElems is unset (see suite.DefaultElems).
const (
	DefaultBenchElems       = suite.DefaultBenchElems
	DefaultDeviceBenchElems = suite.DefaultDeviceBenchElems
)

// maxReport is how many mismatches a failing check lists.
const maxReport = 10

// sentinel fills output buffers before a call, so that an element the
// backend never writes shows up as a mismatch (a quantizer never produces
// these bits; random blocks do with negligible probability).
const (
	sentinelF32 = 0xdeadbeef
	sentinelF16 = 0xdead
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

// checkCase is one input of CheckDequant.
type checkCase struct {
	name string
	src  []byte
}

// Blocks is the block count of CheckDequant's large cases: at least 1003
// blocks and 2^17 elements, and odd, so that no kernel's tail handling is
// spared by a round size.
func Blocks(f *formats.Format) int { return max(1003, (1<<17)/f.BlockElems+3) }

// CheckDequant decodes format f's blocks to output ("f32" or "f16") on the
// selected backend and compares every element with the spec's own Dequant,
// bit for bit (any NaN matching any NaN). The inputs are deterministic per
// format: reference-quantized blocks (Blocks of them, 1 and 0) and blocks of
// random bytes.
func CheckDequant(tb testing.TB, f *formats.Format, output string) {
	tb.Helper()
	if backend.OutputSize(output) == 0 {
		tb.Fatalf("%s: unknown dequant output %q", f.Name, output)
	}
	be := Backend(tb)
	bl, ok := backend.BlocksOp.Of(be)
	if !ok {
		tb.Skipf("backend %s does not run the blocks kernels", be.Name())
	}
	k := suite.DequantKernel(f, output)
	seed := suite.Seed(f.Name)
	n := Blocks(f)
	big, err := suite.QuantizedBlocks(f, n, seed)
	if err != nil {
		tb.Fatalf("%s: reference quantizer: %v", f.Name, err)
	}
	cases := []checkCase{
		{fmt.Sprintf("%d quantized blocks", n), big},
		{"1 quantized block", big[:f.BlockBytes]},
		{"0 blocks", big[:0]},
		{fmt.Sprintf("%d random blocks", n), suite.RandomBlocks(f, n, seed+1)},
	}
	for _, c := range cases {
		var count int
		var first []suite.Mismatch
		elems := len(c.src) / f.BlockBytes * f.BlockElems
		switch output {
		case backend.OutputF32:
			got := make([]float32, elems)
			for i := range got {
				got[i] = math.Float32frombits(sentinelF32)
			}
			if err := bl.RunBlocks(k, suite.DequantRef, got, c.src); err != nil {
				tb.Errorf("%s %s on %s, %s: %v", f.Name, output, be.Name(), c.name, err)
				continue
			}
			count, first = suite.CompareF32(f, got, suite.WantF32(f, c.src), maxReport)
		case backend.OutputF16:
			got := make([]uint16, elems)
			for i := range got {
				got[i] = sentinelF16
			}
			if err := bl.RunBlocksF16(k, suite.DequantRef, got, c.src); err != nil {
				tb.Errorf("%s %s on %s, %s: %v", f.Name, output, be.Name(), c.name, err)
				continue
			}
			count, first = suite.CompareF16(f, got, suite.WantF16(f, c.src), maxReport)
		}
		if count > 0 {
			msg := fmt.Sprintf("%s %s on %s, %s: %d of %d elements differ from the spec; first:", f.Name, output, be.Name(), c.name, count, elems)
			for _, m := range first {
				msg += "\n\t" + m.String()
			}
			tb.Error(msg)
		}
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

// benchInput caches the last benchmark input: the reference quantizer
// takes seconds over 64 Mi elements, and a format's f32 and f16
// benchmarks, which run one after the other, decode the same blocks.
var benchInput struct {
	sync.Mutex
	f       *formats.Format
	nBlocks int
	src     []byte
}

func quantized(f *formats.Format, nBlocks int) ([]byte, error) {
	benchInput.Lock()
	defer benchInput.Unlock()
	if benchInput.f == f && benchInput.nBlocks == nBlocks {
		return benchInput.src, nil
	}
	benchInput.f, benchInput.src = nil, nil // let the old input go first
	src, err := suite.QuantizedBlocks(f, nBlocks, suite.Seed(f.Name))
	if err != nil {
		return nil, err
	}
	benchInput.f, benchInput.nBlocks, benchInput.src = f, nBlocks, src
	return src, nil
}

// BenchDequant measures decoding BenchElems elements (rounded down to whole
// blocks, at least one) of format f to output on the selected backend. The
// input is reference-quantized data, made before the timer starts.
//
// On the cpu backend it times whole calls and reports bytes read plus
// written per operation (MB/s) and elements/s. On a device backend
// (backend.Device) the input and output stay in device memory and
// only the kernels are timed, with device events around b.N back-to-back
// launches; it reports GB/s (bytes read + written per second of device
// time), elems/s, dev-ns/op, and %copy: GB/s as a percentage of the
// library's forge_copy bandwidth (CopyBandwidth), the roofline. ns/op
// there is host time, including one synchronisation per run.
func BenchDequant(b *testing.B, f *formats.Format, output string) {
	size := backend.OutputSize(output)
	if size == 0 {
		b.Fatalf("%s: unknown dequant output %q", f.Name, output)
	}
	be := Backend(b)
	elems, err := BenchElems(be)
	if err != nil {
		b.Fatal(err)
	}
	nBlocks := max(1, elems/f.BlockElems)
	elems = nBlocks * f.BlockElems
	src, err := quantized(f, nBlocks)
	if err != nil {
		b.Fatalf("%s: reference quantizer: %v", f.Name, err)
	}
	bytes := int64(len(src) + elems*size)
	bl, ok := backend.BlocksOp.Of(be)
	if !ok {
		b.Skipf("backend %s does not run the blocks kernels", be.Name())
	}
	r, err := bl.PrepareBlocks(suite.DequantKernel(f, output), suite.DequantRef, src)
	if err != nil {
		b.Fatalf("%s %s on %s: %v", f.Name, output, be.Name(), err)
	}
	defer r.Close()
	if db, ok := backend.DeviceOf(be); ok {
		benchDevice(b, db, r, bytes, elems, elems)
		return
	}
	b.SetBytes(bytes)
	for b.Loop() {
		if _, err := r.Run(1); err != nil {
			b.Fatalf("%s %s on %s: %v", f.Name, output, be.Name(), err)
		}
	}
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(elems)*float64(b.N)/s, "elems/s")
	}
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
