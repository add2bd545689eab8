// Package suitetest is the harness that forge's generated tests and
// benchmarks (generated/suites) call: it checks a backend's kernels against
// the format specs bit for bit and measures them. It is the only part of the
// suite runtime that imports package testing.
package suitetest

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// EnvBenchElems sets how many elements a benchmark decodes per operation.
const EnvBenchElems = "FORGE_BENCH_ELEMS"

// DefaultBenchElems is the benchmark size when EnvBenchElems is unset: 16 Mi
// elements, well past every cache.
const DefaultBenchElems = 16 << 20

// maxReport is how many mismatches a failing check lists.
const maxReport = 10

// sentinel fills output buffers before a call, so that an element the
// backend never writes shows up as a mismatch (a quantizer never produces
// these bits; random blocks do with negligible probability).
const (
	sentinelF32 = 0xdeadbeef
	sentinelF16 = 0xdead
)

// Backend returns the backend $FORGE_BACKEND names (default cpu), failing
// the test, with the reason, when it is unknown or unavailable.
func Backend(tb testing.TB) suite.Backend {
	tb.Helper()
	b, err := suite.BackendFromEnv()
	if err != nil {
		tb.Fatal(err)
	}
	return b
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
	if suite.OutputSize(output) == 0 {
		tb.Fatalf("%s: unknown dequant output %q", f.Name, output)
	}
	be := Backend(tb)
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
		case suite.OutputF32:
			got := make([]float32, elems)
			for i := range got {
				got[i] = math.Float32frombits(sentinelF32)
			}
			if err := be.Dequantize(f, got, c.src); err != nil {
				tb.Errorf("%s %s on %s, %s: %v", f.Name, output, be.Name(), c.name, err)
				continue
			}
			count, first = suite.CompareF32(f, got, suite.WantF32(f, c.src), maxReport)
		case suite.OutputF16:
			got := make([]uint16, elems)
			for i := range got {
				got[i] = sentinelF16
			}
			if err := be.DequantizeF16(f, got, c.src); err != nil {
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

// BenchElems is the benchmark size: $FORGE_BENCH_ELEMS, default 16 Mi.
func BenchElems() (int, error) {
	s := os.Getenv(EnvBenchElems)
	if s == "" {
		return DefaultBenchElems, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("$%s=%q: want a positive element count", EnvBenchElems, s)
	}
	return n, nil
}

// BenchDequant measures decoding BenchElems elements (rounded down to whole
// blocks, at least one) of format f to output on the selected backend. It
// reports bytes read plus written per operation (MB/s) and elements/s.
// The input is reference-quantized data, made before the timer starts.
func BenchDequant(b *testing.B, f *formats.Format, output string) {
	size := suite.OutputSize(output)
	if size == 0 {
		b.Fatalf("%s: unknown dequant output %q", f.Name, output)
	}
	elems, err := BenchElems()
	if err != nil {
		b.Fatal(err)
	}
	be := Backend(b)
	nBlocks := max(1, elems/f.BlockElems)
	elems = nBlocks * f.BlockElems
	src, err := suite.QuantizedBlocks(f, nBlocks, suite.Seed(f.Name))
	if err != nil {
		b.Fatalf("%s: reference quantizer: %v", f.Name, err)
	}
	b.SetBytes(int64(len(src) + elems*size))
	var run func() error
	switch output {
	case suite.OutputF32:
		dst := make([]float32, elems)
		run = func() error { return be.Dequantize(f, dst, src) }
	case suite.OutputF16:
		dst := make([]uint16, elems)
		run = func() error { return be.DequantizeF16(f, dst, src) }
	}
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatalf("%s %s on %s: %v", f.Name, output, be.Name(), err)
		}
	}
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(elems)*float64(b.N)/s, "elems/s")
	}
}
