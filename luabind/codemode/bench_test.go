package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/luabind/codemode"
	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/llm"
)

// A fresh sandbox per run: state, loop, json, task, tools, help, a
// one-line snippet, closed (the target ≤ 1 ms).
// go test ./luabind/codemode -run '^$' -bench . -benchmem
func BenchmarkRunStart(b *testing.B) {
	r := &ragent.CodeRun{Code: "return 1", Tools: chainTools(), Call: nopCall}
	for b.Loop() {
		if _, err := codemode.Run(context.Background(), r); err != nil {
			b.Fatal(err)
		}
	}
}

// One tool call inside a snippet, the tool itself a Go function that
// returns at once: the binding's overhead (arguments to JSON, a goroutine,
// the completion posted back, the result to a string, the resume; the
// issue's target ≤ 50 µs).
func BenchmarkToolCall(b *testing.B) {
	const calls = 1000
	r := &ragent.CodeRun{Code: fmt.Sprintf("for i = 1, %d do tools.chain.next{id = i} end", calls), Tools: chainTools(),
		Limits: ragent.CodeLimits{ToolCalls: calls}, Call: nopCall}
	base := &ragent.CodeRun{Code: fmt.Sprintf("for i = 1, %d do local t = {id = i} end", calls), Tools: chainTools(), Call: nopCall}
	var with, without time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := codemode.Run(context.Background(), base); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := codemode.Run(context.Background(), r); err != nil {
			b.Fatal(err)
		}
		without += t1.Sub(t0)
		with += time.Since(t1)
	}
	b.ReportMetric(float64((with-without).Nanoseconds())/float64(b.N*calls), "ns/call")
}

func nopCall(context.Context, string, json.RawMessage) (ragent.Result, error) {
	return ragent.TextResult(`{"id":2}`, false), nil
}

func chainTools() []ragent.CodeTool {
	return []ragent.CodeTool{{Name: "chain__next", Path: []string{"chain", "next"}, Lua: "tools.chain.next", Signature: "{id=integer} -> string"}}
}

// record is what the chain's tool returns: the next id and a payload the
// task does not need (as a search result carries more than is asked).
func record(id int) string {
	b, _ := json.Marshal(map[string]any{"id": id, "next": id*7%97 + 1, "title": fmt.Sprintf("record %d", id),
		"body": strings.Repeat(fmt.Sprintf("text of record %d. ", id), 40)})
	return string(b)
}

var nextTool = ragent.LocalTool{Name: "chain_next", Description: "Fetch a record by id: {id, next, title, body}",
	Schema:      json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`),
	Annotations: &ragent.Annotations{ReadOnlyHint: ptr(true)},
	Call: func(_ context.Context, args json.RawMessage) (ragent.Result, error) {
		var a struct{ ID int }
		_ = json.Unmarshal(args, &a)
		return ragent.TextResult(record(a.ID), false), nil
	}}

func ptr[T any](v T) *T { return &v }

// tokens estimates a request's prompt tokens as providers bill them: the
// whole context (system, messages, tool definitions), 4 bytes a token.
func tokens(req *llm.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			n += len(p.Text)
		}
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return n / 4
}

const hops = 10

// chainModel follows the chain: with code mode it writes one snippet;
// without, it calls chain_next once per hop, reading each result.
func chainModel(code bool, latency time.Duration) llm.Model {
	return llm.Func("chain", func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		time.Sleep(latency) // a model's round trip, simulated
		u := llm.Usage{InputTokens: tokens(req), OutputTokens: 20}
		var results []string
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				results = append(results, m.Parts[0].Text)
			}
		}
		call := func(name, args string) (*llm.Response, error) {
			return &llm.Response{Message: llm.Message{ToolCalls: []llm.ToolCall{{Name: name, Arguments: json.RawMessage(args)}}}, Usage: u}, nil
		}
		if code {
			if len(results) == 0 {
				src := fmt.Sprintf(`local id = 1
for i = 1, %d do
  local r = json.decode(tools.chain_next{id = id})
  id = r.next
end
return {last = id}`, hops)
				b, _ := json.Marshal(map[string]string{"code": src})
				return call(ragent.ToolRunLua, string(b))
			}
			return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("the chain ends at " + results[0])}}, Usage: u}, nil
		}
		if len(results) < hops {
			next := 1
			if len(results) > 0 {
				var r struct{ Next int }
				_ = json.Unmarshal([]byte(results[len(results)-1]), &r)
				next = r.Next
			}
			return call("chain_next", fmt.Sprintf(`{"id":%d}`, next))
		}
		return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("the chain ends at " + results[len(results)-1][:20])}}, Usage: u}, nil
	})
}

// A task of 10 dependent tool calls, direct tools against code mode:
// model requests and prompt tokens per task (the model's usage figures,
// estimated from the whole request), and the wall time with a model that
// answers at once (the tools' and the loop's cost alone) and with one that
// takes 50 ms a request.
func BenchmarkChainTask(b *testing.B) {
	for _, c := range []struct {
		code    bool
		latency time.Duration
	}{{false, 0}, {true, 0}, {false, 50 * time.Millisecond}, {true, 50 * time.Millisecond}} {
		code := c.code
		name := "direct"
		cm := ragent.CodeMode{}
		if code {
			name, cm = "code_mode", ragent.CodeMode{Mode: ragent.CodeOnly, Run: codemode.Run}
		}
		if c.latency > 0 {
			name += "/model_50ms"
		}
		b.Run(name, func(b *testing.B) {
			var reqs, in int
			for b.Loop() {
				a := ragent.New(ragent.Config{Model: chainModel(code, c.latency), Tools: []ragent.LocalTool{nextTool}, CodeMode: cm})
				text, tr, err := a.Ask(context.Background(), "follow the chain from record 1 for 10 hops")
				if err != nil {
					b.Fatal(err)
				}
				if code && !strings.Contains(text, `{"last":61}`) {
					b.Fatalf("code mode answered %q", text)
				}
				reqs += len(tr.Turns)
				in += tr.Usage.InputTokens
			}
			b.ReportMetric(float64(reqs)/float64(b.N), "requests/task")
			b.ReportMetric(float64(in)/float64(b.N), "prompt_tokens/task")
		})
	}
}
