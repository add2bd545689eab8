//go:build linux

package gguf_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocmforge/forge/internal/race"
	"github.com/rocmforge/forge/runtime/gguf"
)

// These tests read files in a child process (this test binary run again)
// under `ulimit -v 1000000`, so that a reader that allocates what a file
// claims dies there ("fatal error: out of memory") instead of taking the
// machine's memory. The limit is set by the shell before the child starts:
// the Go runtime reserves less address space when it starts under a limit
// (about 700 MB, leaving a few hundred MB of heap), where it has already
// reserved more than 1 GB by the time a running process could set one.

// envLimitChild names the file that TestLimitChild reads.
const envLimitChild = "FORGE_GGUF_LIMIT_CHILD"

// limitKiB is the child's address-space limit, as `ulimit -v` takes it.
const limitKiB = 1_000_000

// TestLimitChild is the child: it reads one file and prints what became of
// it. Run by itself it skips.
func TestLimitChild(t *testing.T) {
	path := os.Getenv(envLimitChild)
	if path == "" {
		t.Skip("the child process of the tests that read under a memory limit")
	}
	f, err := gguf.Open(path)
	// The peak is read here, not from the rusage the parent gets: Linux
	// counts in a child's ru_maxrss the memory it had before exec, which,
	// started as Go starts processes (sharing the parent's memory until
	// exec), is the parent's.
	peak, err2 := vmPeak()
	if err2 != nil {
		t.Fatal(err2)
	}
	if err != nil {
		fmt.Printf("limit-child: %d rejected: %v\n", peak, err)
		return
	}
	defer f.Close()
	fmt.Printf("limit-child: %d accepted: %d KVs, %d tensors\n", peak, len(f.KVs), len(f.Tensors))
}

// vmPeak is this process's peak resident memory in bytes (VmHWM).
func vmPeak() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// limitedRead is what became of a file read by TestLimitChild.
type limitedRead struct {
	verdict string        // "rejected: <error>" or "accepted: ..."
	peak    int64         // the child's peak resident memory, bytes
	wall    time.Duration // the child's run time
}

// readLimited reads path in a child process under `ulimit -v limitKiB`; the
// child must exit cleanly, whatever the file.
func readLimited(t *testing.T, path string) limitedRead {
	if race.Enabled {
		// ThreadSanitizer maps its shadow memory (hundreds of MiB of
		// address space at start) before any of the reader's code runs,
		// so a race-built child cannot start under the limit at all; the
		// run without -race checks the bound.
		t.Skip("under the race detector: its shadow memory alone exceeds ulimit -v", limitKiB)
	}
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", `ulimit -v "$1" && exec "$2" -test.run='^TestLimitChild$' -test.count=1`,
		"sh", strconv.Itoa(limitKiB), os.Args[0])
	cmd.Env = append(os.Environ(), envLimitChild+"="+path)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("the reader crashed or failed under ulimit -v %d (%v) after %v:\n%s", limitKiB, err, wall.Round(time.Millisecond), head(out))
	}
	_, verdict, ok := strings.Cut(string(out), "limit-child: ")
	if !ok {
		t.Fatalf("child printed no verdict:\n%s", head(out))
	}
	verdict, _, _ = strings.Cut(verdict, "\n")
	peak, verdict, _ := strings.Cut(verdict, " ")
	r := limitedRead{verdict: verdict, wall: wall}
	if r.peak, err = strconv.ParseInt(peak, 10, 64); err != nil {
		t.Fatalf("child printed %q", verdict)
	}
	return r
}

// head is the start of a child's output: a crash's message and the stack
// of the goroutine that crashed.
func head(b []byte) string {
	const n = 3000
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// TestCraftedUnderLimit reads the crafted files of issue 18 under the limit:
// each must be refused with an error saying why, quickly and in little
// memory, where the reader took gigabytes (or died) reading them.
func TestCraftedUnderLimit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range craftedFiles(t) {
		t.Run(c.name, func(t *testing.T) {
			r := readLimited(t, c.write(t, dir))
			t.Logf("%d MiB file: %s; peak RSS %d MiB, %v", c.size>>20, r.verdict, r.peak>>20, r.wall.Round(time.Millisecond))
			if !strings.HasPrefix(r.verdict, "rejected: ") {
				t.Fatalf("%s", r.verdict)
			}
			for _, w := range c.want {
				if !strings.Contains(r.verdict, w) {
					t.Errorf("error %q\nwant it to contain %q", r.verdict, w)
				}
			}
			if r.peak > 32<<20 {
				t.Errorf("peak RSS %d MiB reading a file it refuses", r.peak>>20)
			}
		})
	}
}

