package reject

import "github.com/rocmforge/forge/specs/formats"

// Block layouts: field types, embedding and padding.

type BlockFields struct {
	A            int64            // ERROR "field A: int64 is not in the device subset"
	B            []uint8          // ERROR "field B: slices are not in the device subset"
	C            struct{ X int8 } // ERROR "field C: struct values are not in the device subset"
	formats.Half                  // ERROR "embedded field Half is not in the device subset; name the field"
	D            [2][3]float64    // ERROR "field D: float64 is not in the device subset"
}

func (b *BlockFields) Dequant(j int32) float32 { return 0 }

type BlockPadded struct {
	A uint8
	B uint16 // ERROR "field B is at offset 2 in Go but would be at 1 packed: the block struct has padding"
}

func (b *BlockPadded) Dequant(j int32) float32 { return float32(b.B) }

type BlockTrailing struct { // ERROR "block type BlockTrailing is 8 bytes in Go but its fields take 5: the struct has trailing padding"
	A float32
	B uint8
}

func (b *BlockTrailing) Dequant(j int32) float32 { return b.A }

type BlockValueRecv struct{ A uint8 }

func (b BlockValueRecv) Dequant(j int32) float32 { return 0 } // ERROR "Dequant must have a pointer receiver"

type BlockSignature struct{ A uint8 }

func (b *BlockSignature) Dequant(j int) float32 { return 0 } // ERROR "Dequant must have the signature func \(b \*BlockSignature\) Dequant\(j int32\) float32"

type BlockNoDeq struct{ A uint8 }
