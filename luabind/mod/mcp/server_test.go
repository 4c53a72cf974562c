package mcp_test

import (
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/internal/testbin"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	lua "github.com/yuin/gopher-lua"
)

// TestServer drives Lua servers (luagent serve) with luagent's own client.
func TestServer(t *testing.T) {
	bin := testbin.Build(t, "cmd/luagent")
	servers, _ := filepath.Abs("testdata/servers")
	luatest.RunFile(t, "testdata/server.lua", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("LUAGENT", lua.LString(bin))
		h.L.SetGlobal("SERVERS", lua.LString(servers))
	}})
}
