package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/llm"
)

// KindOf is a tool call's kind for the client: by the tool's name (its
// words: read_file is read, write_file edit, run_command execute), else
// by its annotations (read-only: read), else other.
func KindOf(c ragent.Call) ToolKind {
	name := c.Tool
	if name == "" {
		name = c.Name
	}
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == '/' || r == ' '
	})
	has := func(list ...string) bool {
		for _, w := range words {
			for _, l := range list {
				if w == l {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("search", "grep", "find", "glob", "query", "lookup"):
		return KindSearch
	case has("fetch", "http", "url", "download", "web", "browse", "curl"):
		return KindFetch
	case has("delete", "remove", "rm", "unlink", "rmdir"):
		return KindDelete
	case has("move", "rename", "mv"):
		return KindMove
	case has("run", "exec", "execute", "shell", "command", "bash", "terminal", "eval", "lua"):
		return KindExecute
	case has("write", "edit", "patch", "replace", "create", "update", "append", "insert", "save", "set", "mkdir", "put"):
		if c.ReadOnly {
			return KindRead
		}
		return KindEdit
	case has("read", "get", "list", "cat", "view", "show", "stat", "ls", "open", "load"):
		return KindRead
	case has("think", "plan"):
		return KindThink
	}
	if c.ReadOnly {
		return KindRead
	}
	return KindOther
}

// pathKeys are the argument names that hold a file a call works on.
var pathKeys = []string{"path", "file", "file_path", "filepath", "filename", "abs_path", "target", "source", "destination", "dest"}

// LocationsOf are the files a call's arguments name (a relative path is
// taken in cwd), with the line when one is given.
func LocationsOf(args json.RawMessage, cwd string) []Location {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var line *int
	for _, k := range []string{"line", "start_line", "line_number"} {
		if f, ok := m[k].(float64); ok && f >= 0 && f == float64(int(f)) {
			n := int(f)
			line = &n
			break
		}
	}
	var out []Location
	add := func(p string) {
		if p == "" || strings.Contains(p, "://") || len(out) >= 8 {
			return
		}
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		out = append(out, Location{Path: p, Line: line})
	}
	for _, k := range pathKeys {
		if s, ok := m[k].(string); ok {
			add(s)
		}
	}
	if list, ok := m["paths"].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				add(s)
			}
		}
	}
	return out
}

// TitleOf is a tool call's title: the tool's annotated title or name, the
// server's name before it.
func TitleOf(c ragent.Call) string {
	name := c.Tool
	if name == "" {
		name = c.Name
	}
	if c.Annotations != nil && c.Annotations.Title != "" {
		name = c.Annotations.Title
	}
	if name == "" {
		name = "tool"
	}
	if c.Server != "" {
		return c.Server + ": " + name
	}
	return name
}

// maxBlockText bounds the text of one block of a tool call's content
// shown to the client (the model gets the result as it is).
const maxBlockText = 64 << 10

// ResultContent is a tool result as tool call content: its MCP blocks are
// ACP content blocks (text, image, audio, resource_link, resource).
func ResultContent(r *ragent.Result) []ToolCallContent {
	if r == nil {
		return nil
	}
	var out []ToolCallContent
	for _, raw := range r.Content {
		var b ContentBlock
		if json.Unmarshal(raw, &b) != nil || b.Type == "" {
			continue
		}
		if len(b.Text) > maxBlockText {
			b.Text = b.Text[:maxBlockText] + "… (cut)"
		}
		out = append(out, ToolCallContent{Type: "content", Content: &b})
	}
	return out
}

func textContent(s string) []ToolCallContent {
	b := TextBlock(s)
	return []ToolCallContent{{Type: "content", Content: &b}}
}

// IDs makes tool call ids unique in a session: the model's own, unless
// the session used it before (a model that numbers its calls from 1 each
// turn, as the mock and some local servers do), then with "#N" added. An
// editor keys its tool calls by id: a repeated one would overwrite an
// earlier call's entry. The zero value is ready; nil keeps the model's ids.
type IDs struct {
	mu   sync.Mutex
	used map[string]bool
	cur  map[string]string // the model's id → the one given to its latest call
	kept map[string][]ToolCallContent
}

