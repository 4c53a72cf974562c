package session

import (
	"context"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/llm"
)

// A compaction, on demand between turns or automatic inside one, leaves
// the whole history in the file and a boundary: a resumed (or forked)
// session goes on from the summary and the kept messages, as the agent
// did.
func TestCompactionBoundary(t *testing.T) {
	sum := func(_ context.Context, msgs []llm.Message, _ string) (string, error) { return "SUMMARY", nil }
	for _, auto := range []bool{false, true} {
		s := store(t)
		w, err := s.Create(Header{Cwd: "/work", Model: "mock", Command: "chat"})
		if err != nil {
			t.Fatal(err)
		}
		cfg := agent.Config{Model: llm.NewMock(""), Tools: []agent.LocalTool{echoTool()}, Yes: true, Summarize: sum}
		if auto {
			cfg.ContextWindow = 2 // the mock's usage crosses 80% of it at once
		}
		a := agent.New(cfg)
		a.SetRecorder(w)
		for _, p := range []string{"echo text=one", "echo text=two", "echo text=three"} {
			ask(t, a, p)
		}
		if !auto {
			if _, err := a.Compact(context.Background(), ""); err != nil {
				t.Fatal(err)
			}
		}
		if a.Compactions() == 0 {
			t.Fatalf("auto %v: no compaction", auto)
		}
		w.Close()
		sess, err := s.Load(w.ID())
		if err != nil {
			t.Fatal(err)
		}
		var want []agent.Message
		for _, m := range a.Messages() {
			want = append(want, agent.MessageOf(m))
		}
		if sess.Boundary == nil || sess.Turns() != 3 || len(sess.Entries) != 12 {
			t.Fatalf("auto %v: boundary %+v, %d turns, %d entries", auto, sess.Boundary, sess.Turns(), len(sess.Entries))
		}
		if got := jsonOf(t, sess.Messages()); got != jsonOf(t, want) || !strings.Contains(got, "SUMMARY") {
			t.Fatalf("auto %v: resumed from\n%s\nthe agent has\n%s", auto, got, jsonOf(t, want))
		}
		f, err := s.Fork(sess, Header{Cwd: "/work", Model: "mock"})
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		forked, _ := s.Load(f.ID())
		if jsonOf(t, forked.Messages()) != jsonOf(t, want) || len(forked.Entries) != 12 {
			t.Errorf("auto %v: the fork lost the boundary or the history", auto)
		}
	}
}
