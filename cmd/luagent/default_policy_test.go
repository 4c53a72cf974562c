package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/approval"
)

// ask, chat, an agent a script makes and Lua's agent.default_policy follow
// the one default policy:
// with nothing changed but approval's default (a test double that denies
// with a reason of its own), all three deny the call with that reason —
// and chat does not ask the person, since the policy did not say "ask".
// They run in this process, so the double is theirs.
func TestOneDefaultPolicy(t *testing.T) {
	home := t.TempDir()
	t.Setenv("LUAGENT_HOME", home)
	t.Setenv("LUA_PATH", "")
	t.Setenv("GOMAXPROCS", "2") // run() leaves GOMAXPROCS alone when set
	t.Setenv(nestingVar, "0")
	const reason = "the test double's default"
	var mu sync.Mutex
	var judged []string
	restore := approval.ReplaceDefaultForTest(func(_ context.Context, c approval.Call) (approval.Decision, string) {
		mu.Lock()
		defer mu.Unlock()
		judged = append(judged, c.Name)
		return approval.Deny, reason
	})
	defer restore()

	file := writeFile(t, home, "agent.lua", `
return agent.new{ hub = false,
  tools = { { name = "note", input = { text = "string" }, handler = function(a) return "noted " .. a.text end } },
  model = function(req)
    local last = req.messages[#req.messages]
    if last.role == "tool" then return { text = "tool said: " .. last.parts[1].text } end
    return { tool_calls = { { name = "note", arguments = { text = "x" } } } }
  end }
`)
	script := writeFile(t, home, "script.lua", `
local a = dofile(arg[1])
if arg[2] then a = a:with{ approve = agent.default_policy } end
local _, tr = a:ask("go")
print("script: " .. tr.tool_calls[1].decision .. ": " .. tr.tool_calls[1].reason)
`)
	for _, tt := range []struct {
		name, stdin string
		args        []string
	}{
		{"ask", "", []string{"ask", "--agent", file, "go"}},
		{"chat", "go\n", []string{"chat", "--agent", file}},
		{"a script's agent", "", []string{"run", script, file}},
		{"approve = agent.default_policy", "", []string{"run", script, file, "lua"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			judged = nil
			mu.Unlock()
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &out, &errb)
			all := out.String() + errb.String()
			mu.Lock()
			defer mu.Unlock()
			if code != 0 || !strings.Contains(all, reason) || len(judged) != 1 || judged[0] != "note" {
				t.Errorf("exit %d, the default judged %q; output:\n%s", code, judged, all)
			}
			if strings.Contains(all, "allow? [") {
				t.Errorf("chat asked the person although the default policy denied:\n%s", all)
			}
		})
	}
}
