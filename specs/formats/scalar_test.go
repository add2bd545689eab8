package formats_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/rocmforge/forge/specs/formats"
)

// Exhaustive property tests of the scalar conversions in scalar.go. The
// expected values are computed independently of scalar.go's bit tricks:
// from the IEEE definitions in float64, or by search over all 65536 values.

func f32(u uint32) float32  { return math.Float32frombits(u) }
func bits(f float32) uint32 { return math.Float32bits(f) }

// halfValue is the binary16 value of h from its definition, in float64.
func halfValue(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e, m := int(h>>10&31), float64(h&0x3ff)
	switch {
	case e == 31 && m == 0:
		return math.Inf(int(s))
	case e == 31:
		return math.NaN()
	case e == 0:
		return s * math.Ldexp(m, -24)
	}
	return s * math.Ldexp(1024+m, e-25)
}

func TestHalfFloat32Exact(t *testing.T) {
	for i := range 1 << 16 {
		h := formats.Half(i)
		got := h.Float32()
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 { // NaN: quiet bit set, payload and sign kept
			want := uint32(h&0x8000)<<16 | 0x7fc00000 | uint32(h&0x3ff)<<13
			if bits(got) != want {
				t.Errorf("Half(%#04x).Float32() = %#08x, want %#08x", i, bits(got), want)
			}
			if r := formats.HalfFromFloat32(got); r != h&0x8000|0x7e00 {
				t.Errorf("HalfFromFloat32(Half(%#04x).Float32()) = %#04x, want %#04x", i, r, h&0x8000|0x7e00)
			}
			continue
		}
		want := halfValue(uint16(i))
		if float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want) {
			t.Errorf("Half(%#04x).Float32() = %g (%#08x), want %g", i, got, bits(got), want)
		}
		if r := formats.HalfFromFloat32(got); r != h {
			t.Errorf("HalfFromFloat32(Half(%#04x).Float32()) = %#04x", i, r)
		}
	}
}

// TestHalfRoundingTies: for every pair of adjacent finite halves of one sign
// (including ±0 and the smallest subnormal, and the subnormal/normal step),
// the float32 midpoint (exact: 12 significant bits) rounds to the even one,
// and the float32 neighbours of the midpoint round to the nearer one.
func TestHalfRoundingTies(t *testing.T) {
	for _, sign := range []uint16{0, 0x8000} {
		for m := uint16(0); m < 0x7bff; m++ {
			lo, hi := sign|m, sign|(m+1)
			a, b := formats.Half(lo).Float32(), formats.Half(hi).Float32()
			mid := float32((float64(a) + float64(b)) / 2)
			if float64(mid) != (float64(a)+float64(b))/2 {
				t.Fatalf("midpoint of %#04x and %#04x is not exact in float32", lo, hi)
			}
			even := lo
			if lo&1 == 1 {
				even = hi
			}
			check := func(x float32, want uint16, what string) {
				if got := formats.HalfFromFloat32(x); got != formats.Half(want) {
					t.Errorf("HalfFromFloat32(%g = %#08x, %s of %#04x/%#04x) = %#04x, want %#04x",
						x, bits(x), what, lo, hi, got, want)
				}
			}
			check(mid, even, "midpoint")
			// One float32 ulp toward each neighbour. Toward zero is bits-1
			// for both signs, since |mid| > 0.
			check(f32(bits(mid)-1), lo, "midpoint - 1ulp")
			check(f32(bits(mid)+1), hi, "midpoint + 1ulp")
		}
	}
}

