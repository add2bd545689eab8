package formats

// Q2_0: 64 elements in 18 bytes; 2-bit codes {-1, 0, 1, 2} and one fp16
// scale.
var Q2_0 = register(Meta{Name: "Q2_0", GGMLType: 42, BlockElems: 64, BlockBytes: 18, SubBlock: 32, IntZero: 1,
	Doc: "2-bit codes {-1,0,1,2}, one fp16 scale per 64"},
	func(dst []float32, src []BlockQ2_0) { dequantRows(dst, src, (*BlockQ2_0).Dequant) })

// BlockQ2_0 is ggml's block_q2_0. Unlike TQ2_0 and the K-quants, the codes
// of consecutive elements share a byte: element j is in bits 2·(j%4) and up
// of Qs[j/4].
type BlockQ2_0 struct {
	D  Half      // @0: scale
	Qs [16]uint8 // @2: element j in bits 2(j%4)..2(j%4)+1 of Qs[j/4]
}

// Dequant: (q - 1) · d.
func (b *BlockQ2_0) Dequant(j int32) float32 {
	q := (b.Qs[j>>2] >> (2 * uint32(j&3))) & 3
	return float32(int32(q)-1) * b.D.Float32()
}

// Quantize is quantize_row_q2_0_ref: d = max|x| (a NaN never wins), codes
// (int)roundf(x/d) + 1 from the unrounded 1/d, clamped to [0, 3]. The cast
// goes through cvtt, as gcc's does, so an infinite or NaN product (d
// subnormal enough that 1/d overflows) gives code 0.
func (b *BlockQ2_0) Quantize(x []float32) {
	x = x[:64]
	var amax float32
	for _, v := range x {
		if a := abs32(v); a > amax {
			amax = a
		}
	}
	id := recip(amax)
	b.D = HalfFromFloat32(amax)
	b.Qs = [16]uint8{}
	for j, v := range x {
		q := cvtt(roundf(v*id)) + 1
		q = max(0, min(3, q))
		b.Qs[j/4] |= uint8(q) << (2 * (j % 4))
	}
}

// Codes: the four 2-bit fields of Qs[w], one to a byte: fields 2 and 3
// move to the upper half, then fields 1 and 3 up by 6 bits. Offset -d
// makes them (q-1)·d, exactly.
func (b *BlockQ2_0) Codes(w int32) uint32 {
	x := uint32(b.Qs[w&15])
	x = (x | x<<12) & 0x000F000F
	return (x | x<<6) & 0x03030303
}

// Scale: d.
func (b *BlockQ2_0) Scale(s int32) float32 { return b.D.Float32() }

// Offset: -d.
func (b *BlockQ2_0) Offset(s int32) float32 { return -b.D.Float32() }
