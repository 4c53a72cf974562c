package acp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
)

func TestKindOf(t *testing.T) {
	yes := true
	ro := &ragent.Annotations{ReadOnlyHint: &yes}
	for _, tc := range []struct {
		name     string
		readOnly bool
		want     ToolKind
	}{
		{"read_text_file", true, KindRead},
		{"read_file", false, KindRead},
		{"list_directory", true, KindRead},
		{"write_text_file", false, KindEdit},
		{"edit_file", false, KindEdit},
		{"create_directory", false, KindEdit},
		{"run_command", false, KindExecute},
		{"run_lua", false, KindExecute},
		{"search_files", true, KindSearch},
		{"mcp_search_tools", true, KindSearch},
		{"fetch", false, KindFetch},
		{"delete_file", false, KindDelete},
		{"move_file", false, KindMove},
		{"set_config", true, KindRead}, // an edit-sounding name the server says only reads
		{"echo", true, KindRead},
		{"echo", false, KindOther},
	} {
		c := ragent.Call{Name: "srv__" + tc.name, Tool: tc.name, ReadOnly: tc.readOnly}
		if tc.readOnly {
			c.Annotations = ro
		}
		if got := KindOf(c); got != tc.want {
			t.Errorf("%s (read-only %v): %s, want %s", tc.name, tc.readOnly, got, tc.want)
		}
	}
}

