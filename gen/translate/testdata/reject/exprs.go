package reject

import "math"

// Expressions outside the subset, and tables that are not constant
// composite literals.

var (
	scale    float32 = 2
	table            = [4]uint8{1, 2, 3, 4}
	computed         = makeTable()          // ERROR "table computed must be initialised by a constant composite literal \(var computed = \[4\]uint8\{...\}\)"
	mixed            = [2]float32{1, scale} // ERROR "table mixed: element is not a constant"
	wide64           = [2]int64{1, 2}
	bare     [4]int8 // ERROR "table bare must be initialised by a constant composite literal"
)

func makeTable() (t [4]uint8) { return }

type BlockExprs struct {
	Qs [8]uint8
	F  float32
}

func (b *BlockExprs) Dequant(j int32) float32 {
	x := b.F
	x += scale                             // ERROR "package-level variable scale is not in the device subset; only constants and array tables \(read by indexing\) are"
	t := table                             // ERROR "variable t: local arrays are not in the device subset"
	x += float32(computed[j&3]) + mixed[0] // errors at the tables' declarations
	x += float32(wide64[j&1])              // ERROR "^int64 is not in the device subset"
	x += float32(bare[j&3])
	x += float32(b.Qs[j&7] / b.Qs[0]) // ERROR "integer division by a non-constant is not in the device subset: Go panics on a zero divisor"
	x += float32(j % j)               // ERROR "integer division by a non-constant"
	x += float32(int32(x))            // ERROR "conversion from float32 to int32 is not in the device subset: Go leaves out-of-range float-to-integer conversions implementation-defined"
	x += float32(uint8(b.F))          // ERROR "conversion from float32 to uint8"
	p := &b.Qs[0]                     // ERROR "variable p: pointers are not in the device subset"
	s := b.Qs[:]                      // ERROR "variable s: slices are not in the device subset"
	b.Qs[0] = 1                       // ERROR "writes to the block are not in the device subset; Dequant only reads it"
	table[1] = 2                      // ERROR "writes to table table are not in the device subset; tables are read-only"
	scale = 3                         // ERROR "assignment to package-level variable scale is not in the device subset"
	b = nil                           // ERROR "assignment to the receiver b is not in the device subset"
	_ = b                             // ERROR "the receiver b can only be used to read its fields and call its methods"
	f := b.F                          // a float32 copy is fine
	g := math.Float32bits             // ERROR "variable g: function values are not in the device subset"
	h := func() float32 { return 1 }  // ERROR "variable h: function values are not in the device subset"
	π := float32(3)                   // ERROR "identifier π is not ASCII"
	x += float32(table[j&3]) * π * f
	_, _, _, _, _ = t, p, s, g, h
	return x
}
