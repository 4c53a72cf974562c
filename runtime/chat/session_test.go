package chat

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
)

// goAgent is a runtime agent with a per-turn sink, as luabind's Handle is.
type goAgent struct {
	a    *ragent.Agent
	mu   sync.Mutex
	sink func(ragent.Event)
}

func newGoAgent(cfg ragent.Config) *goAgent {
	g := &goAgent{}
	cfg.OnEvent = func(e ragent.Event) {
		g.mu.Lock()
		s := g.sink
		g.mu.Unlock()
		if s != nil {
			s(e)
		}
	}
	g.a = ragent.New(cfg)
	return g
}

func (g *goAgent) Agent() *ragent.Agent { return g.a }
func (g *goAgent) Ask(ctx context.Context, p string, on func(ragent.Event)) (string, *ragent.Transcript, error) {
	g.mu.Lock()
	g.sink = on
	g.mu.Unlock()
	return g.a.Ask(ctx, p)
}

// fakeUI answers approvals from a queue and records what it was shown.
type fakeUI struct {
	mu      sync.Mutex
	answers []Approval
	asked   []string
	events  []ragent.Event
}

func (u *fakeUI) Event(e ragent.Event) {
	u.mu.Lock()
	u.events = append(u.events, e)
	u.mu.Unlock()
}

func (u *fakeUI) Approve(ctx context.Context, c ragent.Call) Approval {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, c.Name)
	if len(u.answers) == 0 {
		return Approval{Choice: Deny, Reason: "no answer queued"}
	}
	a := u.answers[0]
	u.answers = u.answers[1:]
	return a
}

// writer is a model that calls the tool "write" once per user turn, then
// answers with the tool's result (or error) it saw.
func writer() llm.Model {
	return llm.Func("writer", func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleTool {
			return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("saw: " + last.Parts[0].Text)}}}, nil
		}
		return &llm.Response{Message: llm.Message{ToolCalls: []llm.ToolCall{{Name: "write", Arguments: json.RawMessage(`{"text":"hi"}`)}}}}, nil
	})
}

func writeTool(n *int) ragent.LocalTool {
	return ragent.LocalTool{Name: "write", Call: func(context.Context, json.RawMessage) (ragent.Result, error) {
		*n++
		return ragent.TextResult("wrote hi", false), nil
	}}
}

func TestApprovalDeniedThenAllowedForTheSession(t *testing.T) {
	runs := 0
	ui := &fakeUI{answers: []Approval{{Choice: Deny, Reason: "not that file"}, {Choice: AllowSession}}}
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: writer(), Tools: []ragent.LocalTool{writeTool(&runs)}}), UI: ui})
	ctx := context.Background()

	text, err := s.Turn(ctx, "write")
	if err != nil || runs != 0 || !strings.Contains(text, "denied by the user: not that file") {
		t.Fatalf("denied turn: %q, %v, runs %d; the model should see the reason", text, err, runs)
	}
	if text, err = s.Turn(ctx, "write"); err != nil || runs != 1 || text != "saw: wrote hi" {
		t.Fatalf("allowed turn: %q, %v, runs %d", text, err, runs)
	}
	// Allowed for the session: the third call is not asked about.
	if text, err = s.Turn(ctx, "write"); err != nil || runs != 2 || len(ui.asked) != 2 {
		t.Fatalf("third turn: %q, %v, runs %d, asked %v", text, err, runs, ui.asked)
	}
	var reasons []string
	for _, e := range ui.events {
		if e.Type == ragent.EventApproval {
			reasons = append(reasons, string(e.Decision)+": "+e.Reason)
		}
	}
	want := []string{"deny: denied by the user: not that file", "allow: allowed by the user for this session", "allow: allowed for this session"}
	if strings.Join(reasons, "|") != strings.Join(want, "|") {
		t.Errorf("approval events %q, want %q", reasons, want)
	}
}

func TestCancelEndsTheTurnAndTheSessionGoesOn(t *testing.T) {
	started := make(chan struct{}, 1)
	model := llm.Func("slow", func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if strings.Contains(textOfLast(req), "wait") {
			started <- struct{}{}
			<-ctx.Done()
			return nil, context.Cause(ctx)
		}
		return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("hello")}}}, nil
	})
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: model}), UI: &fakeUI{}})
	if s.Cancel() {
		t.Fatal("Cancel with no turn running reported a cancel")
	}
	errc := make(chan error, 1)
	go func() { _, err := s.Turn(context.Background(), "wait"); errc <- err }()
	<-started
	if !s.Busy() || !s.Cancel() {
		t.Fatal("a running turn should be busy and cancellable")
	}
	select {
	case err := <-errc:
		if errs.KindOf(err) != errs.Cancelled {
			t.Fatalf("cancelled turn: %v (kind %s), want cancelled", err, errs.KindOf(err))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Cancel did not end the turn")
	}
	if text, err := s.Turn(context.Background(), "hi"); err != nil || text != "hello" {
		t.Fatalf("the next turn: %q, %v", text, err)
	}
}

