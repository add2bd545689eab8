package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rocmforge/forge/gen"
	"github.com/rocmforge/forge/gen/build"
	"github.com/rocmforge/forge/gen/ir"
	"github.com/rocmforge/forge/gen/load"
)

func buildCmd() *cli.Command {
	return &cli.Command{
		Name:  "build",
		Usage: "compile a target's generated HIP into its kernel library, libforge_<target>.so",
		Description: "Compiles every generated/hip/<target>/*.hip with hipcc (AMD targets) or nvcc (NVIDIA\n" +
			"targets; $HIPCC / $NVCC override) in parallel and links them into DIR/libforge_<target>.so,\n" +
			"written atomically. generated/hip/<target> must be what the specs generate (run\n" +
			"go generate ./... after editing a spec); --no-check builds it as it is.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "target", Aliases: []string{"t"}, Usage: "the target `NAME` (see forgegen list; default: the specs' default target)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: build.DefaultOut, Usage: "write the library into `DIR`"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "run `N` compilers at once (default: the number of CPUs)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print the commands (a shell script to run in the module root) instead of running them"},
			&cli.BoolFlag{Name: "no-check", Usage: "do not check generated/hip/<target> against the specs"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("build: unexpected arguments %q (the target is given with --target)", c.Args().Slice())
			}
			root, err := moduleRoot(c)
			if err != nil {
				return err
			}
			target, err := buildTarget(c, root)
			if err != nil {
				return err
			}
			lib, err := build.Build(c.Context, build.Options{
				Root:   root,
				Target: &target.Target,
				Out:    c.String("out"),
				Jobs:   c.Int("jobs"),
				DryRun: c.Bool("dry-run"),
				Stdout: c.App.Writer,
				Stderr: c.App.ErrWriter,
			})
			if err != nil {
				return fmt.Errorf("build %s: %w", target.Name, err)
			}
			if !c.Bool("dry-run") {
				fmt.Fprintln(c.App.Writer, lib)
			}
			return nil
		},
	}
}

// buildTarget loads the specs, finds the target --target names (or the
// default), and unless --no-check, checks that its generated HIP is what
// the specs generate now.
func buildTarget(c *cli.Context, root string) (*ir.Target, error) {
	if c.Bool("no-check") {
		r, err := load.Load(root)
		if err != nil {
			return nil, err
		}
		return pickTarget(r.Spec.Targets, c.String("target"))
	}
	spec, files, err := gen.Render(root)
	if err != nil {
		return nil, fmt.Errorf("cannot check generated/hip against the specs, which do not generate:\n%w\n"+
			"(fix them and run go generate ./..., or pass --no-check to build generated/hip as it is)", err)
	}
	t, err := pickTarget(spec.Targets, c.String("target"))
	if err != nil {
		return nil, err
	}
	return t, build.CheckCurrent(root, t.Name, files)
}

func pickTarget(targets []*ir.Target, name string) (*ir.Target, error) {
	if name == "" {
		for _, t := range targets {
			if t.Default {
				return t, nil
			}
		}
	}
	return build.FindTarget(targets, name)
}
