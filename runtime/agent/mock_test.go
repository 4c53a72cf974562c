package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
)

// The built-in mock model over a Lua server: it calls the tool its prompt
// names with schema-valid arguments, and answers quoting the result; a
// mutating tool is denied non-interactively and the mock quotes the
// denial.
func TestMockModel(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	text, tr, err := New(Config{Model: llm.NewMock(""), Hub: h}).Ask(context.Background(), "echo a message back")
	if err != nil || tr.End != EndAnswer || len(tr.ToolCalls) != 1 {
		t.Fatalf("%v %s %+v", err, tr.End, tr.ToolCalls)
	}
	c := tr.ToolCalls[0]
	if c.Name != "tools__echo" || c.Decision != Allow || c.Result == nil || c.Result.IsError {
		t.Fatalf("call: %+v", c)
	}
	if !strings.HasPrefix(text, "The tool returned:") || len(tr.Turns) != 2 {
		t.Errorf("answer %q after %d turns", text, len(tr.Turns))
	}

	text, tr, err = New(Config{Model: llm.NewMock(""), Hub: h}).Ask(context.Background(), "write a note")
	if err != nil || len(tr.ToolCalls) != 1 || tr.ToolCalls[0].Name != "tools__write" || tr.ToolCalls[0].Decision != Deny {
		t.Fatalf("%v %+v", err, tr.ToolCalls)
	}
	if !strings.Contains(text, "nobody to ask") {
		t.Errorf("the mock did not see the denial: %q", text)
	}
}
