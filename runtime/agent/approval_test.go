package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
)

// A call whose arguments do not match the MCP tool's input schema goes back
// to the model as a tool error without a person being asked about it: an
// approval must never be spent on a call that cannot run. A valid call to
// the same tool is still asked about.
func TestInvalidArgumentsAreNotAskedAbout(t *testing.T) {
	h := startHub(t, hub.Options{}, luaServer(t, "tools"))
	for _, tt := range []struct{ name, tool, bad, good string }{
		{"missing", "tools__write", `{"txt":"note"}`, `{"text":"note"}`},
		{"wrong type", "tools__write", `{"text":42}`, `{"text":"x"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad, good := tc(tt.tool, tt.bad), tc(tt.tool, tt.good)
			m := script(calls(bad), calls(good), answer("ok"))
			var asked []string
			a := New(Config{Model: m, Hub: h, Ask: func(_ context.Context, c Call) (Decision, string) {
				asked = append(asked, string(c.Arguments))
				return Allow, "the user said yes"
			}})
			_, tr, err := a.Ask(context.Background(), "go")
			if err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || asked[0] != tt.good {
				t.Errorf("asked about %q; want only the valid call %s", asked, tt.good)
			}
			r := toolMessage(t, m.requests()[1], bad.ID)
			if !r.IsError || !strings.Contains(partsText(r), "do not match its input schema") {
				t.Errorf("the invalid call's result: %+v", r)
			}
			if rec := tr.ToolCalls[0]; rec.ErrorKind != errs.Invalid.String() || rec.Decision == Allow {
				t.Errorf("the invalid call's record: %+v", rec)
			}
			if r := toolMessage(t, m.requests()[2], good.ID); r.IsError {
				t.Errorf("the valid call's result: %+v", r)
			}
		})
	}
}

// A tool call's duration is the call's own time: the seconds a person took
// to answer its approval are not in the event nor in the transcript. The
// bubble's clock makes the times exact: the person answers after 5 s, the
// tool runs 1 s.
func TestToolDurationExcludesTheApprovalWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tool := LocalTool{Name: "slow", Call: func(context.Context, json.RawMessage) (Result, error) {
			time.Sleep(time.Second) // the call's own second, on the bubble's clock
			return TextResult("done", false), nil
		}}
		asked, answered := make(chan struct{}), make(chan struct{})
		go func() {
			<-asked
			time.Sleep(5 * time.Second) // the person reads and thinks
			close(answered)
		}()
		var ended time.Duration
		a := New(Config{Model: script(calls(tc("slow", `{}`)), answer("ok")), Tools: []LocalTool{tool},
			Ask: func(context.Context, Call) (Decision, string) {
				close(asked)
				<-answered
				return Allow, "the user said yes"
			},
			OnEvent: func(e Event) {
				if e.Type == EventToolEnd {
					ended = e.Duration
				}
			}})
		_, tr, err := a.Ask(context.Background(), "go")
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.ToolCalls[0].Duration; got != time.Second {
			t.Errorf("transcript duration %v, want 1s (the 5 s answering the approval left out)", got)
		}
		if ended != time.Second {
			t.Errorf("tool_end duration %v, want 1s", ended)
		}
	})
}
