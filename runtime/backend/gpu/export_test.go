package gpu

import (
	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/suite"
)

// MatVecBuffers are a resident matvec's device buffers, for tests: x, y
// and the copies of W in the order launches read them.
func MatVecBuffers(r suite.Resident) (x, y abi.DevicePtr, w []abi.DevicePtr) {
	res := r.(*resident)
	return res.bufs[0], res.bufs[1], res.bufs[2:]
}
