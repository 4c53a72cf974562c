package chat

import (
	"context"
	"encoding/json"
	"github.com/luagent/luagent/runtime/cmdfile"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

// Lua is what a session needs of a Lua state: its agent built there (the
// user's --agent file, or stdlib's default), again on another model, the
// /meta catalog agent, and /lua lines run there. luabind/chatlua is the
// one implementation; the session itself holds no Lua.
type Lua interface {
	// LoadAgent reads and compiles an --agent file for Build; its error
	// says what failed in one line (print it after "luagent: ").
	LoadAgent(file string) error
	// Build makes the session's agent.
	Build(ctx context.Context, o BuildOptions) (Agent, error)
	// WithModel makes the agent again with another model (its policy,
	// hooks and tools kept); the session moves the conversation over.
	WithModel(ctx context.Context, model string) (Agent, error)
	// BuildMeta makes /meta's catalog agent on the current agent's model.
	BuildMeta(ctx context.Context, o MetaOptions) (Agent, error)
	// Eval runs one line of Lua (/lua CODE) and returns what it printed
	// as its value ("" for none).
	Eval(ctx context.Context, code string) (string, error)
}

// BuildOptions say which agent a session (or an ask) has.
type BuildOptions struct {
	// Name is the default agent's ("chat", "ask").
	Name string
	// AgentFile is --agent's file, loaded by Lua.LoadAgent first ("":
	// the default agent over the user's catalog).
	AgentFile string
	// Model overrides the agent's ("" keeps it: for the default agent,
	// LUAGENT_MODEL, else the catalog's, else mock).
	Model string
	// FallbackModels are --fallback-model's: they replace the agent's
	// fallback models (for the default agent, config.json's
	// fallbackModels).
	FallbackModels []string
	// Servers are --server's: only these start.
	Servers []string
	Yes     bool
	// CodeMode offers the model run_lua instead of the tools (--code-mode).
	CodeMode bool
	// ContextWindow is --context-window: the model's window in tokens (0:
	// the agent's, the catalog's, or a known model's).
	ContextWindow int
	// OwnHub gives the default agent a hub of its own whose servers it
	// waits for (ask), each failure passed to Warn; otherwise it shares
	// the default hub, started in the background (chat).
	OwnHub bool
	// Dir is the folder the own hub's servers run in when their entry
	// names none (an ACP session's cwd; "": the working folder).
	Dir  string
	Warn func(msg string)
	// Elicit answers the servers' elicitation requests (nil: the hub
	// does not offer elicitation). It runs on its own goroutine.
	Elicit func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)
	// Memory is the project memory's system prompt section
	// (runtime/memory; "": none). MemorySkipped is called when the agent
	// file's agent opts out of it (agent.new{memory = false}).
	Memory        string
	MemorySkipped func()
	// Subagents are the agent files' agents (runtime/cmdfile), offered
	// to the agent as tools (agents = {...}).
	Subagents []*cmdfile.Agent
}

// MetaOptions configure the catalog agent.
type MetaOptions struct {
	// Path is the catalog's file.
	Path string
	// Confirm shows a change (exactly the lines of the file that change,
	// secrets as <hidden>) and says whether the person wants it saved;
	// ctx ends when the turn is cancelled. It runs on a goroutine of its
	// own while the agent's tool call waits.
	Confirm func(ctx context.Context, text string) bool
	// Saved runs after a confirmed change was written (op: add, replace,
	// remove, enable, disable); what it returns the model is told.
	Saved func(name, op string) string
}

func (s *Session) lua(what string) (Lua, error) {
	if s.o.Lua == nil {
		return nil, errs.Errorf(errs.Invalid, "chat", "%s needs Lua, and this session has none", what)
	}
	return s.o.Lua, nil
}

// SetModel makes the agent again on model (Lua.WithModel) and goes on
// with the conversation on it.
func (s *Session) SetModel(ctx context.Context, model string) (Agent, error) {
	l, err := s.lua("/model")
	if err != nil {
		return nil, err
	}
	a, err := l.WithModel(ctx, model)
	if err != nil {
		return nil, err
	}
	s.SetAgent(a)
	return a, nil
}

// Eval runs one line of Lua (/lua CODE) and returns its value as text.
func (s *Session) Eval(ctx context.Context, code string) (string, error) {
	l, err := s.lua("/lua")
	if err != nil {
		return "", err
	}
	return l.Eval(ctx, code)
}

// Meta is /meta REQUEST: MetaTurn with the catalog agent Lua.BuildMeta
// makes.
func (s *Session) Meta(ctx context.Context, request string, o MetaOptions, onEvent func(ragent.Event)) (string, error) {
	l, err := s.lua("/meta")
	if err != nil {
		return "", err
	}
	return s.MetaTurn(ctx, request, func(ctx context.Context) (Agent, error) { return l.BuildMeta(ctx, o) }, onEvent)
}
