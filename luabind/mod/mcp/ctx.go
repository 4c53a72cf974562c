package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

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
//	ctx:ask{key = {elicit={...}} | {sample={...}} | {roots={}} | {method=, params=}, ...}
//	ctx:require_capability("sampling", ...)
//	ctx.cancelled   ctx.client   ctx:meta()
//
// elicit, sample, roots and ask read as one call in both eras: a request to
// the client (legacy), or an input_required round the client answers by
// calling again, the handler then running anew up to the same point
// (modern). elicit, sample and roots take key= to name the input (the key
// of inputRequests; input-N otherwise); ask asks for several at once (one
// round, modern) and returns the answers by key.

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
		"progress":           m.ctxProgress,
		"log":                m.ctxLog,
		"meta":               m.ctxMeta,
		"require_capability": m.ctxRequire,
	})
	methods.RawSetString("ask", m.lp.Async("ctx:ask", m.readAskAll))
	methods.RawSetString("elicit", m.lp.Async("ctx:elicit", m.readAsk("elicitation/create", elicitParams)))
	methods.RawSetString("elicit_url", m.lp.Async("ctx:elicit_url", m.readAsk("elicitation/create", elicitURLParams)))
	methods.RawSetString("sample", m.lp.Async("ctx:sample", m.readAsk("sampling/createMessage", sampleParams)))
	methods.RawSetString("roots", m.lp.Async("ctx:roots", m.readAsk("roots/list", rootsParams)))
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

// readAsk is an Async binding that asks the client for one input.
func (m *module) readAsk(method string, params func(*lua.LTable) (json.RawMessage, error)) func(L *lua.LState) sched.Start {
	return func(L *lua.LState) sched.Start {
		c := m.checkCtx(L)
		var t *lua.LTable
		if method == "roots/list" {
			t = L.OptTable(2, L.CreateTable(0, 0))
		} else {
			t = L.CheckTable(2)
		}
		p, err := params(t)
		if err != nil {
			L.ArgError(2, err.Error())
		}
		key := optString(t, "key")
		return func(_ context.Context, done func(sched.Completion)) {
			c.r.AskKey(key, method, p, func(answer json.RawMessage, err error) {
				if err != nil {
					done(sched.Fail(err))
					return
				}
				done(decoded(answerValue(method, answer)))
			})
		}
	}
}

// answerValue is what Lua gets for an answer: roots/list gives the list.
func answerValue(method string, answer json.RawMessage) json.RawMessage {
	if method == "roots/list" {
		var rr struct {
			Roots json.RawMessage `json:"roots"`
		}
		if json.Unmarshal(answer, &rr) == nil && rr.Roots != nil {
			return rr.Roots
		}
	}
	return answer
}

// askKinds maps ctx:ask's shorthand fields to methods and their readers
// (which read the table at stack index 2).
var askKinds = []struct {
	field, method string
	params        func(*lua.LTable) (json.RawMessage, error)
}{
	{"elicit", "elicitation/create", elicitParams},
	{"elicit_url", "elicitation/create", elicitURLParams},
	{"sample", "sampling/createMessage", sampleParams},
	{"roots", "roots/list", rootsParams},
}

// readAskAll reads ctx:ask{key = spec, ...}: each spec is {elicit={...}},
// {elicit_url={...}}, {sample={...}}, {roots={}} or the wire form
// {method=, params=}. Keys are asked in sorted order (legacy asks one
// after another).
func (m *module) readAskAll(L *lua.LState) sched.Start {
	c := m.checkCtx(L)
	t := L.CheckTable(2)
	var inputs []rmcp.Input
	var bad string
	t.ForEach(func(k, v lua.LValue) {
		if bad != "" {
			return
		}
		key, ok := k.(lua.LString)
		spec, ok2 := v.(*lua.LTable)
		if !ok || !ok2 || key == "" {
			bad = "ctx:ask takes {key = {elicit=...} | {sample=...} | {roots={}} | {method=, params=}, ...}"
			return
		}
		in, err := askSpec(spec)
		if err != nil {
			bad = string(key) + ": " + err.Error()
			return
		}
		in.Key = string(key)
		inputs = append(inputs, in)
	})
	if bad != "" {
		L.ArgError(2, bad)
	}
	sort.Slice(inputs, func(i, j int) bool { return inputs[i].Key < inputs[j].Key })
	methods := map[string]string{}
	for _, in := range inputs {
		methods[in.Key] = in.Method
	}
	return func(_ context.Context, done func(sched.Completion)) {
		c.r.AskAll(inputs, func(answers map[string]json.RawMessage, keys []string, err error) {
			if err != nil {
				done(sched.Fail(err))
				return
			}
			done(func(L *lua.LState) ([]lua.LValue, error) {
				out := L.CreateTable(0, len(keys))
				for _, k := range keys {
					v, err := value.Decode(L, answerValue(methods[k], answers[k]))
					if err != nil {
						return nil, err
					}
					out.RawSetString(k, v)
				}
				return []lua.LValue{out}, nil
			})
		})
	}
}

// askSpec reads one ctx:ask entry.
func askSpec(spec *lua.LTable) (rmcp.Input, error) {
	if method := optString(spec, "method"); method != "" {
		p, err := value.Encode(spec.RawGetString("params"), value.EncodeOptions{})
		if err != nil {
			return rmcp.Input{}, err
		}
		if string(p) == "null" {
			p = json.RawMessage("{}")
		}
		return rmcp.Input{Method: method, Params: p}, nil
	}
	for _, k := range askKinds {
		sub := spec.RawGetString(k.field)
		if sub == lua.LNil {
			continue
		}
		st, ok := sub.(*lua.LTable)
		if !ok {
			return rmcp.Input{}, fmt.Errorf("%s must be a table", k.field)
		}
		p, err := k.params(st)
		if err != nil {
			return rmcp.Input{}, err
		}
		return rmcp.Input{Method: k.method, Params: p}, nil
	}
	return rmcp.Input{}, fmt.Errorf("say what to ask: elicit=, elicit_url=, sample=, roots= or method=")
}

// ctx:require_capability(name, ...) stops the handler unless the client
// declared every named capability: a modern request is answered with
// -32021, a legacy handler gets an error.
func (m *module) ctxRequire(L *lua.LState) int {
	c := m.checkCtx(L)
	var names []string
	for i := 2; i <= L.GetTop(); i++ {
		names = append(names, L.CheckString(i))
	}
	var failed error
	c.r.RequireCapabilities(names, func(err error) { failed = err })
	if failed != nil {
		if errs.KindOf(failed) == errs.Invalid {
			L.ArgError(2, errMsg(failed))
		}
		L.Error(sched.ErrorValueOf(L, failed), 0)
	}
	return 0
}

func rootsParams(*lua.LTable) (json.RawMessage, error) { return json.RawMessage("{}"), nil }

// elicitParams reads ctx:elicit{message=, schema=} (schema may be the input
// shorthand; requestedSchema is accepted as the spec spells it).
func elicitParams(t *lua.LTable) (json.RawMessage, error) {
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
func elicitURLParams(t *lua.LTable) (json.RawMessage, error) {
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
func sampleParams(t *lua.LTable) (json.RawMessage, error) {
	v, err := value.FromLua(t)
	if err != nil {
		return nil, err
	}
	p, _ := v.(map[string]any)
	if p == nil {
		p = map[string]any{}
	}
	delete(p, "key")
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