func textOfLast(req *llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == llm.RoleUser && len(m.Parts) > 0 {
			return m.Parts[0].Text
		}
	}
	return ""
}

func TestSaveAndResume(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: llm.NewMock("")}), UI: &fakeUI{}})
	if !s.Empty() {
		t.Fatal("a new session should be empty")
	}
	for _, p := range []string{"one", "two"} {
		if _, err := s.Turn(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	file := NewFile(SessionsDir(dir), time.Now())
	if err := s.Save(file); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	conv, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if conv.Model != "mock" || len(conv.Turns) != 2 || len(conv.Messages) != 4 {
		t.Fatalf("loaded: model %q, %d turns, %d messages", conv.Model, len(conv.Turns), len(conv.Messages))
	}

	// A new session resumes it: the model sees the old messages, and the
	// next save keeps the old turns.
	var seen int
	model := llm.Func("count", func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		seen = len(req.Messages)
		return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("ok")}}}, nil
	})
	r := New(Options{Agent: newGoAgent(ragent.Config{Model: model}), UI: &fakeUI{}, File: file})
	r.Resume(conv)
	if _, err := r.Turn(context.Background(), "three"); err != nil {
		t.Fatal(err)
	}
	if seen != 5 {
		t.Errorf("the resumed model saw %d messages, want 5", seen)
	}
	if err := r.Save(r.File()); err != nil {
		t.Fatal(err)
	}
	again, _ := Load(file)
	if len(again.Turns) != 3 || len(again.Messages) != 6 || !again.Start.Equal(conv.Start) {
		t.Errorf("saved again: %d turns, %d messages, start %v (was %v)", len(again.Turns), len(again.Messages), again.Start, conv.Start)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("not json"), 0o600)
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(`{"version": 99}`), 0o600)
	for _, tc := range []struct {
		path string
		kind errs.Kind
	}{{filepath.Join(dir, "none.json"), errs.NotFound}, {bad, errs.Invalid}, {old, errs.Invalid}} {
		if _, err := Load(tc.path); errs.KindOf(err) != tc.kind {
			t.Errorf("Load(%s): %v, want kind %s", filepath.Base(tc.path), err, tc.kind)
		}
	}
}

func TestSwitchAgentKeepsTheConversation(t *testing.T) {
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: llm.NewMock("")}), UI: &fakeUI{}})
	s.Turn(context.Background(), "one")
	var seen int
	b := newGoAgent(ragent.Config{Model: llm.Func("b", func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		seen = len(req.Messages)
		return &llm.Response{}, nil
	})})
	s.SetAgent(b)
	s.Turn(context.Background(), "two")
	if seen != 3 {
		t.Errorf("the new model saw %d messages, want 3", seen)
	}
	s.Clear()
	if !s.Empty() {
		t.Error("Clear left messages")
	}
}

