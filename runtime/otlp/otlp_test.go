package otlp_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/otlp"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/trace"
)

// The events of one agent run, in the order runtime/agent and the MCP
// client emit them, become a tree of spans with the conventions' names.
func TestSpansAndParents(t *testing.T) {
	rcv := testkit.NewOTLP(t)
	s, err := otlp.New(rcv.URL, otlp.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	run, turn, model, call, mcpc, list := trace.NewSpan(), trace.NewSpan(), trace.NewSpan(), trace.NewSpan(), trace.NewSpan(), trace.NewSpan()
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, e := range []trace.Event{
		{Time: at(0), Kind: trace.RequestSent, Span: list, Server: "fs", Method: "tools/list", ID: "1"},
		{Time: at(1), Kind: trace.Response, Span: list, Server: "fs", Method: "tools/list", ID: "1"},
		{Time: at(2), Kind: trace.AgentStart, Span: run, Agent: "helper", Method: "openai:gpt-4.1"},
		{Time: at(3), Kind: trace.TurnStart, Span: turn, Parent: run, Agent: "helper", Count: 1},
		{Time: at(4), Kind: trace.ModelRequest, Span: model, Parent: turn, Method: "openai:gpt-4.1", Count: 1},
		{Time: at(9), Kind: trace.ModelResponse, Span: model, Parent: turn, Method: "openai:gpt-4.1", Input: 120, Output: 7, CostUSD: &costUSD},
		{Time: at(10), Kind: trace.AgentToolStart, Span: call, Parent: turn, ID: "call_1", Server: "fs", Tool: "fs__read"},
		{Time: at(11), Kind: trace.ToolCallStart, Span: mcpc, Parent: call, Server: "fs", Tool: "read"},
		{Time: at(11), Kind: trace.RequestSent, Span: trace.NewSpan(), Server: "fs", Method: "tools/call", ID: "2"},
		{Time: at(14), Kind: trace.ToolCallEnd, Span: mcpc, Parent: call, Server: "fs", Tool: "read", Error: "no such file"},
		{Time: at(15), Kind: trace.AgentToolCall, Span: call, Parent: turn, Tool: "fs__read", Error: "no such file"},
		{Time: at(16), Kind: trace.TurnEnd, Span: turn, Parent: run, Count: 1},
		{Time: at(17), Kind: trace.AgentEnd, Span: run, Count: 1, Message: "answer"},
		{Time: at(18), Kind: trace.ProcessStopped, Server: "fs"}, // not a span
	} {
		s.Emit(e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	one := func(name string) testkit.OTLPSpan {
		t.Helper()
		got := rcv.Named(name)
		if len(got) != 1 {
			t.Fatalf("%d spans named %q; all: %+v", len(got), name, rcv.Spans())
		}
		return got[0]
	}
	agent, tu, chat, tool, mcp, tl := one("invoke_agent helper"), one("turn 1"), one("chat gpt-4.1"), one("execute_tool fs__read"), one("tools/call read"), one("tools/list")
	if n := len(rcv.Spans()); n != 6 {
		t.Errorf("%d spans, want 6 (tools/call's JSON-RPC twin and non-span events left out)", n)
	}
	for _, c := range []struct {
		child, parent testkit.OTLPSpan
	}{{tu, agent}, {chat, tu}, {tool, tu}, {mcp, tool}} {
		if c.child.Parent != c.parent.SpanID || c.child.TraceID != agent.TraceID {
			t.Errorf("%s: parent %s trace %s, want parent %s (%s) in trace %s", c.child.Name, c.child.Parent, c.child.TraceID, c.parent.SpanID, c.parent.Name, agent.TraceID)
		}
	}
	if agent.Parent != "" || tl.Parent != "" || tl.TraceID == agent.TraceID {
		t.Errorf("roots: agent parent %q, tools/list parent %q", agent.Parent, tl.Parent)
	}
	want := map[string]map[string]string{
		agent.Name: {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper"},
		chat.Name:  {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4.1", "gen_ai.usage.input_tokens": "120", "gen_ai.usage.output_tokens": "7", "luagent.cost_usd": "0.000296"},
		tool.Name:  {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "fs__read", "gen_ai.tool.call.id": "call_1"},
		mcp.Name:   {"mcp.method.name": "tools/call", "gen_ai.tool.name": "read"},
		tl.Name:    {"mcp.method.name": "tools/list", "jsonrpc.request.id": "1"},
	}
	for _, sp := range []testkit.OTLPSpan{agent, chat, tool, mcp, tl} {
		for k, v := range want[sp.Name] {
			if sp.Attrs[k] != v {
				t.Errorf("%s: %s = %q, want %q", sp.Name, k, sp.Attrs[k], v)
			}
		}
		if sp.Service != "luagent" {
			t.Errorf("%s: service %q", sp.Name, sp.Service)
		}
	}
	if agent.Kind != 1 || chat.Kind != 3 || mcp.Kind != 3 || tool.Kind != 1 {
		t.Errorf("kinds: agent %d chat %d tools/call %d execute_tool %d (1 internal, 3 client)", agent.Kind, chat.Kind, mcp.Kind, tool.Kind)
	}
	if chat.End-chat.Start != int64(5*time.Millisecond) {
		t.Errorf("chat span lasted %d ns, want the events' 5 ms", chat.End-chat.Start)
	}
	if mcp.Error != "no such file" || tool.Error != "no such file" || agent.Error != "" {
		t.Errorf("status: mcp %q tool %q agent %q", mcp.Error, tool.Error, agent.Error)
	}
}

// Starts whose end never comes are bounded, and Close ends the open ones.
func TestOpenSpansAreBounded(t *testing.T) {
	rcv := testkit.NewOTLP(t)
	s, err := otlp.New(rcv.URL, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < otlp.MaxOpen+5; i++ {
		s.Emit(trace.Event{Time: time.Now(), Kind: trace.TurnStart, Span: trace.NewSpan(), Count: i})
	}
	if s.Skipped() != 5 {
		t.Fatalf("skipped %d, want 5", s.Skipped())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	spans := rcv.Spans()
	if len(spans) == 0 || spans[0].Attrs["luagent.unfinished"] != "true" {
		t.Fatalf("%d spans; first %+v", len(spans), spans[:min(1, len(spans))])
	}
}

func TestBadEndpoint(t *testing.T) {
	if _, err := otlp.New("::not a url", otlp.Options{}); err == nil {
		t.Fatal("no error for a bad URL")
	}
}

// A collector that is not there costs the run nothing but the spans:
// Close returns by its deadline and the failure is counted, not printed.
func TestDeadCollector(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/v1/traces"
	ln.Close()
	s, err := otlp.New(u, otlp.Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	before := otlp.Failures()
	span := trace.NewSpan()
	s.Emit(trace.Event{Time: time.Now(), Kind: trace.AgentStart, Span: span})
	s.Emit(trace.Event{Time: time.Now(), Kind: trace.AgentEnd, Span: span})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	s.Close(ctx)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %v with a 500 ms deadline", d)
	}
	if otlp.Failures() == before {
		t.Error("the failed export was not counted")
	}
}

// costUSD is the traced model call's cost: 120 in, 7 out at gpt-4.1's 2/8.
var costUSD = (120*2 + 7*8) / 1e6
