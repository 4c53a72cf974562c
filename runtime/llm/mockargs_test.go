package llm_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/luagent/luagent/runtime/llm"
)

func TestPromptPairs(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		want   map[string]string
	}{
		{"call echo with message=hi", map[string]string{"message": "hi"}},
		{`echo message="hello world" n=3`, map[string]string{"message": "hello world", "n": "3"}},
		{`k='a "b" c'`, map[string]string{"k": `a "b" c`}},
		{`say msg="a \"quoted\" word"`, map[string]string{"msg": `a "quoted" word`}},
		{"what's the weather in Paris?", map[string]string{}},
		{"a=1 a=2", map[string]string{"a": "2"}},
		{"x = 1 =y ==z", map[string]string{}},
		{"path=/tmp/a=b, done", map[string]string{"path": "/tmp/a=b,"}},
		{`unclosed="a b`, map[string]string{"unclosed": "a b"}},
		{"empty= next", map[string]string{"empty": ""}},
		{"dash-key=v under_score=w", map[string]string{"dash-key": "v", "under_score": "w"}},
	} {
		got := llm.PromptPairs(tc.prompt)
		if got == nil {
			got = map[string]string{}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PromptPairs(%q) = %v, want %v", tc.prompt, got, tc.want)
		}
	}
}

var pairSchema = json.RawMessage(`{"type":"object","properties":{
	"message":{"type":"string"},"n":{"type":"integer"},"x":{"type":"number"},"ok":{"type":"boolean"},
	"tags":{"type":"array","items":{"type":"string"}},"opt":{"type":["null","integer"]},"other":{"type":"string"}},
	"required":["message","other"]}`)

func TestMockArguments(t *testing.T) {
	for _, tc := range []struct{ prompt, want string }{
		{"call echo with message=hi", `{"message":"hi","other":"example"}`},
		{`message="a b" n=3 x=2.5 ok=false`, `{"message":"a b","n":3,"ok":false,"other":"example","x":2.5}`},
		{`tags='["a","b"]' opt=7`, `{"message":"example","opt":7,"other":"example","tags":["a","b"]}`},
		// Not of the property's type: sent as typed, the schema check says so.
		{"n=many", `{"message":"example","n":"many","other":"example"}`},
		// A key the schema does not name is sent too (no additionalProperties: false).
		{"extra=1", `{"extra":"1","message":"example","other":"example"}`},
	} {
		got := string(llm.MockArguments(pairSchema, tc.prompt))
		if got != tc.want {
			t.Errorf("MockArguments(%q) = %s, want %s", tc.prompt, got, tc.want)
		}
	}
	closed := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`)
	if got := string(llm.MockArguments(closed, "a=x b=y")); got != `{"a":"x"}` {
		t.Errorf("closed schema: %s", got)
	}
}

// The mock model calls the tool with the prompt's k=v pairs.
func TestMockUsesPromptPairs(t *testing.T) {
	m, err := llm.New("mock", llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text(`call echo with message="hi there"`)}}},
		Tools: []llm.Tool{
			{Name: "add", Description: "Adds numbers", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`)},
			{Name: "echo", Description: "Echo a message", Schema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
		},
	}
	resp, err := m.Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Message.ToolCalls; len(c) != 1 || c[0].Name != "echo" || string(c[0].Arguments) != `{"message":"hi there"}` {
		t.Fatalf("calls %+v", c)
	}
}

func FuzzPromptPairs(f *testing.F) {
	for _, s := range []string{"call echo with message=hi", `k="a b" n=3`, `k='x`, `a="\"`, "==", "é=ü x=\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pairs := llm.PromptPairs(s)
		for k, v := range pairs {
			if k == "" || !utf8.ValidString(k) && utf8.ValidString(s) || !utf8.ValidString(v) && utf8.ValidString(s) {
				t.Fatalf("PromptPairs(%q): pair %q=%q", s, k, v)
			}
		}
		out := llm.MockArguments(pairSchema, s)
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("MockArguments(%q) = %s: not a JSON object", s, out)
		}
	})
}
