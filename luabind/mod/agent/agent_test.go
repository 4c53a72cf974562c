package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

// The agent module from Lua: the mock and Lua-function models over a Lua
// MCP server (testdata/server.lua served by the real binary).
func TestLua(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	server, err := filepath.Abs("testdata/server.lua")
	if err != nil {
		t.Fatal(err)
	}
	luatest.RunDir(t, "testdata", luatest.Options{Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("LUAGENT", lua.LString(bin))
		h.L.SetGlobal("SERVER", lua.LString(server))
	}})
}

// The default hub starts only an agent's servers (testdata/default_hub.lua):
// the catalog's other server would leave a marker file.
func TestDefaultHubStartsOnlyAgentServers(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	server, err := filepath.Abs("testdata/server.lua")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	marker := filepath.Join(home, "never-started")
	cfg, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{
		"notes": map[string]any{"command": bin, "args": []string{"serve", server}, "startupTimeoutSeconds": 20},
		"never": map[string]any{"command": "sh", "args": []string{"-c", "touch " + marker + "; exec sleep 1000"}, "startupTimeoutSeconds": 1},
	}})
	if err := os.WriteFile(filepath.Join(home, "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	luatest.RunFile(t, "testdata/default_hub.lua", luatest.Options{Config: host.Config{Home: home, Clean: true}, Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("MARKER", lua.LString(marker))
	}})
}

// Skills from Lua: a local one in the host's home and a server's, through
// agent.new's skills option (testdata/skills.lua).
func TestSkills(t *testing.T) {
	cmd, _, _ := testkit.SkillServer(t)
	luatest.RunFile(t, "testdata/skills.lua", luatest.Options{Config: host.Config{Home: testkit.SkillHome(t), Clean: true}, Setup: func(t *testing.T, h *host.Host) {
		h.L.SetGlobal("SKILLS", lua.LString(cmd))
		h.L.SetGlobal("SKILLS_DIR", lua.LString(testkit.SkillDir()))
	}})
}

// Params, bindings, agents as tools and agent.server from Lua, with
// command-line values (testdata/params.lua).
func TestParams(t *testing.T) {
	luatest.RunFile(t, "testdata/params.lua", luatest.Options{Config: host.Config{Clean: true,
		Params: map[string]string{"cli_name": "from-cli", "cli_list": "[1,2]"}, ParamsJSON: map[string]bool{"cli_list": true}}})
}
