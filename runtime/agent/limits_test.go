package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/testkit"
)

// ping is a local tool that answers at once.
var ping = LocalTool{Name: "ping", Description: "Answer pong", Annotations: &Annotations{ReadOnlyHint: ptr(true)},
	Call: func(context.Context, json.RawMessage) (Result, error) { return TextResult("pong", false), nil }}

func ptr[T any](v T) *T { return &v }

// MaxTurns stops a model that never stops calling tools.
func TestMaxTurns(t *testing.T) {
	m := script(calls(tc("ping", `{}`)))
	_, tr, err := New(Config{Model: m, Tools: []LocalTool{ping}, MaxTurns: 3}).Ask(context.Background(), "loop")
	if errs.KindOf(err) != errs.Limit || tr.End != EndMaxTurns || len(tr.Turns) != 3 || len(m.requests()) != 3 || tr.ErrorKind != "limit" {
		t.Fatalf("%v, %s, %d turns", err, tr.End, len(tr.Turns))
	}
	if len(tr.ToolCalls) != 3 || tr.ToolCalls[2].Result == nil {
		t.Errorf("tool calls: %+v", tr.ToolCalls)
	}
}

// The token budget ends the loop once the turns' usage reaches it; the
// pending calls are answered, unrun, so a next Ask can go on.
func TestTokenBudget(t *testing.T) {
	ran := 0
	counting := ping
	counting.Call = func(context.Context, json.RawMessage) (Result, error) { ran++; return TextResult("pong", false), nil }
	m := script(calls(tc("ping", `{}`)), calls(tc("ping", `{}`)), answer("later"))
	a := New(Config{Model: m, Tools: []LocalTool{counting}, TokenBudget: 30})
	_, tr, err := a.Ask(context.Background(), "spend")
	if errs.KindOf(err) != errs.Limit || tr.End != EndBudget || tr.Usage.Total() != 30 || ran != 1 {
		t.Fatalf("%v, %s, usage %+v, ran %d", err, tr.End, tr.Usage, ran)
	}
	last := a.Messages()[len(a.Messages())-1]
	if last.Role != llm.RoleTool || !last.IsError || !strings.Contains(textOf(last), "budget") {
		t.Errorf("last message: %+v", last)
	}
	if text, _, err := a.Ask(context.Background(), "go on"); err != nil || text != "later" {
		t.Errorf("next Ask: %q %v", text, err)
	}
}

// Timeout ends a model stream that does not end (in a synctest bubble:
// the clock jumps, nothing sleeps).
func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := script(blockUntilDone(nil))
		_, tr, err := New(Config{Model: m, Timeout: 30 * time.Second}).Ask(context.Background(), "wait")
		if errs.KindOf(err) != errs.Timeout || tr.End != EndTimeout {
			t.Fatalf("%v %s", err, tr.End)
		}
	})
}

// The caller's own deadline, or a typed cause (a Lua task.timeout), is
// not the agent's timeout: the error says which it was.
func TestCallerDeadlineIsNotTheAgentsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := script(blockUntilDone(nil))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, tr, err := New(Config{Model: m, Timeout: time.Hour}).Ask(ctx, "wait")
		if errs.KindOf(err) != errs.Timeout || tr.End != EndTimeout || !strings.Contains(err.Error(), "caller's deadline") {
			t.Fatalf("caller deadline: %v %s", err, tr.End)
		}
		cause := errs.New(errs.Timeout, "task.timeout", "task.timeout: timed out after 1s")
		ctx, cancel = context.WithTimeoutCause(context.Background(), time.Second, cause)
		defer cancel()
		_, tr, err = New(Config{Model: m}).Ask(ctx, "wait")
		if errs.KindOf(err) != errs.Timeout || tr.End != EndTimeout || !strings.Contains(err.Error(), "task.timeout: timed out after 1s") {
			t.Fatalf("typed cause: %v %s", err, tr.End)
		}
	})
}

// Cancelling ctx stops the model stream: the loop ends cancelled.
func TestCancelModelStream(t *testing.T) {
	started := make(chan struct{})
	m := script(blockUntilDone(started))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, tr, err := New(Config{Model: m}).Ask(ctx, "wait")
	if errs.KindOf(err) != errs.Cancelled || tr.End != EndCancelled {
		t.Fatalf("%v %s", err, tr.End)
	}
}

