package suite

import (
	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/specs/formats"
)

// signatures are the launcher signatures of the format-specific families
// (specs/families).
var signatures = map[string]string{"dequant": "blocks", "matvec": "matvec", "matmul": "matmul"}

// KernelOf is suite s's kernel as a backend runs it.
func KernelOf(s Suite) backend.Kernel {
	return backend.Kernel{Family: s.Family, Name: s.Kernel, Signature: signatures[s.Family], Output: s.Output, Format: s.Format}
}

// DequantKernel is format f's dequant kernel to output.
func DequantKernel(f *formats.Format, output string) backend.Kernel {
	return backend.Kernel{Family: "dequant", Name: "dequant_" + output, Signature: "blocks", Output: output, Format: f}
}

// MatVecKernel is format f's matvec kernel.
func MatVecKernel(f *formats.Format) backend.Kernel {
	return backend.Kernel{Family: "matvec", Name: "matvec_f32", Signature: "matvec", Output: backend.OutputF32, Format: f}
}

// MatMulKernel is format f's matmul kernel.
func MatMulKernel(f *formats.Format) backend.Kernel {
	return backend.Kernel{Family: "matmul", Name: "matmul_f32", Signature: "matmul", Output: backend.OutputF32, Format: f}
}

// DequantRef is the dequant family's reference: the spec's own row decoder.
func DequantRef(f *formats.Format, dst []float32, src []byte) error { return f.Dequantize(dst, src) }
