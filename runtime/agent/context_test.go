package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/compact"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// windowModel stands in for a provider with a context window: it counts a
// request's tokens (bytes/4 of the system prompt, the tools and the
// messages) and reports them as its usage, answers "prompt is too long"
// (errs.ContextLength) above window, summarises when asked to, calls the
// tool fetch once per user prompt, then answers.
type windowModel struct {
	window int
	// calls is how many fetches one prompt makes in a row (0: one).
	calls int

	fetches int // fetches asked for since the last prompt

	mu       sync.Mutex
	requests int
	summary  int // summarising requests
	inputs   []int
	maxInput int
}

func (w *windowModel) Name() string { return "window" }

func (w *windowModel) Stream(_ context.Context, req *llm.Request, on func(llm.Event)) (*llm.Response, error) {
	n := compact.EstimateText(req.System) + compact.Estimate(req.Messages)
	for _, t := range req.Tools {
		n += compact.EstimateText(t.Name) + compact.EstimateText(t.Description) + compact.EstimateText(string(t.Schema))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests++
	if n > w.window {
		return nil, errs.Errorf(errs.ContextLength, "window", "prompt is too long: %d tokens > %d maximum", n, w.window)
	}
	w.inputs = append(w.inputs, n)
	w.maxInput = max(w.maxInput, n)
	last := req.Messages[len(req.Messages)-1]
	usage := llm.Usage{InputTokens: n, OutputTokens: 5}
	var msg llm.Message
	switch {
	case last.Role == llm.RoleUser && strings.Contains(textOf(last), compact.SummaryPrompt):
		w.summary++
		msg.Parts = []llm.Part{llm.Text(fmt.Sprintf("summary %d of %d messages", w.summary, len(req.Messages)-1))}
	case last.Role == llm.RoleTool && w.fetches < w.calls:
		w.fetches++
		msg.ToolCalls = []llm.ToolCall{{ID: fmt.Sprintf("w%d", w.requests), Name: "fetch", Arguments: json.RawMessage(`{}`)}}
	case last.Role == llm.RoleUser && len(req.Tools) > 0:
		w.fetches = 1
		msg.ToolCalls = []llm.ToolCall{{ID: fmt.Sprintf("w%d", w.requests), Name: "fetch", Arguments: json.RawMessage(`{}`)}}
	default:
		msg.Parts = []llm.Part{llm.Text("done: " + textOf(last)[:min(20, len(textOf(last)))])}
	}
	if on != nil && textOf(msg) != "" {
		on(llm.Event{Text: textOf(msg)})
	}
	stop := llm.StopEnd
	if len(msg.ToolCalls) > 0 {
		stop = llm.StopToolCalls
	}
	return &llm.Response{Message: msg, StopReason: stop, Usage: usage}, nil
}

// fetchTool returns size bytes of text.
func fetchTool(size int) LocalTool {
	t := true
	return LocalTool{Name: "fetch", Description: "fetch a page", Annotations: &Annotations{ReadOnlyHint: &t},
		Call: func(context.Context, json.RawMessage) (Result, error) {
			return TextResult(strings.Repeat("lorem ipsum ", size/12), false), nil
		}}
}

// A long session crosses the window again and again, and goes on
// answering: each time the last request reached 80% of the window the
// conversation is compacted first (the PreCompact hooks run, trigger
// "auto"), so no request is ever over the window.
func TestLongSessionStaysInTheWindow(t *testing.T) {
	const window = 3000
	m := &windowModel{window: window}
	a := New(Config{Model: m, ContextWindow: window, Tools: []LocalTool{fetchTool(1500)}})
	var mu sync.Mutex
	var triggers []string
	a.On(handler(hooks.PreCompact, func(in hooks.Input) hooks.Result {
		mu.Lock()
		triggers = append(triggers, in.Trigger)
		mu.Unlock()
		return hooks.Result{}
	}))
	var compactEvents int
	a.cfg.OnEvent = func(e Event) {
		if e.Type == EventCompact && e.Err == nil {
			compactEvents++
		}
	}
	ctx := context.Background()
	asked := 0
	for i := 1; i <= 30; i++ {
		text, tr, err := a.Ask(ctx, fmt.Sprintf("question %d: fetch the page", i))
		if err != nil || !strings.HasPrefix(text, "done") || tr.End != EndAnswer {
			t.Fatalf("ask %d: %q %v", i, text, err)
		}
		asked += tr.Usage.InputTokens
	}
	n := a.Compactions()
	if n < 3 || compactEvents != n || len(triggers) != n {
		t.Fatalf("%d compactions, %d events, PreCompact fired %d times", n, compactEvents, len(triggers))
	}
	for _, tr := range triggers {
		if tr != "auto" {
			t.Errorf("trigger %q", tr)
		}
	}
	if m.maxInput > window || m.summary != n {
		t.Errorf("largest request %d tokens (window %d); %d summaries", m.maxInput, window, m.summary)
	}
	// The summaries' tokens count in the asks' usage: every request's.
	sum := 0
	for _, in := range m.inputs {
		sum += in
	}
	if asked != sum {
		t.Errorf("the transcripts' input tokens %d, the model's %d", asked, sum)
	}
	// With the window unknown, the model's refusals ("prompt is too long")
	// compact it instead, each at the cost of a refused request; with
	// compaction off, the session ends at the first.
	wm := &windowModel{window: window}
	b := New(Config{Model: wm, ContextWindow: -1, Tools: []LocalTool{fetchTool(1500)}})
	for i := 1; i <= 30; i++ {
		if _, _, err := b.Ask(ctx, fmt.Sprintf("question %d: fetch the page", i)); err != nil {
			t.Fatalf("unknown window, ask %d: %v", i, err)
		}
	}
	if b.Compactions() < 3 || wm.requests <= m.requests {
		t.Errorf("unknown window: %d compactions, %d requests (%d with the window known)", b.Compactions(), wm.requests, m.requests)
	}
	c := New(Config{Model: &windowModel{window: window}, NoCompaction: true, Tools: []LocalTool{fetchTool(1500)}})
	var err error
	for i := 1; i <= 30 && err == nil; i++ {
		_, _, err = c.Ask(ctx, fmt.Sprintf("question %d: fetch the page", i))
	}
	if errs.KindOf(err) != errs.ContextLength || c.Compactions() != 0 {
		t.Errorf("without compaction: %v", err)
	}
	t.Logf("30 asks, window %d: %d compactions, %d model requests, largest request %d tokens", window, n, m.requests, m.maxInput)
}

// One long turn — a prompt, then call after call — crosses the window
// too: it is compacted between its steps, never between a call and its
// result.
func TestOneLongTurnStaysInTheWindow(t *testing.T) {
	const window = 3000
	m := &windowModel{window: window, calls: 30}
	a := New(Config{Model: m, ContextWindow: window, MaxTurns: 100, Tools: []LocalTool{fetchTool(1500)}})
	text, tr, err := a.Ask(context.Background(), "fetch thirty pages")
	if err != nil || !strings.HasPrefix(text, "done") {
		t.Fatalf("%q %v", text, err)
	}
	if a.Compactions() < 3 || m.maxInput > window || len(tr.ToolCalls) != 30 {
		t.Errorf("%d compactions, largest request %d, %d calls", a.Compactions(), m.maxInput, len(tr.ToolCalls))
	}
	// The transcript has every message the Ask added, the compacted ones
	// too (not the summaries).
	if n := len(tr.Messages); n != 1+30*2+1 {
		t.Errorf("the transcript has %d messages", n)
	}
}

// A model refusing a request as too long gets the conversation compacted
// and the request once more; refused again, the error is the model's.
func TestContextLengthCompactsAndRetriesOnce(t *testing.T) {
	m := &windowModel{window: 100000}
	a := New(Config{Model: m, ContextWindow: -1, Tools: []LocalTool{fetchTool(1500)}})
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		if _, _, err := a.Ask(ctx, "fetch it"); err != nil {
			t.Fatal(err)
		}
	}
	before := len(a.Messages())
	m.window = compact.Estimate(a.Messages()) // the next request is over
	text, _, err := a.Ask(ctx, "fetch it")
	if err != nil || !strings.HasPrefix(text, "done") || a.Compactions() != 1 || len(a.Messages()) >= before {
		t.Fatalf("%q %v: %d compactions, %d messages (were %d)", text, err, a.Compactions(), len(a.Messages()), before)
	}
	m.window = 10 // nothing fits
	_, tr, err := a.Ask(ctx, "fetch it")
	if errs.KindOf(err) != errs.ContextLength || tr.ErrorKind != "context_length" {
		t.Fatalf("%v (%s)", err, tr.ErrorKind)
	}
}

