package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/session"
	"github.com/luagent/luagent/runtime/testkit"
)

// `luagent chat` under a pseudo-terminal, as a person types: the real
// binary, the mock model (or a Lua model from --agent), and real servers
// from the catalog (Lua servers run by luagent serve, server-everything).

const chatServer = `
local s = mcp.server{ name = "srv", version = "1.0.0" }
-- A watcher outside any request: when a waiting call's context ends (the
-- client's notifications/cancelled) it leaves a mark in arg[1].
local waiting = {}
task.spawn(function()
  while true do
    for c in pairs(waiting) do
      if c.cancelled then
        waiting[c] = nil
        local f = io.open(arg[1], "w"); f:write("cancelled"); f:close()
      end
    end
    task.sleep(0.02)
  end
end)
s:tool{ name = "echo", description = "Echo a message", input = { message = "string" },
  annotations = { readOnlyHint = true }, handler = function(a) return "pong:" .. a.message end }
s:tool{ name = "write", description = "Write a note", input = { text = "string" },
  handler = function(a) return "wrote " .. a.text end }
s:tool{ name = "count", description = "Count to three with progress", input = {},
  annotations = { readOnlyHint = true }, handler = function(a, ctx)
    for i = 1, 3 do ctx:progress(i, 3, "step " .. i); task.sleep(0.05) end
    return "counted"
  end }
s:tool{ name = "wait", description = "Wait a long time", input = {},
  annotations = { readOnlyHint = true }, handler = function(a, ctx)
    waiting[ctx] = true
    ctx:progress(0, 1, "waiting for Godot")
    task.sleep(120)
    return "woke"
  end }
s:prompt{ name = "greet", arguments = { { name = "who", required = true }, { name = "tone" } },
  get = function(args)
    return { { role = "user", content = "please echo " .. args.who .. " tone=[" .. (args.tone or "nil") .. "]" } }
  end }
s:prompt{ name = "broken", get = function() error("the prompt broke") end }
return s
`

// slowServer starts only once its gate file exists: the test decides
// when it is ready.
const slowServer = `
while true do
  local f = io.open(arg[1])
  if f then f:close() break end
  task.sleep(0.05)
end
local s = mcp.server{ name = "slow", version = "1.0.0" }
s:tool{ name = "nap", description = "Take a nap", input = {}, annotations = { readOnlyHint = true },
  handler = function() return "rested" end }
return s
`

// chatHome is a LUAGENT_HOME whose catalog has srv and the gated slow
// server (srv's env holds a secret /mcp must not show).
func chatHome(t *testing.T) (home, gate, marker string) {
	t.Helper()
	home = t.TempDir()
	srv := writeFile(t, home, "srv.lua", chatServer)
	slow := writeFile(t, home, "slow.lua", slowServer)
	gate, marker = filepath.Join(home, "gate"), filepath.Join(home, "cancelled")
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{
		"srv":  map[string]any{"command": bin, "args": []string{"serve", srv, marker}, "env": map[string]string{"SRV_TOKEN": "tok-SECRET-1234"}},
		"slow": map[string]any{"command": bin, "args": []string{"serve", slow, gate}}}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	return home, gate, marker
}

// wait is waitFor with room for servers starting under -race on a busy
// machine; with several strings it waits for each in turn.
func (tt *tty) wait(mark int, s ...string) int {
	tt.t.Helper()
	for _, x := range s {
		mark = tt.waitWithin(mark, x, 60*time.Second)
	}
	return mark
}

// between is the output from mark to the first s after it.
func (tt *tty) between(mark int, s string) (string, int) {
	tt.t.Helper()
	end := tt.wait(mark, s)
	return tt.output()[mark:end], end
}

func (tt *tty) exited() {
	tt.t.Helper()
	select {
	case <-tt.done:
	case <-time.After(30 * time.Second):
		tt.t.Fatal("the chat did not exit")
	}
	tt.cmd.Wait()
}

