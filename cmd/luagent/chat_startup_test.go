package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
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

// Ctrl-C ends a piped chat's wait for a server that would take its whole
// start timeout: the first line then runs without it.
func TestPipedChatWaitEndsOnInterrupt(t *testing.T) {
	home := t.TempDir()
	never := writeFile(t, home, "never.lua", "task.sleep(60)")
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{
		"never": map[string]any{"command": bin, "args": []string{"serve", never}, "startupTimeoutSeconds": 60}}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	cmd := exec.Command(bin, "chat")
	cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home)
	cmd.Stdin = strings.NewReader("hello\n")
	out := &testkit.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// The banner is printed before the wait starts.
	for !strings.Contains(out.String(), "luagent chat — model") {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("no banner:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if d := time.Since(start); d > 30*time.Second || !strings.Contains(out.String(), "mock: hello") || !strings.Contains(out.String(), "[0/1 server ready, 1 connecting]") {
		t.Errorf("after %v:\n%s", d, out)
	}
}
