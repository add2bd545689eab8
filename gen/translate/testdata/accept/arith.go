package accept

// BlockArith: +, -, * and unary operators on every integer width, where
// narrow results wrap and int32 overflows wrap.
type BlockArith struct {
	A8  [4]int8
	U8  [4]uint8
	A16 [4]int16
	U16 [4]uint16
	A32 [4]int32
	U32 [4]uint32
}

func (b *BlockArith) Dequant(j int32) float32 {
	k := j & 3
	a8 := b.A8[k] + b.A8[(k+1)&3]*b.A8[(k+2)&3] - b.A8[3]
	u8 := b.U8[k]*b.U8[(k+1)&3] + b.U8[2] - b.U8[(k+3)&3]
	a16 := b.A16[k] * b.A16[(k+1)&3]
	u16 := b.U16[k] * b.U16[(k+1)&3] // 65535*65535 overflows C's int
	a32 := b.A32[k]*b.A32[(k+1)&3] + b.A32[(k+2)&3] - b.A32[(k+3)&3]
	u32 := b.U32[k]*b.U32[(k+1)&3] - b.U32[2]
	switch j >> 2 {
	case 0:
		return float32(a8)
	case 1:
		return float32(u8)
	case 2:
		return float32(a16)
	case 3:
		return float32(u16)
	case 4:
		return float32(a32)
	case 5:
		return float32(u32)
	case 6:
		return float32(-a8) + float32(-u8) + float32(-a32) + float32(^u16) + float32(^a16)
	}
	return float32(-u32) + float32(^u32) + float32(-b.A16[k])
}

// BlockBitwise: &, |, ^, &^ on signed and unsigned, narrow and wide.
type BlockBitwise struct {
	A [4]int8
	B [4]uint16
	C [4]int32
	D uint32
}

func (b *BlockBitwise) Dequant(j int32) float32 {
	k := j & 3
	x := b.A[k] &^ b.A[(k+1)&3]
	y := b.B[k] ^ b.B[(k+2)&3] | b.B[3]&0x0ff0
	z := b.C[k]&^b.C[(k+1)&3] ^ b.C[2] | -12345
	w := b.D&^0xf0f0f0f0 ^ uint32(j)
	if j >= 16 {
		return float32(x) * float32(y)
	}
	return float32(z) + float32(w)
}
