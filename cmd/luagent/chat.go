package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/runtime/catalog"
)

// chatOptions are `luagent chat`'s.
type chatOptions struct {
	model   string
	agent   string   // --agent FILE
	servers []string // --server NAME...
	resume  string   // --resume FILE
	yes     bool
	code    bool // --code-mode
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
	cc := host.ChatConfig{AgentFile: c.agent, Model: c.model, ModelGiven: c.model != "", Servers: c.servers, Yes: c.yes, CodeMode: c.code, Resume: c.resume, Catalog: cfg.Servers, Secrets: secrets(),
		SessionSecrets: sessionSecrets(cfg), Version: version}
	if c.agent == "" {
		spec, note := askModel(c.model, os.Getenv, cfg)
		cc.Model, cc.ModelNote = spec, note
	}
	return h.Chat(context.Background(), stdin, isTerminal(stdin) && isTerminal(stdout), cc)
}
