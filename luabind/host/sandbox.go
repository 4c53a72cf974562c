package host

import (
	"fmt"
	"strings"

	envmod "github.com/luagent/luagent/luabind/mod/env"
	jsonmod "github.com/luagent/luagent/luabind/mod/json"
	lua "github.com/yuin/gopher-lua"
)

// BaseModules are what every sandboxed host has besides string, table,
// math, coroutine and os.time/date/clock: none touches processes, files,
// the network or the environment (log writes to the host's stderr). The
// server half of mcp (mcp.server) is there too; its client half is the
// mcp grant.
var BaseModules = []string{"json", "inspect", "task", "log"}

// Grants are the capabilities a sandboxed host gets only when granted
// (luagent run --sandbox --grant NAME): env reads the environment, mcp
// starts servers and connects to URLs, agent calls models (and implies mcp).
var Grants = []string{"env", "mcp", "agent"}

// CheckGrants returns an error naming the valid grants when one of names
// is not one (the base modules are accepted: they are always there).
func CheckGrants(names []string) error {
	for _, n := range names {
		if !contains(Grants, n) && !contains(BaseModules, n) {
			return fmt.Errorf("unknown grant %q: the sandbox can grant %s (%s are always there)",
				n, strings.Join(Grants, ", "), strings.Join(BaseModules, ", "))
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// preloadGranted makes the base modules and the granted ones globals of a
// sandboxed host; nothing else is requirable.
func (h *Host) preloadGranted(grants map[string]bool) {
	eager := []string{"json", "task", "log"}
	lazy := []string{"inspect"}
	if grants["env"] {
		envmod.Preload(h.L, h.cfg.Env)
		eager = append(eager, "env")
	}
	// mcp is always there for its server half (serve --sandbox runs a
	// script that returns mcp.server{...}); connect, hub, login and
	// catalog, which start processes and reach the network, need the grant.
	h.preloadMCP()
	lazy = append(lazy, "mcp")
	if !grants["mcp"] {
		h.serverOnlyMCP()
	}
	if grants["agent"] {
		h.preloadAgent()
		lazy = append(lazy, "agent")
	}
	h.globals(eager, lazy)
	h.meterJSON()
}

// meterJSON charges json's results to the run's memory meter
// (jsonmod.MeterSandbox).
func (h *Host) meterJSON() {
	if json, _ := h.L.GetGlobal("json").(*lua.LTable); json != nil {
		jsonmod.MeterSandbox(h.L, json)
	}
}

// serverOnlyMCP leaves a sandboxed state the server half of mcp: the
// native module keeps _server only, and mcp's client functions raise.
func (h *Host) serverOnlyMCP() {
	L := h.L
	preload, _ := L.GetField(L.GetGlobal("package"), "preload").(*lua.LTable)
	if preload == nil {
		return
	}
	native, _ := preload.RawGetString("mcp._native").(*lua.LFunction)
	refuse := L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("mcp.connect, hub, login and catalog are not granted in this sandbox (luagent --grant mcp gives them)")
		return 0
	})
	for _, m := range []string{"mcp._client", "mcp._client_native", "mcp._catalog", "mcp._catalog_native"} {
		preload.RawSetString(m, refuse)
	}
	preload.RawSetString("mcp._native", L.NewFunction(func(L *lua.LState) int {
		L.Push(native)
		L.Call(0, 1)
		full, _ := L.Get(-1).(*lua.LTable)
		L.Pop(1)
		t := L.CreateTable(0, 2)
		if full != nil {
			t.RawSetString("_server", full.RawGetString("_server"))
		}
		client := L.CreateTable(0, 1)
		client.RawSetString("auth_redirect", refuse)
		t.RawSetString("_client", client)
		L.Push(t)
		return 1
	}))
}
