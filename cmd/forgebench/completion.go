package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// completionCommand prints a shell completion script. The scripts ask
// forgebench itself for the words (urfave/cli's hidden
// --generate-bash-completion flag), so they follow the commands and flags
// of the binary that answers.
func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "SHELL",
		Description: `Load it into the running shell, or install it:
  source <(forgebench completion bash)          # bash; or put the output in /etc/bash_completion.d/forgebench
  source <(forgebench completion zsh)           # zsh (through bashcompinit)
  forgebench completion fish > ~/.config/fish/completions/forgebench.fish`,
		Action: func(c *cli.Context) error {
			a, err := args(c, "SHELL")
			if err != nil {
				return err
			}
			w := c.App.Writer
			switch a[0] {
			case "bash":
				_, err = fmt.Fprint(w, bashCompletion)
			case "zsh":
				_, err = fmt.Fprint(w, "autoload -U +X bashcompinit && bashcompinit\n"+bashCompletion)
			case "fish":
				// From an app that has not run: a running one carries urfave/cli's
				// help commands, which are shared between apps and, in a process
				// that has run several (the tests), nest without end.
				var s string
				if s, err = newApp(io.Discard, io.Discard).ToFishCompletion(); err == nil {
					_, err = fmt.Fprint(w, s)
				}
			default:
				return fmt.Errorf("%s: shell %q: want bash, zsh or fish", cmdPath(c), a[0])
			}
			return err
		},
	}
}

// bashCompletion completes forgebench's commands, subcommands and flags by
// asking the binary being completed.
const bashCompletion = `# forgebench completion for bash (forgebench completion bash)
_forgebench_complete() {
  local cur opts
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == "-"* ]]; then
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  return 0
}
complete -o bashdefault -o default -F _forgebench_complete forgebench
`
