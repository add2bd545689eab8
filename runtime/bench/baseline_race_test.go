package bench_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
)

// Concurrent saves of one name are N CI jobs finishing together: without
// --force exactly one may be saved, and the others must be told the name is
// taken, never report "saved" over it (issue 18, finding 5).
const racers = 20

// TestSaveConcurrentExclusive races saves in goroutines, several rounds so
// that the check-then-write window of a non-exclusive save is hit for sure.
func TestSaveConcurrentExclusive(t *testing.T) {
	for range 10 {
		s := bench.BaselineStore{Dir: t.TempDir()}
		start := make(chan struct{})
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() {
				<-start
				_, errs[i] = s.Save("main", racerRun(i), false)
			})
		}
		close(start)
		wg.Wait()
		msgs := make([]string, racers)
		for i, err := range errs {
			if err == nil {
				msgs[i] = "saved"
			} else {
				msgs[i] = err.Error()
			}
		}
		checkOneSaved(t, s, msgs)
	}
}

// TestSaveConcurrentProcesses races saves in separate processes (this test
// binary, running TestSaveChild), which share nothing but the file system.
func TestSaveConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 processes")
	}
	s := bench.BaselineStore{Dir: t.TempDir()}
	goFile := filepath.Join(t.TempDir(), "go")
	outs := make([]bytes.Buffer, racers)
	cmds := make([]*exec.Cmd, racers)
	for i := range racers {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestSaveChild$", "-test.count=1")
		cmds[i].Env = append(os.Environ(), "FORGE_SAVE_CHILD="+strconv.Itoa(i), "FORGE_SAVE_DIR="+s.Dir, "FORGE_SAVE_GO="+goFile)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	// Every child waits for this file, so that they save together rather
	// than in the order they happened to start in.
	time.Sleep(200 * time.Millisecond)
	if err := os.WriteFile(goFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	msgs := make([]string, racers)
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i].String())
		}
		out := outs[i].String()
		k := strings.Index(out, "SAVE:")
		if k < 0 {
			t.Fatalf("child %d did not report:\n%s", i, out)
		}
		msgs[i], _, _ = strings.Cut(out[k+len("SAVE:"):], "\n")
	}
	checkOneSaved(t, s, msgs)
}

// TestSaveChild is one racer of TestSaveConcurrentProcesses; on its own it
// does nothing.
func TestSaveChild(t *testing.T) {
	i, err := strconv.Atoi(os.Getenv("FORGE_SAVE_CHILD"))
	if err != nil {
		t.Skip("a helper process of TestSaveConcurrentProcesses")
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(os.Getenv("FORGE_SAVE_GO")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never told to go")
		}
	}
	s := bench.BaselineStore{Dir: os.Getenv("FORGE_SAVE_DIR")}
	if _, err := s.Save("main", racerRun(i), false); err != nil {
		fmt.Printf("SAVE:%s\n", strings.ReplaceAll(err.Error(), "\n", " "))
	} else {
		fmt.Println("SAVE:saved")
	}
}

// racerRun is racer i's run: each racer's differs, so the file tells who won.
func racerRun(i int) *bench.Run { return benchtest.Run(uint64(i+1), benchtest.Defaults()...) }

// checkOneSaved checks the racers' outcomes (msgs[i] is "saved" or racer
// i's error): exactly one saved, every other refused as already existing,
// and the file holds the winner's whole run.
func checkOneSaved(t *testing.T, s bench.BaselineStore, msgs []string) {
	t.Helper()
	winner := -1
	for i, m := range msgs {
		switch {
		case m == "saved" && winner >= 0:
			t.Errorf("racers %d and %d both saved baseline main: one silently replaced the other", winner, i)
		case m == "saved":
			winner = i
		case !strings.Contains(m, "already exists") || !strings.Contains(m, "--force"):
			t.Errorf("racer %d: %s, want an \"already exists\" error", i, m)
		}
	}
	if winner < 0 {
		t.Fatalf("no racer saved: %q", msgs)
	}
	want := *racerRun(winner)
	want.Name = "main"
	var buf bytes.Buffer
	if err := bench.EncodeRun(&buf, &want); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, s.Path("main")); !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("the saved baseline is not racer %d's run (%d bytes, want %d)", winner, len(got), buf.Len())
	}
	if ents, _ := os.ReadDir(s.Dir); len(ents) != 1 {
		t.Errorf("the store holds %d entries, want main.json alone (temporary files left behind?)", len(ents))
	}
}
