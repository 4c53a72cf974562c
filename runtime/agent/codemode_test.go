package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// Signatures are generated from the tools' JSON Schemas, in the schema's
// property order, optional ones marked with ?.
func TestCodeSignature(t *testing.T) {
	for _, c := range []struct{ in, out, want string }{
		{`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`, "",
			"{query=string, limit?=integer} -> string"},
		{`{"type":"object"}`, `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"}}}}}}`,
			"{} -> {items?={{title?=string},...}}"},
		{`{"type":"object","properties":{"mode":{"enum":["a","b"]},"x-y":{"type":["string","null"]}}}`, "",
			`{mode?="a"|"b", ["x-y"]?=string|nil} -> string`},
		{"", `{"anyOf":[{"type":"number"},{"type":"string"}]}`, "{} -> number|string"},
		{`not json`, "", "{} -> string"},
	} {
		if got := signature(json.RawMessage(c.in), json.RawMessage(c.out)); got != c.want {
			t.Errorf("signature(%s, %s) = %s, want %s", c.in, c.out, got, c.want)
		}
	}
	for in, want := range map[string]string{"get-sum": "get_sum", "end": "end_", "2x": "_2x", "ok_1": "ok_1"} {
		if got := luaName(in); got != want {
			t.Errorf("luaName(%q) = %q, want %q", in, got, want)
		}
	}
}

