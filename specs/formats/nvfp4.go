package formats

import "math"

// NVFP4: 64 E2M1 elements in 36 bytes, one UE4M3 scale per 16 (ggml's
// block_nvfp4).
var NVFP4 = register(Meta{Name: "NVFP4", GGMLType: 40, BlockElems: 64, BlockBytes: 36, SubBlock: 16, IntExact: true,
	Doc: "NVIDIA 4-bit E2M1 codes, one UE4M3 scale per 16 (ggml layout)"},
	func(dst []float32, src []BlockNVFP4) { dequantRows(dst, src, (*BlockNVFP4).Dequant) })

// BlockNVFP4 is ggml's block_nvfp4: four sub-blocks of 16 elements, each
// with its own scale byte; within a sub-block the nibbles are split halves,
// as in MXFP4.
type BlockNVFP4 struct {
	D  [4]uint8  // @0: UE4M3 scale of sub-block s (elements 16s..16s+15)
	Qs [32]uint8 // @4: sub-block s, element r<8 in the low nibble of Qs[8s+r], r>=8 in the high nibble of Qs[8s+r-8]
}

// Dequant: kvalues_mxfp4[nibble] · ue4m3_half(d[s]), the doubled E2M1 value
// against half the UE4M3 scale.
func (b *BlockNVFP4) Dequant(j int32) float32 {
	s := j >> 4
	r := j & 15
	q := b.Qs[8*s+(r&7)]
	if r >= 8 {
		q >>= 4
	}
	return float32(kvaluesMXFP4[q&15]) * ue4m3Half(b.D[s])
}

// ue4m3Half is ggml's ggml_ue4m3_to_fp32: an unsigned E4M3 (bias 7, no
// inf or NaN) times 0.5. Bit 7 takes no part in the value, but 0x7F is
// zero and 0xFF is not (it decodes as e = 15, m = 7 would: 240). Normal:
// (1 + m/8)·2^(e-7)·0.5 = (8+m)·2^(e-11); subnormal: m·2^-9·0.5. Both are
// exact in float32, as integer arithmetic and one power-of-two multiply.
func ue4m3Half(x uint8) float32 {
	if x == 0x7F {
		return 0
	}
	e := uint32(x>>3) & 15
	m := uint32(x & 7)
	if e == 0 {
		return float32(m) * 0x1p-10
	}
	return float32((8+m)<<e) * 0x1p-11
}

// Quantize is quantize_row_nvfp4_ref: per sub-block of 16, the scale is
// amax/6 rounded to UE4M3 (so the largest E2M1 value, 6, meets amax), and
// each element takes the nearest kvalues_mxfp4[i]·d by MXFP4's scan (ties
// to the lower index) against the decoded half scale d.
func (b *BlockNVFP4) Quantize(x []float32) {
	x = x[:64]
	for s := range 4 {
		xb := x[16*s : 16*s+16]
		var amax float32
		for _, v := range xb {
			if amax < abs32(v) {
				amax = abs32(v)
			}
		}
		ue := ue4m3FromFloat32(amax / 6)
		b.D[s] = ue
		d := ue4m3Half(ue)
		for j := range 8 {
			b.Qs[8*s+j] = bestIndexMXFP4(xb[j], d) | bestIndexMXFP4(xb[j+8], d)<<4
		}
	}
}

// ue4m3FromFloat32 is ggml's ggml_fp32_to_ue4m3: 0 for x ≤ 0 or NaN; x
// clamped to 448; the float32 exponent rebiased to 7 and the top three
// mantissa bits rounded by the next bit alone (half up, not to even), with
// a mantissa carry into the exponent; exponents past the range give 0x7E
// (448). Below 2^-6 it is the subnormal m = (int)(x·512 + 0.5), at most 7,
// and 0 when m < 1.
func ue4m3FromFloat32(x float32) uint8 {
	if !(x > 0) {
		return 0
	}
	if x > 448 {
		x = 448
	}
	bits := math.Float32bits(x)
	exp := int32(bits>>23&0xFF) - 127 + 7
	man := int32(bits >> 20 & 7)
	if exp <= 0 {
		// x·512 is exact (a power-of-two scaling of x < 2^-6), so only the add
		// rounds; the cast truncates, as C's (int) does.
		m := cvtt(float32(x*512) + 0.5)
		if m > 7 {
			m = 7
		}
		if m < 1 {
			return 0
		}
		return uint8(m)
	}
	if exp >= 15 {
		return 0x7E
	}
	man += int32(bits >> 19 & 1)
	if man > 7 {
		man = 0
		if exp++; exp >= 15 {
			return 0x7E
		}
	}
	return uint8(exp<<3 | man)
}

// Codes: kvalues_mxfp4 of the nibbles of sub-block w/4, as MXFP4's. Scale
// is the half UE4M3 scale, so Scale·code is Dequant's one product.
func (b *BlockNVFP4) Codes(w int32) uint32 {
	q := Word32(b.Qs[:], 8*((w>>2)&3)+4*(w&1)) >> (4 * uint32((w>>1)&1))
	return Lut16(&kvaluesMXFP4, q)
}

// Scale: the half UE4M3 scale of sub-block s (16 elements).
func (b *BlockNVFP4) Scale(s int32) float32 { return ue4m3Half(b.D[s&3]) }
