package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
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
// (modern). They are stdlib/mcp.lua's, over readAsk; elicit, sample and
// roots take key= to name the input (the key of inputRequests; input-N
// otherwise); ask asks for several at once (one round, modern) and returns
// the answers by key.

type reqCtx struct {
	r *rmcp.Request
}

func (s *luaServer) newCtx(L *lua.LState, r *rmcp.Request) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = &reqCtx{r: r}
	ud.Metatable = s.m.ctxMT
	return ud
}

func (m *module) ctxFail(L *lua.LState) int {
	c := m.checkCtx(L)
	e := &jsonrpc.Error{Code: L.CheckInt(2), Message: L.CheckString(3)}
	if d := L.Get(4); d != lua.LNil {
		raw, err := value.Encode(d, value.EncodeOptions{})
		if err != nil {
			L.ArgError(4, "data cannot be sent as JSON: "+err.Error())
		}
		e.Data = raw
	}
	c.r.Fail(e)
	return 0
}

func (m *module) checkCtx(L *lua.LState) *reqCtx {
	return value.Check[*reqCtx](L, 1, "request context expected (call it as ctx:method(...))")
}

// ctxMetatable makes the contexts' metatable over methods, to which it adds
// the native methods (stdlib/mcp.lua adds the asking ones).
func (m *module) ctxMetatable(L *lua.LState, methods *lua.LTable) *lua.LTable {
	L.SetFuncs(methods, map[string]lua.LGFunction{
		"progress":           m.ctxProgress,
		"log":                m.ctxLog,
		"meta":               m.ctxMeta,
		"require_capability": m.ctxRequire,
		// ctx:start_task() makes a manual_task tool's call a task (true) if
		// the client can follow one; ctx:fail(code, message[, data])
		// answers with a JSON-RPC error (a task: failed) instead of a
		// result.
		"start_task": func(L *lua.LState) int {
			L.Push(lua.LBool(m.checkCtx(L).r.StartTask()))
			return 1
		},
		"fail":   m.ctxFail,
		"park":   m.ctxPark,
		"parked": m.ctxParked,
		// ctx:on_cancel(fn): fn(message) runs as a task when the request
		// ends unanswered (the client cancelled, it timed out, the
		// connection went): the handler itself is stopped by then.
		"on_cancel": func(L *lua.LState) int {
			c, fn := m.checkCtx(L), L.CheckFunction(2)
			c.r.AfterCancel(func(cause error) {
				m.lp.Post(func() {
					m.lp.Spawn(fn, []lua.LValue{lua.LString(vm.CauseText(cause))}, sched.SpawnOptions{Name: "on_cancel"})
				})
			})
			return 0
		},
	})
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
		case "park_ttl": // seconds a park waits for the client (ctx:park)
			L.Push(lua.LNumber(c.r.ParkTTL().Seconds()))
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
		L.ArgError(2, errs.Message(err))
	}
	return 0
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

// readAsk is _server.asker(NAME)(ctx, {{key=, method=, params=}, ...}): it
// asks the client for every input (rmcp.Request.AskAll) and returns the
// answers as a list in that order. stdlib/mcp.lua shapes what ctx:elicit,
// ctx:sample, ctx:roots and ctx:ask take into these inputs.
func (m *module) readAsk(L *lua.LState) sched.Start {
	c := m.checkCtx(L)
	inputs := readInputs(L, 2)
	return func(_ context.Context, done func(sched.Completion)) {
		c.r.AskAll(inputs, func(answers map[string]json.RawMessage, keys []string, err error) {
			if err != nil {
				done(sched.Fail(err))
				return
			}
			done(func(L *lua.LState) ([]lua.LValue, error) {
				out := L.CreateTable(len(keys), 0)
				for i, k := range keys {
					v, err := value.Decode(L, answers[k])
					if err != nil {
						return nil, err
					}
					out.RawSetInt(i+1, v)
				}
				return []lua.LValue{out}, nil
			})
		})
	}
}

// readInputs reads argument n, a list of {key=, method=, params=}.
func readInputs(L *lua.LState, n int) []rmcp.Input {
	list := L.CheckTable(n)
	inputs := make([]rmcp.Input, list.Len())
	for i := range inputs {
		in, ok := list.RawGetInt(i + 1).(*lua.LTable)
		if !ok {
			L.ArgError(n, "a list of {key=, method=, params=} expected")
		}
		p, err := value.Encode(in.RawGetString("params"), value.EncodeOptions{})
		if err != nil {
			L.ArgError(n, err.Error())
		}
		inputs[i] = rmcp.Input{Key: lua.LVAsString(in.RawGetString("key")), Method: lua.LVAsString(in.RawGetString("method")), Params: p}
	}
	return inputs
}

// ctx:park(v, {{key=, method=, params=}, ...}) answers a 2026-07-28 call
// with input_required and keeps v until the client calls again with the
// answers: that round's ctx:parked() returns v and the answers by key, and
// its handler carries on v's work instead of starting over (a served
// agent's run). It returns how many seconds v is kept (ctx.park_ttl);
// nil and why when it cannot park (a legacy call or a task: ask
// directly; a client without the capability; the server's bound
// reached). Once parked the round is answered: like any handler whose
// request has been answered, this one is cancelled at its next
// instruction, so what must follow the park is done before it.
func (m *module) ctxPark(L *lua.LState) int {
	c := m.checkCtx(L)
	v := L.CheckAny(2)
	inputs := readInputs(L, 3)
	ttl, err := c.r.Park(v, inputs)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(errs.Message(err)))
		return 2
	}
	L.Push(lua.LNumber(ttl.Seconds()))
	return 1
}

// ctx:parked() -> v, answers by key: what an earlier round parked, or nil.
func (m *module) ctxParked(L *lua.LState) int {
	c := m.checkCtx(L)
	v, ok := c.r.Parked().(lua.LValue)
	if !ok {
		return 0
	}
	answers := L.CreateTable(0, 2)
	for k, raw := range c.r.Answers() {
		a, err := value.Decode(L, raw)
		if err != nil {
			L.RaiseError("ctx:parked: the answer %s cannot be read: %s", k, err.Error())
		}
		answers.RawSetString(k, a)
	}
	L.Push(v)
	L.Push(answers)
	return 2
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
			L.ArgError(2, errs.Message(failed))
		}
		L.Error(sched.ErrorValueOf(L, failed), 0)
	}
	return 0
}
