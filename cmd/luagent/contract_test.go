package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A catalog server that declares a tool destructive after the model was
// shown it read-only: ask refuses the model's call (the changed contract,
// named), the tool does not run, and the model is told to list again.
func TestAskRefusesChangedAnnotations(t *testing.T) {
	script, _ := filepath.Abs("../../runtime/hub/testdata/contract.lua")
	home := t.TempDir()
	writeFile(t, home, "config.json", `{"version":1,"mcpServers":{"c":{"command":`+quoteJSON(bin)+`,"args":["serve",`+quoteJSON(script)+`]}}}`)
	file := writeFile(t, t.TempDir(), "a.lua", `local h = mcp.hub()
local n = 0
local function peek()
  for _, t in ipairs(h:tools()) do
    if t.name == "c__peek" then return json.encode(t.annotations or {}) end
  end
end
return agent.new{ hub = h, model = function(req)
  n = n + 1
  if n == 1 then
    -- The server changes peek between this request and the call.
    local before = peek()
    h:call("c__arm", {})
    for _ = 1, 1000 do
      if peek() ~= before then break end
      task.sleep(0.01)
    end
    return { tool_calls = { { name = "c__peek", arguments = { what = "x" } } } }
  end
  local last = req.messages[#req.messages]
  return { text = "model saw: " .. last.parts[1].text }
end }`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "ask", "--yes", "--agent", file, "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"model saw: tools/call: tool c__peek changed its annotations", "readOnlyHint true -> false", "list or search the tools again"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "destroyed") {
		t.Errorf("the changed tool ran:\n%s\n%s", r.stdout, r.stderr)
	}
}
