//go:build unix

package bench_test

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

// A FIFO where the baseline file should be is refused, with force too,
// without being opened: reading it to check it is a baseline would block.
func TestSaveRefusesFIFO(t *testing.T) {
	s := bench.BaselineStore{Dir: t.TempDir()}
	p := s.Path("main")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	for _, force := range []bool{false, true} {
		done := make(chan error, 1)
		go func() {
			_, err := s.Save("main", benchtest.Run(1, benchtest.Defaults()...), force)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "FIFO") {
				t.Errorf("force=%v: err = %v, want it to name %s as a FIFO", force, err, p)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("force=%v: Save blocked on the FIFO", force)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("force=%v: the FIFO was replaced: %v, %v", force, fi, err)
		}
	}
}
