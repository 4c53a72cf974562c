package render_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/render"
)

func TestRenderer(t *testing.T) {
	echo := &ragent.Call{Name: "srv__echo", Server: "srv", Tool: "echo", Arguments: json.RawMessage(`{ "message": "hi" }`)}
	local := &ragent.Call{Name: "note", Parent: "run_lua", Arguments: json.RawMessage(`{}`)}
	text := func(s string) ragent.Event { return ragent.Event{Type: ragent.EventText, Text: s} }
	start := func(c *ragent.Call) ragent.Event { return ragent.Event{Type: ragent.EventToolStart, Call: c} }
	ok := func(c *ragent.Call, s string) ragent.Event {
		return ragent.Event{Type: ragent.EventToolEnd, Call: c, Duration: 1234 * time.Millisecond,
			Result: &ragent.Result{Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":` + s + `}`), json.RawMessage(`{"type":"image"}`)}}}
	}
	turn := []ragent.Event{
		text("let me look"),
		start(echo),
		{Type: ragent.EventToolProgress, Call: echo, Progress: 1, Total: 3, Message: "step\x1b[31m one"},
		ok(echo, `"pong:hi\u0007"`),
		start(local),
		{Type: ragent.EventApproval, Call: local, Decision: ragent.Deny, Reason: "run with --yes to allow"},
		{Type: ragent.EventToolEnd, Call: local, Err: errors.New("denied")},
		text("done\n"),
	}
	for _, c := range []struct {
		name       string
		o          render.Options
		text, tool string
	}{
		{"ask: answer and activity apart", render.Options{}, "let me look\ndone\n",
			"srv › echo {\"message\":\"hi\"}\n  … 1/3 step\\x1b[31m one\n  ✓ 1.2s pong:hi\\x07 [image]\n  note\n    deny: run with --yes to allow\n    ✗ denied\n"},
		{"ask --json: no answer", render.Options{Quiet: true}, "",
			"srv › echo {\"message\":\"hi\"}\n  … 1/3 step\\x1b[31m one\n  ✓ 1.2s pong:hi\\x07 [image]\n  note\n    deny: run with --yes to allow\n    ✗ denied\n"},
		{"held and named (/meta)", render.Options{Hold: true, Start: func(c *ragent.Call) string { return "catalog › " + c.Name }}, "let me look\ndone\n",
			"catalog › srv__echo\n  … 1/3 step\\x1b[31m one\n  ✓ 1.2s pong:hi\\x07 [image]\n  catalog › note\n    deny: run with --yes to allow\n    ✗ denied\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, tools strings.Builder
			c.o.Text, c.o.Tools = &out, &tools
			r := render.New(c.o)
			for _, e := range turn {
				r.Event(e)
			}
			r.Finish()
			if out.String() != c.text {
				t.Errorf("answer:\n%q\nwant\n%q", out.String(), c.text)
			}
			if tools.String() != c.tool {
				t.Errorf("activity:\n%q\nwant\n%q", tools.String(), c.tool)
			}
		})
	}
}

// On a terminal the answer and the activity share lines: a tool's line
// starts on a line of its own, and progress is one line redrawn, erased
// before what follows.
func TestRendererLive(t *testing.T) {
	var out strings.Builder
	r := render.New(render.Options{Text: &out, Live: true, Shown: func(s string) string { return strings.ReplaceAll(s, "sk-123", "<hidden>") }})
	c := &ragent.Call{Name: "slow", Arguments: json.RawMessage(`{"key":"sk-123"}`)}
	r.Event(ragent.Event{Type: ragent.EventText, Text: "working"})
	r.Event(ragent.Event{Type: ragent.EventToolStart, Call: c})
	r.Event(ragent.Event{Type: ragent.EventToolProgress, Call: c, Progress: 5, Total: 10})
	r.Event(ragent.Event{Type: ragent.EventToolProgress, Call: c, Progress: 10, Total: 10})
	r.Event(ragent.Event{Type: ragent.EventToolEnd, Call: c, Duration: 15 * time.Millisecond, Result: &ragent.Result{IsError: true}})
	r.Finish()
	want := "working\nslow {\"key\":\"<hidden>\"}\n  ⠙ [██████████░░░░░░░░░░] 5/10\r\x1b[K  ⠹ [████████████████████] 10/10\r\x1b[K  ✗ 15ms \n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

// A retry's or a fallback's status line shows where the tool activity
// goes (chat: with the answer), before the answer that follows.
func TestRendererRetry(t *testing.T) {
	var out strings.Builder
	r := render.New(render.Options{Text: &out, Shown: func(s string) string { return strings.ReplaceAll(s, "\x1b", "\\x1b") }})
	for _, e := range []ragent.Event{
		{Type: ragent.EventRetry, Message: "↻ provider overloaded (529), retry 2/4 in 3.2s"},
		{Type: ragent.EventRetry, Message: "↪ primary: endpoint unreachable: falling back to \x1b[2Jbackup"},
		{Type: ragent.EventText, Text: "the answer\n"},
	} {
		r.Event(e)
	}
	r.Finish()
	want := "  ↻ provider overloaded (529), retry 2/4 in 3.2s\n  ↪ primary: endpoint unreachable: falling back to \\x1b[2Jbackup\nthe answer\n"
	if out.String() != want {
		t.Fatalf("%q\nwant\n%q", out.String(), want)
	}
}
