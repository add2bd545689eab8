package quantsuite

import (
	"fmt"
	"hash"
	"hash/crc32"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/rocmforge/forge/runtime/suite"
	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/workloads"
)

// Mode is how a case holds the model: Streaming generates, quantizes and
// sinks one layer at a time in reused buffers; Batch generates every
// layer's weights first, then quantizes every layer into its own output,
// then sinks them all; Idle does nothing (the baseline of a child).
type Mode string

const (
	Streaming Mode = "streaming"
	Batch     Mode = "batch"
	Idle      Mode = "idle"
)

// Sink consumes the quantized bytes: a running CRC-32C and a byte count,
// so the work is observable and cannot be skipped, and so two modes can be
// shown to produce the same bytes.
type Sink struct {
	h hash.Hash32
	n int64
}

// NewSink returns an empty sink.
func NewSink() *Sink { return &Sink{h: crc32.New(crc32.MakeTable(crc32.Castagnoli))} }

// Write adds p to the sink.
func (s *Sink) Write(p []byte) {
	s.h.Write(p)
	s.n += int64(len(p))
}

// Sum is the CRC-32C of every byte written.
func (s *Sink) Sum() uint32 { return s.h.Sum32() }

// Len is the number of bytes written.
func (s *Sink) Len() int64 { return s.n }

// layerSeed is the seed of a layer shape's weights: the same for every
// model of that shape, so a sweep's first n layers are the model's.
func layerSeed(rows, cols int) uint64 { return suite.Seed(fmt.Sprintf("quantsuite/%dx%d", rows, cols)) }

// rowSeed derives the seed of one row of one layer (splitmix64 of a mix
// of the three), so rows can be generated in any order, on any worker.
func rowSeed(seed uint64, layer, row int) uint64 {
	return suite.NewRand(seed ^ uint64(layer)<<40 ^ uint64(row)*0x9e3779b97f4a7c15).Uint64()
}

// genRow fills one row with weights shaped like a trained matrix's: a
// per-row scale around 0.02, values with a triangular distribution in
// (-scale, scale), and about one in 1024 an outlier ten times larger.
func genRow(dst []float32, seed uint64) {
	r := suite.NewRand(seed)
	scale := 0.01 + 0.02*float32(r.Uint64()>>40)/(1<<24)
	for i := range dst {
		u := r.Uint64()
		a := float32(int32(u>>32)) / (1 << 31)
		b := float32(int32(u)>>8) / (1 << 23)
		v := scale * (a + b) / 2
		if u&0x3ff == 0 {
			v *= 10
		}
		dst[i] = v
	}
}

// parallelRows splits [0, rows) into at most workers contiguous ranges
// and runs fn on each in its own goroutine, returning when all are done.
func parallelRows(rows, workers int, fn func(lo, hi int)) {
	workers = max(1, min(workers, rows))
	if workers == 1 {
		fn(0, rows)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := rows*w/workers, rows*(w+1)/workers
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}

// GenerateLayer fills dst (rows × cols) with layer's weights of the
// rows × cols shape, rows spread over workers goroutines; the result does
// not depend on workers.
func GenerateLayer(dst []float32, rows, cols, layer, workers int) {
	seed := layerSeed(rows, cols)
	parallelRows(rows, workers, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			genRow(dst[r*cols:(r+1)*cols], rowSeed(seed, layer, r))
		}
	})
}

// QuantizeLayer quantizes src (rows of cols floats) into dst with f's
// reference quantizer, rows spread over workers goroutines; the bytes do
// not depend on workers (each row is a whole number of blocks, quantized
// on its own).
func QuantizeLayer(f *formats.Format, dst []byte, src []float32, cols, workers int) error {
	if cols <= 0 || cols%f.BlockElems != 0 || len(src)%cols != 0 {
		return fmt.Errorf("%s: rows of %d elements are not a whole number of %d-element blocks", f.Name, cols, f.BlockElems)
	}
	if err := f.CheckSizes(len(src), len(dst)); err != nil {
		return err
	}
	rowBytes := cols / f.BlockElems * f.BlockBytes
	parallelRows(len(src)/cols, workers, func(lo, hi int) {
		_ = f.Quantize(dst[lo*rowBytes:hi*rowBytes], src[lo*cols:hi*cols])
	})
	return nil
}

