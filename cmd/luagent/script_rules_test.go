package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The user's and the project's permission rules hold for every agent, not
// only for ask's, chat's and acp's: an agent a script makes (run) and one
// served as a tool (mcp-server --agent-file) are refused what a deny rule
// refuses, with the rule named, even with yes = true.
func TestScriptAgentsKeepConfigRules(t *testing.T) {
	echo, _ := filepath.Abs("../../examples/echo.lua")
	server := map[string]any{"e": map[string]any{"command": bin, "args": []string{"serve", echo}}}
	config := func(deny ...string) string {
		c := map[string]any{"mcpServers": server}
		if len(deny) > 0 {
			c["permissions"] = map[string]any{"deny": deny}
		}
		b, _ := json.Marshal(c)
		return string(b)
	}
	const script = `local a = agent.new{ model = "mock", yes = true }
print((a:ask("call echo with message=secret")))`
	const served = `return agent.new{ name = "helper", description = "helps", model = "mock", yes = true }`
	call := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"helper","arguments":{"prompt":"call echo with message=secret"}}}`,
	}, "\n") + "\n"
	ran := func(out string) bool {
		return strings.Contains(out, `returned: \"secret\"`) || strings.Contains(out, `returned: "secret"`)
	}

	t.Run("no rule: the call runs", func(t *testing.T) {
		home, dir := t.TempDir(), t.TempDir()
		writeFile(t, home, "config.json", config())
		writeFile(t, dir, "a.lua", script)
		if r := luagentIn(t, dir, "", []string{"LUAGENT_HOME=" + home}, "run", "a.lua"); !ran(r.stdout) {
			t.Fatalf("without a rule the call did not run: %q %q", r.stdout, r.stderr)
		}
	})
	t.Run("the user's deny rule, run", func(t *testing.T) {
		home, dir := t.TempDir(), t.TempDir()
		writeFile(t, home, "config.json", config("e__echo"))
		writeFile(t, dir, "a.lua", script)
		r := luagentIn(t, dir, "", []string{"LUAGENT_HOME=" + home}, "run", "a.lua")
		if ran(r.stdout) || !strings.Contains(r.stdout, "denied by the rule e__echo") {
			t.Errorf("a script's agent and the user's deny rule: %q %q", r.stdout, r.stderr)
		}
	})
	t.Run("the user's deny rule, served", func(t *testing.T) {
		home, dir := t.TempDir(), t.TempDir()
		writeFile(t, home, "config.json", config("e__echo"))
		writeFile(t, dir, "served.lua", served)
		r := luagentIn(t, dir, call, []string{"LUAGENT_HOME=" + home}, "mcp-server", "--agent-file", "served.lua")
		if ran(r.stdout) || !strings.Contains(r.stdout, "denied by the rule e__echo") {
			t.Errorf("a served agent and the user's deny rule: %q %q", r.stdout, r.stderr)
		}
	})
	t.Run("the project's deny rule, untrusted folder", func(t *testing.T) {
		home, dir := t.TempDir(), t.TempDir()
		writeFile(t, home, "config.json", config())
		writeFile(t, dir, ".luagent/config.json", `{"permissions": {"deny": ["e__*"]}}`)
		writeFile(t, dir, "a.lua", script)
		r := luagentIn(t, dir, "", []string{"LUAGENT_HOME=" + home}, "run", "a.lua")
		if ran(r.stdout) || !strings.Contains(r.stdout, "denied by the rule e__*") {
			t.Errorf("a script's agent and the project's deny rule: %q %q", r.stdout, r.stderr)
		}
	})
}

// An agent asked as a tool (an agent file's) is decided by its caller's
// rules: ask's --deny reaches the subagent's calls too.
func TestSubagentKeepsCallersRules(t *testing.T) {
	home, _ := askHome(t)
	repo := permRepo(t, "")
	writeFile(t, repo, ".luagent/agents/helper.md", "---\nname: helper\ndescription: Delegate any task to the helper agent\nmodel: inherit\n---\nYou help.\n")
	env := []string{"LUAGENT_HOME=" + home}
	r := luagentIn(t, repo, "", env, "ask", "--model", "mock", "--yes", "--deny", "srv__echo", `delegate to the helper agent: prompt="call echo with message=secret"`)
	out := r.stdout + r.stderr
	if !strings.Contains(out, `helper {"prompt"`) || strings.Contains(out, "pong:secret") || !strings.Contains(out, "denied by the rule srv__echo (--deny)") {
		t.Errorf("the subagent and --deny: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
