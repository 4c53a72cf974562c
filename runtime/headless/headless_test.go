package headless

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

func TestUserPrompt(t *testing.T) {
	for _, tc := range []struct{ line, want, err string }{
		{`{"type":"user","message":{"role":"user","content":"hi there"}}`, "hi there", ""},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"session_id":"x","parent_tool_use_id":null}`, "a\n\nb", ""},
		{`{"type":"user","message":{"content":"no role is fine"}}`, "no role is fine", ""},
		{`not json`, "", "not a JSON object"},
		{`{"type":"user","message":{"role":"user","content":"a"}} {}`, "", "more than one JSON value"},
		{`[1,2]`, "", "not a JSON object"},
		{`{"message":{"role":"user","content":"a"}}`, "", `needs "type":"user"`},
		{`{"type":"control_request","request":{}}`, "", `not "control_request"`},
		{`{"type":"user"}`, "", `needs "message"`},
		{`{"type":"user","message":null}`, "", `needs "message"`},
		{`{"type":"user","message":"hi"}`, "", `needs "message"`},
		{`{"type":"user","message":{"role":"assistant","content":"a"}}`, "", `role must be "user"`},
		{`{"type":"user","message":{"role":"user","content":42}}`, "", `"content" must be a string or a list`},
		{`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{}}]}}`, "", `block 1 is "image"`},
		{`{"type":"user","message":{"role":"user","content":[{"type":"text"}]}}`, "", `block 1 has no "text"`},
		{`{"type":"user","message":{"role":"user","content":[7]}}`, "", `block 1 is not an object`},
		{`{"type":"user","message":{"role":"user","content":"  "}}`, "", "no text"},
		{`{"type":"user","message":{"role":"user","content":[]}}`, "", "no text"},
	} {
		got, err := UserPrompt([]byte(tc.line))
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("%s: %q %v, want %q", tc.line, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || errs.KindOf(err) != errs.Invalid || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %q %v, want an invalid error with %q", tc.line, got, err, tc.err)
		}
	}
}

func TestLines(t *testing.T) {
	in := "one\n\n  \r\ntwo\r\n" + strings.Repeat("x", 100) + "\nthree"
	l := NewLines(strings.NewReader(in), 50)
	var got []string
	for {
		line, err := l.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if errs.KindOf(err) != errs.Limit || !strings.Contains(err.Error(), "line 5 is longer than 50 bytes") {
				t.Errorf("long line: %v", err)
			}
			got = append(got, "ERR")
			continue
		}
		got = append(got, string(line))
	}
	if strings.Join(got, ",") != "one,two,ERR,three" {
		t.Errorf("lines: %v", got)
	}
}

// A stream as a wrapper reads it: init first, an assistant message per
// response, a user message per top-level tool result, the result last;
// every line one JSON object.
func TestStreamShapes(t *testing.T) {
	var out bytes.Buffer
	n := 0
	s := New(Options{Out: &out, Format: StreamJSON, SessionID: "sid", NewID: func() string { n++; return "u" + string(rune('0'+n)) },
		Mask: func(s string) string { return strings.ReplaceAll(s, "sk-KEY", "<secret>") }})
	s.Init(SystemInit{Cwd: "/w", Model: "mock", Tools: []string{"srv__echo"}, MCPServers: []MCPServer{{"srv", "connected"}}})
	s.Init(SystemInit{Model: "again"}) // once
	call := &ragent.Call{ID: "c1", Name: "srv__echo", Arguments: json.RawMessage(`{"message":"hi"}`)}
	s.Event(ragent.Event{Type: ragent.EventText, Text: "ignored"})
	s.Event(ragent.Event{Type: ragent.EventResponse, Response: &ragent.Message{Role: "assistant",
		Parts: []ragent.Part{{Type: "text", Text: "calling sk-KEY"}}, ToolCalls: []ragent.ToolCall{{ID: "c1", Name: "srv__echo", Arguments: json.RawMessage(`{"message":"hi"}`)}}},
		Usage: ragent.Usage{InputTokens: 3, OutputTokens: 1}, StopReason: "tool_calls"})
	res := ragent.TextResult("pong:hi", false)
	s.Event(ragent.Event{Type: ragent.EventToolEnd, Call: call, Result: &res})
	s.Event(ragent.Event{Type: ragent.EventToolEnd, Call: &ragent.Call{ID: "c2", Parent: "c1"}, Result: &res}) // a run_lua snippet's
	s.Event(ragent.Event{Type: ragent.EventToolEnd, Call: &ragent.Call{ID: "c3"}, Err: errs.New(errs.Auth, "agent", "denied")})
	tr := &ragent.Transcript{Model: "mock", End: ragent.EndAnswer, Turns: []ragent.Turn{{Duration: 1500 * time.Millisecond}, {Duration: time.Second}},
		Usage:     ragent.Usage{InputTokens: 7, OutputTokens: 4},
		ToolCalls: []ragent.ToolCallRecord{{ID: "c1", Name: "srv__echo", Decision: ragent.Allow}, {ID: "c3", Name: "srv__write", Decision: ragent.Deny, Arguments: json.RawMessage(`{"text":"x"}`)}}}
	s.Result(ResultOf(tr, "the answer", nil, 3*time.Second, "", ""))

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var ms []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not one JSON object a line: %q", l)
		}
		ms = append(ms, m)
	}
	if strings.Contains(out.String(), "sk-KEY") || !strings.Contains(out.String(), "calling <secret>") {
		t.Errorf("the mask: %s", out.String())
	}
	types := []string{}
	for _, m := range ms {
		types = append(types, m["type"].(string))
		if m["session_id"] != "sid" || m["uuid"] == "" {
			t.Errorf("session/uuid: %v", m)
		}
	}
	if strings.Join(types, ",") != "system,assistant,user,user,result" {
		t.Fatalf("types: %v\n%s", types, out.String())
	}
	get := func(i int, path string) string {
		var v any = ms[i]
		for _, k := range strings.Split(path, ".") {
			switch x := v.(type) {
			case map[string]any:
				v = x[k]
			case []any:
				n := int(k[0] - '0')
				if n >= len(x) {
					return "<none>"
				}
				v = x[n]
			}
		}
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		e.Encode(v)
		return strings.TrimSpace(b.String())
	}
	for _, c := range []struct {
		i          int
		path, want string
	}{
		{0, "subtype", `"init"`}, {0, "model", `"mock"`}, {0, "tools", `["srv__echo"]`}, {0, "cwd", `"/w"`},
		{0, "mcp_servers", `[{"name":"srv","status":"connected"}]`}, {0, "permissionMode", `"default"`},
		{1, "message.role", `"assistant"`}, {1, "message.model", `"mock"`}, {1, "message.stop_reason", `"tool_use"`},
		{1, "message.content.0", `{"citations":null,"text":"calling <secret>","type":"text"}`},
		{1, "message.content.1", `{"id":"c1","input":{"message":"hi"},"name":"srv__echo","type":"tool_use"}`},
		{1, "message.usage.output_tokens", `1`}, {1, "parent_tool_use_id", `null`},
		{2, "message.role", `"user"`},
		{2, "message.content.0", `{"content":[{"text":"pong:hi","type":"text"}],"is_error":false,"tool_use_id":"c1","type":"tool_result"}`},
		{3, "message.content.0", `{"content":[{"text":"agent: denied","type":"text"}],"is_error":true,"tool_use_id":"c3","type":"tool_result"}`},
		{4, "subtype", `"success"`}, {4, "is_error", `false`}, {4, "result", `"the answer"`}, {4, "num_turns", `2`},
		{4, "duration_ms", `3000`}, {4, "duration_api_ms", `2500`}, {4, "total_cost_usd", `0`},
		{4, "usage.input_tokens", `7`}, {4, "usage.output_tokens", `4`}, {4, "usage.cache_read_input_tokens", `0`},
		{4, "modelUsage.mock.outputTokens", `4`},
		{4, "permission_denials", `[{"tool_input":{"text":"x"},"tool_name":"srv__write","tool_use_id":"c3"}]`},
		{4, "errors", `null`},
	} {
		if got := get(c.i, c.path); got != c.want {
			t.Errorf("line %d %s: %s, want %s", c.i+1, c.path, got, c.want)
		}
	}
}

// The result's subtype says why an ask ended; an error result says why
// in result and errors, with its kind.
func TestResultOf(t *testing.T) {
	for _, tc := range []struct {
		end     ragent.EndReason
		err     error
		subtype string
	}{
		{ragent.EndAnswer, nil, Success},
		{ragent.EndMaxTurns, errs.New(errs.Limit, "agent", "the model took 2 turns"), ErrorMaxTurns},
		{ragent.EndBudget, errs.New(errs.Limit, "agent", "the token budget is spent"), ErrorDuringExecution},
		{ragent.EndCost, errs.New(errs.Limit, "agent", "the cost bound is reached"), ErrorMaxBudgetUSD},
		{ragent.EndTimeout, errs.New(errs.Timeout, "agent", "time ran out"), ErrorDuringExecution},
		{ragent.EndError, errs.New(errs.Auth, "openai", "bad key\nsecond line"), ErrorDuringExecution},
	} {
		r := ResultOf(&ragent.Transcript{End: tc.end}, "text", tc.err, 0, "s", "u")
		if r.Subtype != tc.subtype || r.IsError != (tc.err != nil) {
			t.Errorf("%s: %s %v", tc.end, r.Subtype, r.IsError)
		}
		if tc.err != nil && (r.Result != oneLine(tc.err.Error()) || len(r.Errors) != 1 || r.ErrorKind != errs.KindOf(tc.err).String() || strings.Contains(r.Result, "\n")) {
			t.Errorf("%s: %+v", tc.end, r)
		}
	}
	r := FailureOf(errs.Invalid, "no server \"x\"", time.Second, "s", "u")
	if !r.IsError || r.Subtype != ErrorDuringExecution || r.Result != `no server "x"` || r.ErrorKind != "invalid" || r.DurationMS != 1000 {
		t.Errorf("failure: %+v", r)
	}
}

// The result's costs are the transcript's: the total and each model's,
// cache tokens too; an unpriced model is said, not hidden as $0.
func TestResultCosts(t *testing.T) {
	tr := &ragent.Transcript{Model: "a", CostUSD: 0.25, Unpriced: true, ModelUsage: map[string]ragent.ModelUsage{
		"a":  {Usage: ragent.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 60, CacheWriteTokens: 30}, Requests: 2, CostUSD: 0.25},
		"fb": {Usage: ragent.Usage{InputTokens: 5}, Requests: 1, Unpriced: true},
	}}
	r := ResultOf(tr, "ok", nil, 0, "s", "u")
	if r.TotalCostUSD != 0.25 || !r.CostUnknown || len(r.ModelUsage) != 2 {
		t.Fatalf("%+v", r)
	}
	if a := r.ModelUsage["a"]; a.CostUSD != 0.25 || a.CacheReadInputTokens != 60 || a.CacheCreationInputTokens != 30 || a.InputTokens != 10 {
		t.Errorf("a: %+v", a)
	}
	raw, _ := json.Marshal(r)
	if !strings.Contains(string(raw), `"total_cost_usd":0.25`) || !strings.Contains(string(raw), `"costUSD":0.25`) {
		t.Errorf("%s", raw)
	}
}

// json writes only the result; a closed output stops the writes.
func TestJSONFormatAndClosedOutput(t *testing.T) {
	var out bytes.Buffer
	s := New(Options{Out: &out, Format: JSON, SessionID: "sid"})
	s.Init(SystemInit{Model: "m"})
	s.Event(ragent.Event{Type: ragent.EventResponse, Response: &ragent.Message{Role: "assistant"}})
	s.Result(ResultOf(nil, "ok", nil, 0, "", ""))
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m["type"] != "result" || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("json: %v %s", err, out.String())
	}
	w := NewWriter(failing{}, nil)
	if err := w.Write(1); errs.KindOf(err) != errs.Closed || w.Err() == nil {
		t.Errorf("closed: %v", err)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func FuzzUserPrompt(f *testing.F) {
	for _, s := range []string{`{"type":"user","message":{"role":"user","content":"hi"}}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"a"}]}}`, `{"type":"user","message":null}`, `[`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		text, err := UserPrompt(line)
		if err == nil && strings.TrimSpace(text) == "" {
			t.Errorf("%q: an empty prompt without an error", line)
		}
		if err != nil && (errs.KindOf(err) != errs.Invalid || strings.Contains(err.Error(), "\n")) {
			t.Errorf("%q: %v", line, err)
		}
	})
}

func FuzzLines(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n"), 4)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 1 || max > 1<<16 {
			return
		}
		l := NewLines(bytes.NewReader(in), max)
		for i := 0; i <= len(in)+1; i++ {
			line, err := l.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err == nil && (len(line) > max || len(bytes.TrimSpace(line)) == 0) {
				t.Fatalf("line %q (max %d)", line, max)
			}
		}
		t.Fatalf("Next did not reach EOF on %q", in)
	})
}

// modelUsage's contextWindow: the agent's window for its model, a known
// model's for a fallback, 0 for a model nobody knows.
func TestResultContextWindow(t *testing.T) {
	tr := &ragent.Transcript{Model: "mock", ContextWindow: 3000, ModelUsage: map[string]ragent.ModelUsage{
		"mock": {Requests: 1}, "anthropic:claude-sonnet-4-5": {Requests: 1}, "ollama:llama3.2": {Requests: 1}}}
	r := ResultOf(tr, "ok", nil, time.Second, "", "")
	for m, want := range map[string]int{"mock": 3000, "anthropic:claude-sonnet-4-5": 200000, "ollama:llama3.2": 0} {
		if got := r.ModelUsage[m].ContextWindow; got != want {
			t.Errorf("%s: contextWindow %d, want %d", m, got, want)
		}
	}
}
