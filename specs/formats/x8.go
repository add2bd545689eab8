package formats

import (
	"fmt"
	"math"
)

// X8 is an activation vector quantized to 8 bits for the integer form's
// dot products (llama.cpp's q8_1, in a layout of separate arrays), as the
// cpu backend's and the device's integer matvec use it. For x of n
// elements (a multiple of 32), per group g of 32:
//
//	D[g] = amax/127 (float32 division; amax the largest |x| of the group)
//	Q[i] = clamp(roundf(x[i]/D[g]), -127, 127) (float32 division, round half
//	       away from zero), 0 for the whole group when D[g] == 0
//	S[h] = D[h/2]·float32(Σ Q[16h..16h+15]) (per 16: the integer sum,
//	       converted, multiplied once)
//
// The clamp only acts when amax/127 is a subnormal with too few bits; for
// every normal D, |x/D| ≤ 127 (rounded) already. S is what an offset form
// multiplies: Σ Offset·x over a sub-block is Offset·S.
type X8 struct {
	Q []int8    // n codes
	D []float32 // n/32 scales
	S []float32 // n/16 scaled sums
}

// QuantizeX8 quantizes x as X8 describes. It panics when len(x) is not a
// multiple of 32: callers size activations by whole blocks, which are.
func QuantizeX8(x []float32) X8 {
	if len(x)%32 != 0 {
		panic(fmt.Sprintf("formats.QuantizeX8: %d elements is not a multiple of 32", len(x)))
	}
	q := X8{Q: make([]int8, len(x)), D: make([]float32, len(x)/32), S: make([]float32, len(x)/16)}
	for g := range q.D {
		xs := x[32*g : 32*g+32]
		var amax float32
		for _, v := range xs {
			amax = max(amax, abs32(v))
		}
		d := amax / 127
		q.D[g] = d
		if d == 0 {
			continue
		}
		for i, v := range xs {
			r := math.Round(float64(v / d))
			q.Q[32*g+i] = int8(max(-127, min(127, r)))
		}
		for h := 2 * g; h < 2*g+2; h++ {
			var sum int32
			for _, c := range q.Q[16*h : 16*h+16] {
				sum += int32(c)
			}
			q.S[h] = d * float32(sum)
		}
	}
	return q
}

// DotX8 is the dot product of one row of the format (whole blocks, as many
// as x has elements) with a quantized vector, by the integer form: per
// sub-block s of Sub elements starting at element e,
//
//	isum = Σ over the sub-block's words of Dot4(Codes(w), Q's word, ·)
//	t    = float32(Scale(s)·D[e/32]) · float32(isum)
//	t    = t + Offset(s)·Ssub    (forms with an offset only)
//	acc  = acc + t
//
// in float32, every product and sum rounded (no FMA), sub-blocks in row
// order, where Ssub is S[e/16] for a 16-element sub-block and
// S[e/16] + S[e/16+1] for a 32-element one. The device kernel mirrors this
// grouping (it may fuse the multiply-adds). It panics when the format has no
// integer form or the sizes disagree.
func (f *Format) DotX8(row []byte, x X8) float32 {
	if !f.HasIntForm() {
		panic(fmt.Sprintf("formats: %s has no integer form", f.Name))
	}
	n := len(x.Q)
	if err := f.CheckSizes(n, len(row)); err != nil {
		panic("formats.DotX8: " + err.Error())
	}
	sub := f.SubBlock
	wordsPerSub := int32(sub / 4)
	var acc float32
	for b := 0; b < len(row)/f.BlockBytes; b++ {
		blk := row[b*f.BlockBytes : (b+1)*f.BlockBytes]
		base := b * f.BlockElems
		for s := int32(0); s < int32(f.BlockElems/sub); s++ {
			e := base + int(s)*sub
			var isum int32
			for w := s * wordsPerSub; w < (s+1)*wordsPerSub; w++ {
				k := base + 4*int(w)
				xw := uint32(uint8(x.Q[k])) | uint32(uint8(x.Q[k+1]))<<8 | uint32(uint8(x.Q[k+2]))<<16 | uint32(uint8(x.Q[k+3]))<<24
				isum = Dot4(f.codes(blk, w), xw, isum)
			}
			t := float32(f.scale(blk, s)*x.D[e/32]) * float32(isum)
			if f.offset != nil {
				ssub := x.S[e/16]
				if sub == 32 {
					ssub += x.S[e/16+1]
				}
				t += float32(f.offset(blk, s) * ssub)
			}
			acc += t
		}
	}
	return acc
}

// X8Bytes is the size of the device layout of n quantized elements (n a
// multiple of 32), which forge_glue_quantize_x8 writes and the integer
// matvec reads: n int8 codes, then n/32 float32 scales D, then n/16
// float32 sums S.
func X8Bytes(n int) int { return n + n/8 + n/4 }