// /compact: the PreCompact hooks get trigger "manual" and the focus; the
// summariser (a Lua function's, here Go's) gets the focus; pinned notes
// survive; the recorder is told; a hook's block keeps the conversation.
func TestCompactOnDemand(t *testing.T) {
	var gotFocus string
	var gotMsgs int
	sum := func(_ context.Context, msgs []llm.Message, focus string) (string, error) {
		gotFocus, gotMsgs = focus, len(msgs)
		return "we talked", nil
	}
	tre := &trace.Recorder{}
	a := New(Config{Model: script(answer("a")), Summarize: sum, Trace: tre})
	rec := &compactRec{}
	a.SetRecorder(rec)
	var in hooks.Input
	block := false
	a.On(handler(hooks.PreCompact, func(x hooks.Input) hooks.Result {
		in = x
		return hooks.Result{Block: block, Reason: "not now"}
	}))
	ctx := context.Background()
	if res, err := a.Compact(ctx, ""); err != nil || res.Summarized != 0 {
		t.Fatalf("an empty conversation: %+v %v", res, err)
	}
	for _, p := range []string{"one", "two", "three"} {
		a.Ask(ctx, p)
	}
	a.Pin("the answer is 42")
	block = true
	if _, err := a.Compact(ctx, "x"); err == nil || !strings.Contains(err.Error(), "not now") || len(a.Messages()) != 6 {
		t.Fatalf("blocked: %v, %d messages", err, len(a.Messages()))
	}
	block = false
	res, err := a.Compact(ctx, "the numbers")
	if err != nil || res.Summarized != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	if in.Trigger != "manual" || in.CustomInstructions == nil || *in.CustomInstructions != "the numbers" || gotFocus != "the numbers" || gotMsgs != 2 {
		t.Errorf("hook input %+v, summariser focus %q with %d messages", in, gotFocus, gotMsgs)
	}
	msgs := a.Messages()
	first := textOf(msgs[0])
	if len(msgs) != 5 || !compact.IsSummary(msgs[0]) || !strings.Contains(first, "we talked") || !strings.Contains(first, "the answer is 42") {
		t.Errorf("%d messages, first %q", len(msgs), first)
	}
	if rec.compacted != 1 || rec.kept != 4 || !strings.Contains(rec.summary, "we talked") || rec.messages != 6 {
		t.Errorf("recorder: %+v", rec)
	}
	var traced []trace.Event
	for _, e := range tre.Events() {
		if e.Kind == trace.Compact {
			traced = append(traced, e)
		}
	}
	if len(traced) != 1 || traced[0].Method != "manual" || traced[0].Count != 2 || traced[0].Input == 0 || traced[0].Output == 0 {
		t.Errorf("traced %+v", traced)
	}
	// The next Ask goes on from the summary, and the recorder gets only
	// what is new.
	a.Ask(ctx, "four")
	if rec.messages != 8 {
		t.Errorf("recorder got %d messages", rec.messages)
	}
}

