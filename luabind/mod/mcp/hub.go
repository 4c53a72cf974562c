package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// The hub from Lua: the live connections of a catalog (runtime/hub).
//
//	local hub = mcp.hub()                       -- the user's catalog (Home/config.json)
//	local hub = mcp.hub{ path = "servers.json" } -- another catalog file
//	local hub = mcp.hub{ servers = { fs = { command = "npx", args = { ... } } } }
//	hub:on("status", function(s) print(s.name, s.status) end)
//	hub:wait()
//	for _, t in ipairs(hub:search("read a file")) do print(t.name) end
//	local r = hub:call("fs__read_text_file", { path = "README.md" })
//
// servers entries take config.json's fields (command, args, cwd, env, url,
// headers, oauth, enabled, startupTimeoutSeconds, requestTimeoutSeconds,
// protocol, roots, sampling, logLevel, maxConcurrentCalls). params = {...}
// resolves {param = NAME} env references. The hub starts at once
// (progressively); hub:wait() waits for it.

const hubType = "mcp.hub"

type luaHub struct {
	m    *module
	h    *hub.Hub
	path string // the catalog file, "" for a servers table
	// conns are the connection objects hub:server handed out (loop
	// goroutine only), to route notifications to their handlers.
	conns map[string]*conn
	mu    sync.Mutex // guards closed
	done  bool
}

func (m *module) hubMT(L *lua.LState) *lua.LTable {
	if mt, ok := L.GetTypeMetatable(hubType).(*lua.LTable); ok {
		return mt
	}
	lp := m.lp
	mt := L.NewTypeMetatable(hubType)
	methods := L.CreateTable(0, 20)
	for name, fn := range map[string]func(*lua.LState) sched.Start{
		"wait":        m.hubWait,
		"call":        m.hubCall,
		"resources":   m.hubList("resources"),
		"templates":   m.hubList("templates"),
		"prompts":     m.hubList("prompts"),
		"read":        m.hubRead,
		"prompt":      m.hubPrompt,
		"reauthorize": m.hubReauthorize,
	} {
		methods.RawSetString(name, lp.Async("hub:"+name, fn))
	}
	m.hubSkillMethods(methods)
	L.SetFuncs(methods, map[string]lua.LGFunction{
		"status":       m.hubStatus,
		"on":           m.hubOn,
		"tools":        m.hubTools,
		"search":       m.hubSearch,
		"server":       m.hubServer,
		"instructions": m.hubInstructions,
		"restart":      m.hubRestart,
		"reload":       m.hubReload,
		"close":        m.hubClose,
	})
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		hb := m.checkHub(L)
		L.Push(lua.LString(fmt.Sprintf("mcp hub (%d servers)", len(hb.h.Status()))))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(hubType))
	return mt
}

// Hub returns the runtime hub behind a Lua hub: other modules (the agent's)
// find it through this method without importing this package.
func (hb *luaHub) Hub() *hub.Hub { return hb.h }

func (m *module) checkHub(L *lua.LState) *luaHub {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if hb, ok := ud.Value.(*luaHub); ok {
			return hb
		}
	}
	L.ArgError(1, "mcp hub expected (call it as hub:method(...))")
	return nil
}

