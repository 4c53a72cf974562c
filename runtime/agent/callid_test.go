package agent

import (
	"context"
	"encoding/json"
	"testing"
)

// A local tool's ctx carries the id of the call it runs for; added
// tools are offered beside the agent's own.
func TestCallIDAndAddTools(t *testing.T) {
	m := script(calls(tc("probe", `{}`)), answer("done"))
	var got string
	a := New(Config{Model: m, Yes: true})
	a.AddTools(LocalTool{Name: "probe", Call: func(ctx context.Context, _ json.RawMessage) (Result, error) {
		got = CallID(ctx)
		return TextResult("ok", false), nil
	}})
	if _, _, err := a.Ask(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if want := m.requests()[1].Messages[2].ToolCallID; got == "" || got != want {
		t.Errorf("CallID %q, want %q", got, want)
	}
	if CallID(context.Background()) != "" {
		t.Error("CallID of a plain ctx")
	}
}
