package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// luagent serve FILE.json serves the agent an agents-exe file describes;
// the file's text reaches Lua as a value, so brackets and quotes in it are
// only text.
func TestServeAgentsExeFile(t *testing.T) {
	file := writeFile(t, t.TempDir(), "agent.json", `{"tag": "OpenAIAgentDescription", "contents": {"slug": "exe", "announce": "a]]b ]=] \"q\" ')..error('x')--",
	  "systemPrompt": ["one ]==] two"]}}`)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	r := luagent(t, in, nil, "serve", file)
	if !strings.Contains(r.stdout, `"name":"exe"`) || !strings.Contains(r.stdout, `"description":"a]]b ]=] \"q\" ')..error('x')--"`) {
		t.Errorf("tools/list of %s: exit %d\nstdout: %s\nstderr: %s", filepath.Base(file), r.code, r.stdout, r.stderr)
	}
}
