package gpu

import (
	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/specs/formats"
)

// MatVecBuffers are a resident matvec's device buffers, for tests: x, y
// and the copies of W in the order launches read them (after the scratch
// buffer, a one-byte placeholder for a kernel that needs none).
func MatVecBuffers(r backend.Resident) (x, y abi.DevicePtr, w []abi.DevicePtr) {
	res := r.(*resident)
	return res.bufs[0], res.bufs[1], res.bufs[3:]
}

// MatVecScratch is a resident matvec's scratch buffer (matvec_x8's
// quantized x).
func MatVecScratch(r backend.Resident) abi.DevicePtr { return r.(*resident).bufs[2] }

// The tests' shorthands for the dequant and matvec kernels of a format,
// through the operations.

func dequantKernel(f *formats.Format, output string) backend.Kernel {
	return backend.Kernel{Family: "dequant", Name: "dequant_" + output, Signature: "blocks", Output: output, Format: f}
}

func matVecKernel(f *formats.Format) backend.Kernel {
	return backend.Kernel{Family: "matvec", Name: "matvec_f32", Signature: "matvec", Output: "f32", Format: f}
}

func (b *Backend) Dequantize(f *formats.Format, dst []float32, src []byte) error {
	return b.RunBlocks(dequantKernel(f, "f32"), nil, dst, src)
}

func (b *Backend) DequantizeF16(f *formats.Format, dst []uint16, src []byte) error {
	return b.RunBlocksF16(dequantKernel(f, "f16"), nil, dst, src)
}

func (b *Backend) PrepareDequant(f *formats.Format, output string, src []byte) (backend.Resident, error) {
	return b.PrepareBlocks(dequantKernel(f, output), nil, src)
}

func (b *Backend) MatVec(f *formats.Format, y []float32, w []byte, x []float32, rows, cols int) error {
	return b.RunMatrix(matVecKernel(f), y, w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1})
}

func (b *Backend) PrepareMatVec(f *formats.Format, w []byte, x []float32, rows, cols int, mode backend.WeightMode) (backend.Resident, backend.Weights, error) {
	return b.PrepareMatrix(matVecKernel(f), w, x, backend.MatrixShape{Rows: rows, Cols: cols, Batch: 1}, mode)
}
