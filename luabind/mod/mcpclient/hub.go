package mcpclient

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/servercache"
)

// The hub from Lua: the live connections of a catalog (runtime/hub).
// stdlib/mcp_client.lua reads mcp.hub's options into hubOptions, shapes
// the states and lists the natives here return, and builds each hub method.

type luaHub struct {
	m    *module
	h    *hub.Hub
	path string // the catalog file, "" for a servers table
	wait bool   // mcp.hub and hub:start wait for the servers they start
	// conns are the connection objects hub:server handed out (loop
	// goroutine only), to route notifications to their handlers.
	conns map[string]*conn
	once  sync.Once // closes h
}

// hubOptions is mcp.hub's options as mcp_client.lua hands them over
// (gopher-luar): Servers is the servers table as the script wrote it,
// Wait a boolean or nil (the catalog's strategy decides), Start a list of
// the servers to start (nil: every enabled one).
type hubOptions struct {
	Path               string
	Params             map[string]string
	Servers, Wait      lua.LValue
	Start              lua.LValue
	Cache              bool
	Dir                string // the servers' folder (hub.Options.Dir)
	OnElicit, OnSample lua.LValue
}

// Hub returns the runtime hub behind a Lua hub: other modules (the agent's)
// find it through this method without importing this package.
func (hb *luaHub) Hub() *hub.Hub { return hb.h }

func (m *module) checkHub(L *lua.LState) *luaHub {
	return value.Check[*luaHub](L, 1, "mcp hub expected (call it as hub:method(...))")
}

func (hb *luaHub) close() { hb.once.Do(func() { hb.h.Close() }) }

// newHub is hub(o). Whether it returns at once or after the servers have
// settled follows the catalog's mcpInitStrategy (o.Wait overrides it):
// "wait" waits, "progressive" does not, "auto" waits unless the session is
// interactive.
func (m *module) newHub(L *lua.LState) sched.Start {
	o := value.FromLuar[hubOptions](L, 1)
	var servers []*catalog.Server
	strategy := catalog.InitAuto
	var err error
	switch {
	case o.Servers != nil && o.Servers != lua.LNil:
		servers, err = serversTable(o.Servers)
	default:
		if o.Path == "" {
			if m.cfg.Home == "" {
				L.ArgError(1, "no luagent home to find the catalog in: pass path = FILE or servers = {...}")
			}
			o.Path = catalog.Path(m.cfg.Home)
		}
		var cfg *catalog.Config
		if cfg, err = catalog.Load(o.Path); err == nil {
			servers, strategy = cfg.Servers, cfg.InitStrategy
		}
	}
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	hb := &luaHub{m: m, path: o.Path, conns: map[string]*conn{}}
	start, all := names(o.Start)
	if o.Dir != "" {
		if o.Dir, err = filepath.Abs(o.Dir); err != nil {
			L.RaiseError("mcp.hub: dir %q: %v", o.Dir, err)
		}
	}
	ho := hub.Options{Trace: m.cfg.Trace, Params: catalog.Params{}, OnStderr: m.cfg.Log, Dir: o.Dir}
	for k, v := range o.Params {
		ho.Params[k] = v
	}
	for k, v := range m.cfg.Params {
		ho.Params[k] = v
	}
	ho.Elicit, ho.Sample = m.hubCallback(o.OnElicit, "on_elicit"), m.hubCallback(o.OnSample, "on_sample")
	wait := strategy == catalog.InitWait || strategy == catalog.InitAuto && !m.cfg.Interactive
	if w, ok := o.Wait.(lua.LBool); ok {
		wait = bool(w)
	}
	hb.wait = wait
	if m.cfg.Home != "" {
		ho.Store = store.Default(m.cfg.Home)
		if o.Cache {
			ho.CacheDir = servercache.Dir(m.cfg.Home)
		}
	}
	ho.OnNotification = func(server, method string, params json.RawMessage) {
		m.lp.Post(func() {
			if c := hb.conns[server]; c != nil {
				c.dispatch(method, params)
			}
		})
	}
	hb.h = hub.New(servers, ho)
	m.lp.OnClose(hb.close)
	if all {
		hb.h.Start()
	} else if len(start) > 0 {
		hb.h.Start(start...) // only these are spawned
	}
	ud := value.NewUserData(L, hb, m.hubMT)
	return hb.settle(ud)
}

