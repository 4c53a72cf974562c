package mcp

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
)

// The saved catalog from Lua (runtime/catalog): read and edit config.json.
// Every edit is one locked, atomic write that keeps unknown members.
// Entries go out as *catalog.Server (gopher-luar); stdlib/mcp_client.lua
// copies what Lua sees into tables: env names (envKeys), never values.

type luaCatalog struct{ path string }

func checkCatalog(L *lua.LState) string {
	return value.Check[*luaCatalog](L, 1, "mcp catalog expected (call it as cat:method(...))").path
}

func (m *module) catalogNatives(L *lua.LState, t *lua.LTable) {
	t.RawSetString("home", lua.LBool(m.cfg.Home != ""))
	// show, preview and apply (catalog_preview.go) are native methods.
	L.SetFuncs(t.RawGetString("catalog_methods").(*lua.LTable), m.catalogPreviewMethods())
	L.SetFuncs(t, map[string]lua.LGFunction{
		// catalog([path]) -> the catalog at path (default Home/config.json)
		"catalog": func(L *lua.LState) int {
			path := L.OptString(1, "")
			if path == "" {
				if m.cfg.Home == "" {
					L.ArgError(1, "no luagent home to find the catalog in: pass its path")
				}
				path = catalog.Path(m.cfg.Home)
			}
			L.Push(newUD(L, &luaCatalog{path}, m.catMT))
			return 1
		},
		"cat_list": func(L *lua.LState) int {
			L.Push(luar.New(L, loadCatalog(L, checkCatalog(L)).Servers))
			return 1
		},
		"cat_get": func(L *lua.LState) int {
			L.Push(luar.New(L, loadCatalog(L, checkCatalog(L)).Server(L.CheckString(2))))
			return 1
		},
		// cat_add(cat, name, entry, force): entry has config.json's fields.
		"cat_add": func(L *lua.LState) int {
			path, name, entry, force := checkCatalog(L), L.CheckString(2), L.CheckTable(3), lua.LVAsBool(L.Get(4))
			servers := L.CreateTable(0, 1)
			servers.RawSetString(name, entry)
			list, err := serversTable(servers)
			if err != nil {
				L.Error(sched.ErrorValueOf(L, err), 1)
			}
			edit(L, path, func(c *catalog.Config) error { return c.Add(list[0], force) })
			return 0
		},
		"cat_remove": func(L *lua.LState) int {
			path, name := checkCatalog(L), L.CheckString(2)
			edit(L, path, func(c *catalog.Config) error {
				if !c.Remove(name) {
					return errs.Errorf(errs.NotFound, "mcp.catalog", "no server named %s in %s", name, path)
				}
				return nil
			})
			return 0
		},
		// cat_enable(cat, name, on)
		"cat_enable": func(L *lua.LState) int {
			path, name, on := checkCatalog(L), L.CheckString(2), lua.LVAsBool(L.Get(3))
			edit(L, path, func(c *catalog.Config) error {
				s := c.Server(name)
				if s == nil {
					return errs.Errorf(errs.NotFound, "mcp.catalog", "no server named %s in %s", name, path)
				}
				s.Enabled = on
				return nil
			})
			return 0
		},
	})
}

func loadCatalog(L *lua.LState, path string) *catalog.Config {
	cfg, err := catalog.Load(path)
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
	return cfg
}

// edit runs fn on the catalog under its lock and saves it.
func edit(L *lua.LState, path string, fn func(*catalog.Config) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := catalog.Update(ctx, path, fn); err != nil {
		L.Error(sched.ErrorValueOf(L, err), 1)
	}
}
