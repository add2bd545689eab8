package accept

import "github.com/rocmforge/forge/specs/formats"

// BlockHalfArith: a Half widened only to feed float arithmetic (an
// operand of + - * /, parenthesised or not, or a single-assignment local
// used only so) becomes forge_half_to_f32_arith; returned, compared,
// negated or used otherwise it stays forge_half_to_f32.
type BlockHalfArith struct {
	D formats.Half
	M formats.Half
	Q [4]uint8
}

func (b *BlockHalfArith) Dequant(j int32) float32 {
	q := float32(b.Q[j&3])
	switch j >> 2 & 7 {
	case 0:
		return b.D.Float32()*q - (b.M.Float32()) // both arithmetic-only
	case 1:
		d := b.D.Float32() // arithmetic-only: every use is an operand
		return d*q + d/2
	case 2:
		return b.D.Float32() // exact: returned
	case 3:
		d := b.D.Float32() // exact: also compared
		if d > q {
			return d * q
		}
		return q
	case 4:
		return -b.M.Float32() * q // exact: negated first
	case 5:
		d := b.D.Float32() // exact: reassigned
		d = d * q
		return d + q
	}
	return float32(formats.HalfFromFloat32(b.M.Float32() + q)) // arithmetic-only
}