func TestStatusLine(t *testing.T) {
	st := func(ss ...hub.Status) []hub.State {
		var out []hub.State
		for i, s := range ss {
			out = append(out, hub.State{Name: string(rune('a' + i)), Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		states []hub.State
		want   string
	}{
		{nil, ""},
		{st(hub.Disabled), ""},
		{st(hub.Connecting), "0/1 server ready, 1 connecting"},
		{st(hub.Ready, hub.Ready, hub.Ready, hub.Connecting, hub.NeedsAuth), "3/5 servers ready, 1 connecting, 1 needs auth"},
		{st(hub.Ready, hub.Failed, hub.Disabled), "1/2 servers ready, 1 failed"},
	} {
		if got := StatusLine(tc.states); got != tc.want {
			t.Errorf("StatusLine = %q, want %q", got, tc.want)
		}
	}
}

func TestMCPListShowsNoEnvValues(t *testing.T) {
	cfg, err := catalog.Parse([]byte(`{"version":1,"mcpServers":{
		"fs": {"command": "fs-server", "env": {"TOKEN": "s3cret-value"}},
		"web": {"url": "https://example.com/mcp"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	states := []hub.State{{Name: "fs", Status: hub.Ready, Tools: 3},
		{Name: "web", Status: hub.Failed, Err: errs.New(errs.Process, "hub", "connection refused")}}
	out := MCPList(states, cfg.Servers)
	for _, want := range []string{"1/2 servers ready, 1 failed", "fs    ready   stdio      3", "web   failed  http       -      hub: connection refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("MCPList lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") || strings.Contains(out, "TOKEN") {
		t.Errorf("MCPList shows env:\n%s", out)
	}
}

func TestPromptMessages(t *testing.T) {
	msgs, err := PromptMessages(json.RawMessage(`{"messages":[
		{"role":"user","content":{"type":"text","text":"hello"}},
		{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"resource","resource":{"uri":"f://a","text":"file a"}}]},
		{"role":"user","content":{"type":"image","data":"aGk=","mimeType":"image/png"}}]}`))
	if err != nil || len(msgs) != 3 {
		t.Fatalf("%v, %v", msgs, err)
	}
	if msgs[0].Role != "user" || msgs[0].Parts[0].Text != "hello" || msgs[1].Role != "assistant" ||
		msgs[1].Parts[1].Text != "file a" || msgs[2].Parts[0].Type != "image" || string(msgs[2].Parts[0].Data) != "hi" {
		t.Errorf("messages: %+v", msgs)
	}
	if _, err := PromptMessages(json.RawMessage(`[1]`)); errs.KindOf(err) != errs.Protocol {
		t.Errorf("a non-prompt result: %v, want kind protocol", err)
	}
}

func TestSubmitSendsThePromptsMessages(t *testing.T) {
	var got []llm.Message
	model := llm.Func("m", func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		got = req.Messages
		return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("ok")}}}, nil
	})
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: model}), UI: &fakeUI{}})
	msgs := []llm.Message{{Role: "user", Parts: []llm.Part{llm.Text("context")}}, {Role: "assistant", Parts: []llm.Part{llm.Text("noted")}},
		{Role: "user", Parts: []llm.Part{llm.Text("now answer")}}}
	if _, err := s.Submit(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Parts[0].Text != "context" || got[1].Role != "assistant" || got[2].Parts[0].Text != "now answer" {
		t.Errorf("the model saw %+v", got)
	}
	if _, err := s.Submit(context.Background(), nil); errs.KindOf(err) != errs.Invalid {
		t.Errorf("nothing to submit: %v", err)
	}
	if _, err := s.FetchPrompt(context.Background(), "srv", "p", nil); errs.KindOf(err) != errs.NotFound {
		t.Errorf("FetchPrompt without a hub: %v, want not_found", err)
	}
}

func TestEditSampling(t *testing.T) {
	params := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"first"}},
		{"role":"assistant","content":{"type":"text","text":"ok"}},{"role":"user","content":[{"type":"text","text":"a haiku"}]}],
		"maxTokens":50,"systemPrompt":"poet"}`)
	if got := LastUserText(params); got != "a haiku" {
		t.Errorf("LastUserText = %q", got)
	}
	edited, err := EditSampling(params, "a limerick")
	if err != nil {
		t.Fatal(err)
	}
	if LastUserText(edited) != "a limerick" || !strings.Contains(string(edited), `"maxTokens":50`) || !strings.Contains(string(edited), `"first"`) {
		t.Errorf("edited: %s", edited)
	}
	if _, err := EditSampling(json.RawMessage(`{"messages":[{"role":"assistant","content":{"type":"text","text":"x"}}]}`), "y"); errs.KindOf(err) != errs.Invalid {
		t.Errorf("no user message: %v", err)
	}
}

func TestSamplingEditedRunsAsEdited(t *testing.T) {
	var seen string
	model := llm.Func("m", func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		seen = req.Messages[len(req.Messages)-1].Parts[0].Text
		return &llm.Response{Message: llm.Message{Parts: []llm.Part{llm.Text("ok")}}}, nil
	})
	params := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"a haiku"}}],"maxTokens":20}`)
	edited, _ := EditSampling(params, "a limerick")
	ui := &fakeUI{answers: []Approval{{Choice: AllowOnce, Edited: edited}, {Choice: AllowOnce}}}
	g := newGoAgent(ragent.Config{Model: model})
	New(Options{Agent: g, UI: ui})
	if _, err := g.a.Sample(context.Background(), "srv", params); err != nil || seen != "a limerick" {
		t.Fatalf("edited sample: %v, the model saw %q", err, seen)
	}
	// The edit was for that one request: the next runs as it comes.
	if _, err := g.a.Sample(context.Background(), "srv", params); err != nil || seen != "a haiku" {
		t.Fatalf("second sample: %v, the model saw %q", err, seen)
	}
}
