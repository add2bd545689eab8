package family

import (
	"fmt"
	"math"
	"sync"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
)

// Blocks is the descriptor of a family of the "blocks" signature, whose
// kernels turn whole blocks of a format into elements, one per element,
// as ref computes them on the host (backend.BlockRef: the cpu backend runs
// ref itself). want, if not nil, computes the expected elements another
// way than ref (dequant's: element by element through the spec's Dequant);
// nil: ref's. Each kernel is checked bit for bit against it (f16 kernels
// against its values rounded to binary16), and benchmarked at an element
// count of reference-quantized blocks, or on blocks given to it.
//
// A new family of this shape is its spec entry, its template and a
// descriptor registered with this: register(Blocks("scale", ref, nil)).
func Blocks(name string, ref backend.BlockRef, want func(f *formats.Format, src []byte) []float32) *Descriptor {
	if want == nil {
		want = func(f *formats.Format, src []byte) []float32 {
			out := make([]float32, len(src)/f.BlockBytes*f.BlockElems)
			if err := ref(f, out, src); err != nil {
				panic(fmt.Sprintf("%s: reference on whole blocks: %v", name, err))
			}
			return out
		}
	}
	d := &Descriptor{
		Name:       name,
		Signatures: []string{"blocks"},
		Runs:       opRuns(backend.BlocksOp),
		Blocks:     true,
	}
	d.Check = func(t T, b backend.Backend, s suite.Suite) { checkBlocks(t, d, ref, want, b, s) }
	d.Measure = func(b backend.Backend, s suite.Suite, shape []int, input []byte, _ backend.WeightMode) (*Benchmark, error) {
		return measureBlocks(d, ref, b, s, shape, input)
	}
	return d
}

// maxReport is how many mismatches a failing check lists.
const maxReport = 10

// sentinel fills output buffers before a call, so that an element the
// backend never writes shows up as a mismatch (a quantizer never produces
// these bits; random blocks do with negligible probability).
const (
	sentinelF32 = 0xdeadbeef
	sentinelF16 = 0xdead
)

// CheckBlocks is the number of blocks of a blocks check's large cases for
// format f: at least 1003 blocks and 2^17 elements, and odd, so that no
// kernel's tail handling is spared by a round size.
func CheckBlocks(f *formats.Format) int { return max(1003, (1<<17)/f.BlockElems+3) }

// checkBlocks runs s's kernel on b over deterministic inputs of its
// format (reference-quantized blocks: CheckBlocks of them, 1 and 0; and
// blocks of random bytes) and compares every element with want's, bit for
// bit (any NaN matching any NaN).
func checkBlocks(t T, d *Descriptor, ref backend.BlockRef, want func(*formats.Format, []byte) []float32, b backend.Backend, s suite.Suite) {
	t.Helper()
	f, output := s.Format, s.Output
	if backend.OutputSize(output) == 0 {
		t.Fatalf("%s: unknown output %q", s.Name, output)
	}
	bl, ok := backend.BlocksOp.Of(b)
	if !ok {
		t.Skipf("backend %s does not run the %s family", b.Name(), d.Name)
	}
	k := d.Kernel(s)
	seed := suite.Seed(f.Name)
	n := CheckBlocks(f)
	big, err := suite.QuantizedBlocks(f, n, seed)
	if err != nil {
		t.Fatalf("%s: reference quantizer: %v", f.Name, err)
	}
	cases := []struct {
		name string
		src  []byte
	}{
		{fmt.Sprintf("%d quantized blocks", n), big},
		{"1 quantized block", big[:f.BlockBytes]},
		{"0 blocks", big[:0]},
		{fmt.Sprintf("%d random blocks", n), suite.RandomBlocks(f, n, seed+1)},
	}
	for _, c := range cases {
		var count int
		var first []suite.Mismatch
		elems := len(c.src) / f.BlockBytes * f.BlockElems
		wantF32 := want(f, c.src)
		switch output {
		case backend.OutputF32:
			got := make([]float32, elems)
			for i := range got {
				got[i] = math.Float32frombits(sentinelF32)
			}
			if err := bl.RunBlocks(k, ref, got, c.src); err != nil {
				t.Errorf("%s %s on %s, %s: %v", f.Name, output, b.Name(), c.name, err)
				continue
			}
			count, first = suite.CompareF32(f, got, wantF32, maxReport)
		case backend.OutputF16:
			got := make([]uint16, elems)
			for i := range got {
				got[i] = sentinelF16
			}
			if err := bl.RunBlocksF16(k, ref, got, c.src); err != nil {
				t.Errorf("%s %s on %s, %s: %v", f.Name, output, b.Name(), c.name, err)
				continue
			}
			wantF16 := make([]uint16, len(wantF32))
			for i, v := range wantF32 {
				wantF16[i] = uint16(formats.HalfFromFloat32(v))
			}
			count, first = suite.CompareF16(f, got, wantF16, maxReport)
		}
		if count > 0 {
			msg := fmt.Sprintf("%s %s on %s, %s: %d of %d elements differ from the %s reference; first:", f.Name, output, b.Name(), c.name, count, elems, d.Name)
			for _, m := range first {
				msg += "\n\t" + m.String()
			}
			t.Errorf("%s", msg)
		}
	}
}

// measureBlocks prepares s's kernel over input, or over reference-quantized
// blocks of shape's elements: bytes read are the blocks', written the
// elements' output.
func measureBlocks(d *Descriptor, ref backend.BlockRef, b backend.Backend, s suite.Suite, shape []int, input []byte) (*Benchmark, error) {
	bl, ok := backend.BlocksOp.Of(b)
	if !ok {
		return nil, fmt.Errorf("backend %s does not run the %s family", b.Name(), d.Name)
	}
	f := s.Format
	elems := 1
	for _, x := range shape {
		elems *= x
	}
	nBlocks := elems / f.BlockElems
	src := input
	if src == nil {
		var err error
		if src, err = quantized(f, nBlocks); err != nil {
			return nil, fmt.Errorf("reference quantizer: %w", err)
		}
	}
	if len(src) != nBlocks*f.BlockBytes {
		return nil, fmt.Errorf("input of %d bytes, want %d (%d %s blocks)", len(src), nBlocks*f.BlockBytes, nBlocks, f.Name)
	}
	r, err := bl.PrepareBlocks(d.Kernel(s), ref, src)
	if err != nil {
		return nil, err
	}
	return &Benchmark{
		Resident:     r,
		Shape:        shape,
		Elements:     int64(elems),
		BytesRead:    int64(len(src)),
		BytesWritten: int64(elems) * int64(backend.OutputSize(s.Output)),
		CopyElems:    elems,
	}, nil
}

// benchInput caches the last generated benchmark input: the reference
// quantizer takes seconds over 64 Mi elements, and a format's kernels of
// one family (dequant's f32 and f16), which run one after the other,
// decode the same blocks.
var benchInput struct {
	sync.Mutex
	f       *formats.Format
	nBlocks int
	src     []byte
}

// quantized is suite.QuantizedBlocks of f, seeded by its name, cached.
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
