package main

import (
	"strings"
	"testing"
)

// examples/code_mode.lua (also run by TestExamples): one model turn, five
// calls made by the snippet, the warmest city back.
func TestCodeModeExample(t *testing.T) {
	r := luagent(t, "", []string{"LUAGENT_HOME=" + t.TempDir()}, "run", "../../examples/code_mode.lua")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{`The warmest tomorrow: {"city":"Cairo","high":31}`, "run_lua made 5 calls in 1 model turn:",
		`  forecast {"city":"Oslo"} -> {"city":"Oslo","high":9}`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in:\n%s", want, r.stdout)
		}
	}
}

// luagent ask --code-mode offers the agent's model run_lua instead of its
// tools, and shows the snippet's calls as tool activity on stderr.
func TestAskCodeMode(t *testing.T) {
	home := t.TempDir()
	file := writeFile(t, home, "agent.lua", `
return agent.new{ hub = false,
  tools = { { name = "double", input = { n = "number" }, annotations = { readOnlyHint = true },
    handler = function(a) return tostring(2 * a.n) end } },
  model = function(req)
    local last = req.messages[#req.messages]
    if last.role == "tool" then return { text = "got " .. last.parts[1].text } end
    if req.tools[1].name ~= "run_lua" then return { text = "no run_lua: " .. req.tools[1].name } end
    return { tool_calls = { { name = "run_lua", arguments = { code = "return tools.double{n = tools.double{n = 5}}" } } } }
  end }
`)
	env := []string{"LUAGENT_HOME=" + home}
	r := luagent(t, "", env, "ask", "--agent", file, "go")
	if r.code != 0 || !strings.Contains(r.stdout, "no run_lua: double") {
		t.Fatalf("without --code-mode: %+v", r)
	}
	r = luagent(t, "", env, "ask", "--code-mode", "--agent", file, "go")
	if r.code != 0 || !strings.Contains(r.stdout, `got "20"`) {
		t.Fatalf("with --code-mode: %+v", r)
	}
	if !strings.Contains(r.stderr, "run_lua") || !strings.Contains(r.stderr, "\n  double {\"n\":\"10\"}\n    ✓") {
		t.Errorf("tool activity:\n%s", r.stderr)
	}
}

// The offline mock, given run_lua, runs the schema's example snippet
// (help(), the tools' list) and quotes its output.
func TestAskCodeModeMock(t *testing.T) {
	r := luagent(t, "", []string{"LUAGENT_HOME=" + t.TempDir(), "LUAGENT_MODEL="}, "ask", "--code-mode", "what can you do?")
	if r.code != 0 || !strings.Contains(r.stdout, `The tool returned: "no tools`) || !strings.Contains(r.stderr, `run_lua {"code":"help()"}`) {
		t.Fatalf("%+v", r)
	}
}

// luagent chat --code-mode does the same for a conversation.
func TestChatCodeMode(t *testing.T) {
	home := t.TempDir()
	file := writeFile(t, home, "agent.lua", `
return agent.new{ hub = false, model = function(req)
  local last = req.messages[#req.messages]
  if last.role == "tool" then return { text = "got " .. last.parts[1].text } end
  if req.tools[1].name ~= "run_lua" then return { text = "offered " .. req.tools[1].name } end
  return { tool_calls = { { name = "run_lua", arguments = { code = "return tools.t{}" } } } }
end, tools = { { name = "t", annotations = { readOnlyHint = true }, handler = function() return "x" end } } }
`)
	r := luagent(t, "hello\n", []string{"LUAGENT_HOME=" + home}, "chat", "--code-mode", "--agent", file)
	if r.code != 0 || !strings.Contains(r.stdout, `got "x"`) || !strings.Contains(r.stdout, "\n  t\n    ✓") {
		t.Fatalf("%+v", r)
	}
}
