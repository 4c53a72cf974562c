package mcp_test

import (
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/internal/skilltest"
	"github.com/luagent/luagent/internal/testbin"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	lua "github.com/yuin/gopher-lua"
)

// TestServerTasksSkills: a Lua server's task tools and skills
// (s:tool{task=}, s:skill, s:skills_dir) with luagent's own client.
func TestServerTasksSkills(t *testing.T) {
	bin := testbin.Build(t, "cmd/luagent")
	servers, _ := filepath.Abs("testdata/servers")
	luatest.RunFile(t, "testdata/tasks_skills_server.lua", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("LUAGENT", lua.LString(bin))
		h.L.SetGlobal("SERVERS", lua.LString(servers))
		h.L.SetGlobal("SKILLS_DIR", lua.LString(skilltest.Dir()))
	}})
}
