package hooks

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseOutput(t *testing.T) {
	type R = Result
	for _, tt := range []struct {
		name string
		ev   string
		e    Exec
		want R
	}{
		{"exit 0, nothing", PreToolUse, Exec{}, R{}},
		{"exit 2 blocks with stderr", PreToolUse, Exec{Exit: 2, Stderr: []byte("no rm -rf\n")}, R{Block: true, Reason: "no rm -rf"}},
		{"exit 1 is a non-blocking error", PreToolUse, Exec{Exit: 1, Stderr: []byte("oops\nmore")}, R{Error: "exited with code 1: oops …"}},
		{"timeout", PreToolUse, Exec{Exit: -1, TimedOut: true, Err: errors.New("timed out after 1s")}, R{Error: "timed out after 1s"}},
		{"permissionDecision deny", PreToolUse, Exec{Stdout: []byte(`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on Fridays"}}`)},
			R{Block: true, Reason: "not on Fridays", Permission: "deny", PermissionReason: "not on Fridays"}},
		{"permissionDecision allow with updatedInput", PreToolUse, Exec{Stdout: []byte(`{"hookSpecificOutput": {"permissionDecision": "allow", "permissionDecisionReason": "safe", "updatedInput": {"path": "/tmp/x"}}}`)},
			R{Permission: "allow", PermissionReason: "safe", UpdatedInput: []byte(`{"path": "/tmp/x"}`)}},
		{"deprecated decision approve", PreToolUse, Exec{Stdout: []byte(`{"decision": "approve", "reason": "ok"}`)}, R{Permission: "allow", PermissionReason: "ok"}},
		{"PostToolUse block and context", PostToolUse, Exec{Stdout: []byte(`{"decision": "block", "reason": "lint failed", "hookSpecificOutput": {"additionalContext": "3 warnings"}}`)},
			R{Block: true, Reason: "lint failed", Context: "3 warnings"}},
		{"continue false", Stop, Exec{Stdout: []byte(`{"continue": false, "stopReason": "enough", "suppressOutput": true, "systemMessage": "note"}`)},
			R{Stop: true, StopReason: "enough", SuppressOutput: true, SystemMessage: "note"}},
		{"UserPromptSubmit plain stdout is context", UserPromptSubmit, Exec{Stdout: []byte("today is Friday\n")}, R{Context: "today is Friday"}},
		{"PreToolUse plain stdout is for the user", PreToolUse, Exec{Stdout: []byte("checked\n")}, R{Output: "checked"}},
		{"PermissionRequest allow", PermissionRequest, Exec{Stdout: []byte(`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}`)}, R{Permission: "allow"}},
		{"PermissionRequest deny", PermissionRequest, Exec{Stdout: []byte(`{"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "no"}}}`)}, R{Permission: "deny", PermissionReason: "no", Block: true, Reason: "no"}},
		{"wrong types are ignored", Stop, Exec{Stdout: []byte(`{"continue": "no", "decision": 3, "hookSpecificOutput": []}`)}, R{}},
		{"garbage", PreToolUse, Exec{Stdout: []byte("\xff\xfe{not json")}, R{Output: "\uFFFD{not json"}},
	} {
		got := ParseOutput(tt.ev, tt.e)
		if g, w := strings.ReplaceAll(string(got.UpdatedInput), " ", ""), strings.ReplaceAll(string(tt.want.UpdatedInput), " ", ""); g != w {
			t.Errorf("%s: updatedInput %s, want %s", tt.name, g, w)
		}
		got.UpdatedInput, tt.want.UpdatedInput = nil, nil
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}

func TestParseOutputBoundsText(t *testing.T) {
	r := ParseOutput(PreToolUse, Exec{Exit: 2, Stderr: []byte(strings.Repeat("é", MaxText))})
	if len(r.Reason) > MaxText+40 || !strings.Contains(r.Reason, "bytes more)") {
		t.Errorf("reason of %d bytes", len(r.Reason))
	}
}

func FuzzParseOutput(f *testing.F) {
	f.Add(PreToolUse, 0, []byte(`{"hookSpecificOutput": {"permissionDecision": "deny", "updatedInput": {"a": 1}}}`), []byte(""))
	f.Add(PermissionRequest, 0, []byte(`{"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedInput": []}}}`), []byte(""))
	f.Add(Stop, 2, []byte(""), []byte("\xffstop"))
	f.Add(UserPromptSubmit, 0, []byte(`{"continue": null, "stopReason": {"x": [1]}}`), []byte(""))
	f.Fuzz(func(t *testing.T, ev string, exit int, stdout, stderr []byte) {
		r := ParseOutput(ev, Exec{Exit: exit, Stdout: stdout, Stderr: stderr})
		if r.UpdatedInput != nil && r.UpdatedInput[0] != '{' {
			t.Errorf("updatedInput not an object: %s", r.UpdatedInput)
		}
		for _, s := range []string{r.Reason, r.Context, r.Error, r.Output, r.StopReason, r.SystemMessage} {
			if len(s) > MaxText+40 {
				t.Errorf("a text of %d bytes", len(s))
			}
		}
		ParseJSON(ev, stdout, true)
	})
}