// Keep makes c part of the call's content when it ends (a terminal the
// call showed as it ran: an update's content replaces the last one's).
func (x *IDs) Keep(id string, c ...ToolCallContent) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.kept == nil {
		x.kept = map[string][]ToolCallContent{}
	}
	x.kept[id] = append(x.kept[id], c...)
}

// takeKept takes what Keep kept for the call.
func (x *IDs) takeKept(id string) []ToolCallContent {
	if x == nil {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	k := x.kept[id]
	delete(x.kept, id)
	return k
}

// Start gives the id of a new call the model named id.
func (x *IDs) Start(id string) string {
	if x == nil {
		return id
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.used == nil {
		x.used, x.cur = map[string]bool{}, map[string]string{}
	}
	out := id
	for n := 2; x.used[out]; n++ {
		out = fmt.Sprintf("%s#%d", id, n)
	}
	x.used[out] = true
	x.cur[id] = out
	return out
}

// Of is the id given to the latest call the model named id (id itself
// when none was started).
func (x *IDs) Of(id string) string {
	if x == nil {
		return id
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if out, ok := x.cur[id]; ok {
		return out
	}
	return id
}

// Turn turns one prompt's agent events into session updates and tells
// how the turn ended. Its methods are called one at a time (the agent's
// events are serialized).
type Turn struct {
	Cwd    string
	Update func(Update)
	// IDs are the session's tool call ids (nil: the model's as they are).
	IDs *IDs
	// stop is the last model response's stop reason.
	stop string
	end  ragent.EndReason
	// calls are the tool calls announced (run_lua's inner calls too);
	// denied those refused, whose failed update is sent at the refusal
	// (their end, which follows, adds nothing).
	calls  map[string]bool
	denied map[string]bool
}

// Event handles one agent event.
func (t *Turn) Event(e ragent.Event) {
	switch e.Type {
	case ragent.EventText:
		if e.Text != "" {
			b := TextBlock(e.Text)
			t.Update(Update{SessionUpdate: UpdateAgentMessage, Content: &b})
		}
	case ragent.EventToolStart:
		if e.Call == nil {
			return
		}
		if t.calls == nil {
			t.calls = map[string]bool{}
		}
		t.calls[e.Call.ID] = true
		delete(t.denied, e.Call.ID) // a model may use an id again
		tc := ToolCallOf(*e.Call, t.Cwd, StatusPending)
		tc.ToolCallID = t.IDs.Start(e.Call.ID)
		t.Update(Update{SessionUpdate: UpdateToolCall, ToolCall: tc})
	case ragent.EventApproval:
		if e.Call == nil || !t.calls[e.Call.ID] {
			return // not a tool call of this turn's (a server's sampling request)
		}
		if e.Decision == ragent.Deny {
			if t.denied == nil {
				t.denied = map[string]bool{}
			}
			t.denied[e.Call.ID] = true
			t.Update(Update{SessionUpdate: UpdateToolCallUpd, ToolCall: &ToolCall{ToolCallID: t.IDs.Of(e.Call.ID), Status: StatusFailed,
				Content: textContent("denied: " + e.Reason)}})
			return
		}
		t.Update(Update{SessionUpdate: UpdateToolCallUpd, ToolCall: &ToolCall{ToolCallID: t.IDs.Of(e.Call.ID), Status: StatusInProgress}})
	case ragent.EventToolEnd:
		if e.Call == nil || t.denied[e.Call.ID] {
			return
		}
		kind := UpdateToolCallUpd
		tc := &ToolCall{ToolCallID: t.IDs.Of(e.Call.ID), Status: StatusCompleted, Content: ResultContent(e.Result)}
		if !t.calls[e.Call.ID] { // not announced: the whole call, ended
			kind = UpdateToolCall
			tc = ToolCallOf(*e.Call, t.Cwd, StatusCompleted)
			tc.ToolCallID, tc.Content = t.IDs.Start(e.Call.ID), ResultContent(e.Result)
		}
		switch {
		case e.Err != nil:
			tc.Status = StatusFailed
			tc.Content = textContent(e.Err.Error())
		case e.Result != nil && e.Result.IsError:
			tc.Status = StatusFailed
		}
		if e.Result != nil && len(e.Result.StructuredContent) > 0 {
			tc.RawOutput = e.Result.StructuredContent
		}
		if k := t.IDs.takeKept(tc.ToolCallID); len(k) > 0 {
			tc.Content = append(k, tc.Content...)
		}
		t.Update(Update{SessionUpdate: kind, ToolCall: tc})
	case ragent.EventResponse:
		t.stop = e.StopReason
	case ragent.EventEnd:
		t.end = e.End
	}
}

// ToolCallOf is a tool_call for c.
// A call whose arguments hold a path and the file's whole new text
// ("content", "text" or "new_text") shows as a diff (the old text
// unknown here: the client has it).
func ToolCallOf(c ragent.Call, cwd string, st ToolCallStatus) *ToolCall {
	tc := &ToolCall{ToolCallID: c.ID, Title: TitleOf(c), Kind: KindOf(c), Status: st,
		Locations: LocationsOf(c.Arguments, cwd), RawInput: rawOrNil(c.Arguments)}
	if tc.Kind == KindEdit && len(tc.Locations) == 1 {
		var a map[string]any
		json.Unmarshal(c.Arguments, &a)
		for _, k := range []string{"content", "new_text", "text"} {
			if s, ok := a[k].(string); ok {
				text := s
				tc.Content = []ToolCallContent{{Type: "diff", Path: tc.Locations[0].Path, NewText: &text}}
				break
			}
		}
	}
	return tc
}

func rawOrNil(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || !json.Valid(r) {
		return nil
	}
	return r
}

// StopReason is how the turn ended, for session/prompt's answer.
func (t *Turn) StopReason() StopReason {
	switch t.end {
	case ragent.EndCancelled:
		return StopCancelled
	case ragent.EndMaxTurns, ragent.EndCost:
		return StopMaxTurnRequests
	case ragent.EndBudget:
		return StopMaxTokens
	}
	switch t.stop {
	case llm.StopMaxTokens:
		return StopMaxTokens
	case llm.StopRefusal:
		return StopRefusal
	}
	return StopEndTurn
}

// Replay tells a saved conversation as the updates that would have shown
// it: user and agent message chunks, each tool call and its result.
func Replay(msgs []ragent.Message, cwd string, ids *IDs, update func(Update)) {
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser, llm.RoleAssistant:
			kind := UpdateUserMessage
			if m.Role == llm.RoleAssistant {
				kind = UpdateAgentMessage
			}
			for _, p := range m.Parts {
				if p.Type == "text" && p.Text != "" {
					b := TextBlock(p.Text)
					update(Update{SessionUpdate: kind, Content: &b})
				}
			}
			for _, tc := range m.ToolCalls {
				c := ragent.Call{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
				call := ToolCallOf(c, cwd, StatusPending)
				call.ToolCallID = ids.Start(tc.ID)
				update(Update{SessionUpdate: UpdateToolCall, ToolCall: call})
			}
		case llm.RoleTool:
			st := StatusCompleted
			if m.IsError {
				st = StatusFailed
			}
			var text strings.Builder
			for _, p := range m.Parts {
				if p.Type == "text" {
					text.WriteString(p.Text)
				}
			}
			tc := &ToolCall{ToolCallID: ids.Of(m.ToolCallID), Status: st}
			if s := text.String(); s != "" {
				if len(s) > maxBlockText {
					s = s[:maxBlockText] + "… (cut)"
				}
				tc.Content = textContent(s)
			}
			update(Update{SessionUpdate: UpdateToolCallUpd, ToolCall: tc})
		}
	}
}
