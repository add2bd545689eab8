//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputFIFORefused: an output flag naming a FIFO (issue 18, finding 1,
// which had `run --csv /dev/full` replace the device node) fails with an
// error saying what the path is and leaves it a FIFO; run says so before
// anything runs.
func TestOutputFIFORefused(t *testing.T) {
	p, j := tiny(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, args := range [][]string{
		{"gguf", "dequant", p, j.Tensors[0].Name, "-o", fifo},
		runArgs("--format", "Q8_0", "--family", "dequant", "--csv", fifo),
	} {
		code, _, stderr := forgebench(t, args...)
		if code != exitError || !strings.Contains(stderr, fifo+": it is a FIFO, not a regular file") {
			t.Errorf("%s: exit %d, stderr:\n%s", args[:2], code, stderr)
		}
		if args[0] == "run" && strings.Contains(stderr, "backend") {
			t.Errorf("run started before refusing the output:\n%s", stderr)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: %s is no longer a FIFO: %v, %v", args[:2], fifo, fi, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}