// newHub is mcp.hub([opts]). Whether it returns at once or after the
// servers have settled follows the catalog's mcpInitStrategy (opts.wait
// overrides it): "wait" waits, "progressive" does not, "auto" waits unless
// the session is interactive.
func (m *module) newHub(L *lua.LState) sched.Start {
	opts, _ := L.Get(1).(*lua.LTable)
	if L.Get(1) != lua.LNil && opts == nil {
		L.ArgError(1, "options must be a table ({path = ...} or {servers = {...}})")
	}
	var servers []*catalog.Server
	strategy := catalog.InitAuto
	path := ""
	if opts != nil {
		path = optString(opts, "path")
	}
	var err error
	switch {
	case opts != nil && opts.RawGetString("servers") != lua.LNil:
		if path != "" {
			L.ArgError(1, "give path or servers, not both")
		}
		servers, err = serversTable(opts.RawGetString("servers"))
	default:
		if path == "" {
			if m.cfg.Home == "" {
				L.ArgError(1, "no luagent home to find the catalog in: pass path = FILE or servers = {...}")
			}
			path = catalog.Path(m.cfg.Home)
		}
		var cfg *catalog.Config
		if cfg, err = catalog.Load(path); err == nil {
			servers, strategy = cfg.Servers, cfg.InitStrategy
		}
	}
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	hb := &luaHub{m: m, path: path, conns: map[string]*conn{}}
	o := hub.Options{Trace: m.cfg.Trace, Params: catalog.Params{}}
	if opts != nil {
		if ps, ok := opts.RawGetString("params").(*lua.LTable); ok {
			ps.ForEach(func(k, v lua.LValue) { o.Params[vm.ToString(L, k)] = vm.ToString(L, v) })
		}
		m.hubCallbacks(opts, &o)
	}
	for k, v := range m.cfg.Params {
		o.Params[k] = v
	}
	wait := strategy == catalog.InitWait || strategy == catalog.InitAuto && !m.cfg.Interactive
	if opts != nil {
		if w, ok := opts.RawGetString("wait").(lua.LBool); ok {
			wait = bool(w)
		}
	}
	if m.cfg.Home != "" {
		o.Store = store.Default(m.cfg.Home)
	}
	if m.cfg.Log != nil {
		o.OnStderr = m.cfg.Log
	}
	o.OnNotification = func(server, method string, params json.RawMessage) {
		m.lp.Post(func() {
			if c := hb.conns[server]; c != nil {
				c.dispatch(method, params)
			}
		})
	}
	hb.h = hub.New(servers, o)
	m.lp.OnClose(func() { hb.close() })
	hb.h.Start()
	ud := L.NewUserData()
	ud.Value = hb
	ud.Metatable = m.hubMT(L)
	return goDo(func(ctx context.Context) sched.Completion {
		if wait {
			// Each server's own startup timeout bounds this; a server that
			// fails shows in hub:status(), not as an error here.
			hb.h.Wait(ctx)
		}
		return func(L *lua.LState) ([]lua.LValue, error) { return []lua.LValue{ud}, nil }
	})
}

// hubCallbacks wires on_elicit and on_sample (Lua functions run as tasks).
func (m *module) hubCallbacks(t *lua.LTable, o *hub.Options) {
	if fn, ok := t.RawGetString("on_elicit").(*lua.LFunction); ok {
		o.Elicit = func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
			return m.callLua(ctx, fn, "on_elicit", params, lua.LString(server))
		}
	}
	if fn, ok := t.RawGetString("on_sample").(*lua.LFunction); ok {
		o.Sample = func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
			return m.callLua(ctx, fn, "on_sample", params, lua.LString(server))
		}
	}
}

func (hb *luaHub) close() {
	hb.mu.Lock()
	done := hb.done
	hb.done = true
	hb.mu.Unlock()
	if !done {
		hb.h.Close()
	}
}