func TestLocationsOf(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"path":"a.txt"}`, `[{"path":"/w/a.txt"}]`},
		{`{"file_path":"/abs/b.go","line":12}`, `[{"path":"/abs/b.go","line":12}]`},
		{`{"paths":["x","/y"]}`, `[{"path":"/w/x"},{"path":"/y"}]`},
		{`{"url":"https://example.com"}`, `null`},
		{`{"path":"https://example.com/x"}`, `null`},
		{`not json`, `null`},
	} {
		b, _ := json.Marshal(LocationsOf(json.RawMessage(tc.args), "/w"))
		if string(b) != tc.want {
			t.Errorf("%s: %s, want %s", tc.args, b, tc.want)
		}
	}
}

func TestPromptText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		blocks string
		want   string
		kind   errs.Kind
	}{
		{"text", `[{"type":"text","text":"hi"},{"type":"text","text":" there"}]`, "hi there", 0},
		{"link", `[{"type":"text","text":"see"},{"type":"resource_link","uri":"file:///a.go","name":"a.go"}]`, "see\n[a.go](file:///a.go)\n", 0},
		{"embedded", `[{"type":"text","text":"fix"},{"type":"resource","resource":{"uri":"file:///a.go","text":"package a"}}]`, "fix\n<resource uri=\"file:///a.go\">\npackage a\n</resource>\n", 0},
		{"image", `[{"type":"image","data":"AA==","mimeType":"image/png"}]`, "", errs.Invalid},
		{"blob", `[{"type":"resource","resource":{"uri":"file:///a.bin","blob":"AA=="}}]`, "", errs.Invalid},
		{"unknown", `[{"type":"video"}]`, "", errs.Invalid},
		{"blank", `[{"type":"text","text":"  "}]`, "", errs.Invalid},
	} {
		var blocks []ContentBlock
		if err := json.Unmarshal([]byte(tc.blocks), &blocks); err != nil {
			t.Fatal(err)
		}
		got, err := PromptText(blocks)
		if got != tc.want || errs.KindOf(err) != tc.kind && !(tc.kind == 0 && err == nil) {
			t.Errorf("%s: %q, %v", tc.name, got, err)
		}
	}
}

func TestStopReason(t *testing.T) {
	for _, tc := range []struct {
		end  ragent.EndReason
		stop string
		want StopReason
	}{
		{ragent.EndAnswer, "end", StopEndTurn},
		{ragent.EndAnswer, "max_tokens", StopMaxTokens},
		{ragent.EndAnswer, "refusal", StopRefusal},
		{ragent.EndMaxTurns, "tool_calls", StopMaxTurnRequests},
		{ragent.EndCost, "end", StopMaxTurnRequests},
		{ragent.EndBudget, "end", StopMaxTokens},
		{ragent.EndCancelled, "", StopCancelled},
	} {
		tr := &Turn{Update: func(Update) {}}
		tr.Event(ragent.Event{Type: ragent.EventResponse, StopReason: tc.stop})
		tr.Event(ragent.Event{Type: ragent.EventEnd, End: tc.end})
		if got := tr.StopReason(); got != tc.want {
			t.Errorf("%s/%s: %s, want %s", tc.end, tc.stop, got, tc.want)
		}
	}
}

// A turn's events as updates: text chunks, a tool call from pending to
// its end, a denial as a failed call.
func TestTurnEvents(t *testing.T) {
	var got []string
	tr := &Turn{Cwd: "/w", Update: func(u Update) {
		b, _ := json.Marshal(u)
		got = append(got, string(b))
	}}
	call := &ragent.Call{ID: "c1", Name: "fs__write_file", Server: "fs", Tool: "write_file", Arguments: json.RawMessage(`{"path":"n.txt"}`)}
	res := ragent.TextResult("ok", false)
	for _, e := range []ragent.Event{
		{Type: ragent.EventText, Text: "Writing."},
		{Type: ragent.EventToolStart, Call: call},
		{Type: ragent.EventApproval, Call: call, Decision: ragent.Allow},
		{Type: ragent.EventToolEnd, Call: call, Result: &res},
		{Type: ragent.EventToolStart, Call: &ragent.Call{ID: "c2", Name: "x"}},
		{Type: ragent.EventApproval, Call: &ragent.Call{ID: "c2", Name: "x"}, Decision: ragent.Deny, Reason: "rejected in the editor"},
		{Type: ragent.EventApproval, Call: &ragent.Call{Kind: "sampling"}, Decision: ragent.Allow}, // not a call of the turn's: nothing
		{Type: ragent.EventToolEnd, Call: &ragent.Call{ID: "c3"}, Err: errors.New("boom")},         // not announced: the whole call
	} {
		tr.Event(e)
	}
	want := []string{
		`{"content":{"type":"text","text":"Writing."},"sessionUpdate":"agent_message_chunk"}`,
		`{"kind":"edit","locations":[{"path":"/w/n.txt"}],"rawInput":{"path":"n.txt"},"sessionUpdate":"tool_call","status":"pending","title":"fs: write_file","toolCallId":"c1"}`,
		`{"sessionUpdate":"tool_call_update","status":"in_progress","toolCallId":"c1"}`,
		`{"content":[{"content":{"type":"text","text":"ok"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c1"}`,
		`{"kind":"other","sessionUpdate":"tool_call","status":"pending","title":"x","toolCallId":"c2"}`,
		`{"content":[{"content":{"type":"text","text":"denied: rejected in the editor"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"c2"}`,
		`{"content":[{"content":{"type":"text","text":"boom"},"type":"content"}],"kind":"other","sessionUpdate":"tool_call","status":"failed","title":"tool","toolCallId":"c3"}`,
	}
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = sameJSON(got[i], want[i])
	}
	if !same {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReplay(t *testing.T) {
	msgs := []ragent.Message{
		{Role: "user", Parts: []ragent.Part{{Type: "text", Text: "hi"}}},
		{Role: "assistant", Parts: []ragent.Part{{Type: "text", Text: "calling"}}, ToolCalls: []ragent.ToolCall{{ID: "c1", Name: "read_file", Arguments: json.RawMessage(`{"path":"/a"}`)}}},
		{Role: "tool", ToolCallID: "c1", Parts: []ragent.Part{{Type: "text", Text: "contents"}}},
		{Role: "tool", ToolCallID: "c2", IsError: true},
		{Role: "assistant", Parts: []ragent.Part{{Type: "text", Text: "done"}}},
	}
	var got []string
	Replay(msgs, "/w", nil, func(u Update) {
		s := u.SessionUpdate
		if u.ToolCall != nil {
			s += ":" + string(u.ToolCall.Status) + ":" + string(u.ToolCall.Kind)
		}
		if u.Content != nil {
			s += ":" + u.Content.Text
		}
		got = append(got, s)
	})
	want := "user_message_chunk:hi agent_message_chunk:calling tool_call:pending:read tool_call_update:completed: tool_call_update:failed: agent_message_chunk:done"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// A write with the file's new text shows as a diff.
func TestToolCallDiff(t *testing.T) {
	c := ragent.Call{ID: "c", Name: "write_text_file", Arguments: json.RawMessage(`{"path":"a.txt","content":""}`)}
	b, _ := json.Marshal(ToolCallOf(c, "/w", StatusPending).Content)
	if string(b) != `[{"type":"diff","path":"/w/a.txt","newText":""}]` {
		t.Errorf("%s", b)
	}
}

// A model that numbers its calls from 1 each turn gets ids unique in the
// session; its updates and replays follow the renamed call.
func TestIDs(t *testing.T) {
	ids := &IDs{}
	var got []string
	for turn := 0; turn < 3; turn++ {
		tr := &Turn{IDs: ids, Update: func(u Update) { got = append(got, u.ToolCall.ToolCallID) }}
		c := &ragent.Call{ID: "call_1", Name: "x"}
		res := ragent.TextResult("ok", false)
		tr.Event(ragent.Event{Type: ragent.EventToolStart, Call: c})
		tr.Event(ragent.Event{Type: ragent.EventApproval, Call: c, Decision: ragent.Allow})
		tr.Event(ragent.Event{Type: ragent.EventToolEnd, Call: c, Result: &res})
	}
	if strings.Join(got, " ") != "call_1 call_1 call_1 call_1#2 call_1#2 call_1#2 call_1#3 call_1#3 call_1#3" {
		t.Errorf("ids: %v", got)
	}
	var nilIDs *IDs
	if nilIDs.Start("a") != "a" || nilIDs.Of("a") != "a" {
		t.Error("nil IDs")
	}
}

// A refused call is one failed update, sent at the refusal: the tool end
// the agent reports after it (its error, "the call was denied") adds none.
func TestDeniedCallIsOneUpdate(t *testing.T) {
	var got []Update
	tr := &Turn{Cwd: "/w", Update: func(u Update) { got = append(got, u) }}
	call := &ragent.Call{ID: "c1", Name: "x"}
	for _, e := range []ragent.Event{
		{Type: ragent.EventToolStart, Call: call},
		{Type: ragent.EventApproval, Call: call, Decision: ragent.Deny, Reason: "cancelled"},
		{Type: ragent.EventToolEnd, Call: call, Err: errors.New("agent: the call to x was denied: cancelled")},
	} {
		tr.Event(e)
	}
	failed := 0
	for _, u := range got {
		if u.ToolCall != nil && u.ToolCall.Status == StatusFailed {
			failed++
		}
	}
	if len(got) != 2 || failed != 1 {
		t.Errorf("%d updates, %d failed; want the tool call and one failed update: %+v", len(got), failed, got)
	}
	// The model uses the id again (some local servers number each
	// response's calls from 1): this call is allowed and ends.
	got = nil
	for _, e := range []ragent.Event{
		{Type: ragent.EventToolStart, Call: call},
		{Type: ragent.EventApproval, Call: call, Decision: ragent.Allow},
		{Type: ragent.EventToolEnd, Call: call, Result: &ragent.Result{}},
	} {
		tr.Event(e)
	}
	if len(got) != 3 || got[2].ToolCall == nil || got[2].ToolCall.Status != StatusCompleted {
		t.Errorf("the id used again: %+v", got)
	}
}

// A tool call's raw input reaches the client as the model sent it: a
// large integer keeps every digit.
func TestUpdateKeepsRawInput(t *testing.T) {
	u := Update{SessionUpdate: UpdateToolCall, ToolCall: &ToolCall{ToolCallID: "c1", Title: "x", RawInput: json.RawMessage(`{"n":12345678901234567890}`)}}
	b, err := json.Marshal(u)
	if err != nil || !strings.Contains(string(b), `"rawInput":{"n":12345678901234567890}`) {
		t.Errorf("%s %v", b, err)
	}
}
