// Package timing owns forge's kernel-timer abstraction: a Timer measures the
// time between Start and Stop on the clock of the processor that runs the
// work. The GPU runtime (runtime/device/gpu) implements it with device events, so a
// benchmark times only the kernels it enqueued between the two events, not
// the host's launch and synchronisation costs; CPU measures host wall time
// for the cpu backend, whose kernels run synchronously on the calling
// goroutine.
package timing

import (
	"errors"
	"time"
)

// Timer measures one interval at a time on some clock.
type Timer interface {
	// Start marks the beginning of an interval. Starting a started timer
	// restarts it.
	Start() error
	// Stop marks the end of the interval and returns its length, waiting,
	// where the clock is a device's, for the work before Stop to finish.
	Stop() (time.Duration, error)
	// Close releases the timer's resources.
	Close() error
}

// ErrNotStarted is Stop's error on a timer that was not started.
var ErrNotStarted = errors.New("timing: Stop without Start")

// CPU is a Timer on the host's monotonic clock.
type CPU struct {
	start   time.Time
	started bool
}

// NewCPU returns a stopped host-clock timer.
func NewCPU() *CPU { return &CPU{} }

// Start marks the beginning of an interval.
func (c *CPU) Start() error {
	c.start, c.started = time.Now(), true
	return nil
}

// Stop returns the time since Start.
func (c *CPU) Stop() (time.Duration, error) {
	if !c.started {
		return 0, ErrNotStarted
	}
	c.started = false
	return time.Since(c.start), nil
}

// Close does nothing: a host timer holds no resources.
func (c *CPU) Close() error { return nil }

var _ Timer = (*CPU)(nil)
