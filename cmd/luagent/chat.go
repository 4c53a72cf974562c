package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
)

// chatOptions are `luagent chat`'s.
type chatOptions struct {
	model  string
	agent  string // --agent FILE
	resume string // --resume FILE
	yes    bool
	code   bool // --code-mode
}

func parseChat(o options, rest []string, stdout, stderr io.Writer) (options, int, bool) {
	c := &chatOptions{}
	o.chat = c
	for i := 0; i < len(rest); i++ {
		arg := rest[i]
		need := func(name, example string) (string, bool) { return needValue(rest, &i, name, example, stderr) }
		var ok bool
		switch {
		case isHelp(arg):
			return o, printUsage(stdout, chatUsage), false
		case arg == "--yes" || arg == "-y":
			c.yes = true
			continue
		case arg == "--code-mode":
			c.code = true
			continue
		case arg == "--model" || strings.HasPrefix(arg, "--model="):
			c.model, ok = need("--model", "luagent chat --model openai:gpt-4.1-mini")
		case arg == "--agent" || strings.HasPrefix(arg, "--agent="):
			c.agent, ok = need("--agent", "luagent chat --agent examples/agent.lua")
		case arg == "--resume" || strings.HasPrefix(arg, "--resume="):
			c.resume, ok = need("--resume", "luagent chat --resume ~/.luagent/sessions/FILE.json")
		default:
			fmt.Fprintf(stderr, "luagent: unknown chat option %s (luagent chat --help lists them)\n", arg)
			return o, host.ExitUsage, false
		}
		if !ok {
			return o, host.ExitUsage, false
		}
	}
	return o, 0, true
}

// runChat is `luagent chat`.
func runChat(o options, h *host.Host, stdin io.Reader, stdout io.Writer) int {
	c := o.chat
	cfg, err := catalog.Load(catalog.Path(host.Home()))
	if err != nil {
		fmt.Fprintf(h.Stderr(), "luagent: %v\n", err)
		return host.ExitError
	}
	cc := host.ChatConfig{AgentFile: c.agent, Model: c.model, ModelGiven: c.model != "", Yes: c.yes, CodeMode: c.code, Resume: c.resume, Catalog: cfg.Servers, Secrets: secrets()}
	if c.agent == "" {
		spec, note := askModel(c.model, os.Getenv, cfg)
		cc.Model, cc.ModelNote = spec, note
	}
	return h.Chat(context.Background(), stdin, isTerminal(stdin) && isTerminal(stdout), cc)
}