// TestHeaderMemoryUnderLimit fills MaxHeaderMemory exactly with each kind of
// item (one long string, an array of empty strings, an array of empty
// arrays, many keys, many tensor infos): the file is read under the limit,
// within about that much memory, and one item more is refused.
func TestHeaderMemoryUnderLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads ten files of up to 64 MiB, each in a process of its own")
	}
	const budget = gguf.MaxHeaderMemory
	kvHead := gguf.KVCost + 1 + gguf.ArrayCost // key "k" holding an array
	type shape struct {
		name string
		n    int64 // items that fill the budget
		make func(n int64) craftedFile
	}
	shapes := []shape{
		{"string", budget - gguf.KVCost - 1, func(n int64) craftedFile {
			head := (&builder{kvs: []kv{{"k", gguf.TypeString, raw(le64(uint64(n)))}}, noPadding: true}).bytes()
			return craftedFile{head: head, size: int64(len(head)) + n}
		}},
		{"empty-strings", (budget - kvHead) / gguf.StringElemCost, func(n int64) craftedFile {
			head := arrayHead(gguf.TypeString, uint64(n))
			return craftedFile{head: head, size: int64(len(head)) + 8*n}
		}},
		{"empty-arrays", (budget - kvHead) / gguf.ArrayElemCost, func(n int64) craftedFile {
			head := arrayHead(gguf.TypeArray, uint64(n))
			return craftedFile{head: head, size: int64(len(head)) + 12*n}
		}},
		{"keys", budget / (gguf.KVCost + 4), func(n int64) craftedFile {
			var b bytes.Buffer
			b.Write((&builder{nKV: u64p(uint64(n)), noPadding: true}).bytes())
			for i := range n {
				b.Write(le64(4))
				b.Write(binary.BigEndian.AppendUint32(nil, uint32(i)))
				b.Write(le32(uint32(gguf.TypeUint8)))
				b.WriteByte(0)
			}
			return craftedFile{head: b.Bytes(), size: int64(b.Len())}
		}},
		{"tensors", budget / (gguf.TensorCost + 4), func(n int64) craftedFile {
			var b bytes.Buffer
			b.Write((&builder{nTensors: u64p(uint64(n)), noPadding: true}).bytes())
			for i := range n { // scalar F32 tensors, 32 bytes apart
				b.Write(le64(4))
				b.Write(binary.BigEndian.AppendUint32(nil, uint32(i)))
				b.Write(le32(0))
				b.Write(le32(0))
				b.Write(le64(uint64(32 * i)))
			}
			start := (int64(b.Len()) + 31) / 32 * 32
			return craftedFile{head: b.Bytes(), size: start + 32*n}
		}},
	}
	dir := t.TempDir()
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			for _, extra := range []int64{0, 1} {
				c := s.make(s.n + extra)
				c.name = fmt.Sprintf("%s-%d", s.name, s.n+extra)
				path := c.write(t, dir)
				r := readLimited(t, path)
				os.Remove(path)
				t.Logf("%d items, %d MiB file: %.200s; peak RSS %d MiB, %v", s.n+extra, c.size>>20, r.verdict, r.peak>>20, r.wall.Round(time.Millisecond))
				if accepted := strings.HasPrefix(r.verdict, "accepted"); accepted != (extra == 0) {
					t.Errorf("%d items: %s", s.n+extra, r.verdict)
				}
				if extra > 0 && !strings.Contains(r.verdict, "MaxHeaderMemory") {
					t.Errorf("%d items: error does not name the limit: %s", s.n+extra, r.verdict)
				}
				if max := int64(2*budget + 32<<20); r.peak > max { // the bound doc.go states
					t.Errorf("%d items: peak RSS %d MiB, more than %d MiB", s.n+extra, r.peak>>20, max>>20)
				}
			}
		})
	}
}
