package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a server or a model says reaches the terminal with its control
// characters made visible (\x1b, \u009b, ...): testdata/escapes.lua puts
// escape sequences, C1 and bidi controls after a Z in every word it
// gives (its names, descriptions, results, errors, prompts, progress,
// forms and stderr). Newlines and tabs of a result still lay it out.

// rawControls are the controls escapes.lua sends, each after a Z.
var rawControls = []string{"\x1b", "\x07", "\r", "\b", "\u009b", "\u202e", "\u2066", "\u2069", "\x7f"}

// noRawControl fails the test when one of escapes.lua's controls reaches
// out raw (after its Z): luagent's own styling, which follows no Z, may
// still use escapes on a terminal.
func noRawControl(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range rawControls {
		raw := "Z" + c
		if c == "\r" {
			// A lone CR (the server's is followed by its Z): a line the
			// terminal wrapped, or folded at the blank a CR became, ends
			// with Z and CR LF.
			raw = "Z\rZ"
		}
		if i := strings.Index(out, raw); i >= 0 {
			t.Errorf("%s: the server's %q reached the output raw: …%q…", what, c, out[max(0, i-300):min(len(out), i+40)])
		}
	}
}

// escapesHome is a LUAGENT_HOME whose catalog has evil (escapes.lua) and
// crash (the same, exiting after its stderr: every ask and chat says why
// it failed to start).
func escapesHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	srv, err := filepath.Abs("testdata/escapes.lua")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, home, "config.json", fmt.Sprintf(`{"version": 1, "mcpInitStrategy": "wait", "mcpServers": {
	  "evil": {"command": %q, "args": ["serve", %q]},
	  "crash": {"command": %q, "args": ["serve", %q, "crash"]}}}`, bin, srv, bin, srv))
	return home
}

// visibleH is escapes.lua's hostile text as luagent shows it; shownH its
// start, all a line cut short may show.
const (
	visibleH = `Z\x1b[2JZ\x1b]0;pwned\x07Z\x1b]52;c;aGk=\x07Z\x1b]8;;http://x\x07linkZ\x1b]8;;\x07Z\x0dZ\x08\x08Z\u009b31mZ\u202eZ\u2066Z\u2069Z\x7f`
	shownH   = `Z\x1b[2JZ\x1b]0;pwned\x07Z`
)

func TestEscapesShownVisibly(t *testing.T) {
	home := escapesHome(t)
	env := []string{"LUAGENT_HOME=" + home, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "LUAGENT_MODEL="}
	check := func(what string, r result, want ...string) {
		t.Helper()
		noRawControl(t, what+" stdout", r.stdout)
		noRawControl(t, what+" stderr", r.stderr)
		for _, w := range want {
			if !strings.Contains(r.stdout+r.stderr, w) {
				t.Errorf("%s: no %q in\nstdout:\n%s\nstderr:\n%s", what, w, r.stdout, r.stderr)
			}
		}
	}

	r := luagent(t, "", env, "mcp", "tools", "evil")
	check("mcp tools", r, "hostile description"+shownH, "named"+visibleH)
	// A result's lines and tabs stay; -v's trace lines are shown too.
	r = luagent(t, "", env, "mcp", "call", "evil", "hostile", "message=hi", "-v")
	check("mcp call", r, "result"+visibleH+"\nsecond line\tcolumn\n")
	r = luagent(t, "", env, "mcp", "call", "evil", "fails")
	check("mcp call (a tool error)", r, "error"+visibleH)
	r = luagent(t, "", env, "mcp", "tools", "crash")
	check("mcp tools (a server's stderr)", r, "stderr"+visibleH)

	// ask: the activity lines (the call, its progress, its result) and
	// the final answer.
	r = luagent(t, "", env, "ask", "--model", "mock", "use the hostile description tool")
	check("ask", r, "progress"+shownH, "result"+shownH, "stderr"+shownH)
	r = luagent(t, "", env, "ask", "--model", "mock", "use the tool that fails with an error")
	check("ask (a tool error)", r, "error"+shownH)
	model := writeFile(t, home, "model.lua", `
local E = "\27"
return agent.new{ hub = false, model = function(req)
  return { text = "answer Z" .. E .. "]0;pwned\7Z\194\155" .. "2JZ\226\128\174Z\r\nnext line\tcolumn" }
end }`)
	r = luagent(t, "", env, "ask", "--agent", model, "hello")
	check("ask (a model's answer)", r, `answer Z\x1b]0;pwned\x07Z\u009b2JZ\u202eZ`+"\nnext line\tcolumn")

	// chat without a terminal: a turn, /mcp and its inspect view, a
	// prompt, a form.
	r = luagent(t, "use the hostile description tool\n/mcp\n/mcp evil\n/mcp prompt evil p\nuse the tool that asks with a form\nanything\ny\n", env, "chat", "--model", "mock")
	check("chat", r, "stderr"+shownH, "result"+shownH, "progress"+shownH, "instructions"+shownH, "prompt text"+visibleH,
		"elicit"+shownH, "fielddesc"+shownH)

	// A script's mcp.connect: the server's stderr in the debug log.
	script := writeFile(t, home, "connect.lua", `
local c = mcp.connect{ command = arg[1], args = { "serve", arg[2] } }
print(c:call("hostile", { message = "hi" }).content[1].text:sub(1, 6))`)
	srv, _ := filepath.Abs("testdata/escapes.lua")
	r = luagent(t, "", append(env, "LUAGENT_LOG=debug"), "run", script, bin, srv)
	check("a script's log", r, "stderr"+visibleH)
	if _, err := os.Stat(srv); err != nil || !strings.HasPrefix(r.stdout, "result") {
		t.Errorf("the script: %+v", r)
	}
}

