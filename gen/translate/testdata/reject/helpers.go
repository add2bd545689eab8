package reject

import (
	"math"

	"github.com/rocmforge/forge/specs/formats"
)

// Helpers outside the subset, and calls of what cannot be called.

func pair(x uint8) (uint8, uint8) { return x, x >> 1 }

func named(x uint8) (r uint8) { // ERROR "named results are not in the device subset"
	r = x
	return
}

func effect(x uint8) {} // ERROR "effect must return one value"

func generic[T int32 | uint32](x T) T { return x }

func countdown(x int32) int32 {
	if x <= 0 {
		return 0
	}
	return countdown(x - 1) // ERROR "recursive call of countdown is not in the device subset"
}

func sum(xs ...uint8) uint8 { return 0 } // ERROR "variadic functions are not in the device subset"

func wide(x int64) int32 { return int32(x) } // ERROR "parameter of wide: int64 is not in the device subset"

func half_to_f32(x uint8) float32 { return float32(x) } // ERROR "function half_to_f32 would be emitted as forge_half_to_f32, which the portability header already defines"

type BlockHelpers struct{ Qs [4]uint8 }

func (b *BlockHelpers) Dequant(j int32) float32 {
	p, q := pair(b.Qs[0]) // ERROR "multi-value assignment from a call is not in the device subset"
	r := named(b.Qs[1])
	effect(r)
	g := generic(j) // ERROR "generic functions are not in the device subset"
	c := countdown(j)
	s := sum(p, q)
	w := wide(int64(j))                           // ERROR "^int64 is not in the device subset"
	x := math.Float32frombits(uint32(j))          // ERROR "call of math.Float32frombits: only this package's functions and the scalar conversions of package formats are in the device subset"
	y := formats.BFloat16FromFloat32(x).Float32() // ERROR "call of formats.BFloat16FromFloat32"
	m := min(j, 3)                                // ERROR "builtin min is not in the device subset"
	return float32(r+s) + float32(g+c+w+m) + y + half_to_f32(b.Qs[2])
}
