// Package mcp is the native side of the Lua `mcp` module, the private
// mcp._native: it adapts Lua values and functions to runtime/mcp (clients
// and servers), runtime/hub and runtime/catalog. The module users see —
// mcp.connect, conn:call, mcp.hub, mcp.server{}, s:tool{} and the rest,
// with their option tables, checks and result shaping — is Lua in stdlib/
// (mcp.lua, mcp_client.lua, mcp_features.lua). Every function here that
// talks to a server waits by yielding the calling task, so other tasks run
// meanwhile.
package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/trace"
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// Config is what the host gives the module.
type Config struct {
	Trace trace.Sink
	// Log receives a server's stderr lines and log messages nobody handles,
	// at debug level; nil drops them.
	Log func(server, line string)
	// Warn receives what a server's operator should see at the default
	// level: a handler that failed, with the error's file and line; nil
	// drops it.
	Warn func(server, line string)
	// Home is luagent's folder: OAuth credentials live in
	// Home/credentials/mcp ("" keeps them in memory only).
	Home string
	// Params are the command line's --set and --params-file values: they
	// resolve catalog env references ({"param": NAME}) and win over a
	// script's mcp.hub{params = ...}.
	Params map[string]string
	// Interactive is set for a session a person types into (the REPL):
	// mcp.hub() then starts servers progressively under the catalog's
	// "auto" strategy; otherwise it waits for them.
	Interactive bool
}

type module struct {
	lp  *sched.Loop
	cfg Config
	// The metatables of connections and hubs: their __index is a methods
	// table stdlib/mcp_client.lua fills.
	connMT, hubMT   *lua.LTable
	serverMT, ctxMT *lua.LTable
	// ctx ends when the host shuts down, releasing Go goroutines that wait
	// for Lua callbacks.
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	conns  map[*conn]bool
}

// Preload registers the native module mcp._native and the client half of
// the Lua module (mcp._client), which stdlib/mcp.lua builds on.
func Preload(lp *sched.Loop, cfg Config) {
	lp.L.PreloadModule("mcp._native", func(L *lua.LState) int {
		L.Push(Open(lp, cfg))
		return 1
	})
	preload.Embedded(lp.L, "mcp._client", "mcp_client")
}

// Open builds the native table. Connections it opens are closed when the
// loop closes.
func Open(lp *sched.Loop, cfg Config) *lua.LTable {
	L := lp.L
	ctx, cancel := context.WithCancel(context.Background())
	m := &module{lp: lp, cfg: cfg, ctx: ctx, cancel: cancel, conns: map[*conn]bool{}}
	lp.OnClose(m.closeAll)
	mod := L.CreateTable(0, 2)
	// _client() is the client's natives, made on first use: a script
	// that only serves never needs them (and a server's start is timed).
	var client *lua.LTable
	mod.RawSetString("_client", L.NewFunction(func(L *lua.LState) int {
		if client == nil {
			client = m.clientNative(L)
		}
		L.Push(client)
		return 1
	}))
	mod.RawSetString("_server", m.serverNative(L))
	// Reading skill folders and files (s:skill{dir=|file=}, s:skills_dir)
	// stays out of _server, which a sandbox keeps: a sandboxed server
	// publishes skills from text only.
	mod.RawSetString("_files", m.filesNative(L))
	return mod
}

// typeMT makes a metatable named name whose __index is a fresh methods
// table, stored in t as field (for the Lua side to fill).
func typeMT(L *lua.LState, t *lua.LTable, name, field string, tostring lua.LGFunction) *lua.LTable {
	methods := L.CreateTable(0, 24)
	t.RawSetString(field, methods)
	mt := L.NewTypeMetatable(name)
	mt.RawSetString("__index", methods)
	if tostring != nil {
		mt.RawSetString("__tostring", L.NewFunction(tostring))
	}
	mt.RawSetString("__metatable", lua.LString(name))
	return mt
}

func newUD(L *lua.LState, v any, mt *lua.LTable) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value, ud.Metatable = v, mt
	return ud
}

