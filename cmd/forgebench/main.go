// Command forgebench runs forge's generated suites and inspects model files:
// `forgebench run` measures the suites (or a GGUF file's tensors) on a
// backend through runtime/bench and writes a table, JSON, CSV and the Go
// benchmark format (--shard I/N one part of them, for `forgebench merge`
// to put together); `forgebench list` shows the suites and targets;
// `forgebench baseline save|list|show|delete` keeps runs as baselines and
// `forgebench compare` checks a run against one (exit 1 on a significant
// regression); `forgebench compare-llama` prints a run's matvec and matmul
// times beside llama.cpp's test-backend-ops perf output for the same formats
// and shapes (runtime/bench/llama); `forgebench report --html` renders a
// run, optionally against a baseline; `forgebench history FILE` shows the
// runs appended with --history as a trend per benchmark across commits;
// `forgebench tune` times a target's tuning space and writes the
// winners to specs/tuned (runtime/bench/tune); `forgebench profile` runs a
// selection under ncu, nsys, rocprof or omniperf and maps the tool's kernels
// back to forge's launchers (runtime/bench/profile); `forgebench formats`
// lists the quant formats; `forgebench gguf ls FILE` and `forgebench gguf
// dequant FILE TENSOR -o OUT` inspect and decode GGUF files.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/rocmforge/forge/internal/atomicfile"
	"github.com/rocmforge/forge/runtime/bench"
	"github.com/urfave/cli/v2"
)

func main() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) }

// run is the whole program but for the exit: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	if name, ok := unknownCommand(app, args); ok {
		var names []string
		for _, c := range app.VisibleCommands() {
			names = append(names, c.Name)
		}
		fmt.Fprintf(stderr, "forgebench: unknown command %q; the commands are %s (forgebench help COMMAND says more)\n", name, strings.Join(names, ", "))
		return exitError
	}
	if err := app.Run(permuteArgs(app, args)); err != nil {
		fmt.Fprintln(stderr, "forgebench:", err)
		// A command may ask for its own status (cli.Exit): run's 130 after Ctrl-C.
		if ec, ok := errors.AsType[cli.ExitCoder](err); ok && ec.ExitCode() != 0 {
			return ec.ExitCode()
		}
		return exitError
	}
	return exitOK
}

// The exit statuses, one contract for every command: exitOK; exitRegression
// (compare found a significant regression, and nothing else failed);
// exitError for a command line, input or run that failed (a usage error, an
// unreadable or missing file or baseline, a failed kernel, a comparison
// that would judge nothing); and
// exitInterrupted after Ctrl-C.
const (
	exitOK         = 0
	exitRegression = 1
	exitError      = 2
)

// unknownCommand is the command args name when the app has no such command
// (urfave/cli would otherwise answer with its help command's "No help
// topic" and exit 3): the first argument that is not a global flag.
func unknownCommand(app *cli.App, args []string) (string, bool) {
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if a != "help" && a != "h" && app.Command(a) == nil { // help is added when the app runs
			return a, true
		}
		return "", false
	}
	return "", false
}

// version is what --version prints: the module version, the commit the
// binary was built from (and whether the tree differed from it).
func version() string {
	v, commit, modified := bench.ForgeVersion()
	if commit != "" {
		v += " " + commit
		if modified {
			v += "+dirty"
		}
	}
	return v + " (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:    "forgebench",
		Usage:   "run forge's kernel suites and inspect GGUF model files",
		Version: version(),
		Description: "Exit status, for every command: 0 ok; 1 a regression (compare); 2 an error (a command line it\n" +
			"cannot take, an input that is missing or unreadable, a run that failed, a comparison with nothing\n" +
			"to compare: an empty baseline or run, no benchmark in common); 130 after Ctrl-C.",
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are printed once, by main, with the program's name.
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{listCommand(), runCommand(), mergeCommand(), baselineCommand(), compareCommand(), compareLlamaCommand(), reportCommand(),
			formatsCommand(), ggufCommand(), tuneCommand(), profileCommand(), historyCommand(), completionCommand()},
		EnableBashCompletion: true,
	}
}

// indented encodes v as indented JSON: --json's output.
func indented(v any) func(io.Writer) error {
	return func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(v)
	}
}

// writeJSONTo is every command's --json FILE: enc writes to stdout for
// "-", else to FILE, atomically (saying so on stderr).
func writeJSONTo(c *cli.Context, out string, enc func(io.Writer) error) error {
	if out == "-" {
		return enc(c.App.Writer)
	}
	if err := atomicfile.Write(out, 0o644, enc); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "forgebench: wrote %s\n", out)
	return nil
}
