// Package backend is the contract between forge's suites and the backends
// that run its kernels: what a backend is (Backend, Device, Resident), the
// operations it may run, one per launcher shape of the kernel families
// (Blocks, Matrix, Attention, looked up through their Op keys), the shapes
// those operations take, how a benchmark holds a weight matrix, and the
// registry that backends join at init and that Select opens them from,
// finding kernel libraries on the way (FindLibraries).
//
// The cpu backend (runtime/backend/cpu) and the GPU backends
// (runtime/backend/gpu: "cuda" and "hip") register themselves when
// imported; a program links the backends it imports, nothing more. This
// package imports no backend and nothing of the suites.
package backend

import (
	"time"
)

// Backend is something that runs kernels: the cpu backend or a GPU
// backend. What it runs is the operations (Op) it implements.
type Backend interface {
	// Name is the backend's registered name: "cpu", "cuda", "hip".
	Name() string
}

// Device is a Backend whose kernels run on a device with memory of its
// own (the GPU backends). Benchmarks keep their data in device memory and
// time the kernels alone, with the device's own clock.
type Device interface {
	Backend
	// Describe names the device and its library, for logs and reports.
	Describe() string
	// L2Bytes is the size of the device's last-level cache.
	L2Bytes() int64
	// PrepareCopy allocates two buffers of bytes bytes for the library's
	// forge_copy kernel, the memory roofline.
	PrepareCopy(bytes int64) (Resident, error)
}

// DeviceOf returns b as a Device, and whether it is one.
func DeviceOf(b Backend) (Device, bool) {
	d, ok := b.(Device)
	return d, ok
}

// Resident is a kernel prepared to run again and again on data the
// backend holds: on a Device, inputs and outputs in device memory; on the
// cpu, host buffers.
type Resident interface {
	// Run runs the kernel n times back to back and returns their time in
	// all, once they have finished: device time (events before the first
	// launch and after the last) on a Device, wall-clock time on the cpu.
	Run(n int) (time.Duration, error)
	// Close frees the buffers.
	Close() error
}
