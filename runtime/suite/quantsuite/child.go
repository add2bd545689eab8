package quantsuite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/rocmforge/forge/specs/formats"
	"github.com/rocmforge/forge/specs/workloads"
)

// The child protocol. Each case runs in a fresh process, so that its peak
// resident memory is its own and not the high-water mark of an earlier
// case or of the parent: the parent re-executes its own binary
// (os.Executable: forgebench, or a go test binary) with EnvCase holding
// the case as JSON; this package's init sees the variable, runs the case,
// writes one line "<ResultPrefix><Result as JSON>" on stdout and exits
// before main (or the test runner) starts. The child's only argument is
// ChildArg, and a process with the variable but not that argument ignores
// it, so a stray EnvCase in a user's environment does not take over
// every binary.
//
// The peak is the child's own VmHWM from /proc/self/status. The parent's
// wait4 rusage (ru_maxrss) is not used: Go starts children with vfork
// semantics (CLONE_VM), and Linux folds the parent's high-water mark into
// the child's ru_maxrss at exec, so it reports max(parent, child).
const (
	EnvCase      = "FORGE_QUANTSUITE_CASE"
	ChildArg     = "forge-quantsuite-child"
	ResultPrefix = "forge-quantsuite-result: "
)

// Case is one child's work.
type Case struct {
	Model   workloads.Model `json:"model"`
	Format  string          `json:"format"` // "" for Idle
	Mode    Mode            `json:"mode"`
	Workers int             `json:"workers"` // 0: GOMAXPROCS
}

// Result is what a child reports: its work and its memory.
type Result struct {
	Work
	BaselineRSS int64  `json:"baseline_rss"` // VmHWM before the work: the idle process
	PeakRSS     int64  `json:"peak_rss"`     // VmHWM after it
	Error       string `json:"error,omitempty"`
}

func init() {
	v, ok := os.LookupEnv(EnvCase)
	if !ok || len(os.Args) != 2 || os.Args[1] != ChildArg {
		return // not a child of Child: a stray variable, if any
	}
	var c Case
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		fmt.Fprintf(os.Stderr, "quantsuite child: $%s: %v\n", EnvCase, err)
		os.Exit(2)
	}
	os.Exit(childMain(c, os.Stdout))
}

// childMain runs c and writes its result line to w; the exit status.
func childMain(c Case, w io.Writer) int {
	r := RunCase(c)
	line, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quantsuite child:", err)
		return 2
	}
	fmt.Fprintf(w, "%s%s\n", ResultPrefix, line)
	if r.Error != "" {
		return 1
	}
	return 0
}

// RunCase runs c in this process and measures this process's peak: only
// meaningful in a fresh child (Child runs it so).
func RunCase(c Case) Result {
	runtime.GC()
	var r Result
	base, err := ReadPeak()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.BaselineRSS = base
	if c.Mode != Idle {
		f, ok := formats.ByName(c.Format)
		if !ok {
			r.Error = fmt.Sprintf("unknown format %q", c.Format)
			return r
		}
		if r.Work, err = Do(c.Model, f, c.Mode, c.Workers); err != nil {
			r.Error = err.Error()
			return r
		}
	}
	if r.PeakRSS, err = ReadPeak(); err != nil {
		r.Error = err.Error()
	}
	return r
}

// Child runs c in a fresh process (this binary re-executed) and returns
// its result.
func Child(ctx context.Context, c Case) (Result, error) {
	exe, err := os.Executable()
	if err != nil {
		return Result{}, fmt.Errorf("finding this binary to run a case in a child: %w", err)
	}
	spec, err := json.Marshal(c)
	if err != nil {
		return Result{}, err
	}
	cmd := exec.CommandContext(ctx, exe, ChildArg)
	cmd.Env = append(os.Environ(), EnvCase+"="+string(spec))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	r, parseErr := ParseResult(stdout.Bytes())
	switch {
	case parseErr == nil && r.Error != "":
		return r, fmt.Errorf("child %s: %s", c, r.Error)
	case runErr != nil:
		return r, fmt.Errorf("child %s: %w%s", c, runErr, tail(stderr.String()))
	case parseErr != nil:
		return r, fmt.Errorf("child %s: %w%s", c, parseErr, tail(stderr.String()+"\n"+stdout.String()))
	}
	return r, nil
}

func (c Case) String() string {
	if c.Mode == Idle {
		return "idle"
	}
	return fmt.Sprintf("%s (%d×%d×%d) %s %s", c.Model.Name, c.Model.Layers, c.Model.Rows, c.Model.Cols, c.Format, c.Mode)
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return ": " + s
}

// ParseResult finds the result line in a child's output.
func ParseResult(out []byte) (Result, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), ResultPrefix); ok {
			var r Result
			if err := json.Unmarshal([]byte(rest), &r); err != nil {
				return Result{}, fmt.Errorf("bad result line %q: %w", rest, err)
			}
			return r, nil
		}
	}
	if err := sc.Err(); err != nil {
		return Result{}, fmt.Errorf("reading the child's output: %w", err)
	}
	return Result{}, errors.New("the child printed no result line")
}

// ReadPeak returns this process's peak resident set size (VmHWM) in bytes.
func ReadPeak() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading the peak resident memory: %w (quantize's memory figures need Linux's /proc)", err)
	}
	defer f.Close()
	return ParseStatus(f, "VmHWM")
}

// ParseStatus returns field ("VmHWM", "VmRSS") of a /proc/<pid>/status
// file in bytes.
func ParseStatus(r io.Reader, field string) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) != 2 || fs[1] != "kB" {
			return 0, fmt.Errorf("/proc status: %s is %q, want \"<n> kB\"", field, strings.TrimSpace(rest))
		}
		n, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("/proc status: %s is %q, want \"<n> kB\"", field, strings.TrimSpace(rest))
		}
		return n << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("/proc status has no %s line", field)
}
