package modelsuite

import (
	"fmt"
	"time"

	"github.com/rocmforge/forge/runtime/backend/cpu"
	"github.com/rocmforge/forge/runtime/device/gpu"
	"github.com/rocmforge/forge/specs/formats"
)

// cpuEngine runs the forward in Go.
type cpuEngine struct {
	w  *Weights
	be *cpu.Backend
	// held is the host bytes of the weights and of the live session.
	weights, held, top uint64
}

func newCPUEngine(w *Weights) *cpuEngine {
	n := uint64(w.Shape.WeightBytes(w.Format))
	return &cpuEngine{w: w, be: cpu.New(0), weights: n, held: n, top: n}
}

func (e *cpuEngine) session(seq, capacity int, kvSeed uint64, path Path) (session, error) {
	o := newCPUOps(e.w, e.be, seq, capacity)
	if capacity > seq {
		o.fillKV(capacity-seq, kvSeed)
	}
	var n uint64
	for _, b := range o.bufs {
		n += 4 * uint64(len(b))
	}
	for l := range o.k {
		n += 2 * uint64(len(o.k[l])+len(o.v[l])) // f16 values: as a device cache holds them
	}
	e.held = e.weights + n
	e.top = max(e.top, e.held)
	return &cpuSession{e: e, o: o, pos: capacity - seq, path: path}, nil
}

func (e *cpuEngine) x8() error {
	if !e.w.Format.HasIntForm() {
		return fmt.Errorf("%s has no integer form", e.w.Format.Name)
	}
	return nil
}

func (e *cpuEngine) replay() error       { return errNoReplay }
func (e *cpuEngine) inUse() uint64       { return e.held }
func (e *cpuEngine) peak() uint64        { return e.top }
func (e *cpuEngine) peakTFLOPS() float64 { return 0 }
func (e *cpuEngine) close() error        { return nil }

type cpuSession struct {
	e    *cpuEngine
	o    *cpuOps
	pos  int
	path Path
}

func (s *cpuSession) timed(x, logits []float32, n int) (time.Duration, error) {
	t0 := time.Now()
	for range n {
		if err := forward(s.o, s.e.w.Shape, x, s.o.seq, s.pos, logits, s.path, nil); err != nil {
			return 0, err
		}
	}
	return time.Since(t0), nil
}

func (s *cpuSession) launches() (int, error) { return Launches(s.e.w.Shape, s.path), nil }

func (s *cpuSession) replayed([]float32, []float32, int) (time.Duration, error) {
	return 0, errNoReplay
}

func (s *cpuSession) breakdown(x, logits []float32) ([NumComponents]time.Duration, error) {
	s.o.times = [NumComponents]time.Duration{}
	err := forward(s.o, s.e.w.Shape, x, s.o.seq, s.pos, logits, s.path, nil)
	s.o.finish()
	return s.o.times, err
}

func (s *cpuSession) close() error {
	s.e.held = s.e.weights
	return nil
}

// gpuEngine runs the forward on a device.
type gpuEngine struct {
	g *gpuModel
}

func newGPUEngine(d *gpu.Device, w *Weights) (*gpuEngine, error) {
	g, err := newGPUModel(d, w)
	if err != nil {
		return nil, err
	}
	return &gpuEngine{g: g}, nil
}

func (e *gpuEngine) session(seq, capacity int, kvSeed uint64, path Path) (session, error) {
	o, err := newGPUOps(e.g, seq, capacity)
	if err != nil {
		return nil, err
	}
	if capacity > seq {
		if err := o.fillKV(capacity-seq, kvSeed); err != nil {
			o.close()
			return nil, err
		}
	}
	t, err := e.g.d.NewTimer(0)
	if err != nil {
		o.close()
		return nil, err
	}
	return &gpuSession{o: o, t: t, pos: capacity - seq, path: path}, nil
}

