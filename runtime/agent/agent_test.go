package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// A tool call and its result reach the model: the next request carries
// the result under the call's id; the system prompt has the server's
// instructions, labelled; the tools are the hub's qualified ones plus the
// resource meta-tools, which work.
func TestToolResultReachesModel(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	echo := tc("tools__echo", `{"message":"hello from the tool"}`)
	list := tc(ToolListResources, `{}`)
	read := tc(ToolReadResource, `{"server":"tools","uri":"tools://readme"}`)
	m := script(calls(echo), calls(list, read), answer("done"))
	rec := &trace.Recorder{}
	a := New(Config{Model: m, Hub: h, System: "Be brief.", Trace: rec})
	text, tr, err := a.Ask(context.Background(), "say hello")
	if err != nil || text != "done" || tr.End != EndAnswer {
		t.Fatalf("%q %v %s", text, err, tr.End)
	}
	reqs := m.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	sys := reqs[0].System
	if !strings.HasPrefix(sys, "Be brief.") || !strings.Contains(sys, `MCP server "tools"`) || !strings.Contains(sys, "Use echo to repeat things.") {
		t.Errorf("system: %q", sys)
	}
	names := toolNames(reqs[0])
	for _, want := range []string{"tools__echo", "tools__write", ToolListResources, ToolReadResource} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %v", want, names)
		}
	}
	if slices.Contains(names, ToolSearch) {
		t.Errorf("search offered with %d tools", len(names))
	}
	got := toolMessage(t, reqs[1], echo.ID)
	if got.IsError || partsText(got) != "hello from the tool" {
		t.Errorf("echo result: %+v", got)
	}
	if got := partsText(toolMessage(t, reqs[2], list.ID)); !strings.Contains(got, `"uri":"tools://readme"`) || !strings.Contains(got, `"server":"tools"`) {
		t.Errorf("list resources: %s", got)
	}
	if got := partsText(toolMessage(t, reqs[2], read.ID)); got != "the readme text" {
		t.Errorf("read resource: %s", got)
	}
	kinds := map[trace.Kind]int{}
	for _, e := range rec.Events() {
		kinds[e.Kind]++
		if e.Kind == trace.AgentEnd && e.Message != "answer" {
			t.Errorf("end event: %+v", e)
		}
	}
	if kinds[trace.ModelRequest] != 3 || kinds[trace.ModelResponse] != 3 || kinds[trace.Approval] != 3 || kinds[trace.AgentToolCall] != 3 || kinds[trace.AgentEnd] != 1 {
		t.Errorf("trace kinds: %v", kinds)
	}
}

// The default policy: a read-only tool runs without asking; a mutating
// one is denied when nobody can be asked (the model sees why), allowed
// with Yes, and put to Ask when there is someone to ask.
func TestApproval(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	run := func(cfg Config) (*scripted, llm.ToolCall, llm.ToolCall, *Transcript) {
		echo, write := tc("tools__echo", `{"message":"x"}`), tc("tools__write", `{"text":"note"}`)
		m := script(calls(echo, write), answer("ok"))
		cfg.Model, cfg.Hub = m, h
		_, tr, err := New(cfg).Ask(context.Background(), "go")
		if err != nil {
			t.Fatal(err)
		}
		return m, echo, write, tr
	}
	var asked []string
	m, echo, write, tr := run(Config{})
	if r := toolMessage(t, m.requests()[1], echo.ID); r.IsError || partsText(r) != "x" {
		t.Errorf("read-only echo: %+v", r)
	}
	r := toolMessage(t, m.requests()[1], write.ID)
	if !r.IsError || !strings.Contains(partsText(r), NoApproverReason) {
		t.Errorf("write without an approver: %+v", r)
	}
	if d := tr.ToolCalls[1]; d.Decision != Deny || d.Reason != NoApproverReason || d.ErrorKind != errs.Auth.String() || d.Result != nil {
		t.Errorf("record: %+v", d)
	}
	if d := tr.ToolCalls[0]; d.Decision != Allow || d.Result == nil {
		t.Errorf("record: %+v", d)
	}

	m, _, write, _ = run(Config{Yes: true})
	if r := toolMessage(t, m.requests()[1], write.ID); r.IsError || partsText(r) != "wrote note" {
		t.Errorf("write with Yes: %+v", r)
	}

	m, _, write, _ = run(Config{Ask: func(_ context.Context, c Call) (Decision, string) {
		asked = append(asked, c.Qualified)
		return Deny, "the user said no"
	}})
	if r := toolMessage(t, m.requests()[1], write.ID); !r.IsError || !strings.Contains(partsText(r), "the user said no") {
		t.Errorf("write, asked: %+v", r)
	}
	if !slices.Equal(asked, []string{"tools__write"}) {
		t.Errorf("asked about %v", asked)
	}

	// A policy of its own sees the call's server, tool and annotations.
	var seen []Call
	var mu sync.Mutex
	m, _, write, _ = run(Config{Approve: func(_ context.Context, c Call) (Decision, string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, c)
		return Allow, "trusted"
	}})
	if r := toolMessage(t, m.requests()[1], write.ID); r.IsError {
		t.Errorf("write, allowed by policy: %+v", r)
	}
	slices.SortFunc(seen, func(a, b Call) int { return strings.Compare(a.Tool, b.Tool) })
	if len(seen) != 2 || seen[0].Server != "tools" || seen[0].Tool != "echo" || !seen[0].ReadOnly || seen[1].ReadOnly || seen[1].Kind != KindMCP {
		t.Errorf("policy saw %+v", seen)
	}
}