// A runner's calls go through the policy and are recorded under the
// run_lua call; only mode offers run_lua alone, beside mode with the
// tools; the tool call limit holds even for a runner that ignores it; a
// runner's error reaches the model with its kind and the output before it.
func TestCodeModeCalls(t *testing.T) {
	ro := true
	tools := []LocalTool{
		{Name: "read", Annotations: &Annotations{ReadOnlyHint: &ro}, Call: func(context.Context, json.RawMessage) (Result, error) { return TextResult("r", false), nil }},
		{Name: "write", Call: func(context.Context, json.RawMessage) (Result, error) { return TextResult("w", false), nil }},
	}
	var got []error
	runner := func(ctx context.Context, r *CodeRun) (CodeOutput, error) {
		got = nil
		for _, name := range []string{"read", "write", "read"} {
			_, err := r.Call(ctx, name, json.RawMessage(`{}`))
			got = append(got, err)
		}
		if strings.Contains(r.Code, "fail") {
			return CodeOutput{Output: "so far\n"}, errs.New(errs.Runtime, "", "snippet:1: boom")
		}
		return CodeOutput{Output: "hi\n", Values: []json.RawMessage{json.RawMessage(`{"n":1}`)}}, nil
	}
	run := tc(ToolRunLua, `{"code":"x"}`)
	m := script(calls(run), answer("ok"))
	_, tr, err := New(Config{Model: m, Tools: tools, CodeMode: CodeMode{Mode: CodeOnly, Run: runner, Limits: CodeLimits{ToolCalls: 2}}}).Ask(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if names := toolNames(m.requests()[0]); len(names) != 1 || names[0] != ToolRunLua {
		t.Errorf("only mode offered %v", names)
	}
	if got[0] != nil || errs.KindOf(got[1]) != errs.Auth || errs.KindOf(got[2]) != errs.Limit {
		t.Errorf("call errors: %v", got)
	}
	rec := tr.ToolCalls[0]
	if rec.Kind != KindCode || len(rec.Calls) != 2 || rec.Calls[0].Parent != run.ID || rec.Calls[1].Decision != Deny {
		t.Errorf("record: %+v", rec)
	}
	if res := partsText(toolMessage(t, m.requests()[1], run.ID)); res != "[printed]\nhi\n[returned]\n{\"n\":1}" {
		t.Errorf("result %q", res)
	}

	fail := tc(ToolRunLua, `{"code":"fail"}`)
	m = script(calls(fail), answer("ok"))
	_, tr, _ = New(Config{Model: m, Tools: tools, CodeMode: CodeMode{Mode: CodeBeside, Run: runner}}).Ask(context.Background(), "go")
	if names := toolNames(m.requests()[0]); len(names) != 3 {
		t.Errorf("beside mode offered %v", names)
	}
	msg := toolMessage(t, m.requests()[1], fail.ID)
	if !msg.IsError || partsText(msg) != "run_lua: snippet:1: boom\n[printed before the error]\nso far\n" || tr.ToolCalls[0].ErrorKind != "runtime" {
		t.Errorf("error result %q %v", partsText(msg), tr.ToolCalls[0].ErrorKind)
	}
}

// The result is cut to the output limit with a note saying how much
// there was.
func TestCodeText(t *testing.T) {
	out := codeText(CodeOutput{Output: strings.Repeat("x", 50), Dropped: 50}, 20)
	if !strings.HasPrefix(out, strings.Repeat("x", 20)+"\n[truncated: 100 bytes in all, the first 20 shown") {
		t.Errorf("%q", out)
	}
	if out := codeText(CodeOutput{}, 20); !strings.Contains(out, "nothing") {
		t.Errorf("%q", out)
	}
}

// Past the search threshold, run_lua's description lists names and one
// line each, without the signatures (help() gives them in the snippet).
func TestCodeDescriptionShort(t *testing.T) {
	tools := []LocalTool{
		{Name: "a-b", Description: "First line\nsecond line", Schema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
		{Name: "c", Description: "Another"},
	}
	for _, c := range []struct {
		threshold int
		want      []string
	}{
		{-1, []string{"tools.a_b{x?=string} -> string  -- First line\n", "tools.c{} -> string  -- Another"}},
		{1, []string{"tools.a_b  -- First line\n", "tools.c  -- Another"}},
	} {
		a := New(Config{Model: script(answer("x")), Tools: tools, MetaToolThreshold: c.threshold, CodeMode: CodeMode{Mode: CodeOnly, Run: func(context.Context, *CodeRun) (CodeOutput, error) { return CodeOutput{}, nil }}})
		ts := a.toolset()
		if len(ts.tools) != 1 || ts.tools[0].Name != ToolRunLua {
			t.Fatalf("offered %+v", ts.tools)
		}
		for _, w := range c.want {
			if !strings.Contains(ts.tools[0].Description, w) {
				t.Errorf("threshold %d: no %q in\n%s", c.threshold, w, ts.tools[0].Description)
			}
		}
		if strings.Contains(ts.tools[0].Description, "second line") {
			t.Error("more than one line of a description")
		}
	}
}

// A failing snippet's error is cut as its printed output is, before the
// model, the transcript or the trace see it: error(("E"):rep(8e6)) put
// 8 MB into every later request of the conversation.
func TestCodeModeErrorIsCut(t *testing.T) {
	const max = 1000
	huge := strings.Repeat("E", 8e6)
	for _, c := range []struct {
		name    string
		out     CodeOutput
		msg     string
		total   int // what the note says there was
		printed bool
	}{
		{"an error of 8 MB", CodeOutput{}, huge, 8e6, false},
		{"cut by the runner already", CodeOutput{ErrorDropped: 8e6 - max}, huge[:max], 8e6, false},
		{"with printed output", CodeOutput{Output: strings.Repeat("p", 5000)}, huge, 8e6, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			runner := func(ctx context.Context, r *CodeRun) (CodeOutput, error) {
				if r.Code == "fail" {
					return c.out, errs.New(errs.Runtime, "", c.msg)
				}
				return CodeOutput{Output: "ok\n"}, nil
			}
			fail, again := tc(ToolRunLua, `{"code":"fail"}`), tc(ToolRunLua, `{"code":"again"}`)
			fail.ID, again.ID = "c1", "c2"
			m := script(calls(fail), calls(again), answer("done"))
			tr, ev := &traceBuf{}, []Event(nil)
			_, rec, err := New(Config{Model: m, Trace: tr, OnEvent: func(e Event) { ev = append(ev, e) },
				CodeMode: CodeMode{Mode: CodeOnly, Run: runner, Limits: CodeLimits{Output: max}}}).Ask(context.Background(), "go")
			if err != nil {
				t.Fatal(err)
			}
			msg := toolMessage(t, m.requests()[1], fail.ID)
			text := partsText(msg)
			if !msg.IsError || !strings.Contains(text, fmt.Sprintf("[truncated: %d bytes in all", c.total)) || len(text) > 2*max {
				t.Errorf("the model got %d bytes: %.300q", len(text), text)
			}
			if c.printed && !strings.Contains(text, "[printed before the error]\npppp") {
				t.Errorf("printed output lost: %.300q", text)
			}
			for i, req := range m.requests() {
				if n := requestSize(req); n > 8*max {
					t.Errorf("request %d is %d bytes", i+1, n)
				}
			}
			if n := len(rec.ToolCalls[0].Error); n > 2*max || rec.ToolCalls[0].ErrorKind != "runtime" {
				t.Errorf("transcript: %d bytes, kind %s", n, rec.ToolCalls[0].ErrorKind)
			}
			if n := tr.b.Len(); n > 20*max {
				t.Errorf("the trace has %d bytes", n)
			}
			for _, e := range ev {
				if e.Err != nil && len(e.Err.Error()) > 2*max {
					t.Errorf("event %s: %d bytes", e.Type, len(e.Err.Error()))
				}
			}
		})
	}
}

func requestSize(req *llm.Request) int {
	b, _ := json.Marshal(req.Messages)
	return len(b)
}