func (m *module) closeAll() {
	m.cancel()
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.conns))
	for c := range m.conns {
		conns = append(conns, c)
	}
	m.conns = map[*conn]bool{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.c.Close() })
	}
	wg.Wait()
}

func fail(err error) sched.Completion { return sched.Fail(err) }

// decoded completes a wait with raw JSON decoded to a Lua value (nothing
// for nil).
func decoded(raw json.RawMessage) sched.Completion {
	return func(L *lua.LState) ([]lua.LValue, error) {
		if raw == nil {
			return nil, nil
		}
		v, err := decodeRaw(L, raw)
		if err != nil {
			return nil, err
		}
		return []lua.LValue{v}, nil
	}
}

// decodeRaw is JSON from a server as a Lua value; JSON that does not
// decode is a protocol error.
func decodeRaw(L *lua.LState, raw json.RawMessage) (lua.LValue, error) {
	v, err := value.Decode(L, raw)
	if err != nil {
		return nil, errs.Wrap(errs.Protocol, "mcp", err)
	}
	return v, nil
}

// goDo runs f on a goroutine and completes the wait with its result.
func goDo(f func(ctx context.Context) sched.Completion) sched.Start {
	return func(ctx context.Context, done func(sched.Completion)) {
		go func() { done(f(ctx)) }()
	}
}

// luarOut completes a wait with v as gopher-luar shows a Go value (the Lua
// side reads its fields), or with err.
func luarOut(v any, err error) sched.Completion {
	return func(L *lua.LState) ([]lua.LValue, error) {
		if err != nil {
			return nil, err
		}
		return []lua.LValue{luar.New(L, v)}, nil
	}
}

// luarIn converts the Lua value at n to a T as gopher-luar converts a Go
// function's argument: a table's keys are T's field names. The Lua side
// has checked the values; a mismatch is a bug there.
func luarIn[T any](L *lua.LState, n int) T {
	var out T
	L.Push(luar.New(L, func(v T) { out = v }))
	L.Push(L.Get(n))
	L.Call(1, 0)
	return out
}

// callLua runs fn(params, extra...) as a task on the loop and returns its
// first result encoded as JSON. It blocks the calling Go goroutine, never
// the loop.
func (m *module) callLua(ctx context.Context, fn *lua.LFunction, what string, params json.RawMessage, extra ...lua.LValue) (json.RawMessage, error) {
	type result struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan result, 1)
	m.lp.Post(func() {
		L := m.lp.L
		var args []lua.LValue
		if params != nil {
			v, err := value.Decode(L, params)
			if err != nil {
				ch <- result{err: err}
				return
			}
			args = append(args, v)
		}
		t := m.lp.Spawn(fn, append(args, extra...), sched.SpawnOptions{Name: what, Parent: ctx})
		t.OnDone(func(t *sched.Task) {
			if f := t.Failure(); f != nil {
				ch <- result{err: errs.Errorf(f.Kind, what, "the %s callback failed: %s", what, f.Message)}
				return
			}
			if r := t.Results(); len(r) == 0 || r[0] == lua.LNil {
				ch <- result{err: errs.Errorf(errs.Invalid, what, "the %s callback returned nothing; return a result table", what)}
			} else if raw, err := value.Encode(r[0], value.EncodeOptions{}); err != nil {
				ch <- result{err: errs.Errorf(errs.Invalid, what, "the %s callback's result: %v", what, err)}
			} else {
				ch <- result{raw: raw}
			}
		})
	})
	select {
	case r := <-ch:
		return r.raw, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-m.ctx.Done():
		return nil, errs.New(errs.Closed, what, "the Lua host is shutting down")
	}
}

// luaCallback adapts an optional Lua function to a callback the runtime
// calls with a request's params (nil when fn is not a function).
func (m *module) luaCallback(fn lua.LValue, what string) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	f, ok := fn.(*lua.LFunction)
	if !ok {
		return nil
	}
	return func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
		return m.callLua(ctx, f, what, params)
	}
}