func TestHalfBoundaries(t *testing.T) {
	cases := []struct {
		x    float32
		want uint16
		what string
	}{
		{65504, 0x7bff, "max finite"},
		{65520, 0x7c00, "65520 (midpoint to 2^16) rounds to inf"},
		{f32(bits(65520) - 1), 0x7bff, "65519.996 rounds to 65504"},
		{-65520, 0xfc00, "-65520 to -inf"},
		{f32(bits(-65520) - 1), 0xfbff, "-65519.996 to -65504"},
		{math.MaxFloat32, 0x7c00, "FLT_MAX"},
		{float32(math.Inf(1)), 0x7c00, "+inf"},
		{float32(math.Inf(-1)), 0xfc00, "-inf"},
		{0x1p-14, 0x0400, "smallest normal"},
		{f32(bits(0x1p-14) - 1), 0x0400, "just below smallest normal rounds up"},
		{0x1p-14 - 0x1p-25, 0x0400, "midpoint largest subnormal / smallest normal goes to even 0x0400"},
		{f32(bits(0x1p-14-0x1p-25) - 1), 0x03ff, "below that midpoint"},
		{0x1p-24, 0x0001, "smallest subnormal"},
		{0x1p-25, 0x0000, "half the smallest subnormal ties to 0"},
		{-0x1p-25, 0x8000, "-2^-25 ties to -0"},
		{f32(bits(0x1p-25) + 1), 0x0001, "just above 2^-25"},
		{f32(bits(0x1p-25) - 1), 0x0000, "just below 2^-25"},
		{0x1.8p-24, 0x0002, "1.5 * 2^-24 ties to even 2"},
		{0x1.8p-23, 0x0003, "3 * 2^-24 exact"},
		{0x1p-126, 0x0000, "smallest float32 normal"},
		{f32(1), 0x0000, "smallest float32 subnormal"},
		{f32(0x80000001), 0x8000, "negative float32 subnormal to -0"},
		{0, 0x0000, "+0"},
		{f32(0x80000000), 0x8000, "-0"},
	}
	for _, c := range cases {
		if got := formats.HalfFromFloat32(c.x); got != formats.Half(c.want) {
			t.Errorf("HalfFromFloat32(%g = %#08x) = %#04x, want %#04x (%s)", c.x, bits(c.x), got, c.want, c.what)
		}
	}
	// Every float32 below 2^-25 in magnitude becomes a signed zero; every
	// float32 from 65520 up to inf becomes a signed inf.
	for u := uint32(0); u < 0x33000000; u += 0x1000 - 1 {
		if got := formats.HalfFromFloat32(f32(u)); got != 0 {
			t.Fatalf("HalfFromFloat32(%#08x) = %#04x, want 0", u, got)
		}
		if got := formats.HalfFromFloat32(f32(u | 1<<31)); got != 0x8000 {
			t.Fatalf("HalfFromFloat32(%#08x) = %#04x, want 0x8000", u|1<<31, got)
		}
	}
	for u := bits(65520); u <= 0x7f800000; u += 0x100 - 1 {
		if got := formats.HalfFromFloat32(f32(u)); got != 0x7c00 {
			t.Fatalf("HalfFromFloat32(%#08x) = %#04x, want 0x7c00", u, got)
		}
	}
}

// TestHalfNaN: every float32 NaN, of either sign, becomes 0x7E00 | sign.
func TestHalfNaN(t *testing.T) {
	for m := uint32(1); m < 1<<23; m++ {
		for _, s := range []uint32{0, 1 << 31} {
			u := s | 0x7f800000 | m
			want := formats.Half(s>>16 | 0x7e00)
			if got := formats.HalfFromFloat32(f32(u)); got != want {
				t.Fatalf("HalfFromFloat32(%#08x) = %#04x, want %#04x", u, got, want)
			}
		}
	}
}

// TestHalfRandom compares HalfFromFloat32 with a search-based reference on
// random float32 bit patterns concentrated on the binary16 range: the
// nearest of all finite halves (and 2^16 standing in for inf), ties to
// the even code.
func TestHalfRandom(t *testing.T) {
	// Positive finite halves in increasing order are codes 0..0x7bff; code
	// 0x7c00 stands for 65536, the rounding boundary to inf.
	vals := make([]float64, 0x7c01)
	for i := range 0x7c00 {
		vals[i] = halfValue(uint16(i))
	}
	vals[0x7c00] = 65536
	ref := func(x float32) uint16 {
		a, s := math.Abs(float64(x)), uint16(0)
		if math.Signbit(float64(x)) {
			s = 0x8000
		}
		if a >= 65536 {
			return s | 0x7c00
		}
		i := sort.SearchFloat64s(vals, a) // vals[i-1] < a <= vals[i]
		if vals[i] == a {
			return s | uint16(i)
		}
		lo, hi := uint16(i-1), uint16(i)
		switch dl, dh := a-vals[lo], vals[hi]-a; {
		case dl < dh:
			return s | lo
		case dh < dl:
			return s | hi
		case lo&1 == 0:
			return s | lo
		}
		return s | hi
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		// Exponents 0x60..0x90 cover 2^-31..2^17, the whole binary16 range.
		u := r.Uint32()&0x807fffff | (0x60+r.Uint32()%0x31)<<23
		x := f32(u)
		if got, want := formats.HalfFromFloat32(x), ref(x); got != formats.Half(want) {
			t.Fatalf("HalfFromFloat32(%g = %#08x) = %#04x, reference %#04x", x, u, got, want)
		}
	}
}

func TestBF16RoundTrip(t *testing.T) {
	for i := range 1 << 16 {
		b := formats.BFloat16(i)
		got := b.Float32()
		if bits(got) != uint32(i)<<16 {
			t.Errorf("BF16(%#04x).Float32() = %#08x, want %#08x", i, bits(got), uint32(i)<<16)
		}
		want := b
		if i&0x7fff > 0x7f80 { // NaN: quiet bit set, rest kept
			want |= 0x40
		}
		if r := formats.BFloat16FromFloat32(got); r != want {
			t.Errorf("BFloat16FromFloat32(BF16(%#04x).Float32()) = %#04x, want %#04x", i, r, want)
		}
	}
}

