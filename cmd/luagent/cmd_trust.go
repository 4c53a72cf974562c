package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/project"
	"github.com/luagent/luagent/runtime/visible"
)

// `luagent trust [DIR]`, `--list`, `--remove DIR`: the folders whose
// project file (.luagent/config.json) may allow tools and run hooks
// (runtime/project).
func trustCmd(o *options, code *int, stdout, stderr io.Writer) *cobra.Command {
	var list bool
	var remove string
	c := &cobra.Command{
		Use:   "trust [DIR] | --list | --remove DIR",
		Short: "trust a folder's .luagent/config.json: its allow rules and hooks apply (deny and ask rules always do)",
		Long: `A project's .luagent/config.json (in the working folder or a parent up to
the repository root) comes from whoever wrote the repository. Its deny and
ask rules always apply; its allow rules and hooks only in a folder you
trust. luagent trust DIR trusts DIR and every folder in it (default: the
current project's folder, else the repository's root, else the working
folder); --list shows the trusted folders; --remove DIR forgets one. The
list is kept in ~/.luagent/trusted_folders.json (LUAGENT_HOME replaces
~/.luagent).`,
		Example: `  luagent trust --list`,
		Annotations: map[string]string{
			"usage": "usage: luagent trust [DIR] | --list | --remove DIR\n",
		},
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usagef("trust takes one folder: luagent trust DIR")
			case (list || remove != "") && len(args) > 0:
				return usagef("trust --list and --remove take no other folder: luagent trust --remove DIR")
			case list && remove != "":
				return usagef("trust takes --list or --remove, not both")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			*code = runTrust(args, list, remove, stdout, stderr)
			return nil
		},
	}
	later(o, c, func() {
		d := flagDecl{fs: c.Flags()}
		d.boolean(&list, "list", "list the trusted folders")
		d.str(&remove, "remove", "DIR", "forget that DIR is trusted", "--remove needs a folder: luagent trust --remove DIR")
	})
	return c
}

func runTrust(args []string, list bool, remove string, stdout, stderr io.Writer) int {
	home := host.Home()
	fail := func(err error) int {
		fmt.Fprintf(stderr, "luagent: %s\n", visible.Text(err.Error()))
		return host.ExitError
	}
	switch {
	case list:
		l, err := project.List(home)
		if err != nil {
			return fail(err)
		}
		if len(l) == 0 {
			fmt.Fprintln(stderr, "no trusted folders (luagent trust DIR trusts one)")
		}
		for _, d := range l {
			fmt.Fprintln(stdout, visible.Line(d))
		}
		return host.ExitOK
	case remove != "":
		d, err := project.Clean(remove)
		if err != nil {
			return fail(err)
		}
		was, err := project.Remove(home, d)
		if err != nil {
			return fail(err)
		}
		if !was {
			fmt.Fprintf(stderr, "luagent: %s was not trusted (luagent trust --list shows the trusted folders)\n", visible.Line(d))
			return host.ExitError
		}
		fmt.Fprintf(stdout, "no longer trusted: %s\n", visible.Line(d))
		return host.ExitOK
	}
	dir := ""
	if len(args) == 1 {
		dir = args[0]
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "luagent: %s is not a folder\n", visible.Line(dir))
			return host.ExitUsage
		}
	} else {
		cwd, err := os.Getwd()
		if err != nil {
			return fail(err)
		}
		if dir = project.Root(cwd); dir == "" {
			dir = cwd
		}
	}
	d, err := project.Trust(home, dir)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "trusted: %s (its .luagent/config.json's allow rules and hooks apply; luagent trust --remove undoes it)\n", visible.Line(d))
	return host.ExitOK
}
