package accept

import "github.com/rocmforge/forge/specs/formats"

// Tables of every kind: signed and unsigned bytes, float32 (exact hex
// literals), uint32 extremes, keyed literals with zero-filled gaps, a nested
// [4][4] table, bool and Half elements, and a [...] length.
var (
	codebook = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}
	steps    = [8]float32{0, 0.1, -0.25, 1.0 / 3, 1e-38, 3.4028234e38, -1e-45, 65504}
	extremes = [3]uint32{0, 0x80000000, 0xffffffff}
	sparse   = [8]int16{2: -32768, 5: 32767, 7}
	grid     = [4][4]uint8{{1, 2, 3, 4}, {5, 6, 7, 8}, 2: {9}, {13, 14, 15, 16}}
	flags    = [...]bool{true, false, false, true}
	halves   = [4]formats.Half{0x3c00, 0xbc00, 0x7bff, 0x0001}
	ints     = [2]int32{-2147483648, 2147483647}
)

// BlockTables reads each table.
type BlockTables struct {
	Q [16]uint8
}

func (b *BlockTables) Dequant(j int32) float32 {
	q := b.Q[j&15]
	switch j >> 3 {
	case 0:
		return float32(codebook[q&15]) * steps[q>>5]
	case 1:
		if flags[q&3] {
			return float32(extremes[q%3]) + float32(sparse[q&7])
		}
		return float32(grid[q&3][q>>6]) + float32(ints[q&1])
	case 2:
		return halves[q&3].Float32()
	}
	return steps[j&7]
}