// loadServers reads a catalog file's entries.
func loadServers(path string) ([]*catalog.Server, error) {
	cfg, err := catalog.Load(path)
	if err != nil {
		return nil, err
	}
	return cfg.Servers, nil
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

// stateTable is one server's status as Lua sees it.
func stateTable(L *lua.LState, s hub.State) *lua.LTable {
	t := L.CreateTable(0, 8)
	t.RawSetString("name", lua.LString(s.Name))
	t.RawSetString("status", lua.LString(s.Status))
	t.RawSetString("tools", lua.LNumber(s.Tools))
	if s.Err != nil {
		t.RawSetString("error", sched.ErrorValueOf(L, s.Err))
	}
	if len(s.Stderr) > 0 {
		lines := L.CreateTable(len(s.Stderr), 0)
		for i, l := range s.Stderr {
			lines.RawSetInt(i+1, lua.LString(l))
		}
		t.RawSetString("stderr", lines)
	}
	if s.Status == hub.Ready {
		t.RawSetString("era", lua.LString(s.Info.Era.String()))
		t.RawSetString("server_name", lua.LString(s.Info.ServerInfo.Name))
		if s.Info.Instructions != "" {
			t.RawSetString("instructions", lua.LString(s.Info.Instructions))
		}
	}
	return t
}

func statusList(L *lua.LState, states []hub.State) *lua.LTable {
	t := L.CreateTable(len(states), 0)
	for i, s := range states {
		t.RawSetInt(i+1, stateTable(L, s))
	}
	return value.MarkArray(t)
}

// hub:status() -> { {name=, status=, error=, stderr=, tools=, era=, instructions=}, ... }
func (m *module) hubStatus(L *lua.LState) int {
	L.Push(statusList(L, m.checkHub(L).h.Status()))
	return 1
}

// hub:on("status" | "tools", fn): fn(state) runs as a task per event;
// "status" starts with each server's status now.
func (m *module) hubOn(L *lua.LState) int {
	hb := m.checkHub(L)
	ev := L.CheckString(2)
	fn := L.CheckFunction(3)
	if ev != hub.EventStatus && ev != hub.EventTools {
		L.ArgError(2, "unknown event "+ev+" (status, tools)")
	}
	cancel := hb.h.Subscribe(func(e hub.Event) {
		if e.Kind != ev {
			return
		}
		m.lp.Post(func() {
			L := m.lp.L
			m.lp.Spawn(fn, []lua.LValue{stateTable(L, e.State)}, sched.SpawnOptions{Name: "hub " + ev})
		})
	})
	m.lp.OnClose(cancel)
	if ev == hub.EventStatus {
		// fn hears each server's status now, then every change: a handler
		// registered after a server settled (mcp.hub() may wait) misses
		// nothing. A change racing this may be heard twice.
		for _, st := range hb.h.Status() {
			m.lp.Spawn(fn, []lua.LValue{stateTable(L, st)}, sched.SpawnOptions{Name: "hub " + ev})
		}
	}
	return 0
}

// hub:wait() waits until no server is connecting and returns hub:status().
func (m *module) hubWait(L *lua.LState) sched.Start {
	hb := m.checkHub(L)
	return goDo(func(ctx context.Context) sched.Completion {
		if err := hb.h.Wait(ctx); err != nil {
			return fail(err)
		}
		return func(L *lua.LState) ([]lua.LValue, error) {
			return []lua.LValue{statusList(L, hb.h.Status())}, nil
		}
	})
}

// toolList is tools as Lua tables: the server's object with name set to
// the qualified name, plus server, tool (the server's own name) and
// schema_hash.
func toolList(L *lua.LState, tools []hub.Tool) (*lua.LTable, error) {
	t := L.CreateTable(len(tools), 0)
	for i, tl := range tools {
		v, err := value.Decode(L, tl.Def.Raw)
		tt, ok := v.(*lua.LTable)
		if err != nil || !ok {
			tt = L.CreateTable(0, 4)
		}
		tt.RawSetString("name", lua.LString(tl.Name))
		tt.RawSetString("server", lua.LString(tl.Server))
		tt.RawSetString("tool", lua.LString(tl.Def.Name))
		tt.RawSetString("schema_hash", lua.LString(tl.SchemaHash))
		t.RawSetInt(i+1, tt)
	}
	return value.MarkArray(t), nil
}

// hub:tools() -> tools, partial
func (m *module) hubTools(L *lua.LState) int {
	tools, partial := m.checkHub(L).h.Tools()
	t, _ := toolList(L, tools)
	L.Push(t)
	L.Push(lua.LBool(partial))
	return 2
}

// hub:search(query [, {server=, limit=}]) -> tools, partial
func (m *module) hubSearch(L *lua.LState) int {
	hb := m.checkHub(L)
	q := L.CheckString(2)
	var o hub.SearchOptions
	if t, ok := L.Get(3).(*lua.LTable); ok {
		o.Server = optString(t, "server")
		if n, ok := t.RawGetString("limit").(lua.LNumber); ok {
			o.Limit = int(n)
		}
	}
	tools, partial := hb.h.Search(q, o)
	t, _ := toolList(L, tools)
	L.Push(t)
	L.Push(lua.LBool(partial))
	return 2
}

// hub:call(qualified, args [, {timeout=, schema_hash=, progress=}])
func (m *module) hubCall(L *lua.LState) sched.Start {
	hb := m.checkHub(L)
	name := L.CheckString(2)
	args, argsValue := m.callArgs(L, 3)
	o := hub.CallOptions{CallOptions: rmcp.CallOptions{Args: argsValue}}
	if opts, ok := L.Get(4).(*lua.LTable); ok {
		o.CallOptions = m.callOptions(L, opts, 4, argsValue)
		o.SchemaHash = optString(opts, "schema_hash")
	}
	return goDo(func(ctx context.Context) sched.Completion {
		r, err := hb.h.Call(ctx, name, args, o)
		if err != nil {
			return fail(err)
		}
		return decoded(r.Raw)
	})
}

// hub:resources{server=} (also templates, prompts): objects with server set.
func (m *module) hubList(which string) func(*lua.LState) sched.Start {
	return func(L *lua.LState) sched.Start {
		hb := m.checkHub(L)
		server := ""
		switch a := L.Get(2).(type) {
		case *lua.LTable:
			server = optString(a, "server")
		case lua.LString:
			server = string(a)
		}
		return goDo(func(ctx context.Context) sched.Completion {
			var items []hub.Item
			var err error
			switch which {
			case "resources":
				items, err = hb.h.Resources(ctx, server)
			case "templates":
				items, err = hb.h.Templates(ctx, server)
			default:
				items, err = hb.h.Prompts(ctx, server)
			}
			if err != nil && (server != "" || len(items) == 0) {
				return fail(err)
			}
			return func(L *lua.LState) ([]lua.LValue, error) {
				t := L.CreateTable(len(items), 0)
				for i, it := range items {
					v, derr := value.Decode(L, it.Raw)
					if derr != nil {
						return nil, errs.Wrap(errs.Protocol, "mcp", derr)
					}
					if tt, ok := v.(*lua.LTable); ok {
						tt.RawSetString("server", lua.LString(it.Server))
					}
					t.RawSetInt(i+1, v)
				}
				return []lua.LValue{value.MarkArray(t)}, nil
			}
		})
	}
}

// hub:read(server, uri)
func (m *module) hubRead(L *lua.LState) sched.Start {
	hb := m.checkHub(L)
	server, uri := L.CheckString(2), L.CheckString(3)
	return goDo(func(ctx context.Context) sched.Completion {
		raw, err := hb.h.Read(ctx, server, uri)
		if err != nil {
			return fail(err)
		}
		return decoded(raw)
	})
}

// hub:prompt(server, name [, args])
func (m *module) hubPrompt(L *lua.LState) sched.Start {
	hb := m.checkHub(L)
	server, name := L.CheckString(2), L.CheckString(3)
	args := stringArgs(L, 4)
	return goDo(func(ctx context.Context) sched.Completion {
		raw, err := hb.h.Prompt(ctx, server, name, args)
		if err != nil {
			return fail(err)
		}
		return decoded(raw)
	})
}

// hub:reauthorize(name): the OAuth login in a browser, then a restart.
func (m *module) hubReauthorize(L *lua.LState) sched.Start {
	hb := m.checkHub(L)
	name := L.CheckString(2)
	return goDo(func(ctx context.Context) sched.Completion {
		if err := hb.h.Reauthorize(ctx, name); err != nil {
			return fail(err)
		}
		return sched.Values()
	})
}

// hub:server(name): the server's connection (the mcp.connect object),
// while it is ready. The hub owns it: conn:close() leaves it open.
func (m *module) hubServer(L *lua.LState) int {
	hb := m.checkHub(L)
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
	ud := L.NewUserData()
	ud.Value = cn
	ud.Metatable = m.connMT(L)
	cn.ud = ud
	hb.conns[name] = cn
	L.Push(ud)
	return 1
}

// hub:instructions() -> { server = text, ... }
func (m *module) hubInstructions(L *lua.LState) int {
	t := L.CreateTable(0, 4)
	for k, v := range m.checkHub(L).h.Instructions() {
		t.RawSetString(k, lua.LString(v))
	}
	L.Push(t)
	return 1
}

// hub:restart(name)
func (m *module) hubRestart(L *lua.LState) int {
	if err := m.checkHub(L).h.Restart(L.CheckString(2)); err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
	return 0
}

// hub:reload([servers]): re-reads the catalog file (or takes a new servers
// table) and restarts only what changed.
func (m *module) hubReload(L *lua.LState) int {
	hb := m.checkHub(L)
	var servers []*catalog.Server
	var err error
	switch {
	case L.Get(2) != lua.LNil:
		servers, err = serversTable(L.Get(2))
	case hb.path != "":
		servers, err = loadServers(hb.path)
	default:
		L.ArgError(2, "this hub has no catalog file: pass the new servers table")
	}
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
	hb.h.Reload(servers)
	return 0
}

// hub:close() stops every server (in the background: the loop does not
// wait for stubborn processes).
func (m *module) hubClose(L *lua.LState) int {
	hb := m.checkHub(L)
	go hb.close()
	return 0
}
