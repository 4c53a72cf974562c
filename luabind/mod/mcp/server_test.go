package mcp_test

import (
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

// TestServer drives Lua servers (luagent serve) with luagent's own client,
// over stdio and over Streamable HTTP.
func TestServer(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	servers, _ := filepath.Abs("testdata/servers")
	t.Run("stdio", func(t *testing.T) {
		luatest.RunFile(t, "testdata/server.lua", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
			h.L.SetGlobal("LUAGENT", lua.LString(bin))
			h.L.SetGlobal("SERVERS", lua.LString(servers))
		}})
	})
	t.Run("http", func(t *testing.T) {
		everything := filepath.Join(servers, "everything.lua")
		plain := serveHTTP(t, bin, everything)
		timeout := serveHTTP(t, bin, everything, "--handler-timeout", "0.3")
		luatest.RunFile(t, "testdata/server.lua", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
			urls := h.L.NewTable()
			urls.RawSetString("", lua.LString(plain))
			urls.RawSetString("--handler-timeout 0.3", lua.LString(timeout))
			h.L.SetGlobal("HTTP_URLS", urls)
			h.L.SetGlobal("LUAGENT", lua.LString(bin))
			h.L.SetGlobal("SERVERS", lua.LString(servers))
		}})
	})
}