func TestTTYChat(t *testing.T) {
	home, gate, marker := chatHome(t)
	tt := startTTY(t, home, "chat")
	m := tt.wait(0, "luagent chat — model mock")

	// Progressive start: srv is ready while slow still connects, and a
	// first turn runs then, with srv's tools.
	m = tt.wait(m, "[1/2 servers ready, 1 connecting]")
	tt.send("please echo hi\r")
	m = tt.wait(m, "srv › echo {\"message\":\"example\"}", "✓", `The tool returned: "pong:example"`, "> ")
	// /mcp on a terminal is the manager (chat_manager_tty_test.go): its
	// list while slow connects; q returns to the prompt.
	tt.send("/mcp\r")
	mt := &mgrTTY{tty: tt, vt: newVT(120, 40)}
	out := mt.waitScreen("1/2 servers ready, 1 connecting", "NAME STATUS TRANSPORT TOOLS", "srv ● ready stdio 4", "slow ● connecting stdio -")
	if strings.Contains(out, "SECRET") || strings.Contains(out, "SRV_TOKEN") {
		t.Errorf("/mcp shows env:\n%s", out)
	}
	m = len(tt.output())
	tt.send("q")
	m = tt.wait(m, "> ")
	tt.send("/mcp prompt slow anything\r")
	m = tt.wait(m, `closed: chat: server "slow" is still connecting: try again when /mcp shows it ready`, "> ")
	// The slow server gets ready: the status line says so at the prompt.
	os.WriteFile(gate, nil, 0o600)
	m = tt.wait(m, "[2/2 servers ready]")
	tt.send("/mcps\r")
	mt.waitScreen("MCP servers — 2/2 servers ready", "slow ● ready stdio 1", "srv ● ready stdio 4")
	m = len(tt.output())
	tt.send("q")
	m = tt.wait(m, "> ")

	// A tool call with progress: the bar, the count and the message.
	tt.send("count to three\r")
	m = tt.wait(m, "srv › count", "3/3 step 3", "✓", "counted", "> ")

	// An approval denied (the reason reaches the model), then allowed.
	tt.send("please write a note\r")
	m = tt.wait(m, "? allow run srv › write {\"text\":\"example\"}")
	m = tt.wait(m, "annotations: none")
	m = tt.wait(m, "allow? [y/a/n] ")
	tt.send("n not today\r")
	m = tt.wait(m, "deny: denied by the user: not today")
	m = tt.wait(m, "denied by the user: not today\"") // the model's answer quotes it
	m = tt.wait(m, "> ")
	tt.send("please write a note\r")
	m = tt.wait(m, "allow? [y/a/n] ")
	tt.send("y\r")
	m = tt.wait(m, "wrote example")
	m = tt.wait(m, `The tool returned: "wrote example"`)
	m = tt.wait(m, "> ")

	// Ctrl-C while a tool runs: the server hears notifications/cancelled,
	// and the session goes on.
	tt.send("please wait\r")
	m = tt.wait(m, "waiting for Godot")
	tt.send("\x03")
	m = tt.wait(m, "(cancelled; the conversation goes on)")
	m = tt.wait(m, "> ")
	waitFile(t, marker, "cancelled")
	tt.send("please echo again\r")
	m = tt.wait(m, "pong:example")
	m = tt.wait(m, "> ")

	// /mcp prompt with k=v tokens: the messages are shown, then sent.
	tt.send("/mcp prompt srv greet who=Ada tone=dry=ish\r")
	m = tt.wait(m, "prompt srv › greet:", "[user] please echo Ada tone=[dry=ish]", "srv › echo", "pong:example", "> ")
	// Its error cases send nothing: no tool runs before the next prompt.
	for _, tc := range []struct{ line, want string }{
		{"/mcp prompt nope greet", `not_found: chat: no server "nope" in the catalog (/mcp lists them)`},
		{"/mcp prompt srv nope", `not_found: chat: server "srv" has no prompt "nope" (its prompts: broken, greet)`},
		{"/mcp prompt srv broken", "the prompt broke"},
		{"/mcp prompt srv greet who=a who=b", "argument who is given twice"},
	} {
		tt.send(tc.line + "\r")
		out, m = tt.between(m, "\r\n> ")
		if !strings.Contains(out, tc.want) || strings.Contains(out, "›") || strings.Contains(out, "The tool returned") {
			t.Errorf("%s:\n%s\nwant %q and nothing sent", tc.line, out, tc.want)
		}
	}

	// Tab completes commands, servers and prompts.
	tt.send("/mcp prompt sr\t")
	m = tt.wait(m, "/mcp prompt srv")
	tt.send(" gr\t")
	m = tt.wait(m, "/mcp prompt srv greet")
	tt.send("\x03")
	m = tt.wait(m, "> ")

	// /lua runs in the session's state; /model shows the model; a line
	// ending in \ continues.
	tt.send("/lua x = 20 + 1\r")
	m = tt.wait(m, "> ")
	tt.send("/lua x * 2\r")
	m = tt.wait(m, "42")
	tt.send("/model\r")
	m = tt.wait(m, "model: mock")
	tt.send("first line \\\r")
	m = tt.wait(m, ".. ")
	tt.send("second line\r")
	m = tt.wait(m, "The tool returned")
	m = tt.wait(m, "> ")
	tt.send("/nope\r")
	m = tt.wait(m, "unknown command /nope")

	// Ctrl-D leaves, saving the conversation and the history; what it
	// prints starts on a line of its own, not after the prompt.
	tt.send("\x04")
	m = tt.wait(m, "saved the conversation to ")
	out = tt.output()
	if before := out[:strings.LastIndex(out, "saved the conversation to ")]; !strings.HasSuffix(before, "\n") {
		t.Errorf("after Ctrl-D, saved... follows the prompt on its line: %q", before[max(0, len(before)-80):])
	}
	tt.exited()
	saved := regexp.MustCompile(`saved the conversation to (\S+\.jsonl)`).FindStringSubmatch(tt.output())
	if saved == nil || !strings.HasPrefix(saved[1], filepath.Join(home, "sessions")) {
		t.Fatalf("no saved file in the output:\n%s", tt.output())
	}
	b, err := os.ReadFile(saved[1])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "first line \\nsecond line") || !strings.Contains(string(b), `"decision":"deny"`) {
		t.Errorf("the saved conversation lacks the multi-line turn or the denial:\n%.2000s", b)
	}
	if os.Getenv("CHAT_DUMP") != "" {
		t.Log(tt.output())
	}
	if strings.Contains(tt.output(), "SECRET") {
		t.Error("a secret was printed")
	}
	hist, _ := os.ReadFile(filepath.Join(home, "chat_history"))
	if !strings.Contains(string(hist), "please echo hi") || !strings.Contains(string(hist), "/mcp prompt srv greet who=Ada") {
		t.Errorf("history:\n%s", hist)
	}
}

