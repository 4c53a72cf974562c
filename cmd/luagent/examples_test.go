package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// Every example runs, exits 0 and prints something. Examples that talk to
// MCP servers use the pinned peers (make peers).
func TestExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.lua")
	nested, _ := filepath.Glob("../../examples/*/*.lua")
	files = append(files, nested...)
	if len(files) == 0 {
		t.Fatal("no examples found")
	}
	fsCmd, fsArgs := testkit.Filesystem(t, "")
	env := []string{"MCP_FS_SERVER=" + strings.Join(append([]string{fsCmd}, fsArgs[:len(fsArgs)-1]...), " ")}
	// No luagent on PATH: an example that starts luagent uses arg[-1].
	env = append(env, "PATH="+withoutLuagent(os.Getenv("PATH")))
	for _, f := range files {
		name, _ := filepath.Rel("../../examples", f)
		t.Run(name, func(t *testing.T) {
			src, _ := os.ReadFile(f)
			if st, _ := os.Stat(f); strings.HasPrefix(string(src), "#!") && st.Mode().Perm()&0o111 == 0 {
				t.Errorf("%s has a #! line but no execute bit (chmod +x)", name)
			}
			if strings.Contains(string(src), "mcp.server{") {
				// A server: serve it and drive it with a client.
				abs, _ := filepath.Abs(f)
				client := `local c = mcp.connect{ command = "` + bin + `", args = { "serve", "` + abs + `" } }
local tools = c:tools()
assert(#tools > 0, "no tools")
print(c:info().name, #tools, tools[1].name)
c:close()`
				r := luagent(t, "", env, "-e", client)
				if r.code != 0 || strings.TrimSpace(r.stdout) == "" {
					t.Fatalf("serving %s: %+v", f, r)
				}
				return
			}
			if strings.Contains(string(src), "luagent mcp-server --agent-file") {
				// Agents served as tools: call each one.
				abs, _ := filepath.Abs(f)
				client := `local c = mcp.connect{ command = "` + bin + `", args = { "mcp-server", "--agent-file", "` + abs + `" } }
local tools = c:tools()
assert(#tools > 0, "no tools")
for _, t in ipairs(tools) do
  local r = c:call(t.name, { prompt = "count the words of this" })
  assert(not r.isError, t.name .. ": " .. r.content[1].text)
  print(t.name, r.content[1].text)
end
c:close()`
				r := luagent(t, "", env, "-e", client)
				if r.code != 0 || strings.Count(r.stdout, "\n") < 2 {
					t.Fatalf("serving %s: %+v", f, r)
				}
				noGoStack(t, r.stderr)
				return
			}
			args := []string{"run", f}
			if strings.Contains(string(src), "return agent.new{") {
				// An agent file: ask it.
				args = []string{"ask", "--agent", f, "count the words in this sentence"}
			}
			if name == "conformance/client.lua" {
				// The judge's client: make conformance runs every scenario;
				// here it connects to the fixture served over HTTP.
				args = append(args, serveHTTPArgs(t, "../../examples/conformance/server.lua", "--http", "127.0.0.1:0/mcp").url)
				env = append(env[:len(env):len(env)], "MCP_CONFORMANCE_SCENARIO=initialize")
			}
			r := luagent(t, "", env, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if strings.TrimSpace(r.stdout) == "" {
				t.Error("printed nothing")
			}
			noGoStack(t, r.stderr)
		})
	}
}

func TestFilesystemExampleReadsTheFile(t *testing.T) {
	fsCmd, fsArgs := testkit.Filesystem(t, "")
	env := []string{"MCP_FS_SERVER=" + strings.Join(append([]string{fsCmd}, fsArgs[:len(fsArgs)-1]...), " ")}
	r := luagent(t, "", env, "run", "../../examples/filesystem.lua", "../../examples/hello.lua")
	if r.code != 0 || !strings.Contains(r.stdout, "-- The smallest script") || !strings.Contains(r.stdout, "secure-filesystem-server") {
		t.Errorf("%+v", r)
	}
}

// withoutLuagent drops the PATH entries that hold a luagent binary.
func withoutLuagent(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(dir, "luagent")); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// The notes server has no resources until a note is added; clients of
// both eras still hear of the new ones.
func TestNotesExampleAnnouncesNewNotes(t *testing.T) {
	notes, _ := filepath.Abs("../../examples/notes.lua")
	r := luagent(t, "", nil, "-e", `
for _, era in ipairs({ "legacy", "modern" }) do
  local c = mcp.connect{ command = arg[-1], args = { "serve", "`+notes+`" }, protocol = era }
  assert(c:info().capabilities.resources, era .. ": no resources capability declared")
  local changed = false
  c:on("resources_changed", function() changed = true end)
  c:call("add_note", { text = "milk" })
  for _ = 1, 200 do
    if changed then break end
    task.sleep(0.01)
  end
  assert(changed, era .. ": no resources/list_changed after add_note")
  print(era, #c:resources())
  c:close()
end`)
	if r.code != 0 || r.stdout != "legacy\t1\nmodern\t1\n" {
		t.Errorf("%+v", r)
	}
}
