// Command forgegen generates forge's kernels, wrappers and suites from the
// specs. `go generate ./...` runs `forgegen generate`; see package gen.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rocmforge/forge/internal/modroot"
	"github.com/urfave/cli/v2"
)

func main() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:           "forgegen",
		Usage:          "generate HIP kernels, Go wrappers and suites from forge's specs",
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "root", Usage: "module root `DIR` (default: the directory holding go.mod, above the working directory)"},
		},
		Commands: []*cli.Command{generateCmd(), checkCmd(), listCmd(), buildCmd(), explainCmd()},
	}
	if err := app.Run(args); err != nil {
		fmt.Fprintln(stderr, "forgegen:", err)
		return 1
	}
	return 0
}

// moduleRoot is --root, or the nearest directory above the working
// directory that holds go.mod.
func moduleRoot(c *cli.Context) (string, error) {
	if r := c.String("root"); r != "" {
		return filepath.Abs(r)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if d, ok := modroot.Find(wd); ok {
		return d, nil
	}
	return "", fmt.Errorf("no go.mod in %s or above; run forgegen inside the forge module or give --root", wd)
}
