// Command forgebench runs forge's generated suites and inspects model files.
// This version carries the format list (`forgebench formats`) and the GGUF
// tools: `forgebench gguf ls FILE` and `forgebench gguf dequant FILE TENSOR -o OUT`.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

func main() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) }

// run is the whole program but for the exit: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	if err := app.Run(permuteArgs(app, args)); err != nil {
		fmt.Fprintln(stderr, "forgebench:", err)
		return 1
	}
	return 0
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "forgebench",
		Usage:     "run forge's kernel suites and inspect GGUF model files",
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are printed once, by main, with the program's name.
		ExitErrHandler: func(*cli.Context, error) {},
		Commands:       []*cli.Command{formatsCommand(), ggufCommand(), baselineCommand(), compareCommand(), reportCommand()},
	}
}
