package backend

import (
	"fmt"
	"os"

	"github.com/rocmforge/forge/runtime/device/devmem"
)

// WeightMode says how a benchmark holds a kernel's weights (matvec's W, and
// any later family with a weight matrix) in device memory.
type WeightMode string

const (
	// WeightsRotate holds several byte-identical copies of the weights,
	// together at least twice the device's L2 (WeightPlan), and each
	// launch reads the next copy in turn: the weights come from memory,
	// as in a model's decode step, not from the L2 the previous launch
	// filled. The default for benchmarks on a device backend.
	WeightsRotate WeightMode = "rotate"
	// WeightsReuse holds one copy that every launch reads, as llama.cpp's
	// test-backend-ops perf mode does: a matrix smaller than the L2 is
	// then served largely from it.
	WeightsReuse WeightMode = "reuse"
)

// EnvBenchWeights sets the weight mode of the Go benchmarks: "rotate" or
// "reuse" (default: rotate on a device backend).
const EnvBenchWeights = "FORGE_BENCH_WEIGHTS"

// MaxRotationBytes bounds the copies' total when more than two would be
// needed to reach twice the L2: two copies are always made (when they fit
// in device memory), however large.
const MaxRotationBytes int64 = 1 << 30

// ParseWeightMode parses "rotate" or "reuse"; "" is the zero mode, which
// ResolveWeightMode turns into the backend's default.
func ParseWeightMode(s string) (WeightMode, error) {
	switch m := WeightMode(s); m {
	case "", WeightsRotate, WeightsReuse:
		return m, nil
	}
	return "", fmt.Errorf("weight mode %q: want %s or %s", s, WeightsRotate, WeightsReuse)
}

// WeightModeFromEnv is the mode $FORGE_BENCH_WEIGHTS names ("" when unset).
func WeightModeFromEnv() (WeightMode, error) {
	m, err := ParseWeightMode(os.Getenv(EnvBenchWeights))
	if err != nil {
		return "", fmt.Errorf("$%s: %w", EnvBenchWeights, err)
	}
	return m, nil
}

// ResolveWeightMode is the mode a benchmark on b uses when asked for m:
// on a device backend m, or WeightsRotate when m is ""; on any other
// backend (the cpu) WeightsReuse, since its weights are one host buffer.
func ResolveWeightMode(b Backend, m WeightMode) WeightMode {
	if _, ok := DeviceOf(b); !ok {
		return WeightsReuse
	}
	if m == "" {
		return WeightsRotate
	}
	return m
}

// Weights describes how a benchmark held its weights: what a report
// states next to the figures.
type Weights struct {
	Mode       WeightMode `json:"mode"`
	Copies     int        `json:"copies"`             // byte-identical copies of the weights; each launch reads one
	CopyBytes  int64      `json:"copy_bytes"`         // bytes of one copy: what one launch reads of the weights
	TotalBytes int64      `json:"total_bytes"`        // Copies × CopyBytes
	L2Bytes    int64      `json:"l2_bytes,omitempty"` // the device's L2, which rotation defeats
}

// WeightPlan is how many copies of copyBytes of weights a benchmark in mode
// holds on a device with l2Bytes of L2, when fitBytes of device memory can
// hold them (fitBytes <= 0: unknown, no limit but MaxRotationBytes).
//
// WeightsReuse: one copy. WeightsRotate: the fewest copies, at least 2,
// whose total is at least 2 × l2Bytes; fewer when that total would pass
// MaxRotationBytes, but never fewer than 2; and fewer than that only when
// 2 do not fit in fitBytes (then as many as fit, at least 1).
func WeightPlan(mode WeightMode, copyBytes, l2Bytes, fitBytes int64) Weights {
	w := Weights{Mode: mode, Copies: 1, CopyBytes: copyBytes, L2Bytes: max(0, l2Bytes)}
	if mode == WeightsRotate && copyBytes > 0 {
		k := max(2, (2*w.L2Bytes+copyBytes-1)/copyBytes)
		if k*copyBytes > MaxRotationBytes {
			k = max(2, MaxRotationBytes/copyBytes)
		}
		if fitBytes > 0 && k*copyBytes > fitBytes {
			k = max(1, fitBytes/copyBytes)
		}
		w.Copies = int(k)
	}
	w.TotalBytes = int64(w.Copies) * copyBytes
	return w
}

// DefeatsL2 reports whether the copies together are at least twice the L2
// (false for one copy, whatever its size, and when the L2 is unknown).
func (w Weights) DefeatsL2() bool {
	return w.Copies >= 2 && w.L2Bytes > 0 && w.TotalBytes >= 2*w.L2Bytes
}

// String says it in words: "rotate: 6 copies of W (9.0 MiB each, 54.0 MiB
// in all, 2.2× the 24.0 MiB L2)" or "reuse: one copy of W (9.0 MiB)".
func (w Weights) String() string {
	b := func(n int64) string { return devmem.FormatBytes(uint64(max(0, n))) }
	if w.Mode != WeightsRotate {
		return fmt.Sprintf("%s: one copy of W (%s)", w.Mode, b(w.CopyBytes))
	}
	s := fmt.Sprintf("%s: %d copies of W (%s each, %s in all", w.Mode, w.Copies, b(w.CopyBytes), b(w.TotalBytes))
	if w.Copies == 1 {
		s = fmt.Sprintf("%s: 1 copy of W, no room for 2 (%s", w.Mode, b(w.CopyBytes))
	}
	if w.L2Bytes > 0 {
		s += fmt.Sprintf(", %.1f× the %s L2", float64(w.TotalBytes)/float64(w.L2Bytes), b(w.L2Bytes))
	}
	return s + ")"
}
