package main

import (
	"os"
	"path/filepath"

	"fmt"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/project"
	"io"

	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/render"
)

// `luagent hooks list`: the lifecycle hooks configured, and where.

func hooksCmd(o *options, code *int, stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{
		Use:   "hooks list",
		Short: "the lifecycle hooks configured (config.json's \"hooks\"), and where",
		Long: `Lists the command hooks every agent runs (ask, chat, agent.new{}): each
event, matcher, command, timeout and the file that configures it, in the
order they run. The format is Claude Code's settings "hooks" member;
stdlib/doc/hooks.md describes the events and what a hook reads and prints.`,
		Example: "  luagent hooks list",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 || args[0] != "list" {
				return usagef("hooks takes one verb, list: luagent hooks list")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			*code = runHooksList(stdout, stderr)
			return nil
		},
	}
	return c
}

func runHooksList(stdout, stderr io.Writer) int {
	path := catalogPath()
	cfg, err := catalog.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return 1
	}
	hs := cfg.HooksFrom(path)
	cwd, _ := os.Getwd()
	ph, dir, ignored, err := project.Hooks(host.Home(), cwd)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: %v\n", err)
		return 1
	}
	listHooks(stdout, hs.Merge(ph))
	if ignored {
		fmt.Fprintf(stdout, "(the hooks in %s are not run: the folder is not trusted; luagent trust %s)\n", filepath.Join(dir, project.Folder, project.Name), dir)
	}
	return 0
}

// listHooks prints hs as a table, one row per command; a hook luagent does
// not run says why.
func listHooks(w io.Writer, hs hooks.Config) {
	if len(hs.Groups) == 0 {
		fmt.Fprintln(w, `no hooks configured (add them to config.json's "hooks": stdlib/doc/hooks.md)`)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tMATCHER\tCOMMAND\tTIMEOUT\tSOURCE")
	for _, g := range hs.Groups {
		matcher := g.Matcher
		if matcher == "" {
			matcher = "*"
		}
		for i, h := range g.Hooks {
			cmd, timeout := render.OneLine(h.Command, 60), h.Timeout.Round(time.Millisecond).String()
			switch {
			case !hooks.Fired(g.Event):
				cmd += " (never runs: luagent has no " + g.Event + " event)"
			case !h.Runs():
				cmd, timeout = "("+h.Type+" hook: luagent runs only command hooks)", "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.Event, matcher, cmd, timeout, fmt.Sprintf("%s (%s.hooks[%d])", g.Source, g.Path, i))
		}
	}
	tw.Flush()
}
