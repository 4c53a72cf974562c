package mcp

import (
	"context"
	"encoding/json"
	"sync"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// The hub from Lua: the live connections of a catalog (runtime/hub).
// stdlib/mcp_client.lua reads mcp.hub's options into hubOptions, shapes
// the states and lists the natives here return, and builds each hub method.

type luaHub struct {
	m    *module
	h    *hub.Hub
	path string // the catalog file, "" for a servers table
	// conns are the connection objects hub:server handed out (loop
	// goroutine only), to route notifications to their handlers.
	conns map[string]*conn
	once  sync.Once // closes h
}

// hubOptions is mcp.hub's options as mcp_client.lua hands them over
// (gopher-luar): Servers is the servers table as the script wrote it,
// Wait a boolean or nil (the catalog's strategy decides).
type hubOptions struct {
	Path               string
	Params             map[string]string
	Servers, Wait      lua.LValue
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
	o := luarIn[hubOptions](L, 1)
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
	ho := hub.Options{Trace: m.cfg.Trace, Params: catalog.Params{}, OnStderr: m.cfg.Log}
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
	if m.cfg.Home != "" {
		ho.Store = store.Default(m.cfg.Home)
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
	hb.h.Start()
	ud := newUD(L, hb, m.hubMT)
	return goDo(func(ctx context.Context) sched.Completion {
		if wait {
			// Each server's own startup timeout bounds this; a server that
			// fails shows in hub:status(), not as an error here.
			hb.h.Wait(ctx)
		}
		return sched.Values(ud)
	})
}

// hubCallback adapts an optional Lua function to a hub callback:
// fn(params, server) runs as a task.
func (m *module) hubCallback(fn lua.LValue, what string) func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	f, ok := fn.(*lua.LFunction)
	if !ok {
		return nil
	}
	return func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
		return m.callLua(ctx, f, what, params, lua.LString(server))
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
	cfg, err := catalog.Parse([]byte(`{"version":1,"mcpServers":` + string(raw) + `}`))
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return nil, err
	}
	return cfg.Servers, nil
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
	async("wait", func(L *lua.LState, hb *luaHub) sched.Start {
		return goDo(func(ctx context.Context) sched.Completion {
			err := hb.h.Wait(ctx)
			return luarOut(hb.h.Status(), err)
		})
	})
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
	for name, f := range map[string]func(*hub.Hub, context.Context, string) ([]hub.Item, error){
		"resources": (*hub.Hub).Resources, "templates": (*hub.Hub).Templates, "prompts": (*hub.Hub).Prompts,
	} {
		// list(hb, server) -> the items as sent, their servers
		async(name, func(L *lua.LState, hb *luaHub) sched.Start {
			server := L.OptString(2, "")
			return goDo(func(ctx context.Context) sched.Completion {
				items, err := f(hb.h, ctx, server)
				if err != nil && (server != "" || len(items) == 0) {
					return fail(err)
				}
				raws, servers := make([]json.RawMessage, len(items)), make([]string, len(items))
				for i, it := range items {
					raws[i], servers[i] = it.Raw, it.Server
				}
				raw, _ := joined(raws, nil)
				return func(L *lua.LState) ([]lua.LValue, error) {
					v, err := decoded(raw)(L)
					return append(v, luar.New(L, servers)), err
				}
			})
		})
	}
	async("read", func(L *lua.LState, hb *luaHub) sched.Start {
		server, uri := L.CheckString(2), L.CheckString(3)
		return goRaw(func(ctx context.Context) (json.RawMessage, error) { return hb.h.Read(ctx, server, uri) })
	})
	async("prompt", func(L *lua.LState, hb *luaHub) sched.Start {
		server, name, args := L.CheckString(2), L.CheckString(3), luarIn[map[string]string](L, 4)
		return goRaw(func(ctx context.Context) (json.RawMessage, error) { return hb.h.Prompt(ctx, server, name, args) })
	})
	async("reauthorize", func(L *lua.LState, hb *luaHub) sched.Start {
		name := L.CheckString(2)
		return goRaw(func(ctx context.Context) (json.RawMessage, error) { return nil, hb.h.Reauthorize(ctx, name) })
	})
	async("load_skill", func(L *lua.LState, hb *luaHub) sched.Start {
		name := L.CheckString(2)
		return goDo(func(ctx context.Context) sched.Completion { return orError(hb.h.LoadSkill(ctx, name)) })
	})
	async("read_skill_file", func(L *lua.LState, hb *luaHub) sched.Start {
		name, path := L.CheckString(2), L.CheckString(3)
		return goDo(func(ctx context.Context) sched.Completion { return fileValues(hb.h.ReadSkillFile(ctx, name, path)) })
	})
	sync("status", func(L *lua.LState, hb *luaHub) int { L.Push(luar.New(L, hb.h.Status())); return 1 })
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
	// tools(hb [, query, server, limit]) -> the tools as sent, the
	// hub.Tools, partial: all of them, or those search ranks first.
	sync("tools", func(L *lua.LState, hb *luaHub) int {
		var tools []hub.Tool
		var partial bool
		if q, ok := L.Get(2).(lua.LString); ok {
			tools, partial = hb.h.Search(string(q), hub.SearchOptions{Server: L.OptString(3, ""), Limit: L.OptInt(4, 0)})
		} else {
			tools, partial = hb.h.Tools()
		}
		raws := make([]json.RawMessage, len(tools))
		for i, tl := range tools {
			raws[i] = tl.Def.Raw
		}
		raw, _ := joined(raws, nil)
		v, err := value.Decode(L, raw)
		if err != nil {
			L.Error(sched.ErrorValueOf(L, errs.Wrap(errs.Protocol, "mcp", err)), 1)
		}
		L.Push(v)
		L.Push(luar.New(L, tools))
		L.Push(lua.LBool(partial))
		return 3
	})
	sync("skills", func(L *lua.LState, hb *luaHub) int {
		all := hb.h.Skills()
		raws := make([]json.RawMessage, len(all))
		for i, sk := range all {
			raws[i] = sk.Entry.Raw
		}
		raw, _ := joined(raws, nil)
		v, _ := value.Decode(L, raw)
		L.Push(v)
		L.Push(luar.New(L, all))
		return 2
	})
	sync("server", m.hubServer)
	sync("instructions", func(L *lua.LState, hb *luaHub) int { L.Push(luar.New(L, hb.h.Instructions())); return 1 })
	sync("restart", func(L *lua.LState, hb *luaHub) int {
		if err := hb.h.Restart(L.CheckString(2)); err != nil {
			L.Error(sched.ErrorValueOf(L, err), 1)
		}
		return 0
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
	t.RawSetString("error_value", L.NewFunction(func(L *lua.LState) int {
		L.Push(sched.ErrorValueOf(L, L.CheckUserData(1).Value.(error)))
		return 1
	}))
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
	cn.ud = newUD(L, cn, m.connMT)
	hb.conns[name] = cn
	L.Push(cn.ud)
	return 1
}
