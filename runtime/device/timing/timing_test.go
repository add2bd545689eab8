package timing

import (
	"errors"
	"testing"
	"time"
)

func TestCPU(t *testing.T) {
	var tm Timer = NewCPU()
	if _, err := tm.Stop(); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("Stop before Start: %v, want ErrNotStarted", err)
	}
	if err := tm.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	d, err := tm.Stop()
	if err != nil || d < 2*time.Millisecond || d > 10*time.Second {
		t.Fatalf("Stop = %v, %v; want about 2ms", d, err)
	}
	if _, err := tm.Stop(); !errors.Is(err, ErrNotStarted) {
		t.Errorf("second Stop: %v, want ErrNotStarted", err)
	}
	if err := tm.Close(); err != nil {
		t.Error(err)
	}
}
