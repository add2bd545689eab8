package accept

// BlockShifts: constant counts below, at and above the width; variable
// counts of every width, including counts of 32 and more (0, or the sign
// for a signed >>), on narrow and 32-bit operands.
type BlockShifts struct {
	S  [4]int8
	U  [4]uint8
	H  int16
	W  uint16
	I  int32
	V  uint32
	N8 [4]uint8 // shift counts 0..255
}

func (b *BlockShifts) Dequant(j int32) float32 {
	k := j & 3
	n := b.N8[k]
	switch j >> 2 {
	case 0:
		return float32(b.S[k]<<3) + float32(b.S[k]>>2) + float32(b.U[k]<<5) + float32(b.U[k]>>7)
	case 1:
		return float32(b.S[k]<<8) + float32(b.S[k]>>9) + float32(b.U[k]<<8) + float32(b.H>>15) + float32(b.W<<12)
	case 2:
		return float32(b.I<<31) + float32(b.I>>31) + float32(b.V<<31) + float32(b.V>>31) + float32(b.I<<40) + float32(b.I>>40) + float32(b.V>>33)
	case 3:
		return float32(b.S[k]<<n) + float32(b.S[k]>>n) + float32(b.U[k]<<n) + float32(b.U[k]>>n)
	case 4:
		return float32(b.H<<n) + float32(b.H>>n) + float32(b.W<<n) + float32(b.W>>n)
	case 5:
		return float32(b.I<<n) + float32(b.I>>n) + float32(b.V<<n) + float32(b.V>>n)
	case 6:
		c := int32(n & 63) // a non-negative signed count
		d := uint16(n) * 3 // a uint16 count
		return float32(b.I>>c) + float32(b.V<<c) + float32(b.H>>d) + float32(b.V>>uint32(d))
	}
	x := b.V
	x <<= n & 7
	x >>= uint8(k)
	y := b.S[k]
	y >>= n
	return float32(x) + float32(y) + float32(uint32(1)<<(j&31))
}
