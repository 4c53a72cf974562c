package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// minimalPython is the seed's minimal Python server (capabilities {}, yet
// tools/list answers echo), or a skip when python3 is not on PATH.
func minimalPython(t *testing.T) (python, script string) {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 is not on PATH: the seed's Python server cannot run here")
		t.Skip("python3 not on PATH")
	}
	return python, filepath.Join(testkit.Root(), "runtime", "testkit", "servers", "python", "minimal.py")
}

// The seed's minimal Python server declares "capabilities": {} and still
// answers tools/list: added with mcp add, its echo tool is listed, callable
// and offered to the model, as in the seed's clients.
func TestSeedPythonServer(t *testing.T) {
	python, script := minimalPython(t)
	_, env := catalogHome(t)
	ok(t, env, "mcp", "add", "example", "--", python, script)

	r := ok(t, env, "mcp", "tools", "example")
	if !strings.Contains(r.stdout, "echo") || strings.Contains(r.stdout, "no tools") {
		t.Errorf("mcp tools example: %q, want echo listed", r.stdout)
	}
	r = ok(t, env, "mcp", "tools", "example", "--json")
	if !strings.Contains(r.stdout, `"name": "echo"`) || !strings.Contains(r.stdout, `"text"`) {
		t.Errorf("mcp tools example --json: %s", r.stdout)
	}
	r = ok(t, env, "mcp", "call", "example", "echo", "text=hello from python")
	if got := strings.TrimSpace(r.stdout); got != "hello from python" {
		t.Errorf("mcp call example echo: %q", got)
	}
	r = ok(t, env, "mcp", "call", "example", "echo", "--json", `{"text":"json too"}`)
	if got := strings.TrimSpace(r.stdout); got != "json too" {
		t.Errorf("mcp call --json: %q", got)
	}

	// ask with the offline mock model: it calls the best-matching tool with
	// the prompt's key=value words (echo is not annotated read-only: --yes).
	r = luagent(t, "", env, "ask", "--yes", "call echo with text=seed-echo")
	if r.code != 0 || !strings.Contains(r.stderr, `echo {"text":"seed-echo"}`) || !strings.Contains(r.stdout, "seed-echo") ||
		strings.Contains(r.stdout, "mock: call echo") {
		t.Errorf("ask: exit %d\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

// In chat under a terminal the Python server is ready with its one tool,
// and a turn calls it after the person allows it.
func TestTTYChatSeedPythonServer(t *testing.T) {
	python, script := minimalPython(t)
	home := t.TempDir()
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{"example": map[string]any{"command": python, "args": []string{script}}}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	tt := startTTY(t, home, "chat")
	m := tt.wait(0, "[1/1 server ready]")
	tt.send("call echo with text=from-chat\r")
	m = tt.wait(m, `example › echo {"text":"from-chat"}`, "allow? [y/a/n]")
	tt.send("y\r")
	tt.wait(m, "✓", `The tool returned: "from-chat"`, "> ")
	tt.send("\x04")
	tt.exited()
}
