package suite

import (
	"fmt"
	"hash/fnv"
	"math"

	"runtime"

	"github.com/rocmforge/forge/internal/parallel"
	"github.com/rocmforge/forge/specs/formats"
)

// Rand is splitmix64: tiny, fast and the same everywhere, so the suites'
// inputs are identical on every machine and in every Go release (unlike
// math/rand's unspecified streams).
type Rand struct{ state uint64 }

// NewRand returns a generator started at seed.
func NewRand(seed uint64) *Rand { return &Rand{state: seed} }

// Seed derives a seed from a name (FNV-1a), so each format draws its own
// inputs.
func Seed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Intn returns a uniform value in [0, n).
func (r *Rand) Intn(n int) int { return int(r.Uint64() % uint64(n)) }

// Float returns a uniform value in [-1, 1).
func (r *Rand) Float() float32 { return float32(int32(r.Uint64()>>32)) / (1 << 31) }

// Inputs returns nBlocks blocks' worth of floats with a spread that
// exercises a quantizer's paths: each block has its own magnitude, from
// 2^-30 (below half precision's subnormals) to 2^12, and is one of
// all zeros, one constant, one-signed, sparse, or mixed values with zeros
// and outliers up to 64 times the block's magnitude (some beyond half
// precision's range, so fp16 scales overflow too).
func Inputs(f *formats.Format, nBlocks int, seed uint64) []float32 {
	r := NewRand(seed)
	x := make([]float32, nBlocks*f.BlockElems)
	for b := range nBlocks {
		blk := x[b*f.BlockElems : (b+1)*f.BlockElems]
		scale := float32(math.Ldexp(1, r.Intn(43)-30)) * (1 + float32(r.Intn(1024))/1024)
		switch kind := r.Intn(20); {
		case kind == 0: // all zeros
		case kind == 1: // one constant
			v := scale * r.Float()
			for i := range blk {
				blk[i] = v
			}
		case kind == 2: // one-signed
			for i := range blk {
				blk[i] = scale * float32(math.Abs(float64(r.Float())))
			}
		case kind == 3: // sparse
			for i := range blk {
				if r.Intn(8) == 0 {
					blk[i] = scale * r.Float()
				}
			}
		default: // mixed, with zeros and outliers
			for i := range blk {
				switch p := r.Intn(50); {
				case p < 5:
					blk[i] = 0
				case p == 5:
					blk[i] = scale * float32(8+r.Intn(57)) * r.Float()
				default:
					blk[i] = scale * r.Float()
				}
			}
		}
	}
	return x
}

// QuantizedBlocks returns nBlocks blocks of format f: Inputs quantized by
// the spec's reference quantizer (on every core).
func QuantizedBlocks(f *formats.Format, nBlocks int, seed uint64) ([]byte, error) {
	src := make([]byte, nBlocks*f.BlockBytes)
	if err := Quantize(f, src, Inputs(f, nBlocks, seed)); err != nil {
		return nil, err
	}
	return src, nil
}

// Quantize encodes whole blocks of x into dst with f's reference
// quantizer, on every core; each block's bytes are the spec's whatever
// the split.
func Quantize(f *formats.Format, dst []byte, x []float32) error {
	if err := f.CheckSizes(len(x), len(dst)); err != nil {
		return err
	}
	parallel.Chunks(len(dst)/f.BlockBytes, runtime.GOMAXPROCS(0), max(1, (16<<10)/f.BlockElems), func(lo, hi int) {
		_ = f.Quantize(dst[lo*f.BlockBytes:hi*f.BlockBytes], x[lo*f.BlockElems:hi*f.BlockElems])
	})
	return nil
}

// RandomBlocks returns nBlocks blocks of random bytes: every bit pattern a
// block can hold, NaN and infinite scales included, which a quantizer
// never writes but a decoder must still decode exactly as the spec does.
func RandomBlocks(f *formats.Format, nBlocks int, seed uint64) []byte {
	r := NewRand(seed)
	src := make([]byte, nBlocks*f.BlockBytes)
	for i := range src {
		src[i] = byte(r.Uint64() >> 56)
	}
	return src
}

// WantF32 is the spec's own value of every element of src's blocks, by
// direct calls of the spec's Dequant (formats.Format.Elem), not the row
// loop the cpu backend uses.
func WantF32(f *formats.Format, src []byte) []float32 {
	n := len(src) / f.BlockBytes * f.BlockElems
	want := make([]float32, n)
	for i := range want {
		want[i] = f.Elem(src, i)
	}
	return want
}

// WantF16 is WantF32 rounded to IEEE binary16 (formats.HalfFromFloat32), as
// the f16 kernels must round.
func WantF16(f *formats.Format, src []byte) []uint16 {
	n := len(src) / f.BlockBytes * f.BlockElems
	want := make([]uint16, n)
	for i := range want {
		want[i] = uint16(formats.HalfFromFloat32(f.Elem(src, i)))
	}
	return want
}

// Mismatch is one element that differs from the spec.
type Mismatch struct {
	Index int    // element index in the tensor
	Block int    // Index / BlockElems
	Elem  int    // Index % BlockElems
	Got   uint32 // bits (float32, or binary16 in the low half)
	Want  uint32
	F16   bool
}

func (m Mismatch) String() string {
	if m.F16 {
		return fmt.Sprintf("block %d element %d (index %d): got 0x%04x (%g), want 0x%04x (%g)",
			m.Block, m.Elem, m.Index, m.Got, formats.Half(m.Got).Float32(), m.Want, formats.Half(m.Want).Float32())
	}
	return fmt.Sprintf("block %d element %d (index %d): got 0x%08x (%g), want 0x%08x (%g)",
		m.Block, m.Elem, m.Index, m.Got, math.Float32frombits(m.Got), m.Want, math.Float32frombits(m.Want))
}

// CompareF32 compares bit for bit, except that any NaN matches any NaN: the
// sign and payload of a NaN made by an invalid operation (inf·0) differ
// between x86 and GPUs, and no spec gives them meaning. It returns the
// number of mismatches and the first (at most limit) of them. got and want
// must have the same length.
func CompareF32(f *formats.Format, got, want []float32, limit int) (int, []Mismatch) {
	var n int
	var first []Mismatch
	for i := range want {
		g, w := math.Float32bits(got[i]), math.Float32bits(want[i])
		if g == w || g&0x7fffffff > 0x7f800000 && w&0x7fffffff > 0x7f800000 {
			continue
		}
		if n++; len(first) < limit {
			first = append(first, Mismatch{Index: i, Block: i / f.BlockElems, Elem: i % f.BlockElems, Got: g, Want: w})
		}
	}
	return n, first
}

// CompareF16 is CompareF32 for binary16 bits.
func CompareF16(f *formats.Format, got, want []uint16, limit int) (int, []Mismatch) {
	var n int
	var first []Mismatch
	for i := range want {
		g, w := got[i], want[i]
		if g == w || g&0x7fff > 0x7c00 && w&0x7fff > 0x7c00 {
			continue
		}
		if n++; len(first) < limit {
			first = append(first, Mismatch{Index: i, Block: i / f.BlockElems, Elem: i % f.BlockElems, Got: uint32(g), Want: uint32(w), F16: true})
		}
	}
	return n, first
}