// settle waits, when the hub waits, until no server is connecting, and
// completes with vals. Each server's own startup timeout bounds the wait;
// a server that fails shows in hub:status(), not as an error here.
func (hb *luaHub) settle(vals ...lua.LValue) sched.Start {
	return goDo(func(ctx context.Context) sched.Completion {
		if hb.wait {
			hb.h.WaitListed(ctx) // Wait, but for servers offered from their cache
		}
		return sched.Values(vals...)
	})
}

// names reads a list of server names (mcp_client.lua checked it): all is
// true for nil, every enabled server.
func names(v lua.LValue) (list []string, all bool) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, true
	}
	for i := 1; i <= t.Len(); i++ {
		list = append(list, lua.LVAsString(t.RawGetInt(i)))
	}
	return list, false
}

// hubCallback adapts an optional Lua function to a hub callback:
// fn(params, server, tag) runs as a task; tag is the one of the agent run
// whose tool call caused the request (a:ask_fresh's), when it is known.
func (m *module) hubCallback(fn lua.LValue, what string) func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	f, ok := fn.(*lua.LFunction)
	if !ok {
		return nil
	}
	return func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
		return m.callLua(ctx, f, what, params, lua.LString(server), sched.TagOf(ctx))
	}
}

// serversTable reads {name = {config.json fields}} as a catalog would.
func serversTable(v lua.LValue) ([]*catalog.Server, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, errs.New(errs.Invalid, "mcp.hub", "servers must be a table of name = {command = ..., args = {...}} or {url = ...}")
	}
	raw, err := value.Encode(value.MarkObject(t), value.EncodeOptions{})
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, "mcp.hub", "servers: %v", err)
	}
	return catalog.ParseServers(raw)
}