func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never held %q", path, want)
}

// countingAgent is a Lua model that says how many messages it sees, with
// no servers: what a resumed conversation gives the model shows.
const countingAgent = `
return agent.new{ hub = false, model = function(req)
  local last = req.messages[#req.messages]
  if last.parts[1].text == "think slowly" then
    io.write("thinking\n") io.stdout:flush()
    task.sleep(120)
  end
  return { text = "seen " .. #req.messages .. " messages" }
end }
`

func TestTTYChatResumeAndHistory(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "config.json", `{"version": 1, "mcpServers": {}}`)
	agentFile := writeFile(t, home, "counting.lua", countingAgent)

	tt := startTTY(t, home, "chat", "--agent", agentFile)
	m := tt.wait(0, "> ")
	tt.send("hello\r")
	m = tt.wait(m, "seen 1 messages")
	m = tt.wait(m, "> ")
	// Saved after the turn already, before any exit.
	if files, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl")); len(files) != 1 {
		t.Errorf("after one turn the sessions folder holds %q, want one file", files)
	}
	tt.send("/quit\r")
	tt.wait(m, "saved the conversation to ")
	tt.exited()
	saved := regexp.MustCompile(`saved the conversation to (\S+\.jsonl) \(luagent chat --resume (\S+) continues it\)`).FindStringSubmatch(tt.output())
	if saved == nil {
		t.Fatalf("no saved file:\n%s", tt.output())
	}

	// The next run: the history has the line, and --resume gives the
	// model the conversation so far.
	tt = startTTY(t, home, "chat", "--agent", agentFile, "--resume", saved[2])
	m = tt.wait(0, "resumed session "+saved[2]+": 1 turns")
	m = tt.wait(m, "> ")
	tt.send("\x1b[A\x1b[A") // up arrow recalls the last run's lines
	m = tt.wait(m, "hello")
	tt.send("\r")
	m = tt.wait(m, "seen 3 messages")
	m = tt.wait(m, "> ")
	// Ctrl-C while the model thinks cancels the turn; the next one runs.
	tt.send("think slowly\r")
	m = tt.wait(m, "thinking")
	tt.send("\x03")
	m = tt.wait(m, "(cancelled; the conversation goes on)", "> ")
	tt.send("/clear\r")
	m = tt.wait(m, "new conversation")
	tt.send("again\r")
	m = tt.wait(m, "seen 1 messages")
	m = tt.wait(m, "> ")
	// /model switches, keeping the agent's options; a bad name changes
	// nothing.
	tt.send("/model nosuch:model\r")
	m = tt.wait(m, `invalid: /model: llm: model "nosuch:model": unknown provider "nosuch"`, "> ")
	tt.send("/model\r")
	m = tt.wait(m, "model: ", "> ")
	tt.send("/model mock\r")
	m = tt.wait(m, "model: mock (the conversation goes on)", "> ")
	tt.send("and now\r")
	m = tt.wait(m, "mock: and now", "> ")
	// Ctrl-C at the prompt clears the line; a second one leaves.
	tt.send("\x03")
	m = tt.wait(m, "Ctrl-C again or Ctrl-D to leave")
	tt.send("\x03")
	tt.wait(m, "saved the conversation to ")
	tt.exited()

	f, err := os.Open(saved[1])
	if err != nil {
		t.Fatal(err)
	}
	conv, err := session.Parse(f)
	f.Close()
	if err != nil || len(conv.Messages()) != 5 || conv.Turns() != 3 {
		t.Errorf("the resumed session after /clear: %v; want 5 messages and 3 turns (the cancelled turn's prompt stays)", err)
	}

	// Resumed without --model, a conversation goes on with its own model;
	// --model wins.
	savedConv := filepath.Join(home, "saved.json")
	writeFile(t, home, "saved.json", `{"version": 1, "model": "mock", "start": "2026-12-02T03:00:00Z", "messages": [], "turns": []}`)
	r := luagent(t, "/model\n", []string{"LUAGENT_HOME=" + home, "LUAGENT_MODEL=ollama:llama3"}, "chat", "--resume", savedConv)
	if !strings.Contains(r.stdout, "model: mock (the one the conversation was saved with)") || !strings.Contains(r.stdout, "model: mock\n") {
		t.Errorf("resumed without --model:\n%s%s", r.stdout, r.stderr)
	}
	r = luagent(t, "/model\n", []string{"LUAGENT_HOME=" + home}, "chat", "--resume", savedConv, "--model", "ollama:llama3")
	if !strings.Contains(r.stdout, "model: ollama:llama3\n") {
		t.Errorf("resumed with --model:\n%s%s", r.stdout, r.stderr)
	}

	// A missing file to resume is one line and exit 1.
	r = luagent(t, "", []string{"LUAGENT_HOME=" + home}, "chat", "--resume", filepath.Join(home, "none.json"))
	if r.code != 1 || !strings.Contains(r.stderr, "no conversation at") {
		t.Errorf("--resume of a missing file: %d %q", r.code, r.stderr)
	}
}

