package accept

import "github.com/rocmforge/forge/specs/formats"

// BlockWords: formats.Word32 and formats.Word16 on uint8 and int8 fields at
// each alignment the translator tells apart (4-byte loads where the block
// size, the field offset and the index allow, 16-bit loads, byte loads for
// odd indices), and formats.Dot4, whose accumulator wraps.
type BlockWords struct {
	H uint16    // @0
	A [14]uint8 // @2: 2-byte aligned
	W [8]uint8  // @16: 4-byte aligned (the block is 32 bytes)
	S [8]int8   // @24
}

func (b *BlockWords) Dequant(j int32) float32 {
	k := j & 7
	switch j >> 3 {
	case 0:
		return float32(formats.Word32(b.W[:], 4*(k&1))>>(4*uint32(k>>1))) + float32(formats.Word32(b.A[:], 2+4*(k&1))&0xFFFF)
	case 1:
		return float32(formats.Word32(b.A[:], 1+k) & 0xFFFFFF)
	case 2:
		return float32(formats.Word16(b.S[:], 2*(k&3))) + float32(formats.Word16(b.A[:], k+1)) + float32(formats.Word16(b.W[:], 6))
	}
	c := int32(0x7FFFFF00) + int32(b.H)
	if k&1 != 0 {
		c = -c
	}
	return float32(formats.Dot4(formats.Word32(b.S[:], 4*(k&1)), formats.Word32(b.W[:], 4*((k>>1)&1)), c))
}
