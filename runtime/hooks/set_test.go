package hooks

import (
	"context"
	"encoding/json"
	"testing"
)

func fixed(ev, matcher string, r Result) Handler {
	m, _ := compileMatcher(matcher)
	return Handler{Event: ev, Group: Group{Matcher: matcher, m: m}, Name: "h", Run: func(context.Context, Input) Result { return r }}
}

func TestFireMerges(t *testing.T) {
	var seen []string
	s := NewSet(
		fixed(PreToolUse, "fs__.*", Result{Permission: "allow", UpdatedInput: json.RawMessage(`{"x":2}`)}),
		Handler{Event: PreToolUse, Name: "second", Run: func(_ context.Context, in Input) Result {
			seen = append(seen, string(in.ToolInput))
			return Result{Permission: "ask", Context: "c2", SystemMessage: "careful"}
		}},
		fixed(PreToolUse, "git__.*", Result{Block: true, Reason: "never"}),
		fixed(Stop, "", Result{Block: true}),
		Handler{Event: PreToolUse, Name: "panics", Run: func(context.Context, Input) Result { panic("boom") }},
	)
	out := s.Fire(context.Background(), Input{HookEventName: PreToolUse, ToolInput: json.RawMessage(`{"x":1}`)}, "fs__write", "mcp__fs__write")
	if out.Ran != 3 || out.Block || out.Permission != "ask" || string(out.UpdatedInput) != `{"x":2}` || out.Context != "c2" {
		t.Errorf("%+v", out)
	}
	if len(seen) != 1 || seen[0] != `{"x":2}` {
		t.Errorf("the second handler saw %v", seen)
	}
	if len(out.Notes) != 2 || out.Notes[0] != `PreToolUse hook "second": careful` || out.Notes[1] != `PreToolUse hook "panics": the hook failed: boom` {
		t.Errorf("notes %q", out.Notes)
	}
	if !s.Fire(context.Background(), Input{HookEventName: PreToolUse}, "git__log").Block {
		t.Error("any block blocks")
	}
	var nilSet *Set
	if nilSet.Has(Stop) || nilSet.Fire(context.Background(), Input{HookEventName: Stop}).Ran != 0 {
		t.Error("a nil set has nothing")
	}
}
