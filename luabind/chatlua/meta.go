package chatlua

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	agentmod "github.com/luagent/luagent/luabind/mod/agent"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
)

// /meta REQUEST: the catalog agent of stdlib/meta.lua, on the session's
// model, edits the catalog for the person. Its turns are a conversation
// of their own (a later /meta goes on with it; the chat's conversation
// neither sees nor saves them). Each write is shown and confirmed first
// (MetaOptions.Confirm); after one, only the server it changed starts,
// stops or restarts.

// BuildMeta makes the catalog agent on the current agent's model.
func (l *Lua) BuildMeta(ctx context.Context, o chat.MetaOptions) (chat.Agent, error) {
	var h *agentmod.Handle
	err := l.run(ctx, "/meta", "meta", func(L *lua.LState) []lua.LValue {
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
	if err != nil {
		return nil, err
	}
	return h, nil
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
