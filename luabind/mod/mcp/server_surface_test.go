package mcp_test

import (
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

// TestServerSurface: s:complete's catch-all and skills read from files
// (testdata/surface.lua), with luagent's own client.
func TestServerSurface(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	servers, _ := filepath.Abs("testdata/servers")
	t.Setenv("SKILLS_DIR", testkit.SkillDir()) // the server's, inherited
	luatest.RunFile(t, "testdata/surface.lua", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("LUAGENT", lua.LString(bin))
		h.L.SetGlobal("SERVERS", lua.LString(servers))
		h.L.SetGlobal("SKILLS_DIR", lua.LString(testkit.SkillDir()))
	}})
}