// hubNatives adds the hub's natives to t. States and tools go out as
// gopher-luar values; mcp_client.lua copies what Lua sees into tables.
func (m *module) hubNatives(L *lua.LState, t *lua.LTable) {
	lp := m.lp
	async := func(name string, read func(L *lua.LState, hb *luaHub) sched.Start) {
		t.RawSetString("hub_"+name, lp.Async("hub:"+name, func(L *lua.LState) sched.Start { return read(L, m.checkHub(L)) }))
	}
	sync := func(name string, f func(L *lua.LState, hb *luaHub) int) {
		t.RawSetString("hub_"+name, L.NewFunction(func(L *lua.LState) int { return f(L, m.checkHub(L)) }))
	}
	// call(hb, qualified, args, timeout_ns, task, progress, schema_hash)
	async("call", func(L *lua.LState, hb *luaHub) sched.Start {
		name := L.CheckString(2)
		args, co := m.callArgs(L)
		o := hub.CallOptions{CallOptions: co, SchemaHash: L.OptString(7, "")}
		return goDo(func(ctx context.Context) sched.Completion {
			r, err := hb.h.Call(ctx, name, args, o)
			if err != nil {
				return fail(err)
			}
			return decoded(r.Raw)
		})
	})
	// go(hb) is the runtime hub as gopher-luar shows it: its Status, Tools,
	// Search, Skills, Instructions and Restart are called from Lua as they are.
	sync("go", func(L *lua.LState, hb *luaHub) int { L.Push(luar.New(L, hb.h)); return 1 })
	// on(hb, event, fn): fn(state) runs as a task per event, state a
	// hub.State; "status" starts with each server's status now.
	sync("on", func(L *lua.LState, hb *luaHub) int {
		ev, fn := L.CheckString(2), L.CheckFunction(3)
		spawn := func(st hub.State) {
			lp.Spawn(fn, []lua.LValue{luar.New(lp.L, st)}, sched.SpawnOptions{Name: "hub " + ev})
		}
		lp.OnClose(hb.h.Subscribe(func(e hub.Event) {
			if e.Kind == ev {
				lp.Post(func() { spawn(e.State) })
			}
		}))
		if ev == hub.EventStatus {
			// fn hears each server's status now, then every change: a handler
			// registered after a server settled (mcp.hub() may wait) misses
			// nothing. A change racing this may be heard twice.
			for _, st := range hb.h.Status() {
				spawn(st)
			}
		}
		return 0
	})
	// tools(hb [, query, server, limit]) -> tools, partial: all of them, or
	// those search ranks first; each the server's object with name set to
	// the qualified name, plus server, tool (the server's own name) and
	// schema_hash. Hand-written: hub:tools() through gopher-luar took three
	// times as long.
	sync("tools", func(L *lua.LState, hb *luaHub) int {
		var tools []hub.Tool
		var partial bool
		if q, ok := L.Get(2).(lua.LString); ok {
			tools, partial = hb.h.Search(string(q), hub.SearchOptions{Server: L.OptString(3, ""), Limit: L.OptInt(4, 0)})
		} else {
			tools, partial = hb.h.Tools()
		}
		t := L.CreateTable(len(tools), 0)
		for i, tl := range tools {
			v, _ := value.Decode(L, tl.Def.Raw)
			tt, ok := v.(*lua.LTable)
			if !ok {
				tt = L.CreateTable(0, 4)
			}
			tt.RawSetString("name", lua.LString(tl.Name))
			tt.RawSetString("server", lua.LString(tl.Server))
			tt.RawSetString("tool", lua.LString(tl.Def.Name))
			tt.RawSetString("schema_hash", lua.LString(tl.SchemaHash))
			t.RawSetInt(i+1, tt)
		}
		L.Push(value.MarkArray(t))
		L.Push(lua.LBool(partial))
		return 2
	})
	sync("server", m.hubServer)
	// start(hb [, names]): starts these servers (nil: every enabled one)
	// that are not started yet, and waits for them as mcp.hub does.
	async("start", func(L *lua.LState, hb *luaHub) sched.Start {
		if list, all := names(L.Get(2)); all {
			hb.h.Start()
		} else if len(list) > 0 {
			hb.h.Start(list...)
		}
		return hb.settle()
	})
	// reload(hb, servers): re-reads the catalog file when servers is nil.
	sync("reload", func(L *lua.LState, hb *luaHub) int {
		var servers []*catalog.Server
		var err error
		switch {
		case L.Get(2) != lua.LNil:
			servers, err = serversTable(L.Get(2))
		case hb.path != "":
			var cfg *catalog.Config
			if cfg, err = catalog.Load(hb.path); err == nil {
				servers = cfg.Servers
			}
		default:
			L.ArgError(2, "this hub has no catalog file: pass the new servers table")
		}
		if err != nil {
			L.Error(sched.ErrorValueOf(L, err), 1)
		}
		hb.h.Reload(servers)
		return 0
	})
	// close stops every server in the background: the loop does not wait
	// for stubborn processes.
	sync("close", func(L *lua.LState, hb *luaHub) int { go hb.close(); return 0 })
	L.SetFuncs(t, map[string]lua.LGFunction{
		// error_value(err) is a Go error (gopher-luar) as a luagent error.
		"error_value": func(L *lua.LState) int {
			L.Push(sched.ErrorValueOf(L, L.CheckUserData(1).Value.(error)))
			return 1
		},
		// decode(raw) is a json.RawMessage (gopher-luar) decoded, or nil and
		// the error (kind protocol).
		"decode": func(L *lua.LState) int {
			var raw json.RawMessage
			if ud, ok := L.Get(1).(*lua.LUserData); ok {
				raw, _ = ud.Value.(json.RawMessage)
			}
			v, err := decodeRaw(L, raw)
			if err != nil {
				L.Push(lua.LNil)
				L.Push(sched.ErrorValueOf(L, err))
				return 2
			}
			L.Push(v)
			return 1
		},
	})
}

// hubServer is hub:server(name): the server's connection (the
// mcp.connect object), while it is ready. The hub owns it: conn:close()
// leaves it open.
func (m *module) hubServer(L *lua.LState, hb *luaHub) int {
	name := L.CheckString(2)
	c, ok := hb.h.Client(name)
	if !ok {
		status := "not in the catalog"
		for _, s := range hb.h.Status() {
			if s.Name == name {
				status = string(s.Status)
			}
		}
		L.RaiseError("server %q is %s, not ready (hub:status() says why)", name, status)
	}
	if cn := hb.conns[name]; cn != nil && cn.c == c {
		L.Push(cn.ud)
		return 1
	}
	cn := &conn{m: m, c: c, name: name, handlers: map[string][]*lua.LFunction{}, borrowed: true}
	cn.ud = value.NewUserData(L, cn, m.connMT)
	hb.conns[name] = cn
	L.Push(cn.ud)
	return 1
}
