package accept

// BlockDivision: / and % by constants (Go truncates toward zero), signed
// and unsigned, narrow and wide, including -1, whose quotient of the
// minimum value wraps.
type BlockDivision struct {
	S [4]int8
	U [4]uint16
	I [4]int32
	V uint32
}

const minus1 = -1

func (b *BlockDivision) Dequant(j int32) float32 {
	k := j & 3
	s, u, i := b.S[k], b.U[k], b.I[k]
	switch j >> 2 {
	case 0:
		return float32(s/3) + float32(s%3) + float32(s/-7) + float32(s%-7)
	case 1:
		return float32(s/minus1) + float32(s%minus1) + float32(i/minus1) + float32(i%minus1)
	case 2:
		return float32(u/10) + float32(u%10) + float32(u/65535)
	case 3:
		return float32(i/1000) + float32(i%1000) + float32(i/-3) + float32(i%-3)
	case 4:
		return float32(b.V/7) + float32(b.V%7) + float32(b.V/0x80000000)
	case 5:
		m := int32(-2147483648) + int32(k) // around the minimum
		return float32(m/minus1) + float32(m/2) + float32(m%2)
	case 6:
		x := i
		x /= 16
		x %= 5
		return float32(x)
	}
	return float32(s / -128)
}
