package accept

// BlockControl: if/else chains, if with an init statement, nested blocks
// that shadow variables (x := x + 1 reads the outer x), and switch with a
// tag, without one, with several values per case and default not last.
type BlockControl struct {
	B int16
	A uint8
	C [9]uint8
}

func (b *BlockControl) Dequant(j int32) float32 {
	x := int32(b.A)
	if y := x * 2; y > 200 {
		x = y - 300
	} else if y > 100 {
		x = -y
	} else {
		x++
	}
	{
		x := x + 1000
		if x > 1100 {
			return float32(x)
		}
	}
	var r float32
	switch q := b.C[j&7]; q & 7 {
	case 0, 1:
		r = 1
	default:
		r = float32(q)
	case 5:
		r = -5
	}
	switch {
	case j < 8 && b.B < 0:
		r += 0.5
	case j < 16 || b.B == 7:
		r -= 0.25
	}
	switch b.A % 3 {
	case 2:
		r *= 2
	}
	if !(b.B > 0) || j == 3 {
		r += float32(x)
	}
	if x > 5 {
		r += 1
	} else if z := x * 3; z > 4 {
		r += float32(z)
	} else if w := z - 1; w < 0 {
		r -= float32(w)
	}
	return r
}