// everythingAgent calls server-everything's long-running operation (a
// short one) with a Lua model, then answers with its result.
const everythingAgent = `
return agent.new{ model = function(req)
  local last = req.messages[#req.messages]
  if last.role == "tool" then return { text = "done: " .. last.parts[1].text } end
  return { tool_calls = { { name = "everything__trigger-long-running-operation", arguments = { duration = 1.5, steps = 3 } } } }
end }
`

func TestTTYChatProgressFromServerEverything(t *testing.T) {
	home := t.TempDir()
	cmd, args := testkit.Everything(t)
	cfg := map[string]any{"version": 1, "mcpServers": map[string]any{"everything": map[string]any{"command": cmd, "args": args}}}
	b, _ := json.Marshal(cfg)
	writeFile(t, home, "config.json", string(b))
	agentFile := writeFile(t, home, "everything.lua", everythingAgent)

	tt := startTTY(t, home, "chat", "--agent", agentFile)
	m := tt.wait(0, "[1/1 server ready]")
	tt.send("go\r")
	m = tt.wait(m, "everything › trigger-long-running-operation {\"duration\":1.5,\"steps\":3}",
		"1/3", "2/3", "✓", "done: Long running operation completed", "> ")
	tt.send("\x04")
	tt.exited()
}

// The REPL's /mcp without a terminal (a pipe) lists the catalog's servers
// in the hub agents share, which it starts: slow connects until its gate
// opens, and /mcps, asked again, shows it ready. (On a terminal /mcp is
// the manager: TestTTYREPLManager.)
func TestPipedREPLMCP(t *testing.T) {
	home, gate, _ := chatHome(t)
	wait := `io.open(` + strconv.Quote(gate) + `, "w"):close()
local deadline = os.time() + 60
repeat
  local ready = false
  for _, s in ipairs(agent.default_hub():status()) do ready = ready or (s.name == "slow" and s.status == "ready") end
  if ready then break end
  task.sleep(0.05)
until os.time() > deadline`
	r := luagent(t, "/mcp\n"+strings.ReplaceAll(wait, "\n", " ")+"\n/mcps\n", []string{"LUAGENT_HOME=" + home})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	first, then, _ := strings.Cut(r.stdout, "TOOLS")
	// Columns are as wide as their longest cell: blanks are folded.
	if _, rest, ok := strings.Cut(then, "TOOLS"); !ok || !strings.Contains(foldBlanks(first+then), "slow connecting stdio -") || !strings.Contains(foldBlanks(rest), "slow ready stdio 1") {
		t.Errorf("/mcp, then /mcps once slow is ready:\n%s\n%s", r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "SECRET") {
		t.Error("a secret was printed")
	}
}

const elicitServer = `
local s = mcp.server{ name = "el", version = "1.0.0" }
s:tool{ name = "profile", description = "Ask the user for a profile", input = {}, annotations = { readOnlyHint = true },
  handler = function(a, ctx)
    local r = ctx:elicit{ message = "Tell me about you", schema = {
      type = "object",
      properties = {
        name = { type = "string", minLength = 2, maxLength = 10, title = "Your name" },
        age = { type = "integer", minimum = 0, maximum = 150 },
        color = { type = "string", enum = { "r", "g" }, enumNames = { "Red", "Green" }, default = "g" },
      },
      required = { "name" } } }
    return "answer " .. json.encode(r)
  end }
s:tool{ name = "login", description = "Open the login page", input = {}, annotations = { readOnlyHint = true },
  handler = function(a, ctx)
    return "answer " .. json.encode(ctx:elicit_url{ url = "https://example.com/login?state=abc&x=1", message = "Sign in to Example" })
  end }
s:tool{ name = "haiku", description = "Write a haiku with the model", input = {}, annotations = { readOnlyHint = true },
  handler = function(a, ctx)
    local r = ctx:sample{ messages = "a haiku about tea", systemPrompt = "You are a poet", maxTokens = 50 }
    return "sampled " .. r.content.text
  end }
return s
`

func TestTTYChatElicitation(t *testing.T) {
	home := t.TempDir()
	el := writeFile(t, home, "el.lua", elicitServer)
	b, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{"el": map[string]any{"command": bin, "args": []string{"serve", el}, "sampling": true}}})
	writeFile(t, home, "config.json", string(b))
	tt := startTTY(t, home, "chat")
	m := tt.wait(0, "[1/1 server ready]")

	// A form filled in: an invalid value is refused before anything is
	// sent, an empty one takes the default.
	tt.send("ask for a profile\r")
	m = tt.wait(m, "? el asks: Tell me about you")
	m = tt.wait(m, "age (integer, 0 to 150): ")
	tt.send("200\r")
	m = tt.wait(m, "✗ 200 is out of range")
	m = tt.wait(m, "age (integer, 0 to 150): ")
	tt.send("42\r")
	m = tt.wait(m, "color (one of 1=Red (r), 2=Green (g)) [g]: ")
	tt.send("\r")
	m = tt.wait(m, "Your name (text, 2-10 chars, required): ")
	tt.send("A\r")
	m = tt.wait(m, "✗ 1 chars")
	m = tt.wait(m, "Your name (text, 2-10 chars, required): ")
	tt.send("Ada\r")
	m = tt.wait(m, `to send: {"age":42,"color":"g","name":"Ada"}`)
	m = tt.wait(m, "send? [y = send, n = decline, c = cancel] ")
	tt.send("y\r")
	m = tt.wait(m, `answer {"action":"accept","content":{"age":42,"color":"g","name":"Ada"}}`)
	m = tt.wait(m, "\r\n> ")

	// Declined at the first field.
	tt.send("ask for a profile\r")
	m = tt.wait(m, "age (integer, 0 to 150): ")
	tt.send("!decline\r")
	m = tt.wait(m, `answer {"action":"decline"}`)
	m = tt.wait(m, "\r\n> ")

	// A URL: shown in full, declined, never opened.
	tt.send("open the login page\r")
	m = tt.wait(m, "? el asks you to open a URL: Sign in to Example")
	m = tt.wait(m, "https://example.com/login?state=abc&x=1")
	m = tt.wait(m, "open it in your browser? [y/n, c = cancel] ")
	tt.send("n\r")
	m = tt.wait(m, `answer {"action":"decline"}`)
	m = tt.wait(m, "\r\n> ")

	// Sampling: the server's messages are shown before the model runs.
	tt.send("write a haiku\r")
	m = tt.wait(m, "? allow let el use the model (sampling)", "[system] You are a poet", "[user] a haiku about tea", "(at most 50 tokens)")
	m = tt.wait(m, "allow? [y/a/e/n] ")
	tt.send("y\r")
	m = tt.wait(m, "sampled mock: a haiku about tea", "\r\n> ")
	// Edited before the model runs.
	tt.send("write a haiku\r")
	m = tt.wait(m, "e = edit the last message then run it", "allow? [y/a/e/n] ")
	tt.send("e\r")
	m = tt.wait(m, `the last message instead of "a haiku about tea": `)
	tt.send("a limerick about coffee\r")
	m = tt.wait(m, "allowed by the user, edited", "sampled mock: a limerick about coffee", "\r\n> ")
	tt.send("\x04")
	tt.exited()
	if os.Getenv("CHAT_DUMP") != "" { // the text captures of stdlib/doc/chat.md
		t.Log(tt.output())
	}
}

