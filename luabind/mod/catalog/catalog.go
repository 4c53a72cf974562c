// Package catalog is the native side of mcp.catalog, the private
// mcp._catalog_native: the saved server catalog (runtime/catalog,
// config.json) from Lua. Every edit is one locked, atomic write that
// keeps unknown members. What users call — mcp.catalog(path), cat:list,
// cat:get, cat:add, cat:remove, cat:enable, cat:disable, and the
// preview-then-apply edits of preview.go that stdlib/meta.lua's catalog
// agent makes — is stdlib/mcp_catalog.lua over these natives. It is its
// own module, not the MCP client's: it reads and writes a file, and
// speaks no protocol.
package catalog

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"

	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	rcatalog "github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
)

// Config is what the host gives the module.
type Config struct {
	// Home is luagent's folder: mcp.catalog() with no path is
	// Home/config.json ("" leaves no default).
	Home string
}

// Preload registers the native module mcp._catalog_native and the Lua
// module over it (mcp._catalog), which stdlib/mcp.lua's mcp.catalog loads.
func Preload(L *lua.LState, cfg Config) {
	L.PreloadModule("mcp._catalog_native", func(L *lua.LState) int {
		L.Push(Open(L, cfg))
		return 1
	})
	preload.Embedded(L, "mcp._catalog", "mcp_catalog")
}

// typeName is the catalog object's metatable, and what getmetatable says
// of it.
const typeName = "mcp.catalog"

type luaCatalog struct{ path string }

func checkCatalog(L *lua.LState) string {
	return value.Check[*luaCatalog](L, 1, "mcp catalog expected (call it as cat:method(...))").path
}

// Open builds the native table. Entries go out as *catalog.Server
// (gopher-luar); stdlib/mcp_catalog.lua copies what Lua sees into tables:
// env names, never values.
func Open(L *lua.LState, cfg Config) *lua.LTable {
	t := L.CreateTable(0, 10)
	// catalog_methods is the catalog object's methods: show, preview and
	// apply are native (preview.go), mcp_catalog.lua adds the rest.
	mt := value.TypeMetatable(L, t, typeName, "catalog_methods", nil)
	L.SetFuncs(t.RawGetString("catalog_methods").(*lua.LTable), map[string]lua.LGFunction{"show": catShow, "preview": catPreview, "apply": catApply})
	t.RawSetString("home", lua.LBool(cfg.Home != ""))
	L.SetFuncs(t, map[string]lua.LGFunction{
		// catalog([path]) -> the catalog at path (default Home/config.json)
		"catalog": func(L *lua.LState) int {
			path := L.OptString(1, "")
			if path == "" {
				if cfg.Home == "" {
					L.ArgError(1, "no luagent home to find the catalog in: pass its path")
				}
				path = rcatalog.Path(cfg.Home)
			}
			L.Push(value.NewUserData(L, &luaCatalog{path}, mt))
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
			raw, err := value.Encode(servers, value.EncodeOptions{})
			if err != nil {
				raise(L, errs.Errorf(errs.Invalid, "mcp.catalog", "the entry: %v", err))
			}
			list, err := rcatalog.ParseServers(raw)
			if err != nil {
				raise(L, err)
			}
			edit(L, path, func(c *rcatalog.Config) error { return c.Add(list[0], force) })
			return 0
		},
		"cat_remove": func(L *lua.LState) int {
			path, name := checkCatalog(L), L.CheckString(2)
			edit(L, path, func(c *rcatalog.Config) error {
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
			edit(L, path, func(c *rcatalog.Config) error {
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
	return t
}

// raise raises err as a luagent error (its kind kept) at the caller.
func raise(L *lua.LState, err error) { L.Error(sched.ErrorValueOf(L, err), 1) }

func loadCatalog(L *lua.LState, path string) *rcatalog.Config {
	cfg, err := rcatalog.Load(path)
	if err != nil {
		raise(L, err)
	}
	return cfg
}

// edit runs fn on the catalog under its lock and saves it. The bound is
// on waiting for another process's lock, which is held for one write.
func edit(L *lua.LState, path string, fn func(*rcatalog.Config) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rcatalog.Update(ctx, path, fn); err != nil {
		raise(L, err)
	}
}
