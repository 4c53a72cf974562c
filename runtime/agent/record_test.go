package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/llm"
)

// tape is a Recorder keeping what it was told, as lines.
type tape struct {
	mu    sync.Mutex
	lines []string
}

func (t *tape) Message(m Message, call *ToolCallRecord) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := m.Role
	for _, p := range m.Parts {
		s += " " + p.Text
	}
	for _, tc := range m.ToolCalls {
		s += " call " + tc.Name + string(tc.Arguments)
	}
	if call != nil {
		s += " record " + string(call.Decision)
		if call.Result != nil {
			s += " " + string(call.Result.Content[0])
		}
	}
	t.lines = append(t.lines, s)
}

func (t *tape) End(tr *Transcript) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, "end "+string(tr.End))
}

func (t *tape) all() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// The recorder is told each message once, in order, as it completes, the
// tool's result with its call's record, the agent's secrets masked; a
// seeded conversation is not told again, messages appended between asks
// are told with the next ask, and Reset starts over.
func TestRecorder(t *testing.T) {
	a := New(Config{Model: llm.NewMock(""), Tools: []LocalTool{ping}, Yes: true, Secrets: []string{"hunter2"}})
	a.Seed([]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("old")}}})
	rec := &tape{}
	a.SetRecorder(rec)
	if a.Recorder() != rec {
		t.Fatal("Recorder() is not the one set")
	}
	if _, _, err := a.Ask(context.Background(), "ping hunter2"); err != nil {
		t.Fatal(err)
	}
	a.Append(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text("a prompt's message")}})
	if _, _, err := a.Ask(context.Background(), "ping again"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"user ping <secret>",
		"assistant call ping{}",
		`tool pong record allow {"text":"pong","type":"text"}`,
		`assistant The tool returned: "pong"`,
		"end answer",
		"user a prompt's message",
		"user ping again",
	}
	got := rec.all()
	if !strings.HasPrefix(got, strings.Join(want, "\n")) || strings.Count(got, "end answer") != 2 || strings.Contains(got, "old") || strings.Contains(got, "hunter2") {
		t.Fatalf("recorded:\n%s", got)
	}
	// Reset and a new recorder: only what follows.
	a.Reset()
	rec2 := &tape{}
	a.SetRecorder(rec2)
	a.Ask(context.Background(), "ping")
	if got := rec2.all(); !strings.HasPrefix(got, "user ping\n") || strings.Count(got, "\n") != 4 {
		t.Fatalf("after reset:\n%s", got)
	}
	a.SetRecorder(nil)
	if a.Recorder() != nil {
		t.Fatal("SetRecorder(nil) kept one")
	}
	a.Ask(context.Background(), "ping")
	if strings.Count(rec2.all(), "\n") != 4 {
		t.Fatal("told after SetRecorder(nil)")
	}
}
