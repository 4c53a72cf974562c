package agent_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/internal/testbin"
	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	lua "github.com/yuin/gopher-lua"
)

// The agent module from Lua: the mock and Lua-function models over a Lua
// MCP server (testdata/server.lua served by the real binary).
func TestLua(t *testing.T) {
	bin := testbin.Build(t, "cmd/luagent")
	server, err := filepath.Abs("testdata/server.lua")
	if err != nil {
		t.Fatal(err)
	}
	luatest.RunDir(t, "testdata", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("LUAGENT", lua.LString(bin))
		h.L.SetGlobal("SERVER", lua.LString(server))
	}})
}

// Skills from Lua: a local one in the host's home and a server's, through
// agent.new's skills option (testdata/skills.lua).
func TestSkills(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "skills", "notes")
	os.MkdirAll(filepath.Join(dir, "templates"), 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: notes\ndescription: Take meeting notes\n---\nUse templates/meeting.md.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "templates", "meeting.md"), []byte("# Meeting\n"), 0o644)
	server := testbin.Build(t, "internal/testserver/skills")
	luatest.RunFile(t, "testdata/skills.lua", luatest.Options{Config: host.Config{Home: home, Clean: true}, Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("SKILLS", lua.LString(server))
		h.L.SetGlobal("SKILLS_DIR", lua.LString(filepath.Join(testbin.Root(), "internal", "testserver", "skills", "testdata")))
	}})
}
