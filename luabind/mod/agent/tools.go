package agent

import (
	"context"
	"encoding/json"
	"fmt"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// localTool reads {name=, description=, schema= (a JSON Schema table),
// annotations=, handler=fn(args)}. The handler's result: a string (one
// text block), a table with content = {...} (an MCP result as it is), or
// any other value (its JSON as text, and as structuredContent when a
// table). An error raised by the handler is an error result.
func (m *module) localTool(t *lua.LTable) (ragent.LocalTool, error) {
	name := optString(t, "name")
	fn := optFunc(t, "handler")
	if name == "" || fn == nil {
		return ragent.LocalTool{}, errs.New(errs.Invalid, "agent.new", "a tool needs a name and a handler function")
	}
	lt := ragent.LocalTool{Name: name, Description: optString(t, "description")}
	if s, ok := t.RawGetString("schema").(*lua.LTable); ok {
		raw, err := value.Encode(value.MarkObject(s), value.EncodeOptions{})
		if err != nil {
			return lt, errs.Errorf(errs.Invalid, "agent.new", "tool %s: schema: %v", name, err)
		}
		lt.Schema = raw
	}
	if a, ok := t.RawGetString("annotations").(*lua.LTable); ok {
		raw, err := value.Encode(value.MarkObject(a), value.EncodeOptions{})
		var ann ragent.Annotations
		if err == nil {
			err = json.Unmarshal(raw, &ann)
		}
		if err != nil {
			return lt, errs.Errorf(errs.Invalid, "agent.new", "tool %s: annotations: %v", name, err)
		}
		lt.Annotations = &ann
	}
	what := "tool " + name
	lt.Call = func(ctx context.Context, args json.RawMessage) (ragent.Result, error) {
		v, err := m.callLua(ctx, fn, what, decodeArgs(args), func(L *lua.LState, rs []lua.LValue) (any, error) {
			return toolResult(first(rs))
		})
		if err != nil {
			return ragent.Result{}, err
		}
		return v.(ragent.Result), nil
	}
	return lt, nil
}

func toolResult(v lua.LValue) (ragent.Result, error) {
	switch v := v.(type) {
	case lua.LString:
		return ragent.TextResult(string(v), false), nil
	case *lua.LNilType:
		return ragent.Result{Content: []json.RawMessage{}}, nil
	case *lua.LTable:
		if v.RawGetString("content") != lua.LNil {
			raw, err := value.Encode(value.MarkObject(v), value.EncodeOptions{})
			var r ragent.Result
			if err == nil {
				err = json.Unmarshal(raw, &r)
			}
			if err != nil {
				return r, errs.Errorf(errs.Invalid, "tool", "result: %v", err)
			}
			return r, nil
		}
	}
	raw, err := value.Encode(v, value.EncodeOptions{})
	if err != nil {
		return ragent.Result{}, errs.Errorf(errs.Invalid, "tool", "result: %v", err)
	}
	r := ragent.TextResult(string(raw), false)
	if _, ok := v.(*lua.LTable); ok && len(raw) > 0 && raw[0] == '{' {
		r.StructuredContent = raw
	}
	return r, nil
}

// decider adapts fn(call) -> "allow"|"deny"|"ask"[, reason] (or true /
// false) to a policy. A policy that fails denies, saying why.
func (m *module) decider(fn *lua.LFunction, what string) func(ctx context.Context, c ragent.Call) (ragent.Decision, string) {
	return func(ctx context.Context, c ragent.Call) (ragent.Decision, string) {
		v, err := m.callLua(ctx, fn, what, decodeArgs(callRaw(c)), func(L *lua.LState, rs []lua.LValue) (any, error) {
			reason := ""
			if len(rs) > 1 {
				reason = lua.LVAsString(rs[1])
			}
			switch d := first(rs).(type) {
			case lua.LBool:
				if d {
					return [2]string{string(ragent.Allow), reason}, nil
				}
				return [2]string{string(ragent.Deny), reason}, nil
			case lua.LString:
				switch ragent.Decision(d) {
				case ragent.Allow, ragent.Deny, ragent.Ask:
					return [2]string{string(d), reason}, nil
				}
			}
			return nil, fmt.Errorf("%s returned %s; return \"allow\", \"deny\" or \"ask\"", what, sched.Message(L, first(rs)))
		})
		if err != nil {
			return ragent.Deny, "the " + what + " policy failed: " + err.Error()
		}
		d := v.([2]string)
		return ragent.Decision(d[0]), d[1]
	}
}

// bindHooks adapts hooks = {before_tool=, after_tool=, before_model=,
// after_model=}.
//
//	before_tool(call): change call.arguments in place or return a new
//	  arguments table; return false[, reason] (or raise) to deny.
//	after_tool(call, result): change result in place or return a new one.
//	before_model(request): change request.system in place or return a
//	  table with system.
//	after_model(response): sees {text=, tool_calls=, stop_reason=, usage=}.
func (m *module) bindHooks(h *lua.LTable, cfg *ragent.Config) {
	if fn := optFunc(h, "before_tool"); fn != nil {
		cfg.BeforeTool = m.beforeTool(fn)
	}
	if fn := optFunc(h, "after_tool"); fn != nil {
		cfg.AfterTool = m.afterTool(fn)
	}
	if fn := optFunc(h, "before_model"); fn != nil {
		cfg.BeforeModel = func(ctx context.Context, r *llm.Request) {
			var req *lua.LTable
			v, err := m.callLua(ctx, fn, "before_model", func(L *lua.LState) ([]lua.LValue, error) {
				lv, err := value.Decode(L, requestJSON(r))
				req, _ = lv.(*lua.LTable)
				return []lua.LValue{lv}, err
			}, func(L *lua.LState, rs []lua.LValue) (any, error) {
				t := req
				if rt, ok := first(rs).(*lua.LTable); ok {
					t = rt
				}
				if s, ok := t.RawGetString("system").(lua.LString); ok {
					return string(s), nil
				}
				return nil, nil
			})
			if s, ok := v.(string); ok && err == nil {
				r.System = s
			}
		}
	}
	if fn := optFunc(h, "after_model"); fn != nil {
		cfg.AfterModel = func(ctx context.Context, r *llm.Response) {
			_, _ = m.callLua(ctx, fn, "after_model", decodeArgs(respOut(r)), func(*lua.LState, []lua.LValue) (any, error) { return nil, nil })
		}
	}
}

func (m *module) beforeTool(fn *lua.LFunction) func(ctx context.Context, c *ragent.Call) error {
	return func(ctx context.Context, c *ragent.Call) error {
		var call *lua.LTable
		v, err := m.callLua(ctx, fn, "before_tool", func(L *lua.LState) ([]lua.LValue, error) {
			lv, err := value.Decode(L, callRaw(*c))
			call, _ = lv.(*lua.LTable)
			return []lua.LValue{lv}, err
		}, func(L *lua.LState, rs []lua.LValue) (any, error) {
			if b, ok := first(rs).(lua.LBool); ok && !bool(b) {
				reason := "denied by before_tool"
				if len(rs) > 1 && rs[1] != lua.LNil {
					reason = lua.LVAsString(rs[1])
				}
				return nil, errs.New(errs.Invalid, "before_tool", reason)
			}
			args := call.RawGetString("arguments")
			if t, ok := first(rs).(*lua.LTable); ok {
				args = t
			}
			raw, err := encodeObject(args)
			if err != nil {
				return nil, errs.Errorf(errs.Invalid, "before_tool", "arguments: %v", err)
			}
			return raw, nil
		})
		if err != nil {
			return err
		}
		c.Arguments = v.(json.RawMessage)
		return nil
	}
}

func (m *module) afterTool(fn *lua.LFunction) func(ctx context.Context, c ragent.Call, r *ragent.Result) {
	return func(ctx context.Context, c ragent.Call, r *ragent.Result) {
		rraw, _ := json.Marshal(r)
		var res *lua.LTable
		v, err := m.callLua(ctx, fn, "after_tool", func(L *lua.LState) ([]lua.LValue, error) {
			vs, err := decodeArgs(callRaw(c), rraw)(L)
			if err == nil {
				res, _ = vs[1].(*lua.LTable)
			}
			return vs, err
		}, func(L *lua.LState, rs []lua.LValue) (any, error) {
			var out lua.LValue = res
			if first(rs) != lua.LNil {
				out = first(rs)
			}
			return toolResult(out)
		})
		if err == nil {
			*r = v.(ragent.Result)
		}
	}
}
