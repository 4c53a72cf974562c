package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	lua "github.com/yuin/gopher-lua"
)

// The request context a handler gets as ctx:
//
//	ctx:progress(done, total, message)      ctx:log(level, data)
//	ctx:elicit{message=, schema=}           ctx:elicit_url{url=, message=}
//	ctx:sample{messages=, maxTokens=, ...}  ctx:roots()
//	ctx.cancelled   ctx.client   ctx:meta()
//
// elicit, sample and roots read as one call in both eras: a request to the
// client (legacy), or an input_required round the client answers by calling
// again, the handler then running anew up to the same point (modern).

type reqCtx struct {
	s *luaServer
	r *rmcp.Request
}

func (s *luaServer) newCtx(L *lua.LState, r *rmcp.Request) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = &reqCtx{s: s, r: r}
	ud.Metatable = s.m.ctxMT
	return ud
}

func (m *module) checkCtx(L *lua.LState) *reqCtx {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if c, ok := ud.Value.(*reqCtx); ok {
			return c
		}
	}
	L.ArgError(1, "request context expected (call it as ctx:method(...))")
	return nil
}

func (m *module) ctxMetatable(L *lua.LState) *lua.LTable {
	methods := L.CreateTable(0, 10)
	L.SetFuncs(methods, map[string]lua.LGFunction{
		"progress": m.ctxProgress,
		"log":      m.ctxLog,
		"meta":     m.ctxMeta,
	})
	methods.RawSetString("elicit", m.lp.Async("ctx:elicit", m.readAsk("elicitation/create", elicitParams)))
	methods.RawSetString("elicit_url", m.lp.Async("ctx:elicit_url", m.readAsk("elicitation/create", elicitURLParams)))
	methods.RawSetString("sample", m.lp.Async("ctx:sample", m.readAsk("sampling/createMessage", sampleParams)))
	methods.RawSetString("roots", m.lp.Async("ctx:roots", m.readAsk("roots/list", func(*lua.LState) (json.RawMessage, error) {
		return json.RawMessage("{}"), nil
	})))
	mt := L.NewTypeMetatable(ctxType)
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		c := m.checkCtx(L)
		key := L.CheckString(2)
		switch key {
		case "cancelled":
			L.Push(lua.LBool(c.r.Context().Err() != nil))
		case "client":
			L.Push(c.client(L))
		case "era":
			L.Push(lua.LString(c.r.Era.String()))
		default:
			L.Push(methods.RawGetString(key))
		}
		return 1
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		c := m.checkCtx(L)
		L.Push(lua.LString(fmt.Sprintf("request %s %s (%s)", c.r.ID.String(), c.r.Method, c.r.Era)))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(ctxType))
	return mt
}

func (c *reqCtx) client(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 6)
	t.RawSetString("name", lua.LString(c.r.ClientInfo.Name))
	t.RawSetString("version", lua.LString(c.r.ClientInfo.Version))
	t.RawSetString("era", lua.LString(c.r.Era.String()))
	t.RawSetString("protocol_version", lua.LString(c.r.ProtocolVersion))
	if caps, err := value.Decode(L, c.r.ClientCapabilities()); err == nil {
		t.RawSetString("capabilities", caps)
	}
	return t
}

// ctx:progress(done [, total [, message]])
func (m *module) ctxProgress(L *lua.LState) int {
	c := m.checkCtx(L)
	done := float64(L.CheckNumber(2))
	var total *float64
	if n, ok := L.Get(3).(lua.LNumber); ok {
		f := float64(n)
		total = &f
	}
	c.r.Progress(done, total, L.OptString(4, ""))
	return 0
}

// ctx:log(level, data [, logger])
func (m *module) ctxLog(L *lua.LState) int {
	c := m.checkCtx(L)
	level := L.CheckString(2)
	data, err := value.Encode(L.Get(3), value.EncodeOptions{})
	if err != nil {
		L.ArgError(3, err.Error())
	}
	if err := c.r.Log(level, L.OptString(4, ""), data); err != nil && errs.KindOf(err) == errs.Invalid {
		L.ArgError(2, errMsg(err))
	}
	return 0
}

