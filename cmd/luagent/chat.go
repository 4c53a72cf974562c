package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/luagent/luagent/luabind/cmdlua"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/cmdfile"
)

// chatOptions are `luagent chat`'s.
type chatOptions struct {
	model     string
	fallbacks []string // --fallback-model M...
	agent     string   // --agent FILE
	servers   []string // --server NAME...
	resume    string   // --resume FILE
	yes       bool
	code      bool // --code-mode
	window    int  // --context-window
	// allow and deny are --allow's and --deny's patterns.
	allow, deny []string
	// noMemory is --no-memory; noNotify is --no-notify.
	noMemory, noNotify bool
	// maxTurns and maxCost are --max-turns and --max-cost (0: the agent's own).
	maxTurns int
	maxCost  float64
}

// runChat is `luagent chat`.
func runChat(o options, h *host.Host, stdin io.Reader, stdout io.Writer) int {
	c := o.chat
	cfg, err := catalog.Load(catalog.Path(host.Home()))
	if err != nil {
		fmt.Fprintf(h.Stderr(), "luagent: %v\n", err)
		return host.ExitError
	}
	if code, ok := checkServers(cfg, c.servers, c.agent, h.Stderr()); !ok {
		return code
	}
	interactive := isTerminal(stdin) && isTerminal(stdout)
	perms, code, ok := permissionSetup(cfg, c.allow, c.deny, h.Stderr(), interactive)
	if !ok {
		return code
	}
	cc := host.ChatConfig{AgentFile: c.agent, Model: c.model, ModelGiven: c.model != "", FallbackModels: c.fallbacks, Servers: c.servers, Yes: c.yes, CodeMode: c.code, Resume: c.resume, Catalog: cfg.Servers, Secrets: secrets(),
		SessionSecrets: sessionSecrets(cfg), Version: version}
	cc.Perms = perms
	cc.MaxTurns, cc.MaxCost = c.maxTurns, c.maxCost
	cc.ContextWindow = c.window
	if c.agent == "" {
		spec, note := askModel(c.model, os.Getenv, cfg)
		cc.Model, cc.ModelNote = spec, note
	}
	cc.Memory, cc.NoMemory = projectMemory(cfg, c.noMemory), c.noMemory
	cc.Notify = notifyMode(cfg, c.noNotify, os.Getenv)
	cc.Commands = func() *cmdfile.Set { // commands.go: read after chat's trust question
		s := cmdfile.LoadCommands(fileOptions())
		cmdlua.Describe(context.Background(), s)
		return s
	}
	cc.Agents = func() *cmdfile.AgentSet { return cmdfile.LoadAgents(fileOptions()) }
	return h.Chat(context.Background(), stdin, interactive, cc)
}