type compactRec struct {
	messages, compacted, kept int
	summary                   string
}

func (r *compactRec) Message(Message, *ToolCallRecord) { r.messages++ }
func (r *compactRec) End(*Transcript)                  {}
func (r *compactRec) Compacted(m Message, kept int) {
	r.compacted++
	r.kept = kept
	r.summary = m.Parts[0].Text
}

// A result over the bound reaches the model cut, with a note; the model
// pages the rest with read_tool_result, offered once something was cut.
func TestToolResultCutAndPaged(t *testing.T) {
	big := strings.Repeat("0123456789", 10000) // 100 kB
	ro := true
	tool := LocalTool{Name: "dump", Annotations: &Annotations{ReadOnlyHint: &ro}, Call: func(context.Context, json.RawMessage) (Result, error) { return TextResult(big, false), nil }}
	var pages []string
	m := script(
		calls(llm.ToolCall{ID: "d1", Name: "dump", Arguments: json.RawMessage(`{}`)}),
		func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			pages = append(pages, textOf(req.Messages[len(req.Messages)-1]))
			if !contains(toolNames(req), compact.ReadToolResult) {
				return nil, fmt.Errorf("read_tool_result is not offered: %v", toolNames(req))
			}
			return calls(llm.ToolCall{ID: "r1", Name: compact.ReadToolResult, Arguments: json.RawMessage(`{"id":"d1","offset":40960}`)})(nil, req)
		},
		func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			pages = append(pages, textOf(req.Messages[len(req.Messages)-1]))
			return answer("read")(nil, req)
		})
	a := New(Config{Model: m, Tools: []LocalTool{tool}})
	text, tr, err := a.Ask(context.Background(), "dump it")
	if err != nil || text != "read" {
		t.Fatalf("%q %v", text, err)
	}
	if !contains(toolNames(m.requests()[0]), "dump") || contains(toolNames(m.requests()[0]), compact.ReadToolResult) {
		t.Errorf("first request's tools %v", toolNames(m.requests()[0]))
	}
	if len(pages[0]) > compact.DefaultResultLimit+200 || !strings.HasPrefix(pages[0], big[:compact.DefaultResultLimit]) || !strings.Contains(pages[0], "offset 40960") {
		t.Errorf("first page: %d bytes, ends %q", len(pages[0]), pages[0][len(pages[0])-150:])
	}
	if !strings.HasPrefix(pages[1], big[40960:40960+compact.DefaultResultLimit]) || !strings.Contains(pages[1], "offset 81920") {
		t.Errorf("second page: %d bytes", len(pages[1]))
	}
	// The transcript keeps the tool's whole answer.
	if r := tr.ToolCalls[0].Result; r == nil || len(partsText(llm.Message{Parts: parts(*r)})) != len(big) {
		t.Error("the transcript lost the whole result")
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// /context: where the tokens go.
func TestContextReport(t *testing.T) {
	a := New(Config{Model: llm.NewMock("anthropic:claude-sonnet-4-5"), System: "be brief\n\nMEMORY TEXT", Tools: []LocalTool{fetchTool(400)}})
	if a.ContextWindow() != 200000 {
		t.Errorf("window %d", a.ContextWindow())
	}
	a.Ask(context.Background(), "fetch it")
	r := a.Context("MEMORY TEXT")
	got := map[string]int{}
	for _, p := range r.Parts {
		got[p.Name] = p.Tokens
	}
	if got["memory (AGENTS.md)"] != 3 || got["system prompt"] == 0 || got["tools: luagent's own"] == 0 || got["tool results"] < 90 || got["messages"] == 0 {
		t.Errorf("parts %v", got)
	}
	s := r.String()
	for _, want := range []string{"window 200000 tokens", "tool results", "bytes/4", "last request"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}

// session20 runs a 20-turn session (each turn a prompt, a fetch of 1.5 kB
// and an answer) and returns the prompt tokens summed over its model
// requests (summaries too), the requests and the largest one.
func session20(tb testing.TB, window int, compaction bool) (tokens, requests, largest int) {
	m := &windowModel{window: 1 << 30}
	a := New(Config{Model: m, ContextWindow: window, NoCompaction: !compaction, Tools: []LocalTool{fetchTool(1500)}})
	for i := 1; i <= 20; i++ {
		if _, _, err := a.Ask(context.Background(), fmt.Sprintf("question %d: fetch the page", i)); err != nil {
			tb.Fatal(err)
		}
	}
	for _, n := range m.inputs {
		tokens += n
	}
	return tokens, m.requests, m.maxInput
}

// BenchmarkSession20Compaction: the prompt tokens and model requests of a
// 20-turn session without compaction and with a 3000-token window (the
// figures BENCHMARKS.md quotes; ns/op is the loop's own cost).
func BenchmarkSession20Compaction(b *testing.B) {
	for _, bc := range []struct {
		name    string
		compact bool
	}{{"none", false}, {"window3000", true}} {
		b.Run(bc.name, func(b *testing.B) {
			var tokens, requests, largest int
			for b.Loop() {
				tokens, requests, largest = session20(b, 3000, bc.compact)
			}
			b.ReportMetric(float64(tokens), "prompt-tokens/session")
			b.ReportMetric(float64(requests), "requests/session")
			b.ReportMetric(float64(largest), "largest-request-tokens")
		})
	}
}

func TestSession20Figures(t *testing.T) {
	nt, nr, nl := session20(t, 3000, false)
	ct, cr, cl := session20(t, 3000, true)
	t.Logf("20-turn session: without compaction %d prompt tokens, %d requests, largest %d; with a 3000-token window %d prompt tokens, %d requests, largest %d",
		nt, nr, nl, ct, cr, cl)
	if cl > 3000 || nl <= 3000 || ct >= nt {
		t.Errorf("compaction did not bound the session: %d/%d largest, %d/%d tokens", cl, nl, ct, nt)
	}
}

// /context names each server's tool schemas on a line of their own.
func TestContextReportByServer(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	a := New(Config{Model: llm.NewMock(""), Hub: h, Tools: []LocalTool{fetchTool(10)}})
	got := map[string]int{}
	for _, p := range a.Context("").Parts {
		got[p.Name] = p.Tokens
	}
	if got["tools: server tools"] == 0 || got["tools: luagent's own"] == 0 {
		t.Errorf("parts %v", got)
	}
}
