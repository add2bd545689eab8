package formats

import "math"

// Helpers shared by the K-quants with a per-sub-block min (Q2_K, Q4_K, Q5_K):
// the 6-bit scale/min packing of Q4_K and Q5_K (translatable: Dequant uses
// it) and ggml's make_qkx2_quants search (host-only: the quantizers use it).

// The 12-byte scales array S of Q4_K and Q5_K holds eight 6-bit scales and
// eight 6-bit mins, one pair per 32-element sub-block i. With k = i%4:
//
//	i < 4:  scale = S[k] & 63,                        min = S[k+4] & 63
//	i >= 4: scale = S[k+8]&15 | (S[k]>>6)<<4,         min = S[k+8]>>4 | (S[k+4]>>6)<<4
//
// This is ggml's get_scale_min_k4, split in two so that each half reads only
// scalars: the caller passes S[k], S[k+4] and S[k+8].

// scaleK4 is the 6-bit scale of sub-block i, from lo = S[i%4] and hi = S[i%4+8].
func scaleK4(i int32, lo, hi uint8) uint8 {
	if i < 4 {
		return lo & 63
	}
	return hi&15 | (lo>>6)<<4
}

// minK4 is the 6-bit min of sub-block i, from mid = S[i%4+4] and hi = S[i%4+8].
func minK4(i int32, mid, hi uint8) uint8 {
	if i < 4 {
		return mid & 63
	}
	return hi>>4 | (mid>>6)<<4
}

// packScalesK4 is the inverse of scaleK4/minK4, as quantize_row_q4_K_ref and
// quantize_row_q5_K_ref write it (ls, lm are at most 63).
func packScalesK4(s *[12]uint8, ls, lm *[8]uint8) {
	for j := range 8 {
		if j < 4 {
			s[j] = ls[j]
			s[j+4] = lm[j]
		} else {
			s[j+4] = ls[j]&15 | (lm[j]&15)<<4
			s[j-4] |= (ls[j] >> 4) << 6
			s[j] |= (lm[j] >> 4) << 6
		}
	}
}

// makeQKX2Quants is ggml's make_qkx2_quants: it fits x ≈ scale·L - theMin
// with L in [0, nmax] and theMin >= 0, minimising the weighted absolute
// (useMad) or squared error. It first tries the plain min/max grid, then
// nstep+1 grids with nmax+rmin+rdelta·is steps over the range, each refitted
// by weighted least squares; a later candidate replaces the best only when
// strictly better. L receives the codes, laux is scratch; both len(x).
//
// Every float32 product that ggml rounds before an add is converted
// explicitly, so that Go cannot fuse it into an FMA.
func makeQKX2Quants(nmax int32, x, weights []float32, L, laux []uint8,
	rmin, rdelta float32, nstep int32, useMad bool) (scale, theMin float32) {
	n := len(x)
	min, max := x[0], x[0]
	sumW := weights[0]
	sumX := float32(sumW * x[0])
	for i := 1; i < n; i++ {
		if x[i] < min {
			min = x[i]
		}
		if x[i] > max {
			max = x[i]
		}
		w := weights[i]
		sumW += w
		sumX += float32(w * x[i])
	}
	if min > 0 {
		min = 0
	}
	if max == min {
		for i := range n {
			L[i] = 0
		}
		return 0, -min
	}
	fnmax := float32(nmax)
	// errorOf is the weighted error of codes q under (s, m), summed in order.
	errorOf := func(q []uint8, s, m float32) float32 {
		var e float32
		for i := range n {
			diff := float32(s*float32(q[i])) + m - x[i]
			if useMad {
				diff = abs32(diff)
			} else {
				diff = float32(diff * diff)
			}
			e += float32(weights[i] * diff)
		}
		return e
	}
	iscale := fnmax / (max - min)
	scale = 1 / iscale
	for i := range n {
		l := nearestInt(float32(iscale * (x[i] - min)))
		L[i] = uint8(clamp32(l, 0, nmax))
	}
	bestError := errorOf(L, scale, min)
	if nstep < 1 {
		return scale, -min
	}
	for is := int32(0); is <= nstep; is++ {
		iscale = (rmin + float32(rdelta*float32(is)) + fnmax) / (max - min)
		var sumL, sumL2, sumXL float32
		for i := range n {
			l := clamp32(nearestInt(float32(iscale*(x[i]-min))), 0, nmax)
			laux[i] = uint8(l)
			fl := float32(l)
			wl := float32(weights[i] * fl)
			sumL += wl
			sumL2 += float32(wl * fl)
			sumXL += float32(wl * x[i])
		}
		D := float32(sumW*sumL2) - float32(sumL*sumL)
		if D > 0 {
			thisScale := (float32(sumW*sumXL) - float32(sumX*sumL)) / D
			thisMin := (float32(sumL2*sumX) - float32(sumL*sumXL)) / D
			if thisMin > 0 {
				thisMin = 0
				thisScale = sumXL / sumL2
			}
			if curError := errorOf(laux, thisScale, thisMin); curError < bestError {
				copy(L[:n], laux[:n])
				bestError = curError
				scale, min = thisScale, thisMin
			}
		}
	}
	return scale, -min
}