// TestBF16RoundingTies: adjacent finite bfloat16 pairs of one sign, the
// midpoint to even, its float32 neighbours to the nearer one. The pair
// (max finite 0x7f7f, inf 0x7f80) is included: its midpoint 0x7f7f8000 is a
// finite float32 and rounds to inf, as in ggml.
func TestBF16RoundingTies(t *testing.T) {
	for _, sign := range []uint32{0, 0x8000} {
		for m := uint32(0); m < 0x7f80; m++ {
			lo, hi := sign|m, sign|(m+1)
			mid := f32(lo<<16 | 0x8000)
			even := lo
			if lo&1 == 1 {
				even = hi
			}
			for _, c := range []struct {
				u    uint32
				want uint32
			}{{bits(mid), even}, {bits(mid) - 1, lo}, {bits(mid) + 1, hi}} {
				if got := formats.BFloat16FromFloat32(f32(c.u)); got != formats.BFloat16(c.want) {
					t.Fatalf("BFloat16FromFloat32(%#08x) between %#04x and %#04x = %#04x, want %#04x",
						c.u, lo, hi, got, c.want)
				}
			}
		}
	}
	// Subnormals are not flushed.
	if got := formats.BFloat16FromFloat32(f32(0x00008000)); got != 0 {
		t.Errorf("BFloat16FromFloat32(0x00008000) = %#04x, want 0 (tie to even)", got)
	}
	if got := formats.BFloat16FromFloat32(f32(0x00018000)); got != 2 {
		t.Errorf("BFloat16FromFloat32(0x00018000) = %#04x, want 2 (tie to even)", got)
	}
	if got := formats.BFloat16FromFloat32(math.MaxFloat32); got != 0x7f80 {
		t.Errorf("BFloat16FromFloat32(FLT_MAX) = %#04x, want inf 0x7f80", got)
	}
}

// TestBF16NaN: every float32 NaN u becomes (u>>16) | 0x40.
func TestBF16NaN(t *testing.T) {
	for m := uint32(1); m < 1<<23; m++ {
		for _, s := range []uint32{0, 1 << 31} {
			u := s | 0x7f800000 | m
			want := formats.BFloat16(u>>16 | 0x40)
			if got := formats.BFloat16FromFloat32(f32(u)); got != want {
				t.Fatalf("BFloat16FromFloat32(%#08x) = %#04x, want %#04x", u, got, want)
			}
		}
	}
	if got := formats.BFloat16FromFloat32(f32(0x7fbfffff)); got != 0x7fff {
		t.Errorf("BFloat16FromFloat32(0x7fbfffff) = %#04x, want 0x7fff", got)
	}
}

func TestE8M0(t *testing.T) {
	for i := range 256 {
		e := formats.E8M0(i)
		v, h := e.Float32(), e.HalfScale()
		if i == 255 {
			if v == v {
				t.Errorf("E8M0(255).Float32() = %g, want NaN", v)
			}
			if float64(h) != 0x1p127 {
				t.Errorf("E8M0(255).HalfScale() = %g, want 2^127", h)
			}
			continue
		}
		if want := math.Ldexp(1, i-127); float64(v) != want {
			t.Errorf("E8M0(%d).Float32() = %g (%#08x), want 2^%d", i, v, bits(v), i-127)
		}
		if want := math.Ldexp(1, i-128); float64(h) != want {
			t.Errorf("E8M0(%d).HalfScale() = %g (%#08x), want 2^%d", i, h, bits(h), i-128)
		}
	}
}

// A format that says its block is one IEEE value dequantizes every bit
// pattern to that value (NaN to a NaN): binary16 and bfloat16 exhaustively
// from their definitions in float64, binary32 over random and special
// patterns. Kernels rely on the declaration to use the hardware's
// conversion (Meta.IEEE).
func TestIEEEFormats(t *testing.T) {
	bfValue := func(u uint16) float64 { return float64(f32(uint32(u) << 16)) }
	n := 0
	for _, f := range formats.All() {
		if f.IEEE == "" {
			continue
		}
		n++
		var patterns []uint32
		var value func(uint32) float64
		switch f.IEEE {
		case "binary16", "bfloat16":
			for u := range uint32(1 << 16) {
				patterns = append(patterns, u)
			}
			value = func(u uint32) float64 { return halfValue(uint16(u)) }
			if f.IEEE == "bfloat16" {
				value = func(u uint32) float64 { return bfValue(uint16(u)) }
			}
		case "binary32":
			r := rand.New(rand.NewPCG(5, 6))
			patterns = []uint32{0, 1 << 31, 1, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0x807fffff}
			for range 1 << 16 {
				patterns = append(patterns, r.Uint32())
			}
			value = func(u uint32) float64 { return float64(f32(u)) }
		default:
			t.Fatalf("%s: IEEE %q has no check here", f.Name, f.IEEE)
		}
		src := make([]byte, len(patterns)*f.BlockBytes)
		for i, u := range patterns {
			for k := range f.BlockBytes {
				src[i*f.BlockBytes+k] = byte(u >> (8 * k))
			}
		}
		dst := make([]float32, len(patterns))
		if err := f.Dequantize(dst, src); err != nil {
			t.Fatal(err)
		}
		bad := 0
		for i, u := range patterns {
			want, got := value(u), float64(dst[i])
			if !(got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)) {
				if bad++; bad <= 5 {
					t.Errorf("%s (%s): pattern %#x is %g, want %g", f.Name, f.IEEE, u, got, want)
				}
			}
		}
	}
	if n != 3 {
		t.Errorf("%d formats declare an IEEE kind, want 3 (F32, F16, BF16)", n)
	}
}
