// Package mcpclient is the native side of the MCP client in Lua, the
// private mcp._client_native: it adapts runtime/mcp's Client and
// runtime/hub to Lua values and functions. The module users see —
// mcp.connect, conn:call, mcp.login, mcp.hub, hub:call and the rest, with
// their option tables, checks and result shaping — is Lua in
// stdlib/mcp_client.lua, which stdlib/mcp.lua loads on first use beside
// the server half (luabind/mod/mcp): the two share no Go but the loop, so
// a script that only serves never builds this. Every function here that
// talks to a server waits by yielding the calling task, so other tasks run
// meanwhile.
package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
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
	// Home is luagent's folder: OAuth credentials live in
	// Home/credentials/mcp ("" keeps them in memory only), and mcp.hub()
	// reads Home/config.json.
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
	connMT, hubMT *lua.LTable
	mu            sync.Mutex
	conns         map[*conn]bool
}

// Preload registers the native module mcp._client_native and the client
// half of the Lua module (mcp._client) over it, which stdlib/mcp.lua
// loads on first use.
func Preload(lp *sched.Loop, cfg Config) {
	lp.L.PreloadModule("mcp._client_native", func(L *lua.LState) int {
		L.Push(Open(lp, cfg))
		return 1
	})
	preload.Embedded(lp.L, "mcp._client", "mcp_client")
}

// Open builds the native table. Connections and hubs it opens are closed
// when the loop closes.
func Open(lp *sched.Loop, cfg Config) *lua.LTable {
	m := &module{lp: lp, cfg: cfg, conns: map[*conn]bool{}}
	lp.OnClose(m.closeAll)
	return m.natives(lp.L)
}

// natives is the table mcp_client.lua builds the client surface on.
func (m *module) natives(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 40)
	m.connMT = value.TypeMetatable(L, t, "mcp.connection", "conn_methods", func(L *lua.LState) int {
		c := m.check(L, 1)
		info := c.c.Info()
		L.Push(lua.LString(fmt.Sprintf("mcp connection %q (%s %s)", c.name, info.Era, info.ProtocolVersion)))
		return 1
	})
	m.hubMT = value.TypeMetatable(L, t, "mcp.hub", "hub_methods", func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprintf("mcp hub (%d servers)", len(m.checkHub(L).h.Status()))))
		return 1
	})
	eras := L.CreateTable(0, 3)
	for _, e := range []rmcp.Era{rmcp.EraUnknown, rmcp.EraLegacy, rmcp.EraModern} {
		eras.RawSetInt(int(e), lua.LString(e.String()))
	}
	t.RawSetString("eras", eras)
	lp := m.lp
	for name, fn := range map[string]func(*lua.LState) sched.Start{
		"connect": m.connect, "login": m.login, "auth_redirect": authRedirect, "hub": m.newHub,
	} {
		t.RawSetString(name, lp.Async("mcp."+name, fn))
	}
	t.RawSetString("call", lp.Async("conn:call", m.call))
	L.SetFuncs(t, map[string]lua.LGFunction{
		// conn_go(c) and conn_skills(c) are the runtime client and its
		// skills.Remote as gopher-luar shows them, for Info and the waiter.
		"conn_go":     func(L *lua.LState) int { L.Push(luar.New(L, m.check(L, 1).c)); return 1 },
		"conn_skills": func(L *lua.LState) int { L.Push(luar.New(L, m.check(L, 1).remote())); return 1 },
		"on":          m.on,
		"close":       m.close,
		"waiter":      m.waiter,
		// bytes(b) is a []byte (gopher-luar) as a Lua string.
		"bytes": func(L *lua.LState) int {
			b, _ := L.CheckUserData(1).Value.([]byte)
			L.Push(lua.LString(b))
			return 1
		},
	})
	m.hubNatives(L, t)
	return t
}

func (m *module) closeAll() {
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

// callLua runs fn(params, extra...) as a task on the loop and returns its
// first result encoded as JSON. It blocks the calling Go goroutine, never
// the loop (sched.Loop.Call: how a cancelled or failed call ends).
func (m *module) callLua(ctx context.Context, fn *lua.LFunction, what string, params json.RawMessage, extra ...lua.LValue) (json.RawMessage, error) {
	var raw json.RawMessage
	err := m.lp.Call(ctx, sched.Call{
		Name: what,
		Func: func(L *lua.LState) (*lua.LFunction, []lua.LValue, error) {
			var args []lua.LValue
			if params != nil {
				v, err := value.Decode(L, params)
				if err != nil {
					return nil, nil, err
				}
				args = append(args, v)
			}
			return fn, append(args, extra...), nil
		},
		Read: func(L *lua.LState, r []lua.LValue) (err error) {
			if len(r) == 0 || r[0] == lua.LNil {
				return errs.Errorf(errs.Invalid, what, "the %s callback returned nothing; return a result table", what)
			}
			if raw, err = value.Encode(r[0], value.EncodeOptions{}); err != nil {
				return errs.Errorf(errs.Invalid, what, "the %s callback's result: %v", what, err)
			}
			return nil
		},
	})
	return raw, err
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
