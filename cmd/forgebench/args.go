package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// permuteArgs moves the flags given to a leaf command in front of its
// positional arguments. urfave/cli v2 parses with package flag, which stops
// at the first positional argument, so `gguf dequant FILE T -o OUT` would
// otherwise take "-o" and "OUT" as arguments. Anything after "--" stays put.
func permuteArgs(app *cli.App, args []string) []string {
	cmds := app.Commands
	var leaf *cli.Command
	i := 1
	for ; i < len(args); i++ {
		c := findCommand(cmds, args[i])
		if c == nil {
			break
		}
		leaf, cmds = c, c.Subcommands
	}
	if leaf == nil || len(leaf.Subcommands) > 0 {
		return args
	}
	var flags, pos []string
	rest := args[i:]
	for k := 0; k < len(rest); k++ {
		a := rest[k]
		if a == "--" {
			pos = append(pos, rest[k:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		if !strings.Contains(a, "=") && takesValue(leaf, strings.TrimLeft(a, "-")) && k+1 < len(rest) {
			k++
			flags = append(flags, rest[k])
		}
	}
	out := append([]string(nil), args[:i]...)
	return append(append(out, flags...), pos...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func takesValue(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}
