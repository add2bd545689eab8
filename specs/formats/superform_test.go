package formats_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rocmforge/forge/specs/formats"
)

// checkSuperForm checks the super form's contract (formats' superForm) on
// every sub-block of blk: Scale(s) == SuperScale()·SubScale(s) and, where
// the form needs offsets, Offset(s) == SuperOffset()·SubOffset(s), bit for
// bit, with the integers in int8's range. It returns false after reporting.
func checkSuperForm(t *testing.T, f *formats.Format, blk []byte, what string) bool {
	t.Helper()
	// one checks that n (the integer named name) is in int8's range and
	// that super·n is want, bit for bit.
	one := func(name string, s, n int32, super, want float32) bool {
		t.Helper()
		if n < -128 || n > 127 {
			t.Errorf("%s: %s: %s(%d) = %d, outside int8", f.Name, what, name, s, n)
			return false
		}
		if got := super * float32(n); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Errorf("%s: %s: Super·%s(%d) = %g, want %g", f.Name, what, name, s, got, want)
			return false
		}
		return true
	}
	for s := int32(0); s < int32(f.BlockElems/f.SubBlock); s++ {
		if !one("SubScale", s, f.SubScale(blk, s), f.SuperScale(blk), f.IntScale(blk, s)) {
			return false
		}
		if f.NeedsSuperOffset() && !one("SubOffset", s, f.SubOffset(blk, s), f.SuperOffset(blk), f.IntOffset(blk, s)) {
			return false
		}
	}
	return true
}

// TestSuperForm is the single-source proof of the super form, over random
// blocks (float fields made finite) and every finite known-answer block,
// for every format that has it; a super form with offsets left unaccounted
// for (no SuperOffset where Offset has no IntZero) is an error, and the
// K-quants must have it (the integer matmul's fast path depends on it).
func TestSuperForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var with []string
	for _, f := range formats.All() {
		if !f.HasSuperForm() {
			continue
		}
		with = append(with, f.Name)
		t.Run(f.Name, func(t *testing.T) {
			if f.NeedsSuperOffset() && !f.HasSuperOffset() {
				t.Fatalf("%s has a super form and offsets (no IntZero) but no SuperOffset and SubOffset", f.Name)
			}
			if f.BlockElems%32 != 0 {
				t.Fatalf("%s: a super form needs blocks of whole 32-element groups, not %d", f.Name, f.BlockElems)
			}
			blk := make([]byte, f.BlockBytes)
			for i := range 2000 {
				for k := range blk {
					blk[k] = byte(rng.Uint32())
				}
				if i == 0 {
					clear(blk)
				}
				f.MakeFinite(blk)
				if !checkSuperForm(t, f, blk, "random block") {
					return
				}
			}
			v := loadVectors(t, f, "dequant")
			if v == nil {
				return
			}
			for b := 0; b < v.Blocks; b++ {
				blk := v.Raw[b*f.BlockBytes : (b+1)*f.BlockBytes]
				fin := slices.Clone(blk)
				f.MakeFinite(fin)
				if string(fin) == string(blk) && !checkSuperForm(t, f, blk, "known-answer block") {
					return
				}
			}
		})
	}
	for _, name := range []string{"Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"} {
		if !slices.Contains(with, name) {
			t.Errorf("%s has no super form", name)
		}
	}
}

// A wrong SubScale is caught: Q4_K's scale with its min in its place.
func TestSuperFormCatchesSwap(t *testing.T) {
	f := formats.Q4_K
	blk := make([]byte, f.BlockBytes)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range blk {
		blk[k] = byte(rng.Uint32())
	}
	f.MakeFinite(blk)
	caught := false
	for s := int32(0); s < 8; s++ {
		if f.SuperScale(blk)*float32(f.SubOffset(blk, s)) != f.IntScale(blk, s) {
			caught = true
		}
	}
	if !caught {
		t.Error("a SubScale swapped for SubOffset reproduces Scale on a random block")
	}
}
