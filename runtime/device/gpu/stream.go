package gpu

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rocmforge/forge/runtime/device/abi"
	"github.com/rocmforge/forge/runtime/device/timing"
)

// Stream is a device stream (hipStream_t, cudaStream_t).
type Stream struct {
	d *Device
	h abi.Stream
}

// NewStream creates a stream.
func (d *Device) NewStream() (*Stream, error) {
	h, err := d.createHandle(streamHandle)
	if err != nil {
		return nil, err
	}
	return &Stream{d: d, h: abi.Stream(h)}, nil
}

// Handle is the stream as the launchers take it.
func (s *Stream) Handle() abi.Stream { return s.h }

// Close destroys the stream.
func (s *Stream) Close() error {
	if s.h == 0 {
		return nil
	}
	err := s.d.destroyHandle(streamHandle, uintptr(s.h))
	s.h = 0
	return err
}

// Event is a device event, for timing.
type Event struct {
	d *Device
	h uintptr
}

// NewEvent creates an event.
func (d *Device) NewEvent() (*Event, error) {
	h, err := d.createHandle(eventHandle)
	if err != nil {
		return nil, err
	}
	return &Event{d: d, h: h}, nil
}

// Record enqueues the event on stream (0: the default stream).
func (e *Event) Record(stream abi.Stream) error { return e.d.recordEvent(e.h, stream) }

// Elapsed is the device time from start's completion to end's, waiting for
// end. The runtimes resolve it to about half a microsecond.
func Elapsed(start, end *Event) (time.Duration, error) {
	if start.d != end.d {
		return 0, fmt.Errorf("gpu: events of two devices")
	}
	ms, err := start.d.elapsedMs(start.h, end.h)
	if err != nil {
		return 0, err
	}
	if ms < 0 || math.IsNaN(float64(ms)) || math.IsInf(float64(ms), 0) {
		return 0, fmt.Errorf("gpu: forge_rt_event_elapsed_ms returned %v ms", ms)
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Close destroys the event.
func (e *Event) Close() error {
	if e.h == 0 {
		return nil
	}
	err := e.d.destroyHandle(eventHandle, e.h)
	e.h = 0
	return err
}

// Timer is a timing.Timer on the device's clock: Start and Stop record
// events on a stream, so the interval is the device time of the work
// enqueued between them, without the host's launch or synchronisation
// costs.
type Timer struct {
	stream     abi.Stream
	start, end *Event
	started    bool
}

var _ timing.Timer = (*Timer)(nil)

// NewTimer returns a timer of work on stream (0: the default stream).
func (d *Device) NewTimer(stream abi.Stream) (*Timer, error) {
	start, err := d.NewEvent()
	if err != nil {
		return nil, err
	}
	end, err := d.NewEvent()
	if err != nil {
		start.Close()
		return nil, err
	}
	return &Timer{stream: stream, start: start, end: end}, nil
}

// Start records the start event.
func (t *Timer) Start() error {
	if err := t.start.Record(t.stream); err != nil {
		return err
	}
	t.started = true
	return nil
}

// Stop records the end event, waits for it and returns the device time
// since Start.
func (t *Timer) Stop() (time.Duration, error) {
	if !t.started {
		return 0, timing.ErrNotStarted
	}
	t.started = false
	if err := t.end.Record(t.stream); err != nil {
		return 0, err
	}
	return Elapsed(t.start, t.end)
}

// Close destroys the timer's events.
func (t *Timer) Close() error {
	err1, err2 := t.start.Close(), t.end.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

// Graph is a recorded sequence of a stream's launches (a CUDA or HIP
// executable graph), replayed as one submission: the launches' host cost is
// paid once, at capture, instead of at every replay. A replay runs the
// recorded kernels with the recorded arguments, on whatever the buffers
// hold at that time.
type Graph struct {
	d       *Device
	h       uintptr
	kernels int
}

// Capture records the work fn enqueues on s into a Graph without running
// it. fn runs inside Launch (one OS thread, the device selected), so it
// calls launchers directly; it must enqueue only on s (never the default
// stream) and make no synchronous calls (copies, Memset, Malloc,
// Synchronize): the runtime refuses those during a capture, and the capture
// then fails. The capture ends whatever fn returns; on any error nothing
// is kept.
func (s *Stream) Capture(fn func() error) (*Graph, error) {
	if s.h == 0 {
		return nil, errors.New("gpu: capture: the stream is closed (the default stream cannot be captured)")
	}
	d := s.d
	var g uintptr
	var kernels uint64
	err := d.Launch(func() error {
		if rc := d.rt.graphBegin(s.h); rc != 0 {
			return d.err("forge_rt_graph_begin", rc)
		}
		ferr := fn()
		h, k, rc := d.rt.graphEnd(s.h)
		if ferr != nil {
			if h != 0 {
				d.rt.destroyHandle(graphHandle, h)
			}
			return fmt.Errorf("gpu: capture: %w", ferr)
		}
		if rc != 0 {
			return d.err("forge_rt_graph_end", rc)
		}
		g, kernels = h, k
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Graph{d: d, h: g, kernels: int(kernels)}, nil
}

// Kernels is the kernel launches the graph recorded (its kernel nodes).
func (g *Graph) Kernels() int { return g.kernels }

// Launch replays the graph on stream (0: the default stream), asynchronously.
func (g *Graph) Launch(stream abi.Stream) error {
	if g.h == 0 {
		return errors.New("gpu: launch of a closed graph")
	}
	return g.d.Launch(func() error {
		if rc := g.d.rt.graphLaunch(g.h, stream); rc != 0 {
			return g.d.err("forge_rt_graph_launch", rc)
		}
		return nil
	})
}

// Close destroys the graph (after the replays already enqueued).
func (g *Graph) Close() error {
	if g.h == 0 {
		return nil
	}
	err := g.d.destroyHandle(graphHandle, g.h)
	g.h = 0
	return err
}
