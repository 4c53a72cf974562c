package agent

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/cost"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func prices(byName map[string]cost.Price) *cost.Table {
	t := &cost.Table{}
	for n, p := range byName {
		t.Set(n, p)
	}
	return t
}

// usageStep answers with text and the given usage, as model (a fallback's
// name; "" is the model asked).
func usageStep(model string, u llm.Usage) step {
	return func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text("ok")}}, StopReason: llm.StopEnd, Usage: u, Model: model}, nil
	}
}

type events struct {
	mu sync.Mutex
	ev []trace.Event
}

func (s *events) Emit(e trace.Event) { s.mu.Lock(); s.ev = append(s.ev, e); s.mu.Unlock() }

// Each response is priced by its model's price, the cache parts apart;
// the totals are in the transcript, per model and on the agent.
func TestCostPerRequest(t *testing.T) {
	m := script(calls(tc("ping", `{}`)), answer("done"))
	sink := &events{}
	a := New(Config{Model: m, Tools: []LocalTool{ping}, Trace: sink, Prices: prices(map[string]cost.Price{"scripted": {Input: 1, Output: 10}})})
	_, tr, err := a.Ask(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	want := (20*1 + 7*10) / 1e6 // calls: 10+5, answer: 10+2
	if !near(tr.CostUSD, want) || tr.Unpriced {
		t.Fatalf("transcript cost %v (unpriced %v), want %v", tr.CostUSD, tr.Unpriced, want)
	}
	mu := tr.ModelUsage["scripted"]
	if mu.Requests != 2 || mu.InputTokens != 20 || mu.OutputTokens != 7 || !near(mu.CostUSD, want) {
		t.Fatalf("model usage %+v", mu)
	}
	if tr.Turns[0].CostUSD == nil || !near(*tr.Turns[0].CostUSD, (10+50)/1e6) {
		t.Fatalf("turn 1 cost %v", tr.Turns[0].CostUSD)
	}
	if c := a.Costs(); !near(c.TotalUSD, want) || c.Models["scripted"].Requests != 2 {
		t.Fatalf("agent costs %+v", c)
	}
	a.Ask(context.Background(), "again")
	if c := a.Costs(); !near(c.TotalUSD, want+(10*1+2*10)/1e6) { // the answer step again
		t.Fatalf("the running total does not add up over asks: %v", c.TotalUSD)
	}
	// The model call's trace event carries the cost (OTLP's luagent.cost_usd).
	n := 0
	for _, e := range sink.ev {
		if e.Kind == trace.ModelResponse {
			n++
			if e.CostUSD == nil || *e.CostUSD <= 0 {
				t.Errorf("model response event without its cost: %+v", e)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d model responses traced", n)
	}
	raw, _ := json.Marshal(tr)
	for _, k := range []string{`"cost_usd":`, `"model_usage":{"scripted":`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("transcript JSON lacks %s: %s", k, raw)
		}
	}
}

func TestCostCacheAndFallback(t *testing.T) {
	u := llm.Usage{InputTokens: 1000, CacheReadTokens: 600, CacheWriteTokens: 300, OutputTokens: 10}
	m := script(usageStep("fb", u))
	a := New(Config{Model: m, Prices: prices(map[string]cost.Price{"fb": {Input: 3, CachedInput: 0.3, CacheWrite: 3.75, Output: 15}})})
	_, tr, err := a.Ask(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	want := (100*3 + 600*0.3 + 300*3.75 + 10*15) / 1e6
	if !near(tr.CostUSD, want) || tr.ModelUsage["fb"].CacheReadTokens != 600 || tr.Turns[0].Model != "fb" {
		t.Fatalf("cost %v want %v; %+v", tr.CostUSD, want, tr.ModelUsage)
	}
	if _, ok := tr.ModelUsage["scripted"]; ok {
		t.Fatal("the fallback's request was counted under the model asked")
	}
}

// A model with no known price is unknown, never $0.
func TestCostUnknown(t *testing.T) {
	a := New(Config{Model: script(answer("hi"))})
	_, tr, err := a.Ask(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Unpriced || !tr.ModelUsage["scripted"].Unpriced || tr.Turns[0].CostUSD != nil || !a.Costs().Unpriced {
		t.Fatalf("%+v", tr)
	}
}

// MaxCost ends the loop after the response that reaches it, before the
// next request; the pending calls are answered unrun, the transcript
// keeps what was done, and a next Ask is refused at once.
func TestMaxCost(t *testing.T) {
	ran := 0
	counting := ping
	counting.Call = func(context.Context, json.RawMessage) (Result, error) { ran++; return TextResult("pong", false), nil }
	m := script(calls(tc("ping", `{}`)), calls(tc("ping", `{}`)), calls(tc("ping", `{}`)), answer("never"))
	// 5 output tokens at 80000 USD/M: 0.40 a turn.
	a := New(Config{Model: m, Tools: []LocalTool{counting}, MaxCost: 1, Prices: prices(map[string]cost.Price{"scripted": {Output: 80000}})})
	_, tr, err := a.Ask(context.Background(), "spend")
	if errs.KindOf(err) != errs.Limit || tr.End != EndCost || tr.ErrorKind != "limit" {
		t.Fatalf("%v, %s", err, tr.End)
	}
	if len(tr.Turns) != 3 || len(m.requests()) != 3 || ran != 2 || !near(tr.CostUSD, 1.2) {
		t.Fatalf("turns %d, requests %d, ran %d, cost %v", len(tr.Turns), len(m.requests()), ran, tr.CostUSD)
	}
	if !strings.Contains(err.Error(), "max_cost $1") || !strings.Contains(err.Error(), "--max-cost") {
		t.Errorf("message: %v", err)
	}
	last := a.Messages()[len(a.Messages())-1]
	if last.Role != llm.RoleTool || !last.IsError {
		t.Errorf("last message: %+v", last)
	}
	_, tr2, err := a.Ask(context.Background(), "more")
	if errs.KindOf(err) != errs.Limit || tr2.End != EndCost || len(m.requests()) != 3 {
		t.Fatalf("next ask: %v %s, %d requests", err, tr2.End, len(m.requests()))
	}
	// Raised, it goes on.
	a.SetLimits(0, 10)
	if text, _, err := a.Ask(context.Background(), "go on"); err != nil || text != "never" {
		t.Fatalf("after raising: %q %v", text, err)
	}
}

// An answer that reaches the bound is still the answer.
func TestMaxCostAnswer(t *testing.T) {
	a := New(Config{Model: script(answer("hi")), MaxCost: 0.000001, Prices: prices(map[string]cost.Price{"scripted": {Output: 1e6}})})
	if text, tr, err := a.Ask(context.Background(), "go"); err != nil || text != "hi" || tr.End != EndAnswer {
		t.Fatalf("%q %v", text, err)
	}
}

// A bound on a model with no known price cannot hold: Ask says so at once.
func TestMaxCostUnpriced(t *testing.T) {
	m := script(answer("hi"))
	_, tr, err := New(Config{Model: m, MaxCost: 1}).Ask(context.Background(), "go")
	if errs.KindOf(err) != errs.Invalid || len(m.requests()) != 0 || !strings.Contains(err.Error(), "price") {
		t.Fatalf("%v, %d requests, %+v", err, len(m.requests()), tr)
	}
}

func TestSetLimitsMaxTurns(t *testing.T) {
	m := script(calls(tc("ping", `{}`)))
	a := New(Config{Model: m, Tools: []LocalTool{ping}})
	a.SetLimits(2, 0)
	_, tr, err := a.Ask(context.Background(), "loop")
	if errs.KindOf(err) != errs.Limit || tr.End != EndMaxTurns || len(m.requests()) != 2 || !strings.Contains(err.Error(), "--max-turns") {
		t.Fatalf("%v %s %d", err, tr.End, len(m.requests()))
	}
}

// A Stop hook that says go on makes no request past the bound either.
func TestMaxCostStopHook(t *testing.T) {
	m := script(answer("first"), answer("second"))
	a := New(Config{Model: m, MaxCost: 0.5, Prices: prices(map[string]cost.Price{"scripted": {Output: 1e6}})})
	a.On(handler(hooks.Stop, func(hooks.Input) hooks.Result { return hooks.Result{Block: true, Reason: "more"} }))
	text, tr, err := a.Ask(context.Background(), "go")
	if errs.KindOf(err) != errs.Limit || tr.End != EndCost || len(m.requests()) != 1 || text != "first" {
		t.Fatalf("%q %v %s, %d requests", text, err, tr.End, len(m.requests()))
	}
}

// A subagent asked by a tool call spends the parent's money: its
// requests count in the parent's transcript and total, and the parent's
// max_cost stops it.
func TestSubagentCostRollsUp(t *testing.T) {
	child := New(Config{Model: script(calls(tc("ping", `{}`)), answer("child done")), Tools: []LocalTool{ping},
		Prices: prices(map[string]cost.Price{"scripted": {Output: 1e5}})}) // 5 tokens: 0.5
	var childErr error
	sub := LocalTool{Name: "sub", Call: func(ctx context.Context, _ json.RawMessage) (Result, error) {
		text, _, err := child.Ask(ctx, "help")
		childErr = err
		return TextResult(text, err != nil), nil
	}}
	parentModel := script(calls(tc("sub", `{}`)), answer("parent done"))
	parent := New(Config{Model: parentModel, Tools: []LocalTool{sub}, Yes: true, Prices: prices(map[string]cost.Price{"scripted": {Output: 1e4}})})
	_, tr, err := parent.Ask(context.Background(), "go")
	if err != nil || childErr != nil {
		t.Fatal(err, childErr)
	}
	// parent: 5 + 2 output tokens at 0.01/token; child: 5 + 2 at 0.1/token.
	want := 7*0.01 + 7*0.1
	if !near(tr.CostUSD, want) || !near(parent.Costs().TotalUSD, want) || tr.ModelUsage["scripted"].Requests != 4 {
		t.Fatalf("parent cost %v (total %v), want %v; %+v", tr.CostUSD, parent.Costs().TotalUSD, want, tr.ModelUsage)
	}
	if !near(child.Costs().TotalUSD, 0.7) {
		t.Fatalf("child's own %v", child.Costs().TotalUSD)
	}

	// The parent's bound stops the child after the response that reaches it.
	child2 := New(Config{Model: script(calls(tc("ping", `{}`))), Tools: []LocalTool{ping},
		Prices: prices(map[string]cost.Price{"scripted": {Output: 1e5}})})
	sub.Call = func(ctx context.Context, _ json.RawMessage) (Result, error) {
		_, _, err := child2.Ask(ctx, "loop")
		childErr = err
		return TextResult("stopped", true), nil
	}
	parent2 := New(Config{Model: script(calls(tc("sub", `{}`)), answer("x")), Tools: []LocalTool{sub}, Yes: true, MaxCost: 1,
		Prices: prices(map[string]cost.Price{"scripted": {Output: 1e4}})})
	_, tr2, err := parent2.Ask(context.Background(), "go")
	if errs.KindOf(childErr) != errs.Limit || errs.KindOf(err) != errs.Limit || tr2.End != EndCost || len(child2.cfg.Model.(*scripted).requests()) != 2 {
		t.Fatalf("child %v, parent %v %s, child requests %d", childErr, err, tr2.End, len(child2.cfg.Model.(*scripted).requests()))
	}
}

// A server's sampling request answered by the agent's model costs the
// agent too.
func TestSampleCost(t *testing.T) {
	a := New(Config{Model: script(answer("Paris")), Yes: true, Approve: func(context.Context, Call) (Decision, string) { return Allow, "test" },
		Prices: prices(map[string]cost.Price{"scripted": {Input: 1e5, Output: 1e5}})})
	_, err := a.Sample(context.Background(), "srv", json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"capital?"}}],"maxTokens":10}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := a.Costs(); !near(c.TotalUSD, 1.2) || c.Models["scripted"].Requests != 1 { // 10 + 2 tokens at 0.1
		t.Fatalf("%+v", c)
	}
}

// A compaction's summary request is a model request like any other: it
// counts in the agent's costs (and so in /cost and max_cost).
func TestCompactionSummaryIsPriced(t *testing.T) {
	a := New(Config{Model: script(answer("a"), answer("b"), answer("c"), answer("we talked")), KeepTurns: 1,
		Prices: prices(map[string]cost.Price{"scripted": {Input: 1e5, Output: 1e5}})})
	ctx := context.Background()
	for _, p := range []string{"one", "two", "three"} {
		if _, _, err := a.Ask(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	before := a.Costs()
	res, err := a.Compact(ctx, "")
	if err != nil || res.Summarized == 0 {
		t.Fatalf("compact: %+v %v", res, err)
	}
	after := a.Costs()
	if got, want := after.Models["scripted"].Requests, before.Models["scripted"].Requests+1; got != want {
		t.Fatalf("requests %d, want %d (the summary's)", got, want)
	}
	if d := after.TotalUSD - before.TotalUSD; d < 1.19 || d > 1.21 { // 10 in + 2 out at $0.1 a token
		t.Fatalf("the summary cost %v, want 1.2", d)
	}
}
