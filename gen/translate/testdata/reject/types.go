package reject

type myInt int32

// BlockTypes declares locals of every type outside the subset.
type BlockTypes struct {
	D  float32
	Qs [8]uint8
}

func (b *BlockTypes) Dequant(j int32) float32 {
	n := len(b.Qs)         // ERROR "^variable n: int is not in the device subset; use int32$"
	var u uint = 1         // ERROR "variable u: uint is not in the device subset; use uint32"
	var w int64            // ERROR "variable w: int64 is not in the device subset; device integers are at most 32 bits"
	var x uint64           // ERROR "variable x: uint64 is not in the device subset"
	var d float64 = 1      // ERROR "variable d: float64 is not in the device subset; use float32"
	var s string           // ERROR "strings are not in the device subset"
	var sl []uint8         // ERROR "slices are not in the device subset"
	var m map[int32]int32  // ERROR "maps are not in the device subset"
	var p *uint8           // ERROR "pointers are not in the device subset"
	var arr [4]uint8       // ERROR "local arrays are not in the device subset"
	var c complex64        // ERROR "complex64 is not in the device subset"
	var i interface{}      // ERROR "interfaces are not in the device subset"
	var ch chan int32      // ERROR "channels are not in the device subset"
	var fn func()          // ERROR "function values are not in the device subset"
	var st struct{ A int } // ERROR "struct values are not in the device subset"
	var up uintptr         // ERROR "uintptr is not in the device subset"
	var mi myInt           // ERROR "named type myInt is not in the device subset; use int32"
	_, _, _, _, _, _, _, _, _ = n, u, w, x, d, s, sl, m, p
	_, _, _, _, _, _, _, _ = arr, c, i, ch, fn, st, up, mi
	return b.D * float32(n) // uses of a rejected variable are not reported again
}
