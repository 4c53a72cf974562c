package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/trace"
)

// recorder is a local tool that keeps the arguments it got; it is not
// read-only, so the default policy asks about it.
type recorder struct {
	mu   sync.Mutex
	args []string
}

func (r *recorder) tool(name string) LocalTool {
	return LocalTool{Name: name, Call: func(_ context.Context, args json.RawMessage) (Result, error) {
		r.mu.Lock()
		r.args = append(r.args, string(args))
		r.mu.Unlock()
		return TextResult("done", false), nil
	}}
}

func handler(ev string, f func(in hooks.Input) hooks.Result) hooks.Handler {
	return hooks.Handler{Event: ev, Name: "test", Run: func(_ context.Context, in hooks.Input) hooks.Result { return f(in) }}
}

func TestPreToolUseHooks(t *testing.T) {
	for _, tt := range []struct {
		name      string
		results   []hooks.Result
		ran       string // the arguments the tool got ("": it did not run)
		resultHas string // in the result the model saw
	}{
		{"exit 2 blocks, stderr to the model", []hooks.Result{{Block: true, Reason: "rm is not allowed here"}}, "", "PreToolUse hook: rm is not allowed here"},
		{"deny", []hooks.Result{{Permission: "deny", Block: true, Reason: "not on Fridays"}}, "", "not on Fridays"},
		{"allow runs it without asking", []hooks.Result{{Permission: "allow"}}, `{"p":1}`, "done"},
		{"updatedInput with allow", []hooks.Result{{Permission: "allow", UpdatedInput: json.RawMessage(`{"p":2}`)}}, `{"p":2}`, "done"},
		{"no say: the policy asks, nobody to ask", []hooks.Result{{}}, "", NoApproverReason},
		{"several: one vetoes", []hooks.Result{{Permission: "allow"}, {Block: true, Reason: "second says no"}}, "", "second says no"},
		{"additionalContext joins the result", []hooks.Result{{Permission: "allow", Context: "remember the lint"}}, `{"p":1}`, "remember the lint"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rec recorder
			call := tc("w", `{"p":1}`)
			m := script(calls(call), answer("ok"))
			a := New(Config{Model: m, Tools: []LocalTool{rec.tool("w")}})
			var seen []hooks.Input
			for _, r := range tt.results {
				a.On(handler(hooks.PreToolUse, func(in hooks.Input) hooks.Result { seen = append(seen, in); return r }))
			}
			a.SetSession("sid-1", "/t/x.jsonl")
			if _, _, err := a.Ask(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(rec.args, ","); got != tt.ran {
				t.Errorf("the tool got %q, want %q", got, tt.ran)
			}
			if res := partsText(toolMessage(t, m.requests()[1], call.ID)); !strings.Contains(res, tt.resultHas) {
				t.Errorf("the model saw %q, want it to hold %q", res, tt.resultHas)
			}
			in := seen[0]
			if in.HookEventName != "PreToolUse" || in.ToolName != "w" || string(in.ToolInput) != `{"p":1}` || in.ToolUseID != call.ID ||
				in.SessionID != "sid-1" || in.TranscriptPath != "/t/x.jsonl" || in.Cwd == "" || in.PermissionMode != "default" {
				t.Errorf("input %+v", in)
			}
		})
	}
}

func TestPostToolUseSeesTheResponseAndAddsContext(t *testing.T) {
	var rec recorder
	call := tc("w", `{}`)
	m := script(calls(call), answer("ok"))
	a := New(Config{Model: m, Tools: []LocalTool{rec.tool("w")}, Yes: true})
	var resp string
	a.On(handler(hooks.PostToolUse, func(in hooks.Input) hooks.Result {
		resp = string(in.ToolResponse)
		return hooks.Result{Block: true, Reason: "the output has a TODO", Context: "run the tests next"}
	}))
	if _, _, err := a.Ask(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp, `"text":"done"`) {
		t.Errorf("tool_response %s", resp)
	}
	got := partsText(toolMessage(t, m.requests()[1], call.ID))
	for _, want := range []string{"done", "PostToolUse hook: the output has a TODO", "run the tests next"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model saw %q, want %q in it", got, want)
		}
	}
}

