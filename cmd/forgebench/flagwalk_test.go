//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/runtime/backend"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/rocmforge/forge/runtime/bench/benchtest"
	"github.com/rocmforge/forge/runtime/bench/tune"
	"github.com/rocmforge/forge/specs/targets"
	"github.com/rocmforge/forge/specs/tuned"
)

// hostileNumbers are what every numeric flag is tried with: past int64,
// past what any allocation can hold, negative, zero, past float64's
// integers, and not numbers at all.
var hostileNumbers = []string{"9223372036854775807", "4611686018427387904", "-1", "-3", "0", "1e99", "abc", ""}

// hostileExtra are the further values of a flag type, or of a string flag
// whose value is a number in another syntax (listed here, or the walk
// skips it: a new such flag must be added).
var hostileExtra = map[string][]string{
	"duration":  {"-1s", "2562047h47m16.854775807s", "1e99h", "9223372036854775807ns"},
	"float":     {"NaN", "-Inf", "+Inf", "1e-320"},
	"threshold": {"1e99%", "-5%", "NaN%", "Inf", "1000%", "1000.5%"},
	"metric":    {"time=9223372036854775807", "gbps=1e99%", "time=-1", "time=NaN", "time", "=5%"},
	"prompt":    {"65537", "1,,2", "128,128", "0,128", "1x1", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", " 512 "},
	"shape": {"4611686018427387904x1", "2147483647x2147483647", "65536x65537", "65536x1x65537", "4096x1048577x4096",
		"0x1", "-1x4", "1e99x1", "8x64", "1x1"},
	"shard": {"1/0", "0/9223372036854775807", "9223372036854775807/9223372036854775807", "-1/-1", "2/1", "0/1", "4095/4096"},
}

// flagWalkBase is, per command, an invocation that succeeds cheaply when
// the walked flag takes a valid value: the args before the flag, and
// after it (profile's run arguments follow "--"). Every command with a
// numeric flag needs one; compare and baseline save measure nothing or a
// tiny run, and every command checks its flags whether it uses them or not.
func flagWalkBase(t *testing.T, cmd, flag string) (pre, post []string) {
	dir := t.TempDir()
	runFile := filepath.Join(dir, "run.json")
	if err := bench.WriteRun(runFile, benchtest.Run(1, benchtest.Defaults()...)); err != nil {
		t.Fatal(err)
	}
	suiteFlag := "dequant_f32/F32"
	if flag == "shape" {
		suiteFlag = "matvec_f32/F32" // the one family that takes every 2-D --shape
	}
	// A tiny run of one suite; the walked flag's own entry is left out.
	tiny := func(args ...string) []string {
		for _, kv := range [][2]string{{"backend", "cpu"}, {"suite", suiteFlag}, {"elems", "256"}, {"count", "1"}, {"warmup", "0"}, {"copy-bytes", "-1"}} {
			if kv[0] != flag {
				args = append(args, "--"+kv[0], kv[1])
			}
		}
		return args
	}
	switch cmd {
	case "run":
		return tiny("run", "-q"), nil
	case "baseline save":
		return tiny("baseline", "save", "walk", "--force", "--dir", dir), nil
	case "compare":
		return []string{"compare", "--baseline-file", runFile, "--run", runFile}, nil
	case "report":
		if flag == "history-last" { // walked with the --history it goes with
			h := filepath.Join(dir, "h.jsonl")
			if err := bench.AppendHistory(h, benchtest.Run(1, benchtest.Defaults()...), "run"); err != nil {
				t.Fatal(err)
			}
			return []string{"report", "--html", filepath.Join(dir, "r.html"), "--history", h, runFile}, nil
		}
		return []string{"report", "--html", filepath.Join(dir, "r.html"), runFile}, nil
	case "gguf dequant":
		p := writeTestGGUF(t, nil, []testTensor{{"t", []uint64{32}, 2, q4Block()}})
		return []string{"gguf", "dequant", p, "t", "-o", filepath.Join(dir, "t.f32")}, nil
	case "tune": // with flagWalkFakes' builder and runner: nothing compiles or runs
		return []string{"tune", "--target", "sm_90", "--format", "Q4_0", "--root", dir, "--cache-dir", filepath.Join(dir, "cache"),
			"--out", filepath.Join(dir, "sm_90.json")}, nil
	case "profile": // --dry-run: prints the commands
		return []string{"profile", "--tool", "ncu", "--dry-run", "--out", dir, "--forgebench", "/opt/forge/forgebench"}, []string{"--", "--backend", "cpu"}
	case "history": // a history of one run
		h := filepath.Join(dir, "h.jsonl")
		if err := bench.AppendHistory(h, benchtest.Run(1, benchtest.Defaults()...), "run"); err != nil {
			t.Fatal(err)
		}
		return []string{"history", h}, nil
	}
	return nil, nil
}

// numericFlags lists, per leaf command (as typed: "gguf dequant"), its
// flags that take numbers and the values to try them with; it fails on a
// flag of a type it does not know, so that no new kind of flag goes unwalked.
func numericFlags(t *testing.T) map[string]map[string][]string {
	out := map[string]map[string][]string{}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := strings.TrimSpace(prefix + " " + c.Name)
			if len(c.Subcommands) > 0 {
				walk(path, c.Subcommands)
				continue
			}
			for _, f := range c.Flags {
				name := f.Names()[0]
				var values []string
				switch f.(type) {
				case *cli.BoolFlag, *cli.PathFlag:
					continue
				case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.IntSliceFlag, *cli.Int64SliceFlag, *cli.UintSliceFlag, *cli.Uint64SliceFlag:
					values = hostileNumbers
				case *cli.Float64Flag, *cli.Float64SliceFlag:
					values = append(append([]string(nil), hostileNumbers...), hostileExtra["float"]...)
				case *cli.DurationFlag:
					values = append(append([]string(nil), hostileNumbers...), hostileExtra["duration"]...)
				case *cli.StringFlag, *cli.StringSliceFlag:
					extra, ok := hostileExtra[name]
					if !ok {
						continue // not a number
					}
					values = append(append([]string(nil), hostileNumbers...), extra...)
				default:
					t.Errorf("%s --%s: a %T; the walk does not know that type of flag", path, name, f)
					continue
				}
				if out[path] == nil {
					out[path] = map[string][]string{}
				}
				out[path][name] = values
			}
		}
	}
	walk("", newApp(io.Discard, io.Discard).Commands)
	return out
}