func errMsg(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// ctx:meta() returns the request's _meta.
func (m *module) ctxMeta(L *lua.LState) int {
	c := m.checkCtx(L)
	meta := c.r.Meta()
	if meta == nil {
		L.Push(L.CreateTable(0, 0))
		return 1
	}
	v, err := value.Decode(L, meta)
	if err != nil {
		L.Push(L.CreateTable(0, 0))
		return 1
	}
	L.Push(v)
	return 1
}

// readAsk is an Async binding that asks the client for input.
func (m *module) readAsk(method string, params func(L *lua.LState) (json.RawMessage, error)) func(L *lua.LState) sched.Start {
	return func(L *lua.LState) sched.Start {
		c := m.checkCtx(L)
		p, err := params(L)
		if err != nil {
			L.ArgError(2, err.Error())
		}
		return func(_ context.Context, done func(sched.Completion)) {
			c.r.Ask(method, p, func(answer json.RawMessage, err error) {
				if err != nil {
					done(sched.Fail(err))
					return
				}
				if method == "roots/list" {
					var rr struct {
						Roots json.RawMessage `json:"roots"`
					}
					if json.Unmarshal(answer, &rr) == nil && rr.Roots != nil {
						answer = rr.Roots
					}
				}
				done(decoded(answer))
			})
		}
	}
}

// elicitParams reads ctx:elicit{message=, schema=} (schema may be the input
// shorthand; requestedSchema is accepted as the spec spells it).
func elicitParams(L *lua.LState) (json.RawMessage, error) {
	t := L.CheckTable(2)
	msg := optString(t, "message")
	if msg == "" {
		return nil, fmt.Errorf("message is required (what to ask the user)")
	}
	sv := t.RawGetString("schema")
	if sv == lua.LNil {
		sv = t.RawGetString("requestedSchema")
	}
	schema, err := inputSchema(sv)
	if err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	return json.Marshal(map[string]any{"mode": "form", "message": msg, "requestedSchema": json.RawMessage(schema)})
}

var elicitIDs int

// elicitURLParams reads ctx:elicit_url{url=, message=, elicitationId=}.
func elicitURLParams(L *lua.LState) (json.RawMessage, error) {
	t := L.CheckTable(2)
	url := optString(t, "url")
	if url == "" {
		return nil, fmt.Errorf("url is required")
	}
	id := optString(t, "elicitationId")
	if id == "" {
		elicitIDs++
		id = fmt.Sprintf("luagent-elicitation-%d", elicitIDs)
	}
	return json.Marshal(map[string]any{"mode": "url", "url": url, "message": optString(t, "message"), "elicitationId": id})
}

// sampleParams reads ctx:sample{messages=, maxTokens=, systemPrompt=, ...}:
// messages may be one string, and a message's content a string.
func sampleParams(L *lua.LState) (json.RawMessage, error) {
	t := L.CheckTable(2)
	v, err := value.FromLua(t)
	if err != nil {
		return nil, err
	}
	p, _ := v.(map[string]any)
	if p == nil {
		p = map[string]any{}
	}
	switch msgs := p["messages"].(type) {
	case string:
		p["messages"] = []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": msgs}}}
	case []any:
		for _, x := range msgs {
			if m, ok := x.(map[string]any); ok {
				if s, ok := m["content"].(string); ok {
					m["content"] = map[string]any{"type": "text", "text": s}
				}
				if m["role"] == nil {
					m["role"] = "user"
				}
			}
		}
	default:
		return nil, fmt.Errorf("messages is required: a string or a list of {role=, content=}")
	}
	if p["maxTokens"] == nil {
		p["maxTokens"] = 1024
	}
	return json.Marshal(p)
}
