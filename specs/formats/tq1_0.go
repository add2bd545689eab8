package formats

import "math"

// TQ1_0: 256 ternary elements in 54 bytes; five base-3 digits per byte
// (four in qh), one fp16 scale at the end.
var TQ1_0 = register(Meta{Name: "TQ1_0", GGMLType: 34, BlockElems: 256, BlockBytes: 54, SubBlock: 32, IntZero: 1,
	Doc: "ternary {-1,0,1}, 5 trits per byte (1.69 bpw), one fp16 scale per 256"},
	func(dst []float32, src []BlockTQ1_0) { dequantRows(dst, src, (*BlockTQ1_0).Dequant) })

// BlockTQ1_0 is ggml's block_tq1_0.
type BlockTQ1_0 struct {
	Qs [48]uint8 // @0: byte ceil(v·256/243) of a 5-trit number v; j<160: digit j/32 of Qs[j%32]; 160<=j<240: digit (j-160)/16 of Qs[32+(j-160)%16]
	Qh [4]uint8  // @48: j>=240: digit (j-240)/4 of Qh[(j-240)%4] (4 trits, shifted up one digit)
	D  Half      // @52: scale
}

// tq1Pow3 are the powers of 3 that move trit n to the top of a byte.
var tq1Pow3 = [6]uint8{1, 3, 9, 27, 81, 243}

// Dequant: byte and digit n as in the layout; t = byte·3^n mod 256 (uint8
// wrap-around); trit = (t·3) >> 8; (trit - 1) · d.
func (b *BlockTQ1_0) Dequant(j int32) float32 {
	var byt uint8
	var n int32
	if j < 160 {
		byt = b.Qs[j&31]
		n = j >> 5
	} else if j < 240 {
		byt = b.Qs[32+((j-160)&15)]
		n = (j - 160) >> 4
	} else {
		byt = b.Qh[(j-240)&3]
		n = (j - 240) >> 2
	}
	t := byt * tq1Pow3[n] // uint8 product: wraps mod 256
	xi := int32((uint32(t) * 3) >> 8)
	return float32(xi-1) * b.D.Float32()
}

// Quantize is quantize_row_tq1_0_ref: d = max|x|, trits lroundf(x/d)+1 from
// the unrounded 1/d, packed most significant first as v (uint8 arithmetic)
// and stored as ceil(v·256/243).
func (b *BlockTQ1_0) Quantize(x []float32) {
	x = x[:256]
	d := absMaxC(x)
	id := recip(d)
	b.D = HalfFromFloat32(d)
	trit := func(v float32) uint8 { return uint8(lroundf(v*id) + 1) }
	pack := func(q uint8) uint8 { return uint8((uint16(q)*256 + 242) / 243) }
	// 32 bytes of 5 trits, element m + 32n.
	for m := range 32 {
		var q uint8
		for n := range 5 {
			q = q*3 + trit(x[m+32*n])
		}
		b.Qs[m] = pack(q)
	}
	// 16 bytes of 5 trits, element 160 + m + 16n.
	for m := range 16 {
		var q uint8
		for n := range 5 {
			q = q*3 + trit(x[160+m+16*n])
		}
		b.Qs[32+m] = pack(q)
	}
	// 4 bytes of 4 trits, element 240 + j + 4m, shifted up one trit.
	for j := range 4 {
		var q uint8
		for m := range 4 {
			q = q*3 + trit(x[240+j+4*m])
		}
		b.Qh[j] = pack(q * 3)
	}
}

// lroundf is C lroundf: round half away from zero to an integer (used by
// TQ1_0 and TQ2_0).
func lroundf(x float32) int32 { return int32(math.Round(float64(x))) }

// Codes: the trits (0..2) of elements 4w..4w+3, which share digit n and
// lie in four consecutive bytes: t = byte·3^n mod 256 and trit = (3t)>>8
// for each byte at once, the even and the odd bytes in the two 16-bit
// halves of a word each (an 8-bit product and 3t < 768 fit a half). Offset
// -d makes them (trit-1)·d, exactly.
func (b *BlockTQ1_0) Codes(w int32) uint32 {
	w &= 63
	var q uint32
	var n int32
	if w < 40 {
		q = Word32(b.Qs[:], 4*(w&7))
		n = w >> 3
	} else if w < 60 {
		q = Word32(b.Qs[:], 32+4*((w-40)&3))
		n = (w - 40) >> 2
	} else {
		q = Word32(b.Qh[:], 0)
		n = w - 60
	}
	p := uint32(tq1Pow3[n&7])
	even := (q & 0x00FF00FF * p & 0x00FF00FF) * 3 >> 8 & 0x00030003
	odd := ((q >> 8) & 0x00FF00FF * p & 0x00FF00FF) * 3 >> 8 & 0x00030003
	return even | odd<<8
}

// Scale: d.
func (b *BlockTQ1_0) Scale(s int32) float32 { return b.D.Float32() }

// Offset: -d.
func (b *BlockTQ1_0) Offset(s int32) float32 { return -b.D.Float32() }
