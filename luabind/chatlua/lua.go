// Package chatlua is the Lua side of a chat session (runtime/chat): it
// builds the session's agent, the /model and /meta agents, and evaluates
// /lua lines in the host's Lua state.
package chatlua

import (
	"context"
	"encoding/json"
	"github.com/luagent/luagent/runtime/cmdfile"
	"os"

	lua "github.com/yuin/gopher-lua"

	agentmod "github.com/luagent/luagent/luabind/mod/agent"
	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/visible"
)

// Lua is the session's Lua state (chat.Lua): the agent is built in it and
// /lua lines run in it, by the functions of stdlib/chat.lua. Its loop must
// be running (sched.Loop.Run on some goroutine) while these are called,
// from any other goroutine.
type Lua struct {
	lp      *sched.Loop
	load    func(src []byte, name string) (*lua.LFunction, error)
	agentFn *lua.LFunction // LoadAgent's (loop goroutine only)
	agent   lua.LValue     // the stdlib agent value (loop goroutine only)
	mod     *lua.LTable    // require("luagent.chat")
}

var _ chat.Lua = (*Lua)(nil)

// NewLua returns the session's side of a loop; load compiles an --agent
// file (host.LoadAgentFile: Lua, or an agents-exe JSON file).
func NewLua(lp *sched.Loop, load func(src []byte, name string) (*lua.LFunction, error)) *Lua {
	return &Lua{lp: lp, load: load}
}

// LoadAgent reads and compiles an --agent file for Build.
func (l *Lua) LoadAgent(file string) error {
	src, err := os.ReadFile(file)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return errs.Errorf(errs.NotFound, "", "cannot read %s: %v", visible.Line(file), err)
	}
	done := make(chan error, 1)
	l.lp.Post(func() {
		fn, err := l.load(src, file)
		l.agentFn = fn
		done <- err
	})
	return <-done
}

