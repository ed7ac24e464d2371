package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Shell completion is written here, not taken from a flag library: the
// offline dsplan lives in the root module, which may not depend on one
// (cobra would bring spf13/pflag and more), and both programs share this
// command registry; the scripts are generated from the same FlagSets that
// parse the command line, so a flag added to a command completes at once
// (TestCompletion checks every flag of every command appears).

// runCompletion is "dsplan completion bash|zsh|fish".
func runCompletion(inv *invocation, pos []string) error {
	if len(pos) != 1 {
		return &usageError{fmt.Sprintf("want one shell: %s completion bash|zsh|fish", inv.opts.program())}
	}
	spec := completionSpec(inv.opts)
	switch pos[0] {
	case "bash":
		writeBash(inv.stdout, spec)
	case "zsh":
		writeZsh(inv.stdout, spec)
	case "fish":
		writeFish(inv.stdout, spec)
	default:
		return &usageError{fmt.Sprintf("shell %q: want bash, zsh or fish", pos[0])}
	}
	return nil
}

// completionCommand is what the scripts know of one command.
type completionCommand struct {
	name, summary string
	// flags are the flag names (without dashes), sorted; values lists
	// the fixed values a flag takes, files the flags that name files.
	flags  []string
	values map[string][]string
	files  map[string]bool
	// args are the fixed values of the positional argument.
	args []string
}

// completionSpec builds the commands' completion from their FlagSets.
func completionSpec(opts Options) []completionCommand {
	var out []completionCommand
	add := func(name, summary string, fs *flag.FlagSet) {
		c := completionCommand{name: name, summary: summary, values: map[string][]string{}, files: map[string]bool{}}
		if fs != nil {
			fs.VisitAll(func(f *flag.Flag) {
				c.flags = append(c.flags, f.Name)
				switch f.Name {
				case "f", "svg", "kubeconfig":
					c.files[f.Name] = true
				case "o":
					c.values["o"] = []string{"text", "json", "yaml"}
					if name == "explain" || name == "simulate" {
						c.values["o"] = []string{"text", "json"}
					}
				}
			})
		}
		slices.Sort(c.flags)
		if name == "completion" {
			c.args = []string{"bash", "zsh", "fish"}
		}
		out = append(out, c)
	}
	for i := range commands {
		inv := &invocation{cmd: &commands[i], opts: opts, stderr: io.Discard}
		add(commands[i].name, commands[i].summary, inv.flagSet())
	}
	for _, c := range opts.Commands {
		var fs *flag.FlagSet
		if c.Flags != nil {
			fs = flag.NewFlagSet(c.Name, flag.ContinueOnError)
			c.Flags(fs)
		}
		add(c.Name, c.Summary, fs)
	}
	return out
}

func dashed(flags []string) string {
	out := make([]string, len(flags))
	for i, f := range flags {
		if len(f) == 1 {
			out[i] = "-" + f
		} else {
			out[i] = "--" + f
		}
	}
	return strings.Join(out, " ")
}

func writeBash(w io.Writer, spec []completionCommand) {
	fmt.Fprintf(w, "# bash completion for dsplan; source it: source <(dsplan completion bash)\n")
	fmt.Fprintf(w, "_dsplan() {\n\tlocal cur prev cmd\n\tcur=\"${COMP_WORDS[COMP_CWORD]}\"\n\tprev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	fmt.Fprintf(w, "\tif [[ $COMP_CWORD -eq 1 ]]; then\n\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n\t\treturn\n\tfi\n", strings.Join(names(spec), " "))
	fmt.Fprintf(w, "\tcmd=\"${COMP_WORDS[1]}\"\n\tcase \"$cmd:$prev\" in\n")
	for _, c := range spec {
		for _, f := range c.flags {
			switch {
			case c.files[f]:
				fmt.Fprintf(w, "\t%s:%s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", c.name, dashed([]string{f}))
			case len(c.values[f]) > 0:
				fmt.Fprintf(w, "\t%s:%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n", c.name, dashed([]string{f}), strings.Join(c.values[f], " "))
			}
		}
	}
	fmt.Fprintf(w, "\tesac\n\tcase \"$cmd\" in\n")
	for _, c := range spec {
		words := dashed(c.flags)
		if len(c.args) > 0 {
			words = strings.TrimSpace(words + " " + strings.Join(c.args, " "))
		}
		fmt.Fprintf(w, "\t%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")) ;;\n", c.name, words)
	}
	fmt.Fprintf(w, "\tesac\n}\ncomplete -F _dsplan dsplan kubectl-dsplan\n")
}

func writeZsh(w io.Writer, spec []completionCommand) {
	fmt.Fprintf(w, "#compdef dsplan kubectl-dsplan\n# zsh completion for dsplan: dsplan completion zsh > \"${fpath[1]}/_dsplan\"\n")
	fmt.Fprintf(w, "_dsplan() {\n\tlocal -a commands\n\tcommands=(\n")
	for _, c := range spec {
		fmt.Fprintf(w, "\t\t'%s:%s'\n", c.name, zshQuote(c.summary))
	}
	fmt.Fprintf(w, "\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe 'command' commands\n\t\treturn\n\tfi\n\tcase $words[2] in\n")
	for _, c := range spec {
		fmt.Fprintf(w, "\t%s)\n\t\t_arguments", c.name)
		for _, f := range c.flags {
			action := ""
			switch {
			case c.files[f]:
				action = ":file:_files"
			case len(c.values[f]) > 0:
				action = ":value:(" + strings.Join(c.values[f], " ") + ")"
			}
			fmt.Fprintf(w, " '%s[]%s'", dashed([]string{f}), action)
		}
		if len(c.args) > 0 {
			fmt.Fprintf(w, " '1:value:(%s)'", strings.Join(c.args, " "))
		}
		fmt.Fprintf(w, " ;;\n")
	}
	fmt.Fprintf(w, "\tesac\n}\ncompdef _dsplan dsplan kubectl-dsplan\n")
}

func zshQuote(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "'", "'\\''"), ":", "\\:")
}

func writeFish(w io.Writer, spec []completionCommand) {
	fmt.Fprintf(w, "# fish completion for dsplan: dsplan completion fish | source\n")
	for _, prog := range []string{"dsplan", "kubectl-dsplan"} {
		fmt.Fprintf(w, "complete -c %s -f\n", prog)
		for _, c := range spec {
			fmt.Fprintf(w, "complete -c %s -n '__fish_use_subcommand' -a %s -d '%s'\n", prog, c.name, strings.ReplaceAll(c.summary, "'", "\\'"))
			for _, f := range c.flags {
				opt := "-l " + f
				if len(f) == 1 {
					opt = "-s " + f
				}
				extra := ""
				switch {
				case c.files[f]:
					extra = " -r -F"
				case len(c.values[f]) > 0:
					extra = " -x -a '" + strings.Join(c.values[f], " ") + "'"
				}
				fmt.Fprintf(w, "complete -c %s -n '__fish_seen_subcommand_from %s' %s%s\n", prog, c.name, opt, extra)
			}
			if len(c.args) > 0 {
				fmt.Fprintf(w, "complete -c %s -n '__fish_seen_subcommand_from %s' -a '%s'\n", prog, c.name, strings.Join(c.args, " "))
			}
		}
	}
}

func names(spec []completionCommand) []string {
	out := make([]string, len(spec))
	for i, c := range spec {
		out[i] = c.name
	}
	return out
}