// Work is what one case did: the sink's hash and count, sizes, times and
// the Go heap's peak at the points where the most is held.
type Work struct {
	Hash            uint32  `json:"hash"`
	SunkBytes       int64   `json:"sunk_bytes"`
	Elements        int64   `json:"elements"`
	WeightsF32      int64   `json:"weights_f32"` // bytes of f32 weights the model has
	Quantized       int64   `json:"quantized"`   // bytes of quantized weights
	Seconds         float64 `json:"seconds"`     // the whole case: generate, quantize, sink
	QuantizeSeconds float64 `json:"quantize_seconds"`
	GoHeapPeak      int64   `json:"go_heap_peak"` // runtime/metrics heap objects, at the fullest points
}

// Do runs one case in this process: m's layers generated, quantized to f
// and sunk, as mode says, with workers goroutines (≤ 0: GOMAXPROCS).
func Do(m workloads.Model, f *formats.Format, mode Mode, workers int) (Work, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	layerElems := m.Rows * m.Cols
	if f == nil || m.Layers <= 0 || m.Rows <= 0 || m.Cols <= 0 || m.Cols%f.BlockElems != 0 {
		return Work{}, fmt.Errorf("model %s (%d layers of %d×%d) cannot be quantized to %v: rows must be whole blocks", m.Name, m.Layers, m.Rows, m.Cols, f)
	}
	layerBytes := layerElems / f.BlockElems * f.BlockBytes
	w := Work{
		Elements:   int64(m.Layers) * int64(layerElems),
		WeightsF32: int64(m.Layers) * int64(layerElems) * 4,
		Quantized:  int64(m.Layers) * int64(layerBytes),
	}
	sink := NewSink()
	var quant time.Duration
	start := time.Now()
	switch mode {
	case Streaming:
		x := make([]float32, layerElems)
		q := make([]byte, layerBytes)
		for l := range m.Layers {
			GenerateLayer(x, m.Rows, m.Cols, l, workers)
			t := time.Now()
			if err := QuantizeLayer(f, q, x, m.Cols, workers); err != nil {
				return Work{}, err
			}
			quant += time.Since(t)
			w.GoHeapPeak = max(w.GoHeapPeak, goHeap())
			sink.Write(q)
		}
	case Batch:
		xs := make([][]float32, m.Layers)
		for l := range xs {
			xs[l] = make([]float32, layerElems)
			GenerateLayer(xs[l], m.Rows, m.Cols, l, workers)
		}
		qs := make([][]byte, m.Layers)
		for l := range qs {
			qs[l] = make([]byte, layerBytes)
			t := time.Now()
			if err := QuantizeLayer(f, qs[l], xs[l], m.Cols, workers); err != nil {
				return Work{}, err
			}
			quant += time.Since(t)
		}
		w.GoHeapPeak = goHeap()
		for _, q := range qs {
			sink.Write(q)
		}
		runtime.KeepAlive(xs)
	default:
		return Work{}, fmt.Errorf("unknown mode %q (want %s or %s)", mode, Streaming, Batch)
	}
	w.Seconds = time.Since(start).Seconds()
	w.QuantizeSeconds = quant.Seconds()
	w.Hash, w.SunkBytes = sink.Sum(), sink.Len()
	if w.SunkBytes != w.Quantized {
		return w, fmt.Errorf("the sink took %d bytes, want %d", w.SunkBytes, w.Quantized)
	}
	return w, nil
}

// goHeap is Go's own count of the heap's object bytes (live, and dead
// but not yet swept).
func goHeap() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
