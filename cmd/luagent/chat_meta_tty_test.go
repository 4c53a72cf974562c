package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
)

// /meta under a pseudo-terminal: the catalog agent on the session's
// model (a Lua model from --agent that answers the main agent and the
// catalog agent apart), a proposal the catalog refuses and the model
// fixes, a save declined (the file stays as it was), one confirmed (the
// file has the entry and the hub starts that server), a removal
// cancelled at the question, and the secret the model put in env never on
// the screen.

const metaSecret = "tok-META-SECRET-9"

// metaArgSecret is a key the model writes into the server's command line,
// which the preview and the model's text hide as well.
const metaArgSecret = "sk-META-ARG-SECRET-7"

// metaAgent's model: the main agent's turns say how many messages they
// see; the catalog agent's follow its tools' answers.
const metaAgent = `
local bin, srv, secret, argsecret = %q, %q, %q, %q
local function entry(name)
  return { name = name, command = bin, args = { "serve", srv, "--", "--api-key=" .. argsecret }, env = { ECHO_TOKEN = secret } }
end
return agent.new{ model = function(req)
  local last = req.messages[#req.messages]
  local text = last.parts and last.parts[1] and last.parts[1].text or ""
  if not (req.system or ""):find("catalog agent", 1, true) then
    return { text = "main sees " .. #req.messages .. " messages" }
  end
  if last.role == "user" and text:find("remove", 1, true) then
    return { tool_calls = { { name = "remove_server", arguments = { name = "echo2" } } } }
  elseif last.role == "user" then
    return { text = "Checking it.\n", tool_calls = { { name = "propose_server", arguments = entry("echo two") } } }
  elseif text:find("^not valid") then
    return { tool_calls = { { name = "propose_server", arguments = entry("echo2") } } }
  elseif text:find("nothing is saved yet", 1, true) then
    return { text = "Here is the entry with ECHO_TOKEN=" .. secret .. " and the key " .. argsecret .. ".\n", tool_calls = { { name = "save_server", arguments = entry("echo2") } } }
  elseif text:find("^the user declined") then
    return { text = "Not saved. What should change?" }
  end
  return { text = "Done: " .. text }
end }
`

const metaEchoServer = `
local s = mcp.server{ name = "echo2", version = "1.0.0" }
s:tool{ name = "echo", description = "Echo", input = { message = "string" }, annotations = { readOnlyHint = true },
  handler = function(a) return a.message end }
return s
`

func TestTTYChatMeta(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "echo2.lua", metaEchoServer)
	first := writeFile(t, home, "first.lua", metaEchoServer)
	cfgPath := writeFile(t, home, "config.json", fmt.Sprintf(`{"version": 1, "mcpServers": {"first": {"command": %q, "args": ["serve", %q]}}}`, bin, first))
	agentFile := writeFile(t, home, "meta_agent.lua", fmt.Sprintf(metaAgent, bin, srv, metaSecret, metaArgSecret))

	tt := startTTY(t, home, "chat", "--agent", agentFile)
	m := tt.wait(0, "[1/1 server ready]")

	// Declined: the catalog refuses the first name, the model fixes it,
	// the change is shown in full and n keeps the file as it was.
	before, _ := os.ReadFile(cfgPath)
	tt.send("/meta add the echo server\r")
	m = tt.wait(m, "catalog › propose_server echo two", "✗", "not valid: ", "catalog › propose_server echo2", "✓")
	m = tt.wait(m, "Here is the entry with ECHO_TOKEN=<hidden> and the key <hidden>.", "catalog › save_server echo2")
	out, m := tt.between(m, "save this? [y/N] ")
	for _, want := range []string{`add "echo2" in ` + cfgPath, `+     "echo2": {`, `"ECHO_TOKEN": "<hidden>"`, `"--api-key=<hidden>"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the preview lacks %q:\n%s", want, out)
		}
	}
	tt.send("n\r")
	m = tt.wait(m, "not saved", "the user declined", "Not saved. What should change?", "\r\n> ")
	if after, _ := os.ReadFile(cfgPath); string(after) != string(before) {
		t.Errorf("a declined save changed the file:\n%s", after)
	}

	// Confirmed: saved, and only echo2 starts; the conversation goes on.
	tt.send("/meta add it after all\r")
	m = tt.wait(m, "catalog › save_server echo2", "save this? [y/N] ")
	tt.send("y\r")
	m = tt.wait(m, "echo2: saved in "+cfgPath+"; starting (the conversation goes on)", "Done: saved (the user confirmed): add echo2", "\r\n> ")
	m = tt.wait(m, "[2/2 servers ready]")
	cfg, err := catalog.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Server("echo2")
	if e == nil || e.Command != bin || len(e.Args) != 4 || e.Args[1] != srv || e.Args[3] != "--api-key="+metaArgSecret || e.Env["ECHO_TOKEN"].Value != metaSecret || cfg.Server("first") == nil {
		t.Errorf("the saved catalog: %+v", e)
	}

	// Ctrl-C at the question cancels the turn and saves nothing.
	saved, _ := os.ReadFile(cfgPath)
	tt.send("/meta remove echo2\r")
	m = tt.wait(m, "catalog › remove_server echo2", `remove "echo2" in `, `-     "echo2": {`, "save this? [y/N] ")
	tt.send("\x03")
	m = tt.wait(m, "(cancelled; nothing more is saved)", "\r\n> ")
	if after, _ := os.ReadFile(cfgPath); string(after) != string(saved) {
		t.Errorf("a cancelled removal changed the file:\n%s", after)
	}

	// /meta's turns are not the main conversation's.
	tt.send("hello\r")
	m = tt.wait(m, "main sees 1 messages", "\r\n> ")
	tt.send("/meta\r")
	m = tt.wait(m, "invalid: chat: /meta needs a request", "\r\n> ")
	tt.send("\x04")
	tt.exited()
	if strings.Contains(tt.output(), metaSecret) || strings.Contains(tt.output(), metaArgSecret) {
		t.Errorf("the secret was printed:\n%s", tt.output())
	}
	if os.Getenv("CHAT_DUMP") != "" { // the text capture of stdlib/doc/chat.md
		t.Log(tt.output())
	}
	if sessions, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl")); len(sessions) == 1 {
		b, _ := os.ReadFile(sessions[0])
		if strings.Contains(string(b), "propose_server") || strings.Contains(string(b), metaSecret) {
			t.Errorf("the saved conversation holds /meta's turns:\n%s", b)
		}
	}
}
