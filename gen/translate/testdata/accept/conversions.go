package accept

// BlockConversions: integer conversions truncate and extend in two's
// complement; integers convert to float32 rounding to nearest even.
type BlockConversions struct {
	I int32
	V uint32
	F float32
	S [2]int8
	H int16
	W uint16
	_ [2]uint8
}

func (b *BlockConversions) Dequant(j int32) float32 {
	switch j & 15 {
	case 0:
		return float32(int8(b.I)) + float32(uint8(b.I))
	case 1:
		return float32(int16(b.V)) + float32(uint16(b.I))
	case 2:
		return float32(uint32(b.S[0])) + float32(int32(b.S[1])) // sign-extend, then reinterpret
	case 3:
		return float32(uint8(b.H)) + float32(int8(b.W)) + float32(int32(b.W))
	case 4:
		return float32(b.V) // rounds above 2^24
	case 5:
		return float32(b.I)
	case 6:
		return float32(int32(b.V)) + float32(uint32(b.I))
	case 7:
		return float32(b.F) * float32(1.5)
	case 8:
		return float32(uint16(int8(b.V))) - float32(int16(uint8(b.I)))
	case 9:
		return float32(uint32(b.S[0]) >> 4)
	}
	return float32(float32(b.F * 3))
}
