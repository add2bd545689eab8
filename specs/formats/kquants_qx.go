package formats

import "math"

// Helpers of the symmetric K-quants (Q3_K, Q6_K): ggml's make_qx_quants and
// make_q3_quants, and the Q3_K 6-bit scale unpacking that Q3_K's Dequant uses.
//
// The quantizer helpers are host-only and follow ggml operation for
// operation. Every product that ggml rounds before an add is written as an
// explicit float32(...) so that Go may not fuse it into an FMA.

// qxGroupMaxEps is ggml's GROUP_MAX_EPS: a group whose largest |x| is below
// it is treated as all zero.
const qxGroupMaxEps = float32(1e-15)

// q3KScale is the biased 6-bit scale (0..63) of Q3_K sub-block i (0..15):
// low 4 bits from lo (= scales[i%8]; its low nibble for i<8, high nibble for
// i>=8), high 2 bits from bits 2(i/4)..2(i/4)+1 of hi (= scales[8+i%4]).
// Dequant subset.
func q3KScale(lo, hi uint8, i int32) int32 {
	low := int32(lo & 15)
	if i >= 8 {
		low = int32(lo >> 4)
	}
	high := int32(hi>>(2*uint32((i>>2)&3))) & 3 // &3: i < 16, and it shows the device translation the shift is < 8
	return low | high<<4
}

// qxWeight is make_qx_quants' weight of element i: qw[i] when given, else by
// rmse type 1: x², 2: 1, 3: |x|, otherwise sqrt|x|.
func qxWeight(x []float32, i int, rmseType int, qw []float32) float32 {
	switch {
	case qw != nil:
		return qw[i]
	case rmseType == 1:
		return x[i] * x[i]
	case rmseType == 2:
		return 1
	case rmseType == 3:
		return abs32(x[i])
	}
	return float32(math.Sqrt(float64(abs32(x[i]))))
}

// makeQXQuants is ggml's make_qx_quants: symmetric codes L[i] in [0, 2·nmax)
// (signed code + nmax) for the n values of x, and their scale. The initial
// scale maps the signed value of largest magnitude (first wins) to -nmax;
// with rmseType != 0 the least-squares scale is refined over 18 nearby
// trial scales. A negative rmseType returns early, averaging the
// least-squares and the initial scale. qw, if not nil, replaces the weights.
func makeQXQuants(n, nmax int, x []float32, L []int8, rmseType int, qw []float32) float32 {
	vmax := signedAbsMax(x[:n])
	amax := abs32(vmax)
	if amax < qxGroupMaxEps { // all zero
		for i := range n {
			L[i] = 0
		}
		return 0
	}
	fnmax := float32(nmax)
	clamp := func(l int32) int32 { return max(-int32(nmax), min(int32(nmax)-1, l)) }
	iscale := -fnmax / vmax
	if rmseType == 0 {
		for i := range n {
			l := nearestInt(float32(iscale * x[i]))
			L[i] = int8(int32(nmax) + clamp(l))
		}
		return 1 / iscale
	}
	returnEarly := false
	if rmseType < 0 {
		rmseType = -rmseType
		returnEarly = true
	}
	var sumlx, suml2 float32
	for i := range n {
		l := clamp(nearestInt(float32(iscale * x[i])))
		L[i] = int8(l + int32(nmax))
		w := qxWeight(x, i, rmseType, qw)
		sumlx += float32(float32(w*x[i]) * float32(l))
		suml2 += float32(float32(w*float32(l)) * float32(l))
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	if returnEarly {
		if suml2 > 0 {
			return float32(0.5) * (scale + 1/iscale)
		}
		return 1 / iscale
	}
	best := scale * sumlx
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fnmax + float32(float32(0.1)*float32(is))) / vmax
		sumlx, suml2 = 0, 0
		for i := range n {
			l := clamp(nearestInt(float32(iscale * x[i])))
			w := qxWeight(x, i, rmseType, qw)
			sumlx += float32(float32(w*x[i]) * float32(l))
			suml2 += float32(float32(w*float32(l)) * float32(l))
		}
		if suml2 > 0 && float32(sumlx*sumlx) > float32(best*suml2) {
			for i := range n {
				L[i] = int8(int32(nmax) + clamp(nearestInt(float32(iscale*x[i]))))
			}
			scale = sumlx / suml2
			best = scale * sumlx
		}
	}
	return scale
}

// makeQ3Quants is ggml's make_q3_quants: like makeQXQuants (codes L[i] =
// signed code + nmax), but with doRMSE the codes are refined one at a time,
// for up to 5 passes, under the weights x², keeping a change only when it
// raises sumlx²/suml2; the scale returned is then sumlx/suml2.
func makeQ3Quants(n, nmax int, x []float32, L []int8, doRMSE bool) float32 {
	vmax := signedAbsMax(x[:n])
	amax := abs32(vmax)
	if amax < qxGroupMaxEps { // all zero
		for i := range n {
			L[i] = 0
		}
		return 0
	}
	clamp := func(l int32) int32 { return max(-int32(nmax), min(int32(nmax)-1, l)) }
	iscale := -float32(nmax) / vmax
	if doRMSE {
		var sumlx, suml2 float32
		for i := range n {
			l := clamp(nearestInt(float32(iscale * x[i])))
			L[i] = int8(l)
			w := x[i] * x[i]
			sumlx += float32(float32(w*x[i]) * float32(l))
			suml2 += float32(float32(w*float32(l)) * float32(l))
		}
		for range 5 {
			changed := 0
			for i := range n {
				w := x[i] * x[i]
				li := float32(L[i])
				slx := sumlx - float32(float32(w*x[i])*li)
				if slx > 0 {
					sl2 := suml2 - float32(float32(w*li)*li)
					newL := clamp(nearestInt(float32(x[i]*sl2) / slx))
					if newL != int32(L[i]) {
						fl := float32(newL)
						slx += float32(float32(w*x[i]) * fl)
						sl2 += float32(float32(w*fl) * fl)
						if sl2 > 0 && float32(float32(slx*slx)*suml2) > float32(float32(sumlx*sumlx)*sl2) {
							L[i] = int8(newL)
							sumlx, suml2 = slx, sl2
							changed++
						}
					}
				}
			}
			if changed == 0 {
				break
			}
		}
		for i := range n {
			L[i] += int8(nmax)
		}
		if suml2 > 0 {
			return sumlx / suml2
		}
		return 0
	}
	for i := range n {
		L[i] = int8(clamp(nearestInt(float32(iscale*x[i]))) + int32(nmax))
	}
	return 1 / iscale
}
