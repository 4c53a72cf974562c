package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

var exampleSchemas = map[string]string{
	"empty":  `{}`,
	"flat":   `{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer"},"x":{"type":"number"},"ok":{"type":"boolean"},"opt":{"type":"string"}},"required":["path","n","x","ok"]}`,
	"enum":   `{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]},"c":{"const":3}},"required":["mode","c"]}`,
	"nested": `{"type":"object","properties":{"user":{"type":"object","properties":{"name":{"type":"string","minLength":12},"age":{"type":"integer","minimum":18,"maximum":99}},"required":["name","age"]},"tags":{"type":"array","items":{"type":"string"}}},"required":["user","tags"]}`,
	"bounds": `{"type":"object","properties":{"a":{"type":"number","exclusiveMaximum":1},"b":{"type":"integer","exclusiveMinimum":5},"s":{"type":"string","maxLength":3},"l":{"type":"array","minItems":2,"items":{"type":"integer"}}},"required":["a","b","s","l"]}`,
	"union":  `{"type":"object","properties":{"v":{"anyOf":[{"type":"null"},{"type":"integer"}]},"w":{"type":["null","string"]},"o":{"oneOf":[{"type":"boolean"},{"type":"string"}]}},"required":["v","w","o"]}`,
	"ref":    `{"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}},"properties":{"from":{"$ref":"#/$defs/pt"},"to":{"$ref":"#/$defs/pt"}},"required":["from","to"],"additionalProperties":false}`,
	"allOf":  `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"type":"object","properties":{"b":{"type":"boolean"}},"required":["b"]}]}`,
}

// The generated arguments validate against each schema (jsonschema-go).
func TestExampleArgumentsValidate(t *testing.T) {
	for name, src := range exampleSchemas {
		t.Run(name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(src), &s); err != nil {
				t.Fatal(err)
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			args := llm.ExampleArguments(json.RawMessage(src))
			var v any
			if err := json.Unmarshal(args, &v); err != nil {
				t.Fatalf("not JSON: %s", args)
			}
			if err := rs.Validate(v); err != nil {
				t.Fatalf("%s does not validate: %v", args, err)
			}
		})
	}
}

func TestExampleArgumentsValues(t *testing.T) {
	got := string(llm.ExampleArguments(json.RawMessage(exampleSchemas["flat"])))
	if want := `{"n":1,"ok":true,"path":"example","x":1}`; got != want {
		t.Errorf("flat = %s, want %s (required only: strings example, numbers 1, booleans true)", got, want)
	}
	got = string(llm.ExampleArguments(json.RawMessage(exampleSchemas["enum"])))
	if want := `{"c":3,"mode":"fast"}`; got != want {
		t.Errorf("enum = %s, want %s", got, want)
	}
	got = string(llm.ExampleArguments(json.RawMessage(`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}},"required":["l"]}`)))
	if want := `{"l":[]}`; got != want {
		t.Errorf("array = %s, want %s", got, want)
	}
	// A string's first example, when it fits its length bounds.
	for schema, want := range map[string]string{
		`{"type":"object","properties":{"c":{"type":"string","examples":["help()"]}},"required":["c"]}`:           `{"c":"help()"}`,
		`{"type":"object","properties":{"c":{"type":"string","examples":["ab"],"minLength":3}},"required":["c"]}`: `{"c":"example"}`,
		`{"type":"object","properties":{"c":{"type":"string","examples":[7]}},"required":["c"]}`:                  `{"c":"example"}`,
	} {
		if got := string(llm.ExampleArguments(json.RawMessage(schema))); got != want {
			t.Errorf("ExampleArguments(%s) = %s, want %s", schema, got, want)
		}
	}
	for _, bad := range []string{``, `nope`, `[1]`, `{"type":"string"}`} {
		if got := string(llm.ExampleArguments(json.RawMessage(bad))); got != "{}" {
			t.Errorf("ExampleArguments(%q) = %s, want {}", bad, got)
		}
	}
}

