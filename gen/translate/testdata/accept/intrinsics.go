package accept

import "github.com/rocmforge/forge/specs/formats"

// BlockIntrinsics: the scalar types' conversions map to the header's
// intrinsics; the scalar types convert to and from integers, compare, and
// HalfFromFloat32 rounds a float32 to a Half.
type BlockIntrinsics struct {
	H  formats.Half
	BF formats.BFloat16
	Hs [4]formats.Half
	E  formats.E8M0
	_  uint8
}

func (b *BlockIntrinsics) Dequant(j int32) float32 {
	switch j & 7 {
	case 0:
		return b.H.Float32()
	case 1:
		return b.BF.Float32()
	case 2:
		return b.E.Float32()
	case 3:
		return b.E.HalfScale()
	case 4:
		return formats.Half(uint16(b.Hs[j>>3]) ^ 0x8000).Float32()
	case 5:
		return formats.HalfFromFloat32(b.BF.Float32()).Float32()
	case 6:
		if b.E == 255 || uint8(b.E) < 3 {
			return float32(b.E)
		}
		return formats.E8M0(uint8(b.E) - 1).HalfScale()
	}
	return float32(formats.HalfFromFloat32(b.H.Float32() * 3))
}
