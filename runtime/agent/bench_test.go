package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
)

// rounds is a model that answers at once: rounds turns that each call one
// tool, then an answer. It copies nothing, so what a benchmark measures is
// the loop's own work.
type rounds struct {
	n, turn int
	call    llm.Response
	done    llm.Response
}

func newRounds(n int, tool, args string) *rounds {
	return &rounds{n: n,
		call: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c", Name: tool, Arguments: json.RawMessage(args)}}}, StopReason: llm.StopToolCalls, Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}},
		done: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text("done")}}, StopReason: llm.StopEnd}}
}

func (r *rounds) Name() string { return "rounds" }

func (r *rounds) Stream(context.Context, *llm.Request, func(llm.Event)) (*llm.Response, error) {
	r.turn++
	if r.turn > r.n {
		r.turn = 0
		return &r.done, nil
	}
	return &r.call, nil
}

const benchRounds = 10

func benchLoop(b *testing.B, cfg Config) {
	ctx := context.Background()
	a := New(cfg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Reset()
		if _, _, err := a.Ask(ctx, "go"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRounds)/1e3, "us/round-trip")
}

// BenchmarkLoopLocalTool: the loop's overhead per tool round trip (model
// turn asking for a tool, policy, hooks-free call, result mapped back),
// with a model and a tool that answer at once. Target: ≤ 200 µs.
func BenchmarkLoopLocalTool(b *testing.B) {
	benchLoop(b, Config{Model: newRounds(benchRounds, "ping", `{}`), Tools: []LocalTool{ping}, MaxTurns: benchRounds + 1})
}

// BenchmarkLoopHubTool: the same through a hub to a Lua stdio server's
// echo (the tool's time included); BenchmarkHubCall is that call alone,
// so the difference is the loop's overhead with a hub.
func BenchmarkLoopHubTool(b *testing.B) {
	h := startHub(b, hub.Options{}, luaServer(b, "tools"))
	benchLoop(b, Config{Model: newRounds(benchRounds, "tools__echo", `{"message":"hi"}`), Hub: h, MaxTurns: benchRounds + 1})
}

func BenchmarkHubCall(b *testing.B) {
	h := startHub(b, hub.Options{}, luaServer(b, "tools"))
	ctx := context.Background()
	args := json.RawMessage(`{"message":"hi"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := h.Call(ctx, "tools__echo", args, hub.CallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
