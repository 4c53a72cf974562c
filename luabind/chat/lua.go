package chat

import (
	"context"
	"encoding/json"

	lua "github.com/yuin/gopher-lua"

	agentmod "github.com/luagent/luagent/luabind/mod/agent"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
)

// Lua is the session's Lua state: the agent is built in it and /lua lines
// run in it. Its loop must be running (sched.Loop.Run on some goroutine)
// while these are called, from any other goroutine.
type Lua struct {
	lp    *sched.Loop
	agent lua.LValue // the stdlib agent value (loop goroutine only)
}

// NewLua returns the session's side of a loop.
func NewLua(lp *sched.Loop) *Lua { return &Lua{lp: lp} }

// BuildOptions say which agent a session has.
type BuildOptions struct {
	// AgentFn is --agent's compiled file (it returns agent.new{...});
	// nil builds the default agent over the user's catalog.
	AgentFn   *lua.LFunction
	AgentFile string
	// Model overrides the agent's ("" keeps it: for the default agent,
	// LUAGENT_MODEL, else the catalog's, else mock).
	Model string
	Yes   bool
	// CodeMode offers the model run_lua instead of the tools (--code-mode).
	CodeMode bool
	// Elicit answers the servers' elicitation requests (nil: the hub
	// does not offer elicitation). It runs on its own goroutine.
	Elicit func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)
}

// buildChunk makes the agent: --agent's with --model and --yes applied
// (as luagent ask does), or a default one on the shared default hub.
const buildChunk = `
local fn, file, model, yes, elicit, code_mode = ...
if elicit then agent.default_hub_options{ on_elicit = elicit } end
local a
if fn then
  a = fn()
  if type(a) == "table" and not agent.is(a) and agent.is(a[1]) then a = a[1] end
  if not agent.is(a) then
    error({ kind = "invalid", message = file .. " must return an agent (return agent.new{...})" }, 0)
  end
  local changes = {}
  if model then changes.model = model end
  if yes then changes.yes = true end
  if code_mode then changes.code_mode = true end
  if next(changes) then a = a:with(changes) end
else
  a = agent.new{ name = "chat", model = model, yes = yes or nil, code_mode = code_mode or nil }
end
return a
`

const withChunk = `
local a, model = ...
return a:with{ model = model }
`

// evalChunk runs one line, as an expression when it is one (so "1+1"
// shows 2), and renders what it returns: tables through inspect.
const evalChunk = `
local code = ...
local f, err = loadstring("return " .. code, "lua")
if not f then f, err = loadstring(code, "lua") end
if not f then error({ kind = "syntax", message = err }, 0) end
local function render(...)
  local out = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    local mt = getmetatable(v)
    if type(v) == "table" and not (type(mt) == "table" and mt.__tostring) then
      out[i] = inspect(v)
    else
      out[i] = tostring(v)
    end
  end
  return table.concat(out, "\t")
end
return render(f())
`

// Build makes the session's agent.
func (l *Lua) Build(ctx context.Context, o BuildOptions) (*agentmod.Handle, error) {
	var h *agentmod.Handle
	err := l.run(ctx, "chat", buildChunk, func(L *lua.LState) []lua.LValue {
		args := []lua.LValue{lua.LNil, lua.LString(o.AgentFile), lua.LNil, lua.LBool(o.Yes), lua.LNil, lua.LBool(o.CodeMode)}
		if o.Elicit != nil {
			args[4] = l.elicitFn(o.Elicit)
		}
		if o.AgentFn != nil {
			args[0] = o.AgentFn
		}
		if o.Model != "" {
			args[2] = lua.LString(o.Model)
		}
		return args
	}, func(L *lua.LState, rs []lua.LValue) error {
		return l.keep(rs, &h)
	})
	return h, err
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
func (l *Lua) WithModel(ctx context.Context, model string) (*agentmod.Handle, error) {
	var h *agentmod.Handle
	err := l.run(ctx, "/model", withChunk, func(L *lua.LState) []lua.LValue {
		return []lua.LValue{l.agent, lua.LString(model)}
	}, func(L *lua.LState, rs []lua.LValue) error {
		return l.keep(rs, &h)
	})
	return h, err
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
	err := l.run(ctx, "/lua", evalChunk, func(L *lua.LState) []lua.LValue {
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
	err := l.run(ctx, "/mcp", `return agent.default_hub()`, nil, func(L *lua.LState, rs []lua.LValue) error {
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

// run compiles src, runs it as a task with args(L) and hands its results
// to read, both on the loop goroutine; it waits for the task, and
// interrupts it when ctx ends.
func (l *Lua) run(ctx context.Context, name, src string, args func(L *lua.LState) []lua.LValue, read func(L *lua.LState, rs []lua.LValue) error) error {
	done := make(chan error, 1)
	var task *sched.Task
	started := make(chan struct{})
	l.lp.Post(func() {
		L := l.lp.L
		fn, err := L.LoadString(src)
		if err != nil {
			done <- errs.Wrap(errs.Internal, "chat", err)
			close(started)
			return
		}
		var in []lua.LValue
		if args != nil {
			in = args(L)
		}
		task = l.lp.Spawn(fn, in, sched.SpawnOptions{Name: name})
		close(started)
		task.OnDone(func(t *sched.Task) {
			if f := t.Failure(); f != nil {
				done <- &errs.Error{Kind: f.Kind, Op: name, Msg: f.Message}
				return
			}
			done <- read(L, t.Results())
		})
	})
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		<-started
		if task != nil {
			task.Interrupt(errs.New(errs.Cancelled, name, "interrupted"))
		}
		return <-done
	}
}
