package mcp

import (
	"context"
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
)

// The saved catalog from Lua (runtime/catalog): read and edit config.json.
//
//	local cat = mcp.catalog()          -- Home/config.json; mcp.catalog(path) for another
//	for _, s in ipairs(cat:list()) do print(s.name, s.transport, s.enabled) end
//	cat:add("fs", { command = "npx", args = { "-y", "@modelcontextprotocol/server-filesystem", "." } })
//	cat:disable("fs"); cat:enable("fs"); cat:remove("fs")
//
// Every edit is one locked, atomic write that keeps unknown members. Entries
// read back carry env names (envKeys), never values.

const catalogType = "mcp.catalog"

func (m *module) newCatalog(L *lua.LState) int {
	path := L.OptString(1, "")
	if path == "" {
		if m.cfg.Home == "" {
			L.ArgError(1, "no luagent home to find the catalog in: pass its path")
		}
		path = catalog.Path(m.cfg.Home)
	}
	mt, ok := L.GetTypeMetatable(catalogType).(*lua.LTable)
	if !ok {
		mt = L.NewTypeMetatable(catalogType)
		methods := L.CreateTable(0, 6)
		L.SetFuncs(methods, map[string]lua.LGFunction{
			"list": m.catList, "get": m.catGet, "add": m.catAdd, "remove": m.catRemove,
			"enable": m.catEnabled(true), "disable": m.catEnabled(false),
		})
		L.SetFuncs(methods, m.catalogPreviewMethods()) // show, preview, apply (catalog_preview.go)
		mt.RawSetString("__index", methods)
		mt.RawSetString("__metatable", lua.LString(catalogType))
	}
	ud := L.NewUserData()
	ud.Value = path
	ud.Metatable = mt
	L.Push(ud)
	return 1
}

func checkCatalog(L *lua.LState) string {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if p, ok := ud.Value.(string); ok && ud.Metatable == L.GetTypeMetatable(catalogType) {
			return p
		}
	}
	L.ArgError(1, "mcp catalog expected (call it as cat:method(...))")
	return ""
}

// entryTable is an entry as Lua reads it: config.json's names, env keys
// only.
func entryTable(L *lua.LState, s *catalog.Server) *lua.LTable {
	t := L.CreateTable(0, 12)
	set := func(k string, v lua.LValue) { t.RawSetString(k, v) }
	set("name", lua.LString(s.Name))
	set("enabled", lua.LBool(s.Enabled))
	set("transport", lua.LString(s.Transport()))
	strs := func(list []string) *lua.LTable {
		a := L.CreateTable(len(list), 0)
		for i, x := range list {
			a.RawSetInt(i+1, lua.LString(x))
		}
		return value.MarkArray(a)
	}
	if s.URL != "" {
		set("url", lua.LString(s.URL))
		hs := L.CreateTable(0, len(s.Headers))
		for k := range s.Headers {
			hs.RawSetString(k, lua.LString("…")) // headers may hold tokens
		}
		set("headers", hs)
	} else {
		set("command", lua.LString(s.Command))
		set("args", strs(s.Args))
		if s.Cwd != "" {
			set("cwd", lua.LString(s.Cwd))
		}
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		set("envKeys", strs(keys))
	}
	if s.StartupTimeout > 0 {
		set("startupTimeoutSeconds", lua.LNumber(s.StartupTimeout.Seconds()))
	}
	if s.RequestTimeout > 0 {
		set("requestTimeoutSeconds", lua.LNumber(s.RequestTimeout.Seconds()))
	}
	for k, v := range map[string]string{"protocol": s.Protocol, "logLevel": s.LogLevel} {
		if v != "" {
			set(k, lua.LString(v))
		}
	}
	set("roots", lua.LBool(s.Roots))
	set("sampling", lua.LBool(s.Sampling))
	return t
}

func (m *module) catList(L *lua.LState) int {
	cfg, err := catalog.Load(checkCatalog(L))
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
	t := L.CreateTable(len(cfg.Servers), 0)
	for i, s := range cfg.Servers {
		t.RawSetInt(i+1, entryTable(L, s))
	}
	L.Push(value.MarkArray(t))
	return 1
}

func (m *module) catGet(L *lua.LState) int {
	cfg, err := catalog.Load(checkCatalog(L))
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
	if s := cfg.Server(L.CheckString(2)); s != nil {
		L.Push(entryTable(L, s))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// edit runs fn on the catalog under its lock and saves it.
func edit(L *lua.LState, path string, fn func(*catalog.Config) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := catalog.Update(ctx, path, fn); err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
}

// cat:add(name, entry [, {force = true}]): entry has config.json's fields.
func (m *module) catAdd(L *lua.LState) int {
	path := checkCatalog(L)
	name := L.CheckString(2)
	entry := L.CheckTable(3)
	force := false
	if o, ok := L.Get(4).(*lua.LTable); ok {
		force = lua.LVAsBool(o.RawGetString("force"))
	}
	servers := L.CreateTable(0, 1)
	servers.RawSetString(name, entry)
	list, err := serversTable(servers)
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
	edit(L, path, func(c *catalog.Config) error { return c.Add(list[0], force) })
	return 0
}

func (m *module) catRemove(L *lua.LState) int {
	path, name := checkCatalog(L), L.CheckString(2)
	edit(L, path, func(c *catalog.Config) error {
		if !c.Remove(name) {
			return errs.Errorf(errs.NotFound, "mcp.catalog", "no server named %s in %s", name, path)
		}
		return nil
	})
	return 0
}

func (m *module) catEnabled(on bool) lua.LGFunction {
	return func(L *lua.LState) int {
		path, name := checkCatalog(L), L.CheckString(2)
		edit(L, path, func(c *catalog.Config) error {
			s := c.Server(name)
			if s == nil {
				return errs.Errorf(errs.NotFound, "mcp.catalog", "no server named %s in %s", name, path)
			}
			s.Enabled = on
			return nil
		})
		return 0
	}
}