// TestEveryNumericFlagRefusesHostileValues walks every numeric flag of
// every command (found in the command definitions, so a new one is walked
// too) with hostile values, in a child process per flag with an 8 GiB
// address space and a time limit: none may panic, die or run on; each
// value is either taken (exit 0) or refused with exit 2 and a message
// naming the flag.
func TestEveryNumericFlagRefusesHostileValues(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the walk starts a process per flag")
	}
	flags := numericFlags(t)
	for _, want := range []string{"run", "compare", "baseline save", "gguf dequant", "tune", "profile", "report"} {
		if flags[want] == nil {
			t.Errorf("no numeric flag found in %q: is the walk looking at the commands?", want)
		}
	}
	for cmd, fs := range flags {
		for flag, values := range fs {
			if cmd != "run" && (flag == "elems" || flag == "copy-bytes") {
				// 0, their default, is seconds of work (16 Mi elements, a
				// 256 MiB copy) that run's walk spends once for every
				// command: they share measure.
				values = slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "0" })
			}
			t.Run(strings.ReplaceAll(cmd, " ", "_")+"/"+flag, func(t *testing.T) {
				t.Parallel()
				pre, post := flagWalkBase(t, cmd, flag)
				if pre == nil {
					t.Fatalf("%s has numeric flags but flagWalkBase has no invocation for it: add one", cmd)
				}
				for len(values) > 0 {
					results, crash := flagWalkChild(flagWalkJob{pre, post, flag, values})
					for _, r := range results {
						switch {
						case r.Panic != "" || strings.Contains(r.Stderr, "panic:") || goroutineTrace.MatchString(r.Stderr):
							t.Errorf("--%s %q: panicked: %s\n%.2000s", flag, r.Value, r.Panic, r.Stderr)
						case r.Code == exitError && !strings.Contains(r.Stderr, "-"+flag):
							t.Errorf("--%s %q: exit 2 with a message that does not name the flag: %q", flag, r.Value, r.Stderr)
						case r.Code != exitOK && r.Code != exitError:
							t.Errorf("--%s %q: exit %d, want 0 or 2: %s%s", flag, r.Value, r.Code, r.Stdout, r.Stderr)
						}
					}
					values = values[len(results):]
					if crash != "" { // the value after the last result: blame it, go on with the rest
						t.Errorf("--%s %q: %s", flag, values[0], crash)
						values = values[1:]
					}
				}
			})
		}
	}
}

