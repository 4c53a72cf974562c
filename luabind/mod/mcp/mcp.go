// Package mcp is the native side of the MCP server in Lua, the private
// mcp._native: it adapts Lua functions and values to runtime/mcp's server
// registry. The module users see — mcp.server{}, s:tool{} and the rest,
// with their option tables, checks and result shaping — is Lua in stdlib/
// (mcp.lua, mcp_features.lua). The client half of mcp (mcp.connect,
// mcp.hub) is luabind/mod/mcpclient's, the catalog (mcp.catalog)
// luabind/mod/catalog's: mcp.lua assembles the one public module.
package mcp

import (
	"context"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/trace"
	lua "github.com/yuin/gopher-lua"
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
}

type module struct {
	lp              *sched.Loop
	cfg             Config
	serverMT, ctxMT *lua.LTable
	// ctx ends when the host shuts down, releasing Go goroutines that wait
	// for Lua callbacks.
	ctx context.Context
}

// Preload registers the native module mcp._native, which stdlib/mcp.lua
// builds on.
func Preload(lp *sched.Loop, cfg Config) {
	lp.L.PreloadModule("mcp._native", func(L *lua.LState) int {
		L.Push(Open(lp, cfg))
		return 1
	})
}

// Open builds the native table.
func Open(lp *sched.Loop, cfg Config) *lua.LTable {
	L := lp.L
	ctx, cancel := context.WithCancel(context.Background())
	m := &module{lp: lp, cfg: cfg, ctx: ctx}
	lp.OnClose(cancel)
	mod := L.CreateTable(0, 2)
	mod.RawSetString("_server", m.serverNative(L))
	// Reading skill folders and files (s:skill{dir=|file=}, s:skills_dir)
	// stays out of _server, which a sandbox keeps: a sandboxed server
	// publishes skills from text only.
	mod.RawSetString("_files", m.filesNative(L))
	return mod
}