// BeforeTool rewrites arguments (the server gets the new ones: echo
// returns them) or denies a call with its reason; AfterTool changes what
// the model sees.
func TestHooks(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	echo, write := tc("tools__echo", `{"message":"original"}`), tc("tools__write", `{"text":"t"}`)
	m := script(calls(echo, write), answer("ok"))
	var models, after int
	a := New(Config{Model: m, Hub: h, Yes: true,
		BeforeTool: func(_ context.Context, c *Call) error {
			if c.Tool == "write" {
				return errs.New(errs.Invalid, "hook", "writes are off today")
			}
			c.Arguments = json.RawMessage(`{"message":"rewritten"}`)
			return nil
		},
		AfterTool: func(_ context.Context, c Call, r *Result) {
			after++
			r.Content = append(r.Content, textBlock("checked by after_tool"))
		},
		BeforeModel: func(_ context.Context, r *llm.Request) { models++; r.System += " (hooked)" },
	})
	if _, _, err := a.Ask(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	if got := partsText(toolMessage(t, reqs[1], echo.ID)); got != "rewritten\nchecked by after_tool" {
		t.Errorf("echo saw %q", got)
	}
	if r := toolMessage(t, reqs[1], write.ID); !r.IsError || !strings.Contains(partsText(r), "writes are off today") {
		t.Errorf("denied by the hook: %+v", r)
	}
	if after != 1 || models != 2 || !strings.HasSuffix(reqs[0].System, "(hooked)") {
		t.Errorf("after_tool %d, before_model %d, system %q", after, models, reqs[0].System)
	}
}

// Several calls in one turn run at once: meet returns only when the
// other party's call is running too (a signal between the two calls on
// the server), so both succeeding proves the overlap; the results come
// back in the model's order, and progress reaches the events.
func TestParallelCalls(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	b, a := tc("tools__meet", `{"who":"b"}`), tc("tools__meet", `{"who":"a"}`)
	m := script(calls(b, a), answer("ok"))
	var progress []string
	ag := New(Config{Model: m, Hub: h, OnEvent: func(e Event) {
		if e.Type == EventToolProgress {
			progress = append(progress, e.Message)
		}
	}})
	if _, _, err := ag.Ask(context.Background(), "meet"); err != nil {
		t.Fatal(err)
	}
	req := m.requests()[1]
	var results []llm.Message
	for _, msg := range req.Messages {
		if msg.Role == llm.RoleTool {
			results = append(results, msg)
		}
	}
	if len(results) != 2 || results[0].ToolCallID != b.ID || results[1].ToolCallID != a.ID {
		t.Fatalf("results out of order: %+v", results)
	}
	if partsText(results[0]) != "b met a" || partsText(results[1]) != "a met b" {
		t.Errorf("results: %q, %q", partsText(results[0]), partsText(results[1]))
	}
	slices.Sort(progress)
	if !slices.Equal(progress, []string{"a is waiting", "b is waiting"}) {
		t.Errorf("progress events: %q", progress)
	}
}

// The meta-tool mode with 100 tools: the model first sees only
// mcp_search_tools (and the resource tools), searches, gets real
// qualified names and schemas with the partial flag, and calls a found
// tool, offered from the next turn on.
func TestMetaToolMode(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "many"), luaServer(t, "tools"))
	search := tc(ToolSearch, `{"query":"weather forecast","limit":3}`)
	call := tc("many__weather_forecast", `{"city":"Oslo"}`)
	m := script(calls(search), calls(call), answer("sunny"))
	a := New(Config{Model: m, Hub: h})
	if _, _, err := a.Ask(context.Background(), "weather in Oslo?"); err != nil {
		t.Fatal(err)
	}
	reqs := m.requests()
	if got := toolNames(reqs[0]); !slices.Equal(got, []string{ToolSearch, ToolListResources, ToolReadResource}) {
		t.Fatalf("first turn offers %v", got)
	}
	var found struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		Partial *bool `json:"partial"`
	}
	if err := json.Unmarshal([]byte(partsText(toolMessage(t, reqs[1], search.ID))), &found); err != nil {
		t.Fatal(err)
	}
	if len(found.Tools) == 0 || found.Tools[0].Name != "many__weather_forecast" || !strings.Contains(string(found.Tools[0].InputSchema), "city") || found.Partial == nil || *found.Partial {
		t.Fatalf("search found %+v", found)
	}
	if got := toolNames(reqs[1]); !slices.Contains(got, "many__weather_forecast") || len(got) > 3+3 {
		t.Errorf("second turn offers %v", got)
	}
	if got := partsText(toolMessage(t, reqs[2], call.ID)); got != "sunny in Oslo" {
		t.Errorf("found tool answered %q", got)
	}
	// An unfound tool name is an error that points at the search.
	bad := tc("many__nope", `{}`)
	m2 := script(calls(bad), answer("ok"))
	New(Config{Model: m2, Hub: h}).Ask(context.Background(), "x")
	if r := toolMessage(t, m2.requests()[1], bad.ID); !r.IsError || !strings.Contains(partsText(r), ToolSearch) {
		t.Errorf("unknown tool: %+v", r)
	}
	// The Servers subset narrows the tools: tools alone is under the
	// threshold.
	m3 := script(answer("ok"))
	New(Config{Model: m3, Hub: h, Servers: []string{"tools"}}).Ask(context.Background(), "x")
	if got := toolNames(m3.requests()[0]); slices.Contains(got, ToolSearch) || !slices.Contains(got, "tools__echo") || slices.Contains(got, "many__widget_1") {
		t.Errorf("subset offers %v", got)
	}
}

// Tool content reaches the model: text joined, images as image parts,
// audio described, resource links kept with their URI.
func TestContentMapping(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	media := tc("tools__media", `{}`)
	m := script(calls(media), answer("ok"))
	if _, _, err := New(Config{Model: m, Hub: h}).Ask(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	got := toolMessage(t, m.requests()[1], media.ID).Parts
	if len(got) != 3 || got[0].Text != "a picture:" || got[1].Type != "image" || got[1].MIME != "image/png" || string(got[1].Data) != "\x89PNG\r\n\x1a\n" {
		t.Fatalf("parts: %+v", got)
	}
	if got[2].Text != "[audio: audio/wav, 4 bytes]\n[resource link: file:///tmp/notes.txt, notes.txt, text/plain]" {
		t.Errorf("described: %q", got[2].Text)
	}
	// structuredContent when there is no text.
	if p := parts(Result{StructuredContent: json.RawMessage(`{"n":1}`)}); len(p) != 1 || p[0].Text != `{"n":1}` {
		t.Errorf("structured: %+v", p)
	}
}
