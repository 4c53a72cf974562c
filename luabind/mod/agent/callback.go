package agent

import (
	"context"
	"encoding/json"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
)

// callLua runs fn(args(L)...) as a task on the loop and waits, on the
// calling goroutine (the agent's), for read to turn its results into Go
// values there (sched.Loop.Call: how a cancelled, timed-out or failed call
// ends). A Lua callback (a tool handler, the policy, a hook, a model) may
// itself wait: it is a task like any other.
func (m *module) callLua(ctx context.Context, fn *lua.LFunction, what string,
	args func(L *lua.LState) ([]lua.LValue, error),
	read func(L *lua.LState, rs []lua.LValue) (any, error)) (any, error) {
	var v any
	err := m.lp.Call(ctx, sched.Call{
		Name: what,
		Func: func(L *lua.LState) (*lua.LFunction, []lua.LValue, error) {
			in, err := args(L)
			return fn, in, err
		},
		Read: func(L *lua.LState, rs []lua.LValue) (err error) {
			v, err = read(L, rs)
			return err
		},
	})
	return v, err
}

// decodeArgs is a callLua args function of JSON values.
func decodeArgs(raws ...json.RawMessage) func(L *lua.LState) ([]lua.LValue, error) {
	return func(L *lua.LState) ([]lua.LValue, error) {
		out := make([]lua.LValue, len(raws))
		for i, raw := range raws {
			v, err := value.Decode(L, raw)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
}

// encodeObject encodes a Lua value that stands for a JSON object: an empty
// table is {} (not []).
func encodeObject(v lua.LValue) (json.RawMessage, error) {
	if t, ok := v.(*lua.LTable); ok && t.Len() == 0 && t.Metatable == lua.LNil {
		empty := true
		t.ForEach(func(lua.LValue, lua.LValue) { empty = false })
		if empty {
			return json.RawMessage(`{}`), nil
		}
	}
	raw, err := value.Encode(v, value.EncodeOptions{})
	if err != nil {
		return nil, err
	}
	if string(raw) == "[]" {
		return json.RawMessage(`{}`), nil
	}
	return raw, nil
}

func first(rs []lua.LValue) lua.LValue {
	if len(rs) == 0 {
		return lua.LNil
	}
	return rs[0]
}