func TestUserPromptSubmit(t *testing.T) {
	m := script(answer("ok"))
	var events []Event
	a := New(Config{Model: m, OnEvent: func(e Event) { events = append(events, e) }})
	a.On(handler(hooks.UserPromptSubmit, func(in hooks.Input) hooks.Result {
		if strings.Contains(in.Prompt, "password") {
			return hooks.Result{Block: true, Reason: "no secrets in prompts"}
		}
		return hooks.Result{Context: "the build is green"}
	}))
	_, tr, err := a.Ask(context.Background(), "my password is x")
	if errs.KindOf(err) != errs.Auth || tr.End != EndHook || !strings.Contains(err.Error(), "no secrets in prompts") || len(m.requests()) != 0 {
		t.Fatalf("%v %s, %d requests", err, tr.End, len(m.requests()))
	}
	if len(a.Messages()) != 0 {
		t.Errorf("a blocked prompt stays out of the conversation: %+v", a.Messages())
	}
	if len(events) != 1 || events[0].Type != EventEnd {
		t.Errorf("the error says it, once: %+v", events)
	}
	if _, _, err := a.Ask(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if got := partsText(m.requests()[0].Messages[0]); !strings.Contains(got, "hello") || !strings.Contains(got, "the build is green") {
		t.Errorf("the prompt as sent: %q", got)
	}
}

// A Stop hook that blocks makes the model go on, once: the second time it
// sees stop_hook_active and lets it stop.
func TestStopHookContinues(t *testing.T) {
	m := script(answer("first"), answer("second"))
	a := New(Config{Model: m})
	var active []bool
	a.On(handler(hooks.Stop, func(in hooks.Input) hooks.Result {
		active = append(active, *in.StopHookActive)
		if *in.StopHookActive {
			return hooks.Result{}
		}
		return hooks.Result{Block: true, Reason: "run the tests first"}
	}))
	text, tr, err := a.Ask(context.Background(), "go")
	if err != nil || text != "second" || tr.End != EndAnswer || len(active) != 2 || active[0] || !active[1] {
		t.Fatalf("%q %v %s %v", text, err, tr.End, active)
	}
	if got := partsText(m.requests()[1].Messages[2]); got != "Stop hook: run the tests first" {
		t.Errorf("the model was told %q", got)
	}
	// SubagentStop instead for a subagent.
	sub := New(Config{Model: script(answer("x")), Subagent: true})
	var fired []string
	for _, ev := range []string{hooks.Stop, hooks.SubagentStop} {
		sub.On(handler(ev, func(in hooks.Input) hooks.Result { fired = append(fired, in.HookEventName); return hooks.Result{} }))
	}
	sub.Ask(context.Background(), "go")
	if strings.Join(fired, ",") != "SubagentStop" {
		t.Errorf("fired %v", fired)
	}
}

// continue:false from a PreToolUse hook ends the loop after the turn.
func TestContinueFalseStops(t *testing.T) {
	var rec recorder
	m := script(calls(tc("w", `{}`)), answer("never"))
	a := New(Config{Model: m, Tools: []LocalTool{rec.tool("w")}, Yes: true})
	a.On(handler(hooks.PreToolUse, func(hooks.Input) hooks.Result { return hooks.Result{Stop: true, StopReason: "the budget is spent"} }))
	_, tr, err := a.Ask(context.Background(), "go")
	if tr.End != EndHook || errs.KindOf(err) != errs.Cancelled || !strings.Contains(err.Error(), "the budget is spent") || len(m.requests()) != 1 || len(rec.args) != 0 {
		t.Fatalf("%s %v, %d requests, ran %v", tr.End, err, len(m.requests()), rec.args)
	}
}

func TestPermissionRequestHook(t *testing.T) {
	for _, tt := range []struct {
		r    hooks.Result
		ran  bool
		want string
	}{
		{hooks.Result{Permission: "allow"}, true, "PermissionRequest hook allowed it"},
		{hooks.Result{Block: true, Reason: "ask Bob"}, false, "PermissionRequest hook: ask Bob"},
		{hooks.Result{}, false, NoApproverReason},
	} {
		var rec recorder
		m := script(calls(tc("w", `{}`)), answer("ok"))
		var reasons []string
		a := New(Config{Model: m, Tools: []LocalTool{rec.tool("w")}, OnEvent: func(e Event) {
			if e.Type == EventApproval {
				reasons = append(reasons, e.Reason)
			}
		}})
		var in hooks.Input
		a.On(handler(hooks.PermissionRequest, func(i hooks.Input) hooks.Result { in = i; return tt.r }))
		a.Ask(context.Background(), "go")
		if (len(rec.args) == 1) != tt.ran || len(reasons) != 1 || reasons[0] != tt.want || in.ToolName != "w" {
			t.Errorf("%+v: ran %v, reasons %q, input %+v", tt.r, rec.args, reasons, in)
		}
	}
}

func TestSessionStartEndNotificationPreCompact(t *testing.T) {
	m := script(answer("a"), answer("b"))
	a := New(Config{Model: m})
	var fired []string
	on := func(ev string, r hooks.Result) {
		a.On(handler(ev, func(in hooks.Input) hooks.Result {
			fired = append(fired, ev+":"+in.Source+in.Reason+in.NotificationType+in.Trigger+in.Message)
			return r
		}))
	}
	on(hooks.SessionStart, hooks.Result{Context: "the repo uses tabs"})
	on(hooks.SessionEnd, hooks.Result{SystemMessage: "bye"})
	on(hooks.Notification, hooks.Result{})
	on(hooks.PreCompact, hooks.Result{Block: true, Reason: "keep it all"})
	ctx := context.Background()
	a.Ask(ctx, "one")
	a.Ask(ctx, "two")
	if !strings.Contains(m.requests()[1].System, "the repo uses tabs") {
		t.Errorf("system %q", m.requests()[1].System)
	}
	a.Notify(ctx, "luagent needs your permission to use fs__write", "luagent", "permission_prompt")
	ok, why, _ := a.PreCompact(ctx, "manual", "keep the plan")
	out := a.EndSession(ctx, "prompt_input_exit")
	if ok || why != "keep it all" || len(out.Notes) != 1 || out.Notes[0] != `SessionEnd hook "test": bye` {
		t.Errorf("PreCompact %v %q; SessionEnd %+v", ok, why, out)
	}
	want := "SessionStart:startup,Notification:permission_promptluagent needs your permission to use fs__write,PreCompact:manual,SessionEnd:prompt_input_exit"
	if got := strings.Join(fired, ","); got != want {
		t.Errorf("fired\n %s\nwant\n %s", got, want)
	}
	a.Reset()
	a.Ask(ctx, "three")
	if fired[len(fired)-1] != "SessionStart:clear" {
		t.Errorf("after Reset: %v", fired)
	}
}

// A matcher written for Claude Code's mcp__server__tool names matches the
// hub's server__tool (hookNames).
func TestHookNamesOfAnMCPCall(t *testing.T) {
	got := hookNames(&Call{Name: "fs__write", Server: "fs", Tool: "write", Kind: KindMCP})
	if strings.Join(got, ",") != "fs__write,mcp__fs__write" {
		t.Errorf("%v", got)
	}
	cfg, _ := hooks.Parse([]byte(`{"PreToolUse": [{"matcher": "mcp__fs__.*", "hooks": [{"type": "command", "command": "x"}]}]}`), "f")
	if !cfg.Groups[0].Matches(got...) {
		t.Error("no match")
	}
}

// Each event whose hooks ran is a trace event, under the call's span.
func TestHooksAreTraced(t *testing.T) {
	var rec recorder
	tr := &trace.Recorder{}
	a := New(Config{Model: script(calls(tc("w", `{}`)), answer("ok")), Tools: []LocalTool{rec.tool("w")}, Yes: true, Trace: tr})
	a.On(handler(hooks.PreToolUse, func(hooks.Input) hooks.Result { return hooks.Result{Block: true, Reason: "no"} }))
	a.On(handler(hooks.Stop, func(hooks.Input) hooks.Result { return hooks.Result{} }))
	a.Ask(context.Background(), "go")
	var got []string
	starts := map[string]bool{}
	for _, e := range tr.Events() {
		if e.Kind == trace.AgentToolStart {
			starts[e.Span] = true
		}
		if e.Kind == trace.Hook {
			got = append(got, e.Method+" "+e.Tool+" "+e.Message)
			if e.Method == hooks.PreToolUse && !starts[e.Parent] {
				t.Errorf("PreToolUse's trace event is not under the call's span: %+v", e)
			}
		}
	}
	if strings.Join(got, "|") != "PreToolUse w block: no|Stop  go on" {
		t.Errorf("%q", got)
	}
}
