package suite

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/rocmforge/forge/runtime/backend"
)

// Benchmark sizes when none is asked for: on the cpu backend 16 Mi
// elements, well past every cache; on a GPU 64 Mi elements (forge's
// acceptance size: >= 64 M), so that the output alone (128 or 256 MiB) is
// several times any GPU's L2.
const (
	DefaultBenchElems       = 16 << 20
	DefaultDeviceBenchElems = 64 << 20
)

// DefaultElems is the default benchmark size on backend b:
// DefaultDeviceBenchElems on a backend.Device, DefaultBenchElems otherwise.
func DefaultElems(b backend.Backend) int {
	if _, ok := backend.DeviceOf(b); ok {
		return DefaultDeviceBenchElems
	}
	return DefaultBenchElems
}

// HostCopyBytes is the size of the cpu copy roofline's buffers: far past
// any last-level cache, so that the copy streams from and to memory.
const HostCopyBytes = 256 << 20

// Roofline is a measured copy bandwidth: what kernels' GB/s are compared
// with (% of copy).
type Roofline struct {
	Bytes int64   // size of the source (and of the destination)
	GBps  float64 // (bytes read + bytes written) / s, in 1e9 bytes/s
	Runs  int     // copies in the best trial
	Best  time.Duration
}

// CopyBytes is the size of a device copy roofline's buffers: as many bytes
// as the f32 output of elems elements, and at least 4 times the L2, so
// that the copy streams from and to memory.
func CopyBytes(db backend.Device, elems int) int64 {
	return max(4*db.L2Bytes(), 4*int64(elems))
}

// copyTrials and copyTrialTime shape both rooflines: the best of 3 trials
// of back-to-back copies lasting about 50 ms each. The best, not the mean:
// the roofline is what the memory can do, and noise only slows a copy.
const (
	copyTrials    = 3
	copyTrialTime = 50 * time.Millisecond
	maxCopyRuns   = 1000
)

// MeasureCopy measures the bandwidth of the device library's forge_copy
// kernel over two buffers of bytes bytes, timed with device events: the
// best of 3 trials of back-to-back copies lasting about 50 ms each, after
// a warm-up.
func MeasureCopy(db backend.Device, bytes int64) (Roofline, error) {
	r, err := db.PrepareCopy(bytes)
	if err != nil {
		return Roofline{}, err
	}
	defer r.Close()
	if _, err := r.Run(2); err != nil {
		return Roofline{}, err
	}
	one, err := r.Run(1)
	if err != nil {
		return Roofline{}, err
	}
	roof, err := bestOf(bytes, runsFor(one), r.Run)
	if err != nil {
		return Roofline{}, fmt.Errorf("forge_copy of %d bytes: %w", bytes, err)
	}
	return roof, nil
}

// MeasureHostCopy measures the host memory's copy bandwidth with Go's
// copy over two buffers of bytes bytes, split into one chunk per
// GOMAXPROCS goroutine (the cpu backend decodes on every core, so its
// roofline is every core copying): the best of 3 trials of back-to-back
// copies lasting about 50 ms each, after a warm-up copy that also maps
// every page.
func MeasureHostCopy(bytes int64) (Roofline, error) {
	if bytes <= 0 {
		return Roofline{}, fmt.Errorf("host copy of %d bytes", bytes)
	}
	src, dst := make([]byte, bytes), make([]byte, bytes)
	for i := range src {
		src[i] = byte(i)
	}
	workers := min(runtime.GOMAXPROCS(0), int(max(1, bytes>>16)))
	chunk := (bytes + int64(workers) - 1) / int64(workers)
	run := func(n int) (time.Duration, error) {
		start := time.Now()
		for range n {
			var wg sync.WaitGroup
			for w := range workers {
				lo := min(bytes, int64(w)*chunk)
				hi := min(bytes, lo+chunk)
				wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
			}
			wg.Wait()
		}
		return time.Since(start), nil
	}
	run(1)
	one, _ := run(1)
	roof, err := bestOf(bytes, runsFor(one), run)
	if err != nil {
		return Roofline{}, fmt.Errorf("host copy of %d bytes: %w", bytes, err)
	}
	return roof, nil
}

// runsFor is how many copies of duration one last about copyTrialTime.
func runsFor(one time.Duration) int {
	if one <= 0 {
		return maxCopyRuns
	}
	return int(min(maxCopyRuns, max(1, copyTrialTime/one)))
}

// bestOf runs copyTrials trials of n copies and keeps the fastest.
func bestOf(bytes int64, n int, run func(int) (time.Duration, error)) (Roofline, error) {
	roof := Roofline{Bytes: bytes, Runs: n}
	for range copyTrials {
		dt, err := run(n)
		if err != nil {
			return Roofline{}, err
		}
		if dt <= 0 {
			continue
		}
		if gbps := 2 * float64(bytes) * float64(n) / dt.Seconds() / 1e9; gbps > roof.GBps {
			roof.GBps, roof.Best = gbps, dt
		}
	}
	if roof.GBps <= 0 {
		return Roofline{}, fmt.Errorf("the timer measured nothing")
	}
	return roof, nil
}
