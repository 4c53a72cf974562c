package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/testkit"
)

// step is one scripted model turn.
type step func(ctx context.Context, req *llm.Request) (*llm.Response, error)

// scripted is a fake llm.Model that plays its steps in order (the last
// one again once they run out) and keeps every request it got.
type scripted struct {
	mu    sync.Mutex
	steps []step
	reqs  []*llm.Request
}

func script(steps ...step) *scripted { return &scripted{steps: steps} }

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Stream(ctx context.Context, req *llm.Request, on func(llm.Event)) (*llm.Response, error) {
	s.mu.Lock()
	cp := *req
	cp.Messages = slices.Clone(req.Messages)
	cp.Tools = slices.Clone(req.Tools)
	s.reqs = append(s.reqs, &cp)
	st := s.steps[min(len(s.reqs), len(s.steps))-1]
	s.mu.Unlock()
	resp, err := st(ctx, req)
	if err == nil && on != nil {
		if t := textOf(resp.Message); t != "" {
			on(llm.Event{Text: t})
		}
		for i := range resp.Message.ToolCalls {
			on(llm.Event{ToolCall: &resp.Message.ToolCalls[i]})
		}
	}
	return resp, err
}

func (s *scripted) requests() []*llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func answer(text string) step {
	return func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text(text)}}, StopReason: llm.StopEnd, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}, nil
	}
}

func calls(tcs ...llm.ToolCall) step {
	return func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: tcs}, StopReason: llm.StopToolCalls, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil
	}
}

// blockUntilDone is a model stream that ends only with its context.
func blockUntilDone(started chan<- struct{}) step {
	return func(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		return nil, errs.Wrap(errs.Cancelled, "model", ctx.Err())
	}
}

var callSeq int

func tc(name, args string) llm.ToolCall {
	callSeq++
	return llm.ToolCall{ID: fmt.Sprintf("c%d", callSeq), Name: name, Arguments: json.RawMessage(args)}
}

// toolMessage finds the result of call id among a request's messages.
func toolMessage(t *testing.T, req *llm.Request, id string) llm.Message {
	t.Helper()
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool && m.ToolCallID == id {
			return m
		}
	}
	t.Fatalf("no result of call %s in %d messages", id, len(req.Messages))
	return llm.Message{}
}

func toolNames(req *llm.Request) []string {
	var out []string
	for _, t := range req.Tools {
		out = append(out, t.Name)
	}
	return out
}

// luaServer is an entry running testdata/NAME.lua with luagent serve.
func luaServer(t testing.TB, name string) *catalog.Server {
	bin := testkit.Build(t, "cmd/luagent")
	script, _ := filepath.Abs("testdata/" + name + ".lua")
	return &catalog.Server{Name: name, Enabled: true, Command: bin, Args: []string{"serve", script}, StartupTimeout: 30 * time.Second}
}

// startHub starts a hub over servers and waits until they are ready.
func startHub(t testing.TB, opts hub.Options, servers ...*catalog.Server) *hub.Hub {
	t.Helper()
	h := hub.New(servers, opts)
	t.Cleanup(func() { h.Close() })
	h.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range h.Status() {
		if st.Status != hub.Ready {
			t.Fatalf("%s: %s %v %q", st.Name, st.Status, st.Err, st.Stderr)
		}
	}
	return h
}

func partsText(m llm.Message) string { return textOf(m) }
