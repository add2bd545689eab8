package accept

// Helpers: package functions calling one another (emitted callees first,
// each once), and methods of the block type called through the receiver.

func nibble(x uint8, hi bool) uint8 {
	if hi {
		return x >> 4
	}
	return x & 15
}

func centre(q uint8, bias int32) int32 { return int32(q) - bias }

func scaled(q uint8, bias int32, d float32) float32 {
	return float32(centre(q, bias)) * d
}

func pick(a, b, c int32) int32 {
	if a > b {
		return a + c
	}
	return b - c
}

// BlockHelpers uses the helpers and its own methods.
type BlockHelpers struct {
	D  float32
	Qs [16]uint8
}

func (b *BlockHelpers) code(j int32) uint8 { return nibble(b.Qs[j&15], j >= 16) }

func (b *BlockHelpers) scale() float32 { return b.D * 0.5 }

func (b *BlockHelpers) Dequant(j int32) float32 {
	q := b.code(j)
	return scaled(q, pick(8, int32(q), 1), b.scale())
}

// BlockHelpers2 shares nibble and centre with BlockHelpers.
type BlockHelpers2 struct {
	Qs [16]uint8
}

func (b *BlockHelpers2) Dequant(j int32) float32 {
	return float32(centre(nibble(b.Qs[j&15], j&16 != 0), 7))
}
