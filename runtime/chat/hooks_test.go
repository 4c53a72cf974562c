package chat

import (
	"context"
	"github.com/luagent/luagent/runtime/sessionid"
	"strings"
	"testing"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/llm"
)

// The chat's hooks see one session id, from the first turn to the end,
// across an agent replaced (/model: SessionStart is not fired again);
// Notify and End fire Notification and SessionEnd.
func TestChatSessionHooks(t *testing.T) {
	set := hooks.NewSet()
	var fired []string
	for _, ev := range []string{hooks.SessionStart, hooks.UserPromptSubmit, hooks.Notification, hooks.SessionEnd} {
		set.Add(hooks.Handler{Event: ev, Name: "t", Run: func(_ context.Context, in hooks.Input) hooks.Result {
			fired = append(fired, in.HookEventName+" "+in.SessionID+" "+in.NotificationType+in.Reason)
			if ev == hooks.SessionEnd {
				return hooks.Result{SystemMessage: "bye"}
			}
			return hooks.Result{}
		}})
	}
	s := New(Options{Agent: newGoAgent(ragent.Config{Model: llm.NewMock(""), HookSet: set}), UI: &fakeUI{}})
	ctx := context.Background()
	if _, err := s.Turn(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	s.SetAgent(newGoAgent(ragent.Config{Model: llm.NewMock(""), HookSet: set}))
	if _, err := s.Turn(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	s.Notify(ctx, "luagent needs your permission to use fs__write", "permission_prompt")
	notes := s.End(ctx, "prompt_input_exit")
	id := s.ID()
	want := []string{"SessionStart " + id + " ", "UserPromptSubmit " + id + " ", "UserPromptSubmit " + id + " ",
		"Notification " + id + " permission_prompt", "SessionEnd " + id + " prompt_input_exit"}
	if !sessionid.Valid(id) || strings.Join(fired, "|") != strings.Join(want, "|") {
		t.Errorf("fired\n %q\nwant\n %q", fired, want)
	}
	if len(notes) != 1 || notes[0] != `SessionEnd hook "t": bye` {
		t.Errorf("notes %q", notes)
	}
}
