package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// napServer takes a moment to start: a piped chat's first line must not
// race it.
const napServer = `
task.sleep(0.5)
local s = mcp.server{ name = "napper", version = "1.0.0" }
s:tool{ name = "nap", description = "Take a nap", input = {}, annotations = { readOnlyHint = true },
  handler = function() return "rested" end }
return s
`

// A piped chat waits for the servers still connecting before its first
// turn (each bounded by its start timeout), and says how many are ready
// in one line, not one line per server.
func TestPipedChatWaitsForServers(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "srv.lua", askServer)
	nap := writeFile(t, home, "nap.lua", napServer)
	never := writeFile(t, home, "never.lua", "task.sleep(60)")
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{
		"srv":   map[string]any{"command": bin, "args": []string{"serve", srv, home + "/notes.txt"}},
		"nap":   map[string]any{"command": bin, "args": []string{"serve", nap}},
		"never": map[string]any{"command": bin, "args": []string{"serve", never}, "startupTimeoutSeconds": 1}}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	r := luagent(t, "take a nap\n", []string{"LUAGENT_HOME=" + home}, "chat")
	if r.code != 0 || !strings.Contains(r.stdout, "rested") {
		t.Fatalf("the first turn did not see nap's tool: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stdout, "servers ready"); n != 1 || !strings.Contains(r.stdout, "[2/3 servers ready, 1 failed]") {
		t.Errorf("want one status line, [2/3 servers ready, 1 failed]; got %d:\n%s", n, r.stdout)
	}
}