func (e *gpuEngine) x8() error           { return e.g.x8 }
func (e *gpuEngine) replay() error       { return nil }
func (e *gpuEngine) inUse() uint64       { return e.g.mem.Stats().InUse }
func (e *gpuEngine) peak() uint64        { return e.g.mem.Stats().PeakInUse }
func (e *gpuEngine) peakTFLOPS() float64 { return PeakTFLOPS(e.g.d.Info()) }
func (e *gpuEngine) close() error        { return e.g.close() }

type gpuSession struct {
	o     *gpuOps
	t     *gpu.Timer
	pos   int
	path  Path
	graph *gpu.Graph // the recorded forward, at the first replayed
}

func (s *gpuSession) timed(x, logits []float32, n int) (time.Duration, error) {
	return s.timeOf(func() error {
		s.o.inLaunch = true
		defer func() { s.o.inLaunch = false }()
		for range n {
			if err := forward(s.o, s.o.g.s, x, s.o.seq, s.pos, logits, s.path, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// timeOf is the device time of the work run enqueues, inside one Launch,
// between the session timer's events; it returns once the work is done.
func (s *gpuSession) timeOf(run func() error) (time.Duration, error) {
	s.o.timed = false
	var dt time.Duration
	err := s.o.g.d.Launch(func() error {
		if err := s.t.Start(); err != nil {
			return err
		}
		if err := run(); err != nil {
			return err
		}
		var err error
		dt, err = s.t.Stop()
		return err
	})
	if err != nil {
		return 0, err
	}
	return dt, s.o.g.d.Synchronize()
}

// recorded is the session's forward recorded into a graph, at the first call.
func (s *gpuSession) recorded() (*gpu.Graph, error) {
	if s.graph == nil {
		g, err := s.o.record(s.pos, s.path)
		if err != nil {
			return nil, fmt.Errorf("recording the forward: %w", err)
		}
		s.graph = g
	}
	return s.graph, nil
}

// launches counts the recorded graph's kernels: what the launchers really
// launch (the split-KV attention's two kernels, say), where Launches counts
// launcher calls.
func (s *gpuSession) launches() (int, error) {
	g, err := s.recorded()
	if err != nil {
		return 0, err
	}
	return g.Kernels(), nil
}

func (s *gpuSession) replayed(x, logits []float32, n int) (time.Duration, error) {
	g, err := s.recorded()
	if err != nil {
		return 0, err
	}
	return s.timeOf(func() error { return s.o.replay(g, x, logits, n) })
}

func (s *gpuSession) breakdown(x, logits []float32) ([NumComponents]time.Duration, error) {
	s.o.timed = true
	defer func() { s.o.timed = false }()
	if err := forward(s.o, s.o.g.s, x, s.o.seq, s.pos, logits, s.path, nil); err != nil {
		return [NumComponents]time.Duration{}, err
	}
	return s.o.breakdown()
}

func (s *gpuSession) close() error {
	var err error
	if s.graph != nil {
		err = s.graph.Close()
		s.graph = nil
	}
	if terr := s.t.Close(); err == nil {
		err = terr
	}
	if cerr := s.o.close(); err == nil {
		err = cerr
	}
	return err
}

// Check runs shape s in format f on the device and on the cpu, a prefill
// of 20 tokens and a decode step at position 37 (over random context) on
// each decode path the device has for f (f32; x8 where f has an integer
// form and the library its launchers, against the cpu forward on the cpu
// backend's matvec_x8), and fails when the logits or the residual stream
// after layer 1 differ by more than CheckTolerance (CheckToleranceX8 on the
// x8 path, and for the prefill of a format with an integer form, whose
// matmul may quantize X to 8 bits; NMSE). Each decode step is also
// recorded into a graph and replayed (checkReplay). It returns the paths
// it checked.
func Check(d *gpu.Device, s Shape, f *formats.Format) ([]Path, error) {
	w, err := NewWeights(s, f, false, 42)
	if err != nil {
		return nil, err
	}
	g, err := newGPUModel(d, w)
	if err != nil {
		return nil, err
	}
	defer g.close()
	type step struct {
		seq, pos int
		path     Path
	}
	steps := []step{{20, 0, PathF32}, {1, 37, PathF32}}
	paths := []Path{PathF32}
	if g.x8 == nil {
		steps = append(steps, step{1, 37, PathX8})
		paths = append(paths, PathX8)
	}
	for _, c := range steps {
		what := fmt.Sprintf("check %s (hidden %d, %d layers, %d/%d heads of %d), %d tokens at %d", f.Name, s.Hidden, s.Layers, s.Heads, s.KVHeads, s.HeadDim, c.seq, c.pos)
		if c.path == PathX8 {
			what += " on the x8 path"
		}
		x := Inputs(s, c.seq, uint64(7+c.pos))
		wantLogits, wantL1, err := CPUForward(w, x, c.seq, c.pos, 99, c.path)
		if err != nil {
			return nil, fmt.Errorf("%s: cpu: %w", what, err)
		}
		o, err := newGPUOps(g, c.seq, c.pos+c.seq)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if c.pos > 0 {
			if err := o.fillKV(c.pos, 99); err != nil {
				o.close()
				return nil, err
			}
		}
		logits := make([]float32, s.Vocab)
		l1 := make([]float32, c.seq*s.Hidden)
		err = forward(o, s, x, c.seq, c.pos, logits, c.path, func(l int) error {
			if l != 0 {
				return nil
			}
			if err := d.Synchronize(); err != nil {
				return err
			}
			return gpu.Download(d, l1, o.bufs[bH])
		})
		if err == nil {
			err = d.Synchronize()
		}
		if err == nil && c.seq == 1 {
			err = checkReplay(d, o, x, c.pos, c.path, wantLogits)
		}
		o.close()
		if err != nil {
			return nil, fmt.Errorf("%s: gpu: %w", what, err)
		}
		tol := c.path.tolerance()
		if c.seq > 1 && f.HasIntForm() {
			// The prefill's matmul may take the integer path, which
			// quantizes X to 8 bits (the K-quants' super form with one
			// scale a 256-element block) where the cpu forward multiplies
			// in f32: Q4_K's logits then differ by 1.4e-4 (H200,
			// 2026-11-29), as the x8 decode path's do.
			tol = CheckToleranceX8
		}
		if e := NMSE(l1, wantL1); !(e <= tol) {
			return nil, fmt.Errorf("%s: the residual stream after layer 1 differs from the cpu forward's: NMSE %.3g (bound %.0e)", what, e, tol)
		}
		if e := NMSE(logits, wantLogits); !(e <= tol) {
			return nil, fmt.Errorf("%s: the logits differ from the cpu forward's: NMSE %.3g (bound %.0e)", what, e, tol)
		}
	}
	return paths, nil
}

// checkReplay records o's decode forward at pos on path into a graph,
// clears the logits, replays the graph with its transfers and compares the
// logits with the cpu forward's: a graph that recorded nothing, or other
// arguments than the launched forward's, fails.
func checkReplay(d *gpu.Device, o *gpuOps, x []float32, pos int, path Path, want []float32) error {
	g, err := o.record(pos, path)
	if err != nil {
		return fmt.Errorf("recording the forward: %w", err)
	}
	defer g.Close()
	if err := d.Memset(o.bufs[bLogits], 0, 4*uint64(len(want))); err != nil {
		return err
	}
	logits := make([]float32, len(want))
	if err := d.Launch(func() error { return o.replay(g, x, logits, 1) }); err != nil {
		return fmt.Errorf("replaying the recorded forward: %w", err)
	}
	if err := d.Synchronize(); err != nil {
		return err
	}
	if e, tol := NMSE(logits, want), path.tolerance(); !(e <= tol) {
		return fmt.Errorf("the forward replayed as a graph: the logits differ from the cpu forward's: NMSE %.3g (bound %.0e)", e, tol)
	}
	return nil
}
