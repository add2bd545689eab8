package formats

// Q8_K: 256 elements in 292 bytes; int8 codes with one float32 scale and
// per-16 code sums (ggml's intermediate type for K-quant dot products).
var Q8_K = register(Meta{Name: "Q8_K", GGMLType: 15, BlockElems: 256, BlockBytes: 292, SubBlock: 32, IntExact: true,
	Doc: "8-bit codes, float32 scale per 256, int16 code sums per 16 (ggml K-quant dot-product operand)"},
	func(dst []float32, src []BlockQ8_K) { dequantRows(dst, src, (*BlockQ8_K).Dequant) })

// BlockQ8_K is ggml's block_q8_K.
type BlockQ8_K struct {
	D     float32   // @0: scale (float32, not fp16)
	Qs    [256]int8 // @4: codes
	Bsums [16]int16 // @260: Bsums[k] = sum of Qs[16k:16k+16] (not used to dequantize)
}

// Dequant: d · float(Qs[j]).
func (b *BlockQ8_K) Dequant(j int32) float32 {
	return b.D * float32(b.Qs[j])
}

// Quantize is quantize_row_q8_K_ref: the signed value of largest magnitude
// (first wins) maps to -127; codes are nearest_int(iscale·x) capped at 127,
// d = 1/iscale, and Bsums holds the sums of each 16 codes. An all-zero block
// is zero throughout (ggml leaves its bsums unwritten; here they are 0).
func (b *BlockQ8_K) Quantize(x []float32) {
	x = x[:256]
	var vmax, amax float32
	for _, v := range x {
		if ax := abs32(v); ax > amax {
			amax, vmax = ax, v
		}
	}
	if amax == 0 {
		*b = BlockQ8_K{}
		return
	}
	iscale := -127 / vmax
	for j, v := range x {
		b.Qs[j] = int8(min(127, nearestInt(float32(iscale*v))))
	}
	for k := range 16 {
		var sum int32
		for _, q := range b.Qs[16*k : 16*k+16] {
			sum += int32(q)
		}
		b.Bsums[k] = int16(sum)
	}
	b.D = 1 / iscale
}

// Codes: the int8 codes as stored; Scale d is Dequant's one product.
func (b *BlockQ8_K) Codes(w int32) uint32 { return Word32(b.Qs[:], 4*(w&63)) }

// Scale: d (one for the whole block).
func (b *BlockQ8_K) Scale(s int32) float32 { return b.D }
