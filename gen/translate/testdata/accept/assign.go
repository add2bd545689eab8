package accept

// BlockAssign: multi-value assignment evaluates every right side first
// (swaps), := that redeclares, every op-assign, ++ and --, zero-valued var
// declarations and the blank identifier.
type BlockAssign struct {
	A int16
	B int16
	U uint8
	_ uint8 // explicit padding
}

func (b *BlockAssign) Dequant(j int32) float32 {
	a, c := b.A, b.B
	a, c = c, a
	c, d := a+c, c-a
	var e, f int16
	var g uint8 = b.U
	var h bool
	_ = h
	e += a
	e -= 3
	e *= 3
	e /= 2
	e %= 1000
	e &= 0x7ff
	e |= 0x100
	e ^= c
	e &^= 1
	e <<= 2
	e >>= 1
	f++
	f--
	f--
	g <<= 3
	g >>= 1
	g++
	g, e = g+1, e+int16(g)
	if j&1 == 1 {
		h = true
	}
	if h {
		return float32(d) + float32(f)
	}
	return float32(e) + float32(g) + float32(c)
}
