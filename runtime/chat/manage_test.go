package chat

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

func TestSchemaArgs(t *testing.T) {
	got := SchemaArgs(json.RawMessage(`{"type": "object", "properties": {
		"path": {"type": "string", "description": "the file"},
		"mode": {"type": "string", "enum": ["r", "w"]},
		"n": {"type": ["integer", "null"]},
		"x": {}}, "required": ["path"]}`))
	want := []string{"path: string (required) — the file", `mode: string ["r","w"]`, "n: [integer null]", "x: any"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SchemaArgs = %q, want %q", got, want)
	}
	if SchemaArgs(json.RawMessage(`[`)) != nil {
		t.Error("a broken schema has arguments")
	}
}

func TestManagerWithoutAHub(t *testing.T) {
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: llm.NewMock("")}), UI: &fakeUI{}})
	if _, err := s.Inspect(context.Background(), "srv"); errs.KindOf(err) != errs.NotFound {
		t.Errorf("Inspect: %v", err)
	}
	if err := s.Restart("srv"); errs.KindOf(err) != errs.NotFound {
		t.Errorf("Restart: %v", err)
	}
	if err := s.SetEnabled(context.Background(), t.TempDir()+"/config.json", "srv", false); errs.KindOf(err) != errs.NotFound {
		t.Errorf("SetEnabled: %v", err)
	}
}
