package mcp_test

import (
	"context"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	mcpmod "github.com/luagent/luagent/luabind/mod/mcp"
	rmcp "github.com/luagent/luagent/runtime/mcp"
)

// Every kind a Lua server registers has its remove, and each removes only
// what it names: true the first time, false once it is gone.
func TestRemoveEachKind(t *testing.T) {
	h := host.New(host.Config{Clean: true})
	defer h.Close()
	fn, err := h.Load([]byte(`
local s = mcp.server{ name = "removals" }
local function read(v) return "x" end
s:tool{ name = "a", handler = function() return "a" end }
s:tool{ name = "b", handler = function() return "b" end }
s:resource{ uri = "r://1", read = read }
s:resource{ uri = "r://2", read = read }
s:template{ uriTemplate = "n://{id}", read = read }
s:template{ uriTemplate = "m://{id}", read = read }
s:prompt{ name = "p", get = function() return "p" end }
s:prompt{ name = "q", get = function() return "q" end }
local got = {}
for _, c in ipairs({ { "remove_tool", "a" }, { "remove_resource", "r://1" }, { "remove_template", "n://{id}" },
  { "remove_prompt", "p" } }) do
  got[#got + 1] = tostring(s[c[1]](s, c[2])) .. "," .. tostring(s[c[1]](s, c[2]))
end
assert(table.concat(got, " ") == "true,false true,false true,false true,false", table.concat(got, " "))
return s`), "removals.lua")
	if err != nil {
		t.Fatal(err)
	}
	task := h.RunTask(context.Background(), fn, nil, "removals")
	if f := task.Failure(); f != nil {
		t.Fatal(f.Message)
	}
	srv, ok := mcpmod.ServerOf(task.Results()[0])
	if !ok {
		t.Fatal("the script did not return a server")
	}
	if got, want := srv.Offered(), (rmcp.Offered{Tools: 1, Resources: 1, ResourceTemplates: 1, Prompts: 1}); got != want {
		t.Errorf("left after one removal of each kind: %+v, want %+v", got, want)
	}
}