// A model error ends the loop with its kind.
func TestModelError(t *testing.T) {
	m := script(func(context.Context, *llm.Request) (*llm.Response, error) {
		return nil, errs.New(errs.Auth, "model", "bad key")
	})
	_, tr, err := New(Config{Model: m}).Ask(context.Background(), "x")
	if errs.KindOf(err) != errs.Auth || tr.End != EndError || tr.ErrorKind != "auth" {
		t.Fatalf("%v %+v", err, tr)
	}
}

// Cancelling mid-tool cancels the running call: the server gets
// notifications/cancelled for it (the fake server logs every line it
// reads and says on stderr when its slow call was cancelled).
func TestCancelMidTool(t *testing.T) {
	log := filepath.Join(t.TempDir(), "wire.log")
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	gone := make(chan struct{})
	h := startHub(t, hub.Options{OnStderr: func(_, line string) {
		if strings.Contains(line, "slow cancelled") {
			close(gone)
		}
	}}, &catalog.Server{Name: "fake", Enabled: true, Command: fake, Args: []string{"-log", log}, StartupTimeout: 30 * time.Second})
	slow := tc("fake__slow", `{"seconds":60,"progress":true,"step_ms":10}`)
	m := script(calls(slow), answer("never"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := New(Config{Model: m, Hub: h, Yes: true, OnEvent: func(e Event) {
		if e.Type == EventToolProgress {
			cancel() // the call is running on the server
		}
	}})
	_, tr, err := a.Ask(ctx, "slow")
	if errs.KindOf(err) != errs.Cancelled || tr.End != EndCancelled {
		t.Fatalf("%v %s", err, tr.End)
	}
	if len(m.requests()) != 1 || len(tr.ToolCalls) != 1 || tr.ToolCalls[0].ErrorKind != "cancelled" {
		t.Errorf("%d model calls, tool calls %+v", len(m.requests()), tr.ToolCalls)
	}
	select {
	case <-gone:
	case <-time.After(30 * time.Second):
		t.Fatal("the server never saw the cancellation")
	}
	wire, _ := os.ReadFile(log)
	if !bytes.Contains(wire, []byte(`"notifications/cancelled"`)) {
		t.Errorf("no notifications/cancelled on the wire:\n%s", wire)
	}
}

// The conversation persists across Ask calls until Reset.
func TestConversation(t *testing.T) {
	m := script(answer("one"), answer("two"), answer("three"))
	a := New(Config{Model: m})
	a.Ask(context.Background(), "first")
	a.Ask(context.Background(), "second")
	if n := len(m.requests()[1].Messages); n != 3 {
		t.Errorf("second Ask sent %d messages, want 3", n)
	}
	a.Reset()
	a.Ask(context.Background(), "third")
	if n := len(m.requests()[2].Messages); n != 1 {
		t.Errorf("after Reset %d messages, want 1", n)
	}
}

// The transcript round-trips through JSON under its documented names.
func TestTranscriptJSON(t *testing.T) {
	img := Result{Content: []json.RawMessage{json.RawMessage(`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`)}}
	pic := LocalTool{Name: "pic", Call: func(context.Context, json.RawMessage) (Result, error) { return img, nil }}
	m := script(calls(tc("ping", `{"x":1}`), tc("pic", `{}`)), answer("done"))
	_, tr, err := New(Config{Model: m, Tools: []LocalTool{ping, pic}, Yes: true}).Ask(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back Transcript
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&back)
	if !bytes.Equal(b, b2) {
		t.Fatalf("round trip differs:\n%s\n%s", b, b2)
	}
	for _, name := range []string{`"model":"scripted"`, `"end":"answer"`, `"duration_ns":`, `"messages":`, `"turns":`, `"tool_calls":`, `"usage":{"input_tokens":20,"output_tokens":7}`, `"decision":"allow"`, `"tool_call_id":`, `"mime":"image/png"`} {
		if !bytes.Contains(b, []byte(name)) {
			t.Errorf("no %s in %s", name, b)
		}
	}
	if len(back.Messages) != 5 || back.Messages[1].ToolCalls[0].Name != "ping" || back.ToolCalls[1].Name != "pic" || back.Messages[3].LLM().Parts[0].Type != "image" {
		t.Errorf("decoded: %+v", back)
	}
}
