package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/trace"
)

type traceBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (t *traceBuf) Emit(e trace.Event) {
	raw, _ := json.Marshal(e)
	t.mu.Lock()
	t.b.Write(raw)
	t.mu.Unlock()
}

// A bound argument is gone from the schema the model sees, and the bound
// value wins over what the model sends; a secret value reaches the tool
// and nothing the agent reports (events, trace, transcript, text, the
// result the model sees).
func TestBindingsAndSecrets(t *testing.T) {
	const secret = "tok-\"s3cr3t\"-42"
	quoted, _ := json.Marshal(secret)
	var got json.RawMessage
	echo := LocalTool{Name: "gh__list", Schema: json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string"},"token":{"type":"string"},"q":{"type":"string"}},"required":["owner","q","token"]}`),
		Call: func(_ context.Context, args json.RawMessage) (Result, error) {
			got = args
			return TextResult("listed with "+secret, false), nil
		}}
	other := LocalTool{Name: "other", Schema: json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string"}}}`),
		Call: func(context.Context, json.RawMessage) (Result, error) { return TextResult("ok", false), nil }}
	m := script(calls(tc("gh__list", `{"owner":"model-picked","q":"bugs","token":"guess"}`)), answer("done: "+secret))
	var events []string
	tb := &traceBuf{}
	a := New(Config{Model: m, Tools: []LocalTool{echo, other}, Yes: true, Trace: tb,
		Bindings: []Binding{
			{Tool: "gh__*", Arg: "owner", Value: json.RawMessage(`"luagent"`)},
			{Tool: "gh__*", Arg: "token", Value: quoted},
		},
		Secrets: []string{secret},
		OnEvent: func(e Event) {
			raw, _ := json.Marshal(e)
			events = append(events, string(raw))
			if e.Err != nil {
				events = append(events, e.Err.Error())
			}
		}})
	text, tr, err := a.Ask(context.Background(), "list the bugs")
	if err != nil {
		t.Fatal(err)
	}
	req := m.requests()[0]
	for _, tool := range req.Tools {
		switch tool.Name {
		case "gh__list":
			var s struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			}
			json.Unmarshal(tool.Schema, &s)
			if _, ok := s.Properties["owner"]; ok || len(s.Properties) != 1 || len(s.Required) != 1 || s.Required[0] != "q" {
				t.Errorf("bound arguments still offered: %s", tool.Schema)
			}
		case "other":
			if !strings.Contains(string(tool.Schema), "owner") {
				t.Errorf("a tool the binding does not match lost its argument: %s", tool.Schema)
			}
		}
	}
	var args map[string]string
	json.Unmarshal(got, &args)
	if args["owner"] != "luagent" || args["token"] != secret || args["q"] != "bugs" {
		t.Errorf("the tool got %s", got)
	}
	seen := toolMessage(t, m.requests()[1], tr.ToolCalls[0].ID)
	if strings.Contains(partsText(seen), "s3cr3t") || !strings.Contains(partsText(seen), SecretMask) {
		t.Errorf("the model saw %q", partsText(seen))
	}
	raw, _ := json.Marshal(tr)
	for what, s := range map[string]string{"text": text, "transcript": string(raw), "events": strings.Join(events, "\n"), "trace": tb.b.String()} {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("the secret is in the %s: %s", what, s)
		}
	}
	if text != "done: "+SecretMask {
		t.Errorf("text %q", text)
	}
	if !strings.Contains(string(tr.ToolCalls[0].Arguments), `"owner":"luagent"`) {
		t.Errorf("the record does not say what the tool got: %s", tr.ToolCalls[0].Arguments)
	}
}

func TestWithoutArgs(t *testing.T) {
	b := map[string]json.RawMessage{"a": nil}
	for _, c := range []struct{ in, want string }{
		{`{"type":"object","properties":{"a":{},"b":{}},"required":["a","b"]}`, `{"properties":{"b":{}},"required":["b"],"type":"object"}`},
		{`{"type":"object","properties":{"a":{}},"required":["a"]}`, `{"properties":{},"type":"object"}`},
		{`{"type":"object"}`, `{"type":"object"}`},
		{`not json`, `not json`},
	} {
		if got := string(withoutArgs(json.RawMessage(c.in), b)); got != c.want {
			t.Errorf("withoutArgs(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