// Build makes the session's agent (stdlib/chat.lua's build).
func (l *Lua) Build(ctx context.Context, o chat.BuildOptions) (chat.Agent, error) {
	var h *agentmod.Handle
	name := o.Name
	if name == "" {
		name = "chat"
	}
	err := l.run(ctx, name, "build", func(L *lua.LState) []lua.LValue {
		t := L.CreateTable(0, 10)
		t.RawSetString("name", lua.LString(name))
		if o.AgentFile != "" && l.agentFn != nil {
			t.RawSetString("agent_fn", l.agentFn)
			t.RawSetString("agent_file", lua.LString(o.AgentFile))
		}
		if o.Model != "" {
			t.RawSetString("model", lua.LString(o.Model))
		}
		if len(o.FallbackModels) > 0 {
			ft := L.CreateTable(len(o.FallbackModels), 0)
			for _, s := range o.FallbackModels {
				ft.Append(lua.LString(s))
			}
			t.RawSetString("fallback_models", ft)
		}
		if len(o.Servers) > 0 {
			st := L.CreateTable(len(o.Servers), 0)
			for _, s := range o.Servers {
				st.Append(lua.LString(s))
			}
			t.RawSetString("servers", st)
		}
		if o.Yes {
			t.RawSetString("yes", lua.LTrue)
		}
		if o.CodeMode {
			t.RawSetString("code_mode", lua.LTrue)
		}
		if o.ContextWindow > 0 {
			t.RawSetString("context_window", lua.LNumber(o.ContextWindow))
		}
		if o.OwnHub {
			t.RawSetString("own_hub", lua.LTrue)
		}
		if o.Dir != "" {
			t.RawSetString("dir", lua.LString(o.Dir))
		}
		if o.Warn != nil {
			warn := o.Warn
			t.RawSetString("warn", L.NewFunction(func(L *lua.LState) int {
				warn(L.CheckString(1))
				return 0
			}))
		}
		if o.Elicit != nil {
			t.RawSetString("elicit", l.elicitFn(o.Elicit))
		}
		if o.Memory != "" {
			t.RawSetString("memory", lua.LString(o.Memory))
		}
		if o.MemorySkipped != nil {
			skipped := o.MemorySkipped
			t.RawSetString("memory_skipped", L.NewFunction(func(L *lua.LState) int {
				skipped()
				return 0
			}))
		}
		if len(o.Subagents) > 0 {
			t.RawSetString("subagents", subagents(L, o.Subagents))
		}
		return []lua.LValue{t}
	}, func(L *lua.LState, rs []lua.LValue) error {
		return l.keep(rs, &h)
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// elicitFn is the on_elicit a hub calls with a request's params and the
// server asking: the task waits while answer runs on a goroutine of its
// own.
func (l *Lua) elicitFn(answer func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)) *lua.LFunction {
	return l.lp.Async("chat.elicit", func(L *lua.LState) sched.Start {
		params, err := value.Encode(value.MarkObject(L.CheckTable(1)), value.EncodeOptions{})
		server := L.OptString(2, "")
		return func(ctx context.Context, done func(sched.Completion)) {
			go func() {
				if err != nil {
					done(sched.Fail(errs.Wrap(errs.Invalid, "elicit", err)))
					return
				}
				// The person's time answering is not the tool call's.
				waited := approval.Asking(server)
				res, err := answer(ctx, server, params)
				waited()
				if err != nil {
					done(sched.Fail(err))
					return
				}
				done(func(L *lua.LState) ([]lua.LValue, error) {
					v, err := value.Decode(L, res)
					return []lua.LValue{v}, err
				})
			}()
		}
	})
}

// WithModel makes the agent again with another model (its policy, hooks
// and tools kept); the session moves the conversation over.
func (l *Lua) WithModel(ctx context.Context, model string) (chat.Agent, error) {
	var h *agentmod.Handle
	err := l.run(ctx, "/model", "with_model", func(L *lua.LState) []lua.LValue {
		return []lua.LValue{l.agent, lua.LString(model)}
	}, func(L *lua.LState, rs []lua.LValue) error {
		return l.keep(rs, &h)
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (l *Lua) keep(rs []lua.LValue, h **agentmod.Handle) error {
	if len(rs) == 0 {
		return errs.New(errs.Internal, "chat", "the agent was not built")
	}
	got, ok := agentmod.Unwrap(rs[0])
	if !ok {
		return errs.New(errs.Invalid, "chat", "the agent is not an agent.new value")
	}
	l.agent, *h = rs[0], got
	return nil
}

// Eval runs one line of Lua (/lua CODE) and returns what it printed as
// its value ("" for none).
func (l *Lua) Eval(ctx context.Context, code string) (string, error) {
	var out string
	err := l.run(ctx, "/lua", "eval", func(L *lua.LState) []lua.LValue {
		return []lua.LValue{lua.LString(code)}
	}, func(L *lua.LState, rs []lua.LValue) error {
		if len(rs) > 0 {
			out = lua.LVAsString(rs[0])
		}
		return nil
	})
	return out, err
}

// DefaultHub is the hub agents share by default (agent.default_hub()):
// made, and its servers started in the background, on first use.
func (l *Lua) DefaultHub(ctx context.Context) (*hub.Hub, error) {
	var h *hub.Hub
	err := l.run(ctx, "/mcp", "default_hub", nil, func(L *lua.LState, rs []lua.LValue) error {
		if len(rs) > 0 {
			if ud, ok := rs[0].(*lua.LUserData); ok {
				if hh, ok := ud.Value.(interface{ Hub() *hub.Hub }); ok {
					h = hh.Hub()
					return nil
				}
			}
		}
		return errs.New(errs.Internal, "chat", "agent.default_hub() did not return a hub")
	})
	return h, err
}

// run runs stdlib/chat.lua's function fname as a task with args(L) and
// hands its results to read, both on the loop goroutine; it waits for the
// task, and interrupts it when ctx ends.
func (l *Lua) run(ctx context.Context, name, fname string, args func(L *lua.LState) []lua.LValue, read func(L *lua.LState, rs []lua.LValue) error) error {
	return l.lp.Call(ctx, sched.Call{
		Name: name,
		Func: func(L *lua.LState) (*lua.LFunction, []lua.LValue, error) {
			fn, err := l.function(L, fname)
			if err != nil {
				return nil, nil, errs.Wrap(errs.Internal, "chat", err)
			}
			var in []lua.LValue
			if args != nil {
				in = args(L)
			}
			return fn, in, nil
		},
		Read: read,
	})
}

// function is stdlib/chat.lua's function name, the module loaded on first
// use as luagent.chat (and /meta's as luagent.meta): a user's chat.lua or
// meta.lua must not stand in for them.
func (l *Lua) function(L *lua.LState, name string) (*lua.LFunction, error) {
	if l.mod == nil {
		preload.Embedded(L, "luagent.chat", "chat")
		preload.Embedded(L, "luagent.meta", "meta")
		if err := L.CallByParam(lua.P{Fn: L.GetGlobal("require"), NRet: 1, Protect: true}, lua.LString("luagent.chat")); err != nil {
			return nil, errs.Wrap(errs.Internal, "chat", err)
		}
		mod, ok := L.Get(-1).(*lua.LTable)
		L.Pop(1)
		if !ok {
			return nil, errs.New(errs.Internal, "chat", "luagent.chat is not a module table")
		}
		l.mod = mod
	}
	fn, ok := l.mod.RawGetString(name).(*lua.LFunction)
	if !ok {
		return nil, errs.Errorf(errs.Internal, "chat", "luagent.chat has no function %s", name)
	}
	return fn, nil
}

// subagents are the agent files as stdlib's agent.file_agents reads them.
func subagents(L *lua.LState, list []*cmdfile.Agent) *lua.LTable {
	strs := func(ss []string) *lua.LTable {
		t := L.CreateTable(len(ss), 0)
		for _, s := range ss {
			t.Append(lua.LString(s))
		}
		return t
	}
	out := L.CreateTable(len(list), 0)
	for _, a := range list {
		t := L.CreateTable(0, 8)
		t.RawSetString("name", lua.LString(a.Name))
		t.RawSetString("path", lua.LString(a.Path))
		if a.Lua {
			t.RawSetString("lua", lua.LTrue)
		}
		if a.Description != "" {
			t.RawSetString("description", lua.LString(a.Description))
		}
		t.RawSetString("system", lua.LString(a.System))
		if a.Model != "" {
			t.RawSetString("model", lua.LString(a.Model))
		}
		if a.Servers != nil {
			t.RawSetString("servers", strs(a.Servers))
		}
		if a.Tools != nil {
			names, _ := a.MCPTools()
			t.RawSetString("tools", strs(names))
		}
		out.Append(t)
	}
	return out
}