// clamp32 is ggml's MAX(lo, MIN(hi, v)).
func clamp32(v, lo, hi int32) int32 { return max(lo, min(hi, v)) }

// sqrtf is C sqrtf: the float64 square root of a float32 rounds to the same
// float32 as the correctly rounded float32 square root.
func sqrtf(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// quantizeK4 is the part common to quantize_row_q4_K_ref and
// quantize_row_q5_K_ref for one 256-element block: per 32-element sub-block,
// weights av_x + |x| (av_x the sub-block's RMS) and a make_qkx2_quants fit;
// the eight scales and mins quantized to 6 bits against the largest of each
// (d = max_scale/63, dmin = max_min/63, stored as fp16); then every code
// recomputed from the fp16 d and dmin as nearest((x + dmin·m)/(d·sc)),
// clamped to [0, nmax]. Sub-blocks whose d·sc is 0 keep their fitted codes.
func quantizeK4(x []float32, nmax int32, rmin, rdelta float32, nstep int32,
	d, dmin *Half, scales *[12]uint8, L *[256]uint8) {
	x = x[:256]
	var mins, subScales [8]float32
	var weights [32]float32
	var laux [32]uint8
	var maxScale, maxMin float32
	for j := range 8 {
		xs := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range xs {
			sumX2 += float32(v * v)
		}
		avX := sqrtf(sumX2 / 32)
		for l, v := range xs {
			weights[l] = avX + abs32(v)
		}
		subScales[j], mins[j] = makeQKX2Quants(nmax, xs, weights[:], L[32*j:32*j+32], laux[:], rmin, rdelta, nstep, false)
		if subScales[j] > maxScale {
			maxScale = subScales[j]
		}
		if mins[j] > maxMin {
			maxMin = mins[j]
		}
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	var ls, lm [8]uint8
	for j := range 8 {
		ls[j] = min(63, uint8(nearestInt(float32(invScale*subScales[j]))))
		lm[j] = min(63, uint8(nearestInt(float32(invMin*mins[j]))))
	}
	packScalesK4(scales, &ls, &lm)
	*d = HalfFromFloat32(maxScale / 63)
	*dmin = HalfFromFloat32(maxMin / 63)
	for j := range 8 {
		k := j & 3
		sc := scaleK4(int32(j), scales[k], scales[k+8])
		m := minK4(int32(j), scales[k+4], scales[k+8])
		dj := float32(d.Float32() * float32(sc))
		if dj == 0 {
			continue
		}
		dm := float32(dmin.Float32() * float32(m))
		for ii := range 32 {
			l := nearestInt((x[32*j+ii] + dm) / dj)
			L[32*j+ii] = uint8(clamp32(l, 0, nmax))
		}
	}
}
