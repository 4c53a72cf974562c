package chatlua

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	agentmod "github.com/luagent/luagent/luabind/mod/agent"
	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/errs"
)

// /meta REQUEST: the catalog agent of stdlib/meta.lua, on the session's
// model, edits the catalog for the person. Its turns are a conversation
// of their own (a later /meta goes on with it; the chat's conversation
// neither sees nor saves them). Each write is shown and confirmed first
// (MetaOptions.Confirm); after one, only the server it changed starts,
// stops or restarts.

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

// metaChunk builds the catalog agent with the main agent's model (nil:
// the default one, as for the main agent).
const metaChunk = `
local main, path, confirm, saved = ...
local meta = require("luagent.meta")
local model = main and main._opts and main._opts.model
return meta.new{ model = model, catalog = mcp.catalog(path), confirm = confirm, on_saved = saved }
`

// BuildMeta makes the catalog agent on the current agent's model.
func (l *Lua) BuildMeta(ctx context.Context, o MetaOptions) (*agentmod.Handle, error) {
	var h *agentmod.Handle
	err := l.run(ctx, "/meta", metaChunk, func(L *lua.LState) []lua.LValue {
		// Not require("meta"): a user's meta.lua must not stand in for it.
		preload.Embedded(L, "luagent.meta", "meta")
		main := l.agent
		if main == nil {
			main = lua.LNil
		}
		return []lua.LValue{main, lua.LString(o.Path), l.confirmFn(o.Confirm), l.savedFn(o.Saved)}
	}, func(L *lua.LState, rs []lua.LValue) error {
		if len(rs) == 0 {
			return errs.New(errs.Internal, "chat", "the catalog agent was not built")
		}
		got, ok := agentmod.Unwrap(rs[0])
		if !ok {
			return errs.New(errs.Internal, "chat", "meta.new did not return an agent")
		}
		h = got
		return nil
	})
	return h, err
}

// confirmFn is meta's confirm(text, op, name): the tool call waits while
// confirm asks on a goroutine.
func (l *Lua) confirmFn(confirm func(ctx context.Context, text string) bool) *lua.LFunction {
	return l.lp.Async("meta.confirm", func(L *lua.LState) sched.Start {
		text := L.CheckString(1)
		return func(ctx context.Context, done func(sched.Completion)) {
			go func() {
				yes := confirm != nil && confirm(ctx, text)
				done(func(*lua.LState) ([]lua.LValue, error) { return []lua.LValue{lua.LBool(yes)}, nil })
			}()
		}
	})
}

// savedFn is meta's on_saved(name, op); it runs on a goroutine too (a
// hub's reload must not hold up the loop its events go through).
func (l *Lua) savedFn(saved func(name, op string) string) *lua.LFunction {
	return l.lp.Async("meta.saved", func(L *lua.LState) sched.Start {
		name, op := L.CheckString(1), L.CheckString(2)
		return func(ctx context.Context, done func(sched.Completion)) {
			go func() {
				note := ""
				if saved != nil {
					note = saved(name, op)
				}
				done(func(*lua.LState) ([]lua.LValue, error) { return []lua.LValue{lua.LString(note)}, nil })
			}()
		}
	})
}