func TestTTYChatManager(t *testing.T) {
	home, gate, _ := chatHome(t)
	os.WriteFile(gate, nil, 0o600)
	tt := startTTY(t, home, "chat")
	m := tt.wait(0, "[2/2 servers ready]")

	// Inspect: tools with arguments and annotations, prompts.
	tt.send("/mcp srv\r")
	m = tt.wait(m, "/mcp srv")
	out, m := tt.between(m, "\r\n> ")
	for _, want := range []string{"srv: ready, stdio, ", "server srv 1.0.0", "tools:", "echo — Echo a message [read-only]",
		"message: string (required)", "write — Write a note\r\n", "prompts:", "greet(who*, tone)", "broken()"} {
		if !strings.Contains(out, want) {
			t.Errorf("/mcp srv lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("/mcp srv shows env:\n%s", out)
	}

	// Restart: the server goes through connecting and back.
	tt.send("/mcp restart srv\r")
	m = tt.wait(m, "srv: restarting", "[1/2 servers ready, 1 connecting]", "[2/2 servers ready]")

	// Disable, then enable: saved in the catalog, only that server changes.
	tt.send("/mcp disable slow\r")
	m = tt.wait(m, "slow: disabled, stopped", "[1/1 server ready]")
	b, _ := os.ReadFile(filepath.Join(home, "config.json"))
	if !strings.Contains(string(b), `"enabled": false`) {
		t.Errorf("the catalog after /mcp disable:\n%s", b)
	}
	tt.send("/mcp\r")
	(&mgrTTY{tty: tt, vt: newVT(120, 40)}).waitScreen("slow ● disabled stdio -", "srv ● ready stdio 4")
	m = len(tt.output())
	tt.send("q")
	m = tt.wait(m, "> ")
	tt.send("please echo hi\r") // srv kept its connection: its tools still run
	m = tt.wait(m, "pong:example", "\r\n> ")
	tt.send("/mcp enable slow\r")
	m = tt.wait(m, "slow: enabled, starting", "[2/2 servers ready]")

	tt.send("/mcp nope\r")
	m = tt.wait(m, `not_found: chat: no server "nope" in the catalog`)
	tt.send("/mcp restart\r")
	m = tt.wait(m, "/mcp restart needs one server")
	tt.send("/mcp auth srv\r")
	m = tt.wait(m, `server "srv" is a stdio server: only HTTP servers authorize with OAuth`)
	tt.send("\x04")
	tt.exited()
}

func TestChatFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"chat", "--help"}, 0, "/mcp prompt SERVER PROMPT [k=v ...]"},
		{[]string{"--help"}, 0, "luagent chat [--model M] [--agent FILE] [--server NAME]... [--resume ID|latest] [--yes]"},
		{[]string{"chat", "--model"}, 2, "--model needs a value: luagent chat --model openai:gpt-4.1-mini"},
		{[]string{"chat", "--resume="}, 2, "--resume needs a value"},
		{[]string{"chat", "--bogus"}, 2, "unknown chat option --bogus (luagent chat --help lists them)"},
		{[]string{"chat", "--agent", "/nonexistent/agent.lua"}, 1, "cannot read /nonexistent/agent.lua"},
	} {
		r := luagent(t, "", nil, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.out) {
			t.Errorf("luagent %s: exit %d, want %d with %q:\n%s%s", strings.Join(tc.args, " "), r.code, tc.code, tc.out, r.stdout, r.stderr)
		}
	}
	// Without a terminal the chat reads plain lines: a pipe can drive it.
	r := luagent(t, "hello there\n/model\n", []string{"LUAGENT_MODEL=mock"}, "chat")
	if r.code != 0 || !strings.Contains(r.stdout, "mock: hello there") || !strings.Contains(r.stdout, "model: mock") {
		t.Errorf("a piped chat: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
