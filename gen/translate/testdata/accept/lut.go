package accept

import "github.com/rocmforge/forge/specs/formats"

// lutSigned has negative entries and both int8 extremes.
var lutSigned = [16]int8{-128, -127, -64, -9, -1, 0, 1, 2, 3, 5, 8, 13, 21, 34, 64, 127}

// lutKeyed is written with keys; the entries it leaves out are zero.
var lutKeyed = [16]int8{3: -3, 7: 70, 8: -8, 15: -15}

// BlockLut: formats.Lut16 on words of packed nibbles, shifted right by
// four or not (so the high nibbles it ignores are set either way), with a
// table the block's last byte chooses; Dequant returns one signed byte of
// the result. The tables are not emitted: Lut16 passes them as constants.
type BlockLut struct {
	Qs [16]uint8
}

func (b *BlockLut) Dequant(j int32) float32 {
	q := formats.Word32(b.Qs[:], 4*(j&3)) >> (4 * uint32((j>>2)&1))
	c := formats.Lut16(&lutSigned, q)
	if b.Qs[15]&1 != 0 {
		c = formats.Lut16((&lutKeyed), q)
	}
	return float32(int8(c >> (8 * uint32((j>>3)&3))))
}