// goroutineTrace is the head of a Go crash's stack dump.
var goroutineTrace = regexp.MustCompile(`goroutine \d+ \[`)

// flagWalkLimit is how long one child may run with all of a flag's values:
// the valid ones are a tiny run, or 0 for a default one (16 Mi elements, a
// 256 MiB copy: seconds).
const flagWalkLimit = 90 * time.Second

// flagWalkEnv carries a child's job (JSON).
const flagWalkEnv = "FORGEBENCH_FLAGWALK"

// flagWalkJob is one child's work: forgebench PRE --FLAG VALUE POST for
// each value in turn.
type flagWalkJob struct {
	Pre, Post []string
	Flag      string
	Values    []string
}

// flagWalkResult is one value's outcome, a JSON line of the child's stdout.
type flagWalkResult struct {
	Value                 string
	Code                  int
	Stdout, Stderr, Panic string
}

// flagWalkChild runs job in a child process (this test binary,
// TestFlagWalkChild), so that a panic in any goroutine, a fatal
// out-of-memory error or a run that does not end is seen, not suffered.
// It returns the results of the values that finished, in order, and when
// the child did not finish them all, what happened to it (the next value
// is the one it was running).
func flagWalkChild(job flagWalkJob) (results []flagWalkResult, crash string) {
	enc, err := json.Marshal(job)
	if err != nil {
		return nil, err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), flagWalkLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFlagWalkChild$")
	cmd.Env = append(os.Environ(), flagWalkEnv+"="+string(enc))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	dec := json.NewDecoder(&o)
	for {
		var r flagWalkResult
		if dec.Decode(&r) != nil {
			break
		}
		results = append(results, r)
	}
	switch {
	case len(results) == len(job.Values):
		return results, ""
	case ctx.Err() != nil:
		return results, fmt.Sprintf("still running after %v: a value past any sensible run was not refused", flagWalkLimit)
	}
	return results, fmt.Sprintf("the child died (%v):\n%.3000s", err, e.String())
}

// TestFlagWalkChild is the child of flagWalkChild: forgebench, in
// process, with each value of the job in $FORGEBENCH_FLAGWALK, writing
// each outcome as a JSON line; under an 8 GiB address-space limit, with
// tune's compiler and GPU and profile's tool lookup faked.
func TestFlagWalkChild(t *testing.T) {
	enc := os.Getenv(flagWalkEnv)
	if enc == "" {
		t.Skip("the child of TestEveryNumericFlagRefusesHostileValues")
	}
	var job flagWalkJob
	if err := json.Unmarshal([]byte(enc), &job); err != nil {
		t.Fatal(err)
	}
	const limit = 8 << 30
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	withProfileFinder(t, map[string]string{"ncu": "/usr/local/cuda/bin/ncu"})
	tuneDepsInUse = tuneDeps{
		builder: func(string, *targets.Target, *tuned.Family, string, int, io.Writer) tune.Builder {
			return cmdFakeBuilder{}
		},
		open: func(*targets.Target) tune.Opener {
			return func(lib string) (backend.Backend, string, error) { return cmdFakeBackend{lib}, "Fake GPU", nil }
		},
		runner: func(*tuned.Family) tune.Runner { return cmdFakeRunner{} },
	}
	out := json.NewEncoder(os.Stdout)
	for _, v := range job.Values {
		r := flagWalkResult{Value: v}
		args := append(append(append([]string{"forgebench"}, job.Pre...), "--"+job.Flag, v), job.Post...)
		func() {
			var o, e bytes.Buffer
			defer func() {
				if p := recover(); p != nil {
					r.Panic = fmt.Sprint(p)
				}
				r.Stdout, r.Stderr = o.String(), e.String()
			}()
			r.Code = run(args, &o, &e)
		}()
		if err := out.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	os.Exit(0)
}
