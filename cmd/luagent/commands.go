package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/luagent/luagent/luabind/cmdlua"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/project"
	"github.com/luagent/luagent/runtime/visible"
)

// fileOptions are where ask and chat find command and agent files: the
// project's folder (runtime/project.Root, else the working folder) and
// $LUAGENT_HOME, and whether the project's folder is trusted.
func fileOptions() cmdfile.Options {
	cwd, err := os.Getwd()
	if err != nil {
		return cmdfile.Options{Home: host.Home()}
	}
	return fileOptionsIn(cwd)
}

// fileOptionsIn is fileOptions for the project cwd is in (an ACP
// session's folder).
func fileOptionsIn(cwd string) cmdfile.Options {
	home := host.Home()
	root := project.Root(cwd)
	if root == "" {
		root = cwd
	}
	return cmdfile.Options{Home: home, ProjectDir: root, Trusted: project.Trusted(home, root)}
}

// askSlash is `luagent ask "/NAME args"`: the command file's prompt, its
// model (unless --model) and its allowed-tools (allow rules for this run,
// their source the file). A
// prompt is a command when its first word is / and a name: "/tmp/x
// explain" (a path: a second /) and "//text" (the slash doubled: sent as
// "/text") are prompts; so is "/word ..." when no command has that name
// and /word is a file or folder. Otherwise an unknown /word is a usage
// error (exit 2) saying how to see the commands.
func askSlash(a *askOptions, prompt string, stderr io.Writer) (string, int, bool) {
	if strings.HasPrefix(prompt, "//") {
		return prompt[1:], 0, true
	}
	name, first, args, ok := cmdfile.Call(prompt)
	if !ok {
		return prompt, 0, true
	}
	set := cmdfile.LoadCommands(fileOptions())
	for _, p := range set.Problems {
		fmt.Fprintln(stderr, "luagent: "+visible.Text(p))
	}
	c := set.Find(name)
	if c == nil || c.Lua {
		for _, n := range set.Notes { // an untrusted project's .lua files
			fmt.Fprintln(stderr, "luagent: "+visible.Text(n))
		}
	}
	if c == nil {
		if _, err := os.Stat(first); err == nil {
			return prompt, 0, true // a path: the prompt is about it
		}
		fmt.Fprintf(stderr, "luagent: unknown command /%s: %s; a prompt starting with / is written //...\n", visible.Text(name), commandsHint(set))
		return "", host.ExitUsage, false
	}
	out, err := cmdlua.Prompt(context.Background(), c, args)
	if err != nil {
		fmt.Fprintf(stderr, "luagent: /%s: %s\n", name, visible.Text(errs.Message(err)))
		return "", host.ExitError, false
	}
	if spec := cmdfile.ModelSpec(c.Model); spec != "" && a.model == "" {
		a.model = spec
	}
	grants, skipped := c.Grants()
	if c.Untrusted && len(c.AllowedTools) > 0 {
		fmt.Fprintf(stderr, "luagent: %s: allowed-tools grant nothing: the project folder is not trusted (luagent trust %s)\n", visible.Text(c.Path), visible.Text(c.Project))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(stderr, "luagent: %s: allowed-tools %s name no luagent tool; skipped\n", visible.Text(c.Path), visible.Text(strings.Join(skipped, ", ")))
	}
	a.grants, a.grantSource = grants, c.Path
	return out, 0, true
}

// commandsHint says which commands there are and where they live.
func commandsHint(set *cmdfile.Set) string {
	names := set.Names()
	if len(names) == 0 {
		return "no command files here; write .luagent/commands/NAME.md (or ~/.luagent/commands/NAME.md)"
	}
	if len(names) > 12 {
		names = append(names[:12], "...")
	}
	return "the commands are /" + strings.Join(names, ", /") + " (luagent chat's /help describes them)"
}

// fileAgents are the agent files (.luagent/agents/, $LUAGENT_HOME/agents/)
// for ask, what could not be read or was skipped said in one line each.
func fileAgents(stderr io.Writer, shown func(string) string) []*cmdfile.Agent {
	return fileAgentsFrom(fileOptions(), func(p string) { fmt.Fprintln(stderr, "luagent: "+shown(p)) })
}

// fileAgentsFrom are the agent files o finds, each problem passed to warn.
func fileAgentsFrom(o cmdfile.Options, warn func(string)) []*cmdfile.Agent {
	set := cmdfile.LoadAgents(o)
	for _, p := range append(set.Problems, set.Notes...) {
		warn(p)
	}
	return set.Agents
}

// slashPrompt is a stream-json input message's prompt: "/NAME args" of
// a command file expanded (its model and allowed-tools are for a whole
// run and do not apply to one message); any other text as it is, an
// unknown /word included.
func slashPrompt(ctx context.Context, text string) (string, error) {
	return slashPromptFrom(ctx, text, fileOptions)
}

// slashPromptFrom is slashPrompt with the command files o finds (asked
// only for a prompt that calls one: finding them reads the disk).
func slashPromptFrom(ctx context.Context, text string, o func() cmdfile.Options) (string, error) {
	trimmed := strings.TrimLeft(text, " ")
	if strings.HasPrefix(trimmed, "//") {
		return trimmed[1:], nil // the slash doubled, as in ask
	}
	name, _, args, ok := cmdfile.Call(trimmed)
	if !ok {
		return text, nil
	}
	c := cmdfile.LoadCommands(o()).Find(name)
	if c == nil {
		return text, nil
	}
	return cmdlua.Prompt(ctx, c, args)
}
