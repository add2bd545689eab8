package formats

// Shared by IQ4_NL and IQ4_XS: the non-linear 4-bit codebook and ggml's
// quantize_row_iq4_nl_impl (without an importance matrix).

// kvaluesIQ4NL is ggml's kvalues_iq4nl: the 16 values a 4-bit IQ4 code stands
// for, before the scale.
var kvaluesIQ4NL = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// iq4GroupMaxEps is ggml's GROUP_MAX_EPS: a 32-element group whose largest
// magnitude is below it gets scale 0.
const iq4GroupMaxEps = float32(1e-15)

// bestIndexInt8 is ggml's best_index_int8 over kvaluesIQ4NL: the index of the
// table value nearest to x, found by bisection; at an exact midpoint the upper
// index wins (the test is a strict <). Differences are taken in float32.
func bestIndexInt8(x float32) uint8 {
	val := &kvaluesIQ4NL
	if x <= float32(val[0]) {
		return 0
	}
	if x >= float32(val[15]) {
		return 15
	}
	ml, mu := 0, 15
	for mu-ml > 1 {
		mav := (ml + mu) / 2
		if x < float32(val[mav]) {
			mu = mav
		} else {
			ml = mav
		}
	}
	if x-float32(val[mu-1]) < float32(val[mu])-x {
		return uint8(mu - 1)
	}
	return uint8(mu)
}

// quantizeIQ4Impl is ggml's quantize_row_iq4_nl_impl with quant_weights = NULL
// (weights x²) for one super-block x of len(x) elements in groups of 32.
//
// Per group: the group's signed extreme max gives a first scale (max/-127 when
// ntry <= 0, max/127 otherwise), the codes are the nearest table values,
// and the least-squares scale sumqx/sumq2 of those codes is kept; then for
// itry in [-ntry, ntry] the codes are redone with 1/scale = (itry-127)/max
// and the least-squares scale replaces the kept one when its score
// sumqx²/sumq2 is larger.
//
// With one group (IQ4_NL) the fp16 d is that scale, and the codes are those
// of the first pass (ntry <= 0) or recomputed from the unrounded scale
// (ntry > 0). With several groups (IQ4_XS, which passes scalesL) d is
// -max_scale/32 for the signed group scale of largest magnitude, each group
// gets a 6-bit scale l = nearest_int(scale/d) in [-32, 31] stored as l+32
// (low 4 bits in scalesL, nibble per group; high 2 bits in *scalesH, 2 bits
// per group), and its codes are recomputed from the unrounded d·l.
// Codes are packed as in Q4_0: per 32, element j<16 in the low nibble of
// q4[j], element j+16 in the high nibble.
//
// A group below iq4GroupMaxEps gets scale 0; for a single group with
// ntry <= 0 ggml then never writes its codes and packs whatever its code
// buffer held (the previous block's codes within one call); here that
// buffer is fresh, so the codes are 0, which is what ggml's vectors show
// for an all-zero first block (BlockIQ4NL.Quantize says why later blocks
// are not made to match).
func quantizeIQ4Impl(x []float32, ntry int, q4 []uint8, scalesH *uint16, scalesL []uint8) (d Half) {
	n := len(x)
	var (
		weight [32]float32
		scales [8]float32
		codes  [256]uint8
	)
	values := &kvaluesIQ4NL
	v0 := float32(values[0])

	var maxScale, amaxScale float32
	for ib := 0; ib < n/32; ib++ {
		xb := x[32*ib : 32*ib+32]
		lb := codes[32*ib : 32*ib+32]
		for j, v := range xb {
			weight[j] = v * v
		}
		var amax, vmax float32
		for _, v := range xb {
			if ax := abs32(v); ax > amax {
				amax, vmax = ax, v
			}
		}
		if amax < iq4GroupMaxEps {
			scales[ib] = 0
			continue
		}
		var dg float32
		if ntry > 0 {
			dg = -vmax / v0
		} else {
			dg = vmax / v0
		}
		id := 1 / dg
		var sumqx, sumq2 float32
		for j, v := range xb {
			l := bestIndexInt8(float32(id * v))
			lb[j] = l
			q := float32(values[l])
			w := weight[j]
			sumqx += float32(w * q * v)
			sumq2 += float32(w * q * q)
		}
		dg = 0
		if sumq2 > 0 {
			dg = sumqx / sumq2
		}
		best := float32(dg * sumqx)
		for itry := -ntry; itry <= ntry; itry++ {
			id = float32(itry+int(values[0])) / vmax
			sumqx, sumq2 = 0, 0
			for j, v := range xb {
				q := float32(values[bestIndexInt8(float32(id*v))])
				w := weight[j]
				sumqx += float32(w * q * v)
				sumq2 += float32(w * q * q)
			}
			if sumq2 > 0 && float32(sumqx*sumqx) > float32(best*sumq2) {
				dg = sumqx / sumq2
				best = float32(dg * sumqx)
			}
		}
		scales[ib] = dg
		if ad := abs32(dg); ad > amaxScale {
			amaxScale, maxScale = ad, dg
		}
	}

	if n/32 > 1 {
		*scalesH = 0
		ds := -maxScale / 32
		d = HalfFromFloat32(ds)
		var id float32
		if ds != 0 {
			id = 1 / ds
		}
		for ib := 0; ib < n/32; ib++ {
			l := nearestInt(float32(id * scales[ib]))
			l = max(-32, min(31, l))
			dl := float32(ds * float32(l))
			var idl float32
			if dl != 0 {
				idl = 1 / dl
			}
			for j, v := range x[32*ib : 32*ib+32] {
				codes[32*ib+j] = bestIndexInt8(float32(idl * v))
			}
			l += 32
			lo, hi := uint8(l&15), uint16(l>>4)
			if ib%2 == 0 {
				scalesL[ib/2] = lo
			} else {
				scalesL[ib/2] |= lo << 4
			}
			*scalesH |= hi << (2 * ib)
		}
	} else {
		d = HalfFromFloat32(scales[0])
		if ntry > 0 {
			var id float32
			if scales[0] != 0 {
				id = 1 / scales[0]
			}
			for j, v := range x {
				codes[j] = bestIndexInt8(float32(id * v))
			}
		}
	}

	for i := 0; i < n/32; i++ {
		for j := range 16 {
			q4[16*i+j] = codes[32*i+j] | codes[32*i+16+j]<<4
		}
	}
	return d
}
