package reject

import "github.com/rocmforge/forge/specs/formats"

// Misuses of the integer form's intrinsics (Word32, Word16, Lut16) and methods.
// (Word32 of a field that is not a uint8 or int8 array does not type-check:
// its type parameter says so.)

var words = [8]uint8{1, 2, 3, 4, 5, 6, 7, 8}

type BlockWordsBad struct {
	Qs [8]uint8
	Hs [4]formats.Half
	Ws [2]uint16
	F  uint32
}

func (b *BlockWordsBad) Dequant(j int32) float32 {
	x := formats.Word32(b.Qs[:], j&3)
	x += formats.Word32(b.Qs[1:], 0)                // ERROR "Word32's first argument must be a byte-array field of the receiver sliced whole: Word32\(b.Field\[:\], i\)"
	x += formats.Word32(words[:], 0)                // ERROR "Word32 reads only the receiver's byte-array fields"
	x += formats.Word32(b.Qs[:], 6)                 // ERROR "Word32 reads bytes 6..\+3 of a 8-byte field: out of range"
	x += uint32(formats.Dot4(x, x, int32(b.F)) & 1) // accepted
	return float32(x)
}

// BlockPartial defines Codes without Scale.
type BlockPartial struct {
	Qs [8]uint8
}

func (b *BlockPartial) Dequant(j int32) float32 { return float32(b.Qs[j&7]) }

func (b *BlockPartial) Codes(w int32) uint32 { return formats.Word32(b.Qs[:], 4*(w&1)) } // ERROR "block type BlockPartial defines part of the integer form but no Scale method"

// BlockBadSig has an integer form with wrong signatures.
type BlockBadSig struct {
	Qs [8]uint8
}

func (b *BlockBadSig) Dequant(j int32) float32 { return float32(b.Qs[j&7]) }

func (b *BlockBadSig) Codes(w int32) int32 { return int32(b.Qs[w&7]) } // ERROR "Codes must have the signature func \(b \*BlockBadSig\) Codes\(w int32\) uint32"

func (b *BlockBadSig) Scale(s uint32) float32 { return 1 } // ERROR "Scale must have the signature func \(b \*BlockBadSig\) Scale\(s int32\) float32"

// Lut16's table must be &t for a package-level [16]int8 with constant
// contents.
var (
	lutGood     = [16]int8{1, 2, 3}
	lutComputed = lutMake()
	lutVarElem  = [16]int8{0, int8(len(words)), lutN} // ERROR "table lutVarElem: element is not a constant; tables must be constant composite literals"
	lutPtr      = &lutGood
	lutN        = int8(4)
)

func lutMake() [16]int8 { return [16]int8{} }

type BlockLutBad struct {
	Qs  [4]uint8
	Tab [16]int8
}

func (b *BlockLutBad) Dequant(j int32) float32 {
	q := formats.Word32(b.Qs[:], 0) >> uint32(j&4)
	c := formats.Lut16(&lutGood, q)        // accepted
	c ^= formats.Lut16(&lutComputed, q)    // ERROR "Lut16's table lutComputed must be initialised by a constant composite literal \(var lutComputed = \[16\]int8\{...\}\)"
	c ^= formats.Lut16(&b.Tab, q)          // ERROR "Lut16's first argument must be the address of a package-level table, Lut16\(&table, q\) with var table = \[16\]int8\{...\}"
	c ^= formats.Lut16(lutPtr, q)          // ERROR "Lut16's first argument must be the address of a package-level table"
	c ^= formats.Lut16(&lutVarElem, c>>31) // the table's error is at its element
	return float32(c)
}

// BlockSuperBad has a super form with a wrong signature and an unpaired
// method.
type BlockSuperBad struct {
	Qs [8]uint8
	D  uint8
}

func (b *BlockSuperBad) Dequant(j int32) float32 { return float32(b.Qs[j&7]) }

func (b *BlockSuperBad) Codes(w int32) uint32 { return formats.Word32(b.Qs[:], 4*(w&1)) }

func (b *BlockSuperBad) Scale(s int32) float32 { return float32(b.D) }

func (b *BlockSuperBad) SuperScale(s int32) float32 { return float32(b.D) } // ERROR "SuperScale must have the signature func \(b \*BlockSuperBad\) SuperScale\(\) float32"

func (b *BlockSuperBad) SubScale(s int32) int32 { return 1 }

func (b *BlockSuperBad) SubOffset(s int32) int32 { return 0 } // ERROR "block type BlockSuperBad defines SubOffset but no SuperOffset"
