package main

import (
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// luagent --otlp: one ask over a real (fake) server and the OpenAI wire
// stand-in gives the span tree the receiver checks: the run, its turns,
// a chat span per model request, the tool call and the MCP tools/call
// under it, all in one trace; and a dead collector changes nothing but
// a line on stderr.
func TestOTLPAsk(t *testing.T) {
	home, _ := askHome(t)
	var log wireLog
	ep := openAIEndpoint(t, &log)
	rcv := testkit.NewOTLP(t)
	r := luagent(t, "", openAIEnv(home, ep.URL, "sk-good-SECRET"), "--otlp", rcv.URL, "ask", "--model", "openai:gpt-test", "please", "echo", "hi")
	if r.code != 0 || r.stdout != "the server said pong:hi\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	byName := map[string][]testkit.OTLPSpan{}
	byID := map[string]testkit.OTLPSpan{}
	for _, s := range rcv.Spans() {
		byName[s.Name] = append(byName[s.Name], s)
		byID[s.SpanID] = s
	}
	names := func() []string {
		var out []string
		for n, v := range byName {
			out = append(out, n+"×"+string(rune('0'+len(v))))
		}
		return out
	}
	one := func(name string) testkit.OTLPSpan {
		t.Helper()
		if len(byName[name]) == 0 {
			t.Fatalf("no span %q; got %v", name, names())
		}
		return byName[name][0]
	}
	agent := one("invoke_agent ask")
	if len(byName["chat gpt-test"]) != 2 || len(byName["turn 1"]) != 1 || len(byName["turn 2"]) != 1 {
		t.Fatalf("want two turns with a chat span each; got %v", names())
	}
	tool := one("execute_tool srv__echo")
	call := one("tools/call echo")
	chain := []testkit.OTLPSpan{call, tool, byID[tool.Parent], agent}
	if call.Parent != tool.SpanID || byID[tool.Parent].Name != "turn 1" || byID[tool.Parent].Parent != agent.SpanID {
		t.Errorf("parent chain broken: %+v", chain)
	}
	for _, c := range byName["chat gpt-test"] {
		if p := byID[c.Parent]; !strings.HasPrefix(p.Name, "turn ") || c.TraceID != agent.TraceID || c.Attrs["gen_ai.provider.name"] != "openai" {
			t.Errorf("chat span %+v under %q", c, p.Name)
		}
	}
	for _, s := range rcv.Spans() {
		for k, v := range s.Attrs {
			if strings.Contains(v, "SECRET") || strings.Contains(v, "pong:hi") {
				t.Errorf("span %s attribute %s = %q: arguments, results or secrets exported", s.Name, k, v)
			}
		}
	}
	if strings.Contains(r.stderr, "otlp") {
		t.Errorf("stderr mentions the exporter on a good run:\n%s", r.stderr)
	}

	dead := "http://127.0.0.1:1/v1/traces"
	r = luagent(t, "", openAIEnv(home, ep.URL, "sk-good-SECRET"), "--otlp", dead, "ask", "--model", "openai:gpt-test", "please", "echo", "hi")
	if r.code != 0 || r.stdout != "the server said pong:hi\n" || !strings.Contains(r.stderr, "span exports failed") {
		t.Fatalf("a dead collector: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r := luagent(t, "", nil, "--otlp", "nope", "-e", "print(1)"); r.code != 2 || !strings.Contains(r.stderr, "--otlp needs") {
		t.Errorf("--otlp nope: %+v", r)
	}
}
