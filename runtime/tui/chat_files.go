package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/cmdfile"
	"github.com/luagent/luagent/runtime/permission"
)

// Command files in a chat (runtime/cmdfile): /NAME args sends the file's
// prompt as the next turn, its allowed-tools allowed for that turn;
// /help lists them; Tab completes their names. Built-in commands win a
// shared name.

// loadFiles reads the command files once the trust question is settled,
// and says in one line each what could not be read or was skipped.
func (t *chatTerm) loadFiles() {
	if t.cfg.Commands == nil {
		return
	}
	t.files = t.cfg.Commands()
	for _, p := range t.files.Problems {
		fmt.Fprintf(t.errw, "luagent: %s\n", t.shown(p))
	}
	for _, n := range t.files.Notes {
		fmt.Fprintf(t.errw, "luagent: %s\n", t.shown(n))
	}
}

// loadAgents reads the agent files, saying in one line each what could
// not be read or was skipped.
func (t *chatTerm) loadAgents() []*cmdfile.Agent {
	if t.cfg.Agents == nil {
		return nil
	}
	set := t.cfg.Agents()
	for _, p := range append(set.Problems, set.Notes...) {
		fmt.Fprintf(t.errw, "luagent: %s\n", t.shown(p))
	}
	return set.Agents
}

// fileCommand is the command file a line calls (nil: none, or a
// built-in's name) and the arguments after its name.
func (t *chatTerm) fileCommand(line string) (*cmdfile.Command, string) {
	if t.files == nil {
		return nil, ""
	}
	name, _, args, ok := cmdfile.Call(strings.TrimSpace(line))
	if !ok || chat.IsBuiltin(name) {
		return nil, ""
	}
	return t.files.Find(name), args
}

// runFile sends a command file's prompt as a turn.
func (t *chatTerm) runFile(ctx context.Context, c *cmdfile.Command, args string) {
	prompt, err := c.Prompt(args), error(nil)
	if c.Lua {
		if t.cfg.CommandPrompt == nil {
			t.say("/%s: Lua command files do not run here", c.Name)
			return
		}
		prompt, err = t.cfg.CommandPrompt(ctx, c, args)
		if err != nil {
			t.fail(err)
			return
		}
	}
	if spec := cmdfile.ModelSpec(c.Model); spec != "" {
		// The command's model answers this turn; the conversation goes
		// back to the chat's agent (and model) after it.
		prev := t.s.Agent()
		octx, done := t.op(ctx, time.Minute)
		ag, err := t.s.SetModel(octx, spec)
		done()
		if err != nil {
			t.fail(err)
			return
		}
		t.say("(/%s runs on %s; then back to %s)", c.Name, modelName(ag), modelName(prev))
		defer t.s.SetAgent(prev)
	}
	grants, skipped := c.Grants()
	if c.Untrusted && len(c.AllowedTools) > 0 {
		t.say("(%s: allowed-tools grant nothing: the project folder is not trusted; luagent trust %s)", c.Path, c.Project)
	}
	if len(skipped) > 0 {
		t.say("(%s: allowed-tools %s name no luagent tool; skipped)", filepath.Base(c.Path), strings.Join(skipped, ", "))
	}
	if len(grants) > 0 {
		extra := &permission.Rules{}
		for _, g := range grants {
			if err := extra.Add(approval.Allow, g, c.Path); err != nil {
				t.fail(err)
				return
			}
		}
		ra := t.s.Agent().Agent()
		// The command's allow rules beside the chat's: a deny still wins,
		// and an allow over an ask (the command's author allowed it).
		base, _ := t.rules.(*permission.Rules) // nil: none
		ra.SetRules(permission.Join(base, extra))
		defer func() { t.s.Agent().Agent().SetRules(t.rules) }()
	}
	t.turn(ctx, func(ctx context.Context) (string, error) { return t.s.Turn(ctx, prompt) })
}

// fileHelp is /help's part for the command files.
func (t *chatTerm) fileHelp(b *strings.Builder) {
	if t.files == nil || len(t.files.Commands) == 0 {
		return
	}
	b.WriteString("commands from files (.luagent/commands/, ~/.luagent/commands/):\n")
	for _, c := range t.files.Commands {
		if chat.IsBuiltin(c.Name) && !c.Shadowed {
			continue // the built-in wins
		}
		fmt.Fprintf(b, "  %-38s %s\n", c.Usage(), c.Help())
	}
}

// fileNames complete command files' names after "/".
func (t *chatTerm) fileNames(word string) []string {
	var out []string
	for _, n := range t.files.Names() {
		if strings.HasPrefix("/"+n, word) && !chat.IsBuiltin(n) {
			out = append(out, "/"+n)
		}
	}
	return out
}
