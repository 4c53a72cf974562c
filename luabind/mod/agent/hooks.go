package agent

import (
	"context"
	"encoding/json"
	"github.com/luagent/luagent/runtime/project"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/transport"
)

// hookSet is an agent's lifecycle hooks: the command hooks cmds (the
// catalog's and dir's project's, Config.Project), run in dir, then the
// Lua handlers of h's event keys
// (hooks = {PreToolUse = fn or {fn, ...}, ...}; the lower-case keys are
// bindHooks').
func (m *module) hookSet(h *lua.LTable, cmds hooks.Config, dir string) (*hooks.Set, error) {
	set := hooks.NewSet()
	if len(cmds.Groups) > 0 { // the project's root is looked for only then
		for _, hd := range hooks.Commands(cmds, hooks.Runner{Dir: dir, ProjectDir: project.Root(dir), Withhold: transport.WithheldEnv()}) {
			set.Add(hd)
		}
	}
	if h == nil {
		return set, nil
	}
	var err error
	h.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok || err != nil || len(name) == 0 || name[0] < 'A' || name[0] > 'Z' {
			return
		}
		var fns []*lua.LFunction
		fns, err = handlerList(string(name), v)
		for _, fn := range fns {
			set.Add(m.luaHandler(string(name), fn))
		}
	})
	return set, err
}

// handlerList is an event key's value: a function or a list of them.
func handlerList(ev string, v lua.LValue) ([]*lua.LFunction, error) {
	if !hooks.Fired(ev) {
		return nil, errs.Errorf(errs.Invalid, "agent.new", "hooks.%s is not an event; the events are %s", ev, strings.Join(hooks.Events, ", "))
	}
	switch f := v.(type) {
	case *lua.LFunction:
		return []*lua.LFunction{f}, nil
	case *lua.LTable:
		var out []*lua.LFunction
		for i := 1; i <= f.Len(); i++ {
			fn, ok := f.RawGetInt(i).(*lua.LFunction)
			if !ok {
				return nil, errs.Errorf(errs.Invalid, "agent.new", "hooks.%s[%d] must be a function", ev, i)
			}
			out = append(out, fn)
		}
		return out, nil
	}
	return nil, errs.Errorf(errs.Invalid, "agent.new", "hooks.%s must be a function or a list of functions, not a %s", ev, v.Type())
}

// luaHandler adapts fn(event) to a hook handler. fn gets the event as a
// command's stdin has it (session_id, hook_event_name, tool_name,
// tool_input, ...) and returns nil to go on, false[, reason] to veto
// (block: exit code 2's meaning), or a table shaped as a command's JSON
// output ({decision = "block", reason = ...}, {continue = false,
// stopReason = ...}, {hookSpecificOutput = {permissionDecision = "deny",
// ...}}), hookSpecificOutput's fields also accepted at the top level. An
// error it raises is a non-blocking error, as a command's exit code 1.
func (m *module) luaHandler(ev string, fn *lua.LFunction) hooks.Handler {
	return hooks.Handler{Event: ev, Name: "lua", Run: func(ctx context.Context, in hooks.Input) hooks.Result {
		raw, err := json.Marshal(in)
		if err != nil {
			return hooks.Result{Error: err.Error()}
		}
		v, err := m.callLua(ctx, fn, ev+" hook", decodeArgs(raw), func(L *lua.LState, rs []lua.LValue) (any, error) {
			switch r := first(rs).(type) {
			case *lua.LNilType:
				return hooks.Result{}, nil
			case lua.LBool:
				if bool(r) {
					return hooks.Result{}, nil
				}
				reason := ""
				if len(rs) > 1 && rs[1] != lua.LNil {
					reason = lua.LVAsString(rs[1])
				}
				return hooks.Result{Block: true, Reason: reason}, nil
			case *lua.LTable:
				b, err := value.Encode(r, value.EncodeOptions{})
				if err != nil {
					return nil, err
				}
				if len(b) == 0 || b[0] != '{' { // {} encodes as []: nothing to say
					return hooks.Result{}, nil
				}
				return hooks.ParseJSON(ev, b, true), nil
			}
			return nil, errs.Errorf(errs.Invalid, ev, "returned %s; return nil, false[, reason] or a table like a hook command's JSON output", sched.Message(L, first(rs)))
		})
		if err != nil {
			return hooks.Result{Error: err.Error()}
		}
		return v.(hooks.Result)
	}}
}

// ud:on(event, fn) adds fn to the agent's handlers of event (after those
// it has); fn is as a hooks = {...} handler.
func (m *module) on(L *lua.LState) int {
	la := m.checkAgent(L)
	ev := L.CheckString(2)
	fn := L.CheckFunction(3)
	if !hooks.Fired(ev) {
		L.Error(sched.ErrorValueOf(L, errs.Errorf(errs.Invalid, "agent:on", "%q is not an event; the events are %s", ev, strings.Join(hooks.Events, ", "))), 0)
	}
	la.a.On(m.luaHandler(ev, fn))
	return 0
}