// The chat on a terminal: a turn's call, progress and result, a tool's
// error, an approval of a tool with a hostile name, a form, a prompt,
// the failure line of a server that wrote to its stderr, and the /mcp
// manager's list and inspect view with a tool's schema open.
func TestTTYChatEscapes(t *testing.T) {
	home := escapesHome(t)
	tt := startTTY(t, home, "chat", "--model", "mock")
	m := tt.wait(0, "[1/2 servers ready, 1 failed]", "> ")
	tt.send("use the hostile description tool\r")
	m = tt.wait(m, "evil › hostile", "✓", "The tool returned", "> ")
	tt.send("use the tool that fails with an error\r")
	m = tt.wait(m, "evil › fails", "✗", "> ")
	tt.send("use the tool a name to show\r")
	m = tt.wait(m, "? allow run evil › named", "allow? [y/a/n] ")
	tt.send("n\r")
	m = tt.wait(m, "deny", "> ")
	tt.send("use the tool that asks with a form\r")
	m = tt.wait(m, "asks: elicit", "fielddesc", "field")
	tt.send("hi\r")
	m = tt.wait(m, "send? ")
	tt.send("y\r")
	m = tt.wait(m, "answered accept", "> ")
	tt.send("/mcp prompt evil p\r")
	m = tt.wait(m, "[user] prompt text", "> ")

	tt.send("/mcp\r")
	mt := &mgrTTY{tty: tt, vt: newVT(200, 60)}
	mt.waitScreen("evil ● ready", "crash ● failed")
	tt.send("\r")
	mt.waitScreen("Tools (4)", "Instructions")
	tt.send("\x1b[B\x1b[B") // the third tool, hostile: its description and schema open
	mt.waitScreen("input schema:", "argument")
	tt.send("\x1b")
	mt.waitScreen("evil ● ready")
	tt.send("\x1b[B\r") // crash: its error and stderr
	mt.waitScreen("MCP server crash", "stderr:")
	tt.send("\x1b")
	mt.waitScreen("crash ● failed")
	tt.send("q")
	m = tt.wait(m, "> ")
	tt.send("\x04")
	tt.exited()
	out := tt.output()
	noRawControl(t, "chat on a terminal", out)
	for _, w := range []string{"result" + shownH, "progress" + shownH, "error" + shownH, "named" + shownH, "elicit" + shownH,
		"prompt text" + shownH, "stderr" + shownH, "instructions" + shownH, "argument" + shownH} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in the chat's output", w)
		}
	}
}
