package backend

import (
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/specs/formats"
)

// Op is an operation a backend may run, as the key it is looked up by: its
// name, and as R the interface a backend implements to run it. Each kernel
// family runs through one Op, which its run-time descriptor names
// (runtime/suite/family); families whose launchers have one C shape share
// it. Of is the one place a backend's capabilities are asked for.
type Op[R any] struct{ Name string }

// Of returns b's implementation of o, and whether b has one.
func (o Op[R]) Of(b Backend) (R, bool) {
	r, ok := b.(R)
	return r, ok
}

// The operations, one per launcher shape.
var (
	BlocksOp    = Op[Blocks]{"blocks"}
	MatrixOp    = Op[Matrix]{"matrix"}
	AttentionOp = Op[Attention]{"attention"}
)

// Kernel is one kernel a backend is asked to run: a kernel of a family,
// for one format when the family is format-specific.
type Kernel struct {
	Family    string          // "matvec"
	Name      string          // "matvec_f32"
	Signature string          // its launcher's C signature, as specs/families names it: "blocks", "matvec", "matmul"
	Output    string          // the element type it writes: OutputF32 or OutputF16
	Format    *formats.Format // nil for a family that is not format-specific
}

// Symbol is the kernel's launcher in a kernel library (abi.Symbol).
func (k Kernel) Symbol() string {
	if k.Format == nil {
		return abi.Symbol(k.Name, "")
	}
	return abi.Symbol(k.Name, k.Format.Name)
}

// String names the kernel in messages: "Q4_0 matvec_f32".
func (k Kernel) String() string {
	if k.Format == nil {
		return k.Name
	}
	return k.Format.Name + " " + k.Name
}

// Outputs of the kernels, as specs/families.Kernel.Output spells them.
const (
	OutputF32 = "f32"
	OutputF16 = "f16"
)

// OutputSize is the byte size of one output element, or 0 for an unknown
// output.
func OutputSize(output string) int {
	switch output {
	case OutputF32:
		return 4
	case OutputF16:
		return 2
	}
	return 0
}

// BlockRef is a blocks family's reference: the float32 value of every
// element its kernel writes for the whole blocks in src, in order (dst
// holds exactly their elements). An f16 kernel's elements are these
// rounded to binary16, to nearest even, as its device kernels round. A
// host backend runs the reference itself; a device backend runs the
// kernel's launcher.
type BlockRef func(f *formats.Format, dst []float32, src []byte) error

// Blocks runs the kernels whose launchers turn whole blocks of a format
// into its elements, one output element per element (the "blocks"
// signature, int f(const void* src, T* dst, int64_t n_blocks, stream):
// the dequant family and any family of its shape). ref is the kernel's
// family's reference (BlockRef).
type Blocks interface {
	// RunBlocks runs k, an OutputF32 kernel, over the whole blocks in src
	// into dst.
	RunBlocks(k Kernel, ref BlockRef, dst []float32, src []byte) error
	// RunBlocksF16 runs k, an OutputF16 kernel: dst receives binary16 bits.
	RunBlocksF16(k Kernel, ref BlockRef, dst []uint16, src []byte) error
	// PrepareBlocks holds src (one or more whole blocks) and k's output
	// for repeated runs.
	PrepareBlocks(k Kernel, ref BlockRef, src []byte) (Resident, error)
}

// Matrix runs the fused dequant-and-product kernels, Y = W·X (MatrixShape
// has the layout): the "matvec" signature's kernels take one vector
// (Batch 1), the "matmul" signature's any batch. Accumulation is float32
// on a device, float64 rounded once on the cpu.
type Matrix interface {
	// RunMatrix computes y from w and x.
	RunMatrix(k Kernel, y []float32, w []byte, x []float32, s MatrixShape) error
	// PrepareMatrix holds w, x and y for repeated runs, W as mode says
	// (WeightPlan); the Weights returned say how W was held.
	PrepareMatrix(k Kernel, w []byte, x []float32, s MatrixShape, mode WeightMode) (Resident, Weights, error)
}

// Attention runs flash attention forward (the attention family, not
// format-specific), in the layout AttentionShape describes. Inputs and
// output are float32 slices whatever dtype says; for dtype "f16" the
// inputs must already be f16 values and the kernel rounds o to f16, which
// o then holds widened to float32. s.HeadDim must be one the backend has a
// kernel for.
type Attention interface {
	Attention(dtype string, s AttentionShape, q, k, v, o []float32) error
	// PrepareAttention holds q, k and v (as dtype) and o for repeated runs.
	PrepareAttention(dtype string, s AttentionShape, q, k, v []float32) (Resident, error)
}
