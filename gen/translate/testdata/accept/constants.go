package accept

// BlockConstants: constant expressions are folded by Go exactly and
// emitted as the typed result (float32 constants as exact hex literals),
// including typed and untyped constants, iota, extremes and len of an
// array field.
type BlockConstants struct {
	X  float32
	Qs [8]uint8
}

const (
	third   = 1.0 / 3 // untyped: rounded once, to float32, where used
	big     = 1 << 40 // untyped, only usable folded
	maxU32  = uint32(big>>8 - 1)
	minI32  = int32(-1 << 31)
	tiny    = float32(1e-45) // the least subnormal
	largest = float32(3.4028234663852886e38)
)

const (
	c0 = iota * 10
	c1
	c2
)

func (b *BlockConstants) Dequant(j int32) float32 {
	switch j & 7 {
	case 0:
		return b.X * third
	case 1:
		return float32(maxU32) + float32(minI32)
	case 2:
		return tiny * b.X
	case 3:
		return largest - b.X
	case 4:
		return float32(c2 + int32(len(b.Qs)))
	case 5:
		return float32(big>>35) * -0.0 // -0.0 is the constant 0
	case 6:
		return float32(uint8(big>>33)) + float32(int8(-128))
	}
	return b.X * (2.0 / 3) * 1e10
}