// Turn one calls the tool that matches the prompt with example arguments;
// turn two, given the result, answers quoting it.
func TestMockTwoTurns(t *testing.T) {
	m, err := llm.New("mock", llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("what is the weather in Paris?")}}},
		Tools: []llm.Tool{
			{Name: "echo", Description: "Echo a message", Schema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
			{Name: "get_weather", Description: "Current weather of a city", Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		},
	}
	var events []llm.Event
	resp, err := m.Stream(context.Background(), req, func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolCalls || len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("turn 1: %+v", resp)
	}
	call := resp.Message.ToolCalls[0]
	if call.Name != "get_weather" || string(call.Arguments) != `{"city":"example"}` || call.ID == "" {
		t.Fatalf("turn 1 call: %+v %s", call, call.Arguments)
	}
	if len(events) != 1 || events[0].ToolCall == nil || events[0].ToolCall.Name != "get_weather" {
		t.Fatalf("turn 1 events: %+v", events)
	}
	again, _ := m.Stream(context.Background(), req, nil)
	if again.Message.ToolCalls[0].ID != call.ID {
		t.Fatal("not deterministic")
	}

	req.Messages = append(req.Messages, resp.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Parts: []llm.Part{llm.Text("sunny, 21°C")}})
	var text strings.Builder
	resp, err = m.Stream(context.Background(), req, func(e llm.Event) { text.WriteString(e.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopEnd || len(resp.Message.ToolCalls) != 0 {
		t.Fatalf("turn 2: %+v", resp)
	}
	if got := text.String(); !strings.Contains(got, `"sunny, 21°C"`) || got != resp.Message.Parts[0].Text {
		t.Fatalf("turn 2 text %q, message %+v", got, resp.Message.Parts)
	}
}

func TestMockNoToolsEchoes(t *testing.T) {
	m := llm.NewMock("")
	resp, err := m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("hello")}}}}, nil)
	if err != nil || resp.Message.Parts[0].Text != "mock: hello" || resp.StopReason != llm.StopEnd || m.Name() != "mock" {
		t.Fatalf("%+v %v", resp, err)
	}
	// The first tool when nothing matches.
	resp, _ = m.Stream(context.Background(), &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("zzz")}}},
		Tools:    []llm.Tool{{Name: "first"}, {Name: "second"}},
	}, nil)
	if resp.Message.ToolCalls[0].Name != "first" || string(resp.Message.ToolCalls[0].Arguments) != "{}" {
		t.Fatalf("%+v", resp.Message.ToolCalls)
	}
}

func TestFunc(t *testing.T) {
	m := llm.Func("lua", func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if len(req.Messages) > 1 {
			return nil, errs.New(errs.Runtime, "lua", "boom")
		}
		return &llm.Response{Message: llm.Message{
			Parts:     []llm.Part{llm.Text("calling two")},
			ToolCalls: []llm.ToolCall{{ID: "a", Name: "x"}, {ID: "b", Name: "y", Arguments: json.RawMessage(`{"k":1}`)}},
		}}, nil
	})
	var events []llm.Event
	resp, err := m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser}}}, func(e llm.Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != llm.StopToolCalls || resp.Message.Role != llm.RoleAssistant || string(resp.Message.ToolCalls[0].Arguments) != "{}" {
		t.Fatalf("%+v", resp)
	}
	var text string
	var calls []string
	for _, e := range events {
		text += e.Text
		if e.ToolCall != nil {
			calls = append(calls, e.ToolCall.ID)
		}
	}
	if text != "calling two" || strings.Join(calls, ",") != "a,b" {
		t.Fatalf("events: %q %v", text, calls)
	}
	if _, err := m.Stream(context.Background(), &llm.Request{Messages: make([]llm.Message, 2)}, nil); !errs.Is(err, errs.Runtime) {
		t.Fatalf("the function's error should come back as it is: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Stream(ctx, &llm.Request{}, nil); !errs.Is(err, errs.Cancelled) || !errors.Is(err, &errs.Error{Kind: errs.Cancelled}) {
		t.Fatalf("cancelled: %v", err)
	}
}

func FuzzExampleArguments(f *testing.F) {
	for _, s := range exampleSchemas {
		f.Add(s)
	}
	f.Add(`{"$ref":"#"}`)
	f.Add(`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}},"required":["a"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		out := llm.ExampleArguments(json.RawMessage(s))
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("ExampleArguments(%q) = %s: not a JSON object", s, out)
		}
	})
}
