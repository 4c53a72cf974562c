package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/luatest"
	"github.com/luagent/luagent/runtime/testkit"
	lua "github.com/yuin/gopher-lua"
)

// TestServerTasksSkills: a Lua server's task tools and skills
// (s:tool{task=}, s:skill, s:skills_dir) with luagent's own client.
func TestServerTasksSkills(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	servers, _ := filepath.Abs("testdata/servers")
	setup := func(url string) luatest.Options {
		return luatest.Options{Setup: func(t *testing.T, h *host.Host) {
			h.L.SetGlobal("LUAGENT", lua.LString(bin))
			h.L.SetGlobal("SERVERS", lua.LString(servers))
			h.L.SetGlobal("SKILLS_DIR", lua.LString(testkit.SkillDir()))
			if url != "" {
				h.L.SetGlobal("HTTP_URL", lua.LString(url))
			}
		}}
	}
	t.Run("stdio", func(t *testing.T) { luatest.RunFile(t, "testdata/tasks_skills_server.lua", setup("")) })
	t.Run("http", func(t *testing.T) {
		t.Setenv("SKILLS_DIR", testkit.SkillDir()) // the server's, inherited
		url := serveHTTP(t, bin, filepath.Join(servers, "tasks_skills.lua"))
		luatest.RunFile(t, "testdata/tasks_skills_server.lua", setup(url))
	})
}

// A sandboxed server publishes skills from text, never from files: the
// reading half of s:skill is not in a sandbox's mcp.
func TestSandboxSkillsReadNoFiles(t *testing.T) {
	bin := testkit.Build(t, "cmd/luagent")
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	for _, tc := range []struct{ name, line, want string }{
		{"dir", `s:skill{ dir = "/etc" }`, "reading files is not available in this sandbox"},
		{"file", `s:skill{ file = "/etc/passwd" }`, "reading files is not available in this sandbox"},
		{"skills_dir", `s:skills_dir("/etc")`, "reading files is not available in this sandbox"},
	} {
		os.WriteFile(script, []byte("local s = mcp.server{ name = \"sb\", version = \"1\" }\n"+
			"s:skill{ name = \"text-only\", description = \"d\", body = \"x\" }\n"+tc.line+"\nreturn s\n"), 0o644)
		out, err := exec.Command(bin, "serve", "--sandbox", script).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "s.lua:3: bad argument #2") || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v\n%s", tc.name, err, out)
		}
	}
}
