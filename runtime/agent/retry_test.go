package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// A fallback taking over shows as an EventRetry with its status line,
// and the response names the model that answered.
func TestFallbackEvent(t *testing.T) {
	down := llm.Func("primary", func(context.Context, *llm.Request) (*llm.Response, error) {
		return nil, errs.New(errs.Server, "primary", "529: Overloaded (after 4 retries)")
	})
	var mu sync.Mutex
	var evs []Event
	rec := &trace.Recorder{}
	a := New(Config{Model: llm.WithFallback(down, script(answer("from the backup"))), Trace: rec, OnEvent: func(e Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	}})
	text, tr, err := a.Ask(context.Background(), "hi")
	if err != nil || text != "from the backup" || tr.Turns[0].Model != "scripted" {
		t.Fatalf("%q %v %+v", text, err, tr.Turns)
	}
	var retry, resp *Event
	for i := range evs {
		switch evs[i].Type {
		case EventRetry:
			retry = &evs[i]
		case EventResponse:
			resp = &evs[i]
		}
	}
	if retry == nil || retry.Notice == nil || retry.Notice.To != "scripted" || retry.Message != "↪ primary: provider overloaded (529): falling back to scripted" {
		t.Fatalf("retry event %+v", retry)
	}
	if resp == nil || resp.Model != "scripted" {
		t.Fatalf("response event %+v", resp)
	}
	var traced []trace.Event
	for _, e := range rec.Events() {
		if e.Kind == trace.Retry {
			traced = append(traced, e)
		}
	}
	if len(traced) != 1 || traced[0].Method != "primary" || traced[0].Message != retry.Message || traced[0].Span == "" {
		t.Fatalf("traced %+v", traced)
	}
}

// An answer that broke off after it began is kept: it is the ask's
// text, and the conversation's last message; the error is incomplete.
func TestIncompleteKept(t *testing.T) {
	a := New(Config{Model: brokeOff{}})
	text, _, err := a.Ask(context.Background(), "hi")
	if !errs.Is(err, errs.Incomplete) || text != "half an ans" {
		t.Fatalf("%q %v", text, err)
	}
	msgs := a.Messages()
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleAssistant || !strings.Contains(textOf(last), "half an ans") {
		t.Fatalf("conversation %+v", msgs)
	}
}

// brokeOff streams some text, then fails as a stream cut after its
// output began does (runtime/llm's wire models).
type brokeOff struct{}

func (brokeOff) Name() string { return "m" }

func (brokeOff) Stream(ctx context.Context, req *llm.Request, on func(llm.Event)) (*llm.Response, error) {
	on(llm.Event{Text: "half an ans"})
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text("half an ans")}}},
		errs.New(errs.Incomplete, "m", "the answer broke off after it began")
}
