package agent_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	agentmod "github.com/luagent/luagent/luabind/mod/agent"
)

// The one loader of agent files: a Lua file runs as it is; an agents-exe
// file (.json, or text starting with "{") as the agent it describes,
// whatever brackets its text holds; a broken one is an invalid error
// naming the file.
func TestAgentFileSource(t *testing.T) {
	for name, want := range map[string]bool{"a.json": true, "A.JSON": true, "a.lua": false, "agent": false} {
		if got := agentmod.IsAgentsExe(name, []byte("return 1")); got != want {
			t.Errorf("IsAgentsExe(%q) = %v", name, got)
		}
	}
	if !agentmod.IsAgentsExe("agent.desc", []byte("\n  {\"tag\": 1}")) {
		t.Error(`a text starting with "{" is not taken for an agents-exe file`)
	}

	var errb bytes.Buffer
	h := host.New(host.Config{Clean: true, Stderr: &errb, Stdout: &errb})
	defer h.Close()
	lf, err := h.LoadAgentFile([]byte("return 1, ...\n"), "a.lua")
	if err != nil {
		t.Fatal(err)
	}
	h.L.SetGlobal("lua_file", lf)
	desc := `{"tag": "OpenAIAgentDescription", "contents": {"slug": "x]]y", "announce": "a]=]b]==]c",
	  "systemPrompt": ["one", "two"], "modelName": "m", "modelUrl": "http://127.0.0.1:1/v1", "apiKeyId": "k"}}`
	fn, err := h.LoadAgentFile([]byte(desc), "agent.json")
	if err != nil {
		t.Fatal(err)
	}
	h.L.SetGlobal("loaded", fn)
	code := h.Run(context.Background(), host.Script{Name: "t", Src: []byte(`
assert(select("#", lua_file()) == 1 and lua_file() == 1, "a Lua file runs as it is")
local a = loaded()
assert(a.name == "x]]y" and a.description == "a]=]b]==]c", a.name .. " / " .. tostring(a.description))`)})
	if code != host.ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}

	errb.Reset()
	fn, err = h.LoadAgentFile([]byte(`{"tag": `), "broken.json")
	if err != nil {
		t.Fatal(err)
	}
	h.L.SetGlobal("loaded", fn)
	h.Run(context.Background(), host.Script{Name: "t", Src: []byte(`
local ok, e = pcall(loaded)
assert(not ok and e.kind == "invalid", tostring(e))
print(e.message)`)})
	if got := errb.String(); !strings.HasPrefix(got, "broken.json: not JSON (an agents-exe agent file is): json.decode: ") || !strings.HasSuffix(got, "; fix the file\n") {
		t.Errorf("broken file: %q", got)
	}
}
