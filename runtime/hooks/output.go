package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Result is what one hook answered, read from its exit code and output
// (ParseOutput) or from a Lua handler's return. The agent reads it per
// event (stdlib/doc/hooks.md has the table).
type Result struct {
	// Block: the hook blocks what the event is about (exit code 2,
	// "decision": "block", a permissionDecision or behavior "deny").
	// Reason is why, for the model (exit 2: stderr) or, for the events
	// where the model is not involved, for the user.
	Block  bool
	Reason string
	// Permission is PreToolUse's permissionDecision ("allow", "deny" or
	// "ask") or PermissionRequest's decision.behavior ("allow", "deny");
	// PermissionReason its reason.
	Permission       string
	PermissionReason string
	// UpdatedInput replaces the tool's arguments (PreToolUse,
	// PermissionRequest): a JSON object, or nil.
	UpdatedInput json.RawMessage
	// Context is additionalContext, or a UserPromptSubmit or SessionStart
	// hook's plain stdout: text added to what the model sees.
	Context string
	// Stop is "continue": false: the agent stops after the hooks ran,
	// StopReason shown to the user.
	Stop       bool
	StopReason string
	// SuppressOutput hides Output; SystemMessage is a warning for the
	// user; Output is a plain stdout not meant for the model.
	SuppressOutput bool
	SystemMessage  string
	Output         string
	// Error is a non-blocking failure (an exit code other than 0 and 2, a
	// timeout, a command that did not start), for the user: what is
	// being done goes on.
	Error string
}

// MaxText bounds each text a Result carries (a reason, a context, a
// message): a hook printing megabytes does not flood the model.
const MaxText = 10_000

// ParseOutput reads a command hook's answer for event ev, as Claude Code
// reads it: exit 0 goes on, its stdout a JSON object of fields (decision,
// reason, continue, stopReason, suppressOutput, systemMessage,
// hookSpecificOutput{permissionDecision, permissionDecisionReason,
// updatedInput, additionalContext, decision{behavior, message}}) or plain
// text; exit 2 blocks, stderr the reason; any other exit (or a timeout)
// is a non-blocking error. It never panics, whatever the bytes.
func ParseOutput(ev string, e Exec) Result {
	var r Result
	switch {
	case e.Err != nil || e.TimedOut:
		msg := "failed"
		if e.Err != nil {
			msg = e.Err.Error()
		}
		r.Error = clip(msg + stderrNote(e.Stderr))
	case e.Exit == 2:
		r.Block = true
		r.Reason = clip(strings.TrimSpace(text(e.Stderr)))
		if r.Reason == "" {
			r.Reason = "blocked by a " + ev + " hook (exit code 2, nothing on stderr)"
		}
	case e.Exit != 0:
		r.Error = clip(fmt.Sprintf("exited with code %d%s", e.Exit, stderrNote(e.Stderr)))
	default:
		out := bytes.TrimSpace(e.Stdout)
		if len(out) > 0 && out[0] == '{' && json.Valid(out) {
			readJSON(ev, out, &r, false)
		} else if s := strings.TrimSpace(text(out)); s != "" {
			if ev == UserPromptSubmit || ev == SessionStart {
				r.Context = clip(s)
			} else {
				r.Output = clip(s)
			}
		}
	}
	if e.Truncated && r.Error == "" && !r.Block {
		r.SystemMessage = join(r.SystemMessage, fmt.Sprintf("the hook printed more than luagent keeps (%d bytes); the rest was dropped", len(e.Stdout)))
	}
	return r
}

// ParseJSON reads the JSON object a Lua handler returned, as a command's
// stdout on exit 0; flat also reads hookSpecificOutput's fields at the top
// level (permissionDecision = "deny" beside reason).
func ParseJSON(ev string, raw []byte, flat bool) Result {
	var r Result
	readJSON(ev, raw, &r, flat)
	return r
}

func readJSON(ev string, raw []byte, r *Result, flat bool) {
	var o struct {
		Continue       *bool           `json:"continue"`
		StopReason     any             `json:"stopReason"`
		SuppressOutput bool            `json:"suppressOutput"`
		SystemMessage  any             `json:"systemMessage"`
		Decision       any             `json:"decision"`
		Reason         any             `json:"reason"`
		Specific       json.RawMessage `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(raw, &o) != nil {
		// Fields of the wrong type: read them one by one (below) where
		// they hold; the rest is as if absent.
		o.Continue, o.Specific = nil, nil
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			r.Output = clip(text(raw))
			return
		}
		var b bool
		if json.Unmarshal(m["continue"], &b) == nil {
			o.Continue = &b
		}
		json.Unmarshal(m["suppressOutput"], &o.SuppressOutput)
		json.Unmarshal(m["stopReason"], &o.StopReason)
		json.Unmarshal(m["systemMessage"], &o.SystemMessage)
		json.Unmarshal(m["decision"], &o.Decision)
		json.Unmarshal(m["reason"], &o.Reason)
		o.Specific = m["hookSpecificOutput"]
	}
	r.SuppressOutput = o.SuppressOutput
	r.SystemMessage = clip(str(o.SystemMessage))
	if o.Continue != nil && !*o.Continue {
		r.Stop, r.StopReason = true, clip(str(o.StopReason))
	}
	reason := clip(str(o.Reason))
	switch str(o.Decision) {
	case "block":
		r.Block, r.Reason = true, reason
		if ev == PreToolUse { // deprecated form of permissionDecision deny
			r.Permission, r.PermissionReason = "deny", reason
		}
	case "approve":
		if ev == PreToolUse { // deprecated form of permissionDecision allow
			r.Permission, r.PermissionReason = "allow", reason
		}
	}
	var spec map[string]json.RawMessage
	json.Unmarshal(o.Specific, &spec)
	if flat {
		var top map[string]json.RawMessage
		json.Unmarshal(raw, &top)
		for k, v := range top {
			if _, ok := spec[k]; !ok {
				if spec == nil {
					spec = map[string]json.RawMessage{}
				}
				spec[k] = v
			}
		}
	}
	if spec == nil {
		return
	}
	var s string
	if json.Unmarshal(spec["additionalContext"], &s) == nil {
		r.Context = clip(s)
	}
	if obj := object(spec["updatedInput"]); obj != nil {
		r.UpdatedInput = obj
	}
	switch ev {
	case PreToolUse:
		var d, why string
		json.Unmarshal(spec["permissionDecision"], &d)
		json.Unmarshal(spec["permissionDecisionReason"], &why)
		switch d {
		case "allow", "deny", "ask":
			r.Permission, r.PermissionReason = d, clip(why)
			if d == "deny" {
				r.Block, r.Reason = true, clip(why)
			}
		}
	case PermissionRequest:
		var d struct {
			Behavior     string          `json:"behavior"`
			Message      string          `json:"message"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
		}
		if json.Unmarshal(spec["decision"], &d) == nil {
			switch d.Behavior {
			case "allow", "deny":
				r.Permission, r.PermissionReason = d.Behavior, clip(d.Message)
				if d.Behavior == "deny" {
					r.Block, r.Reason = true, clip(d.Message)
				}
			}
			if obj := object(d.UpdatedInput); obj != nil {
				r.UpdatedInput = obj
			}
		}
	}
}

// object is raw when it is a JSON object, else nil.
func object(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil
	}
	return bytes.Clone(raw)
}

func str(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// text is b as valid UTF-8 (a hook may print anything).
func text(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

func clip(s string) string {
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

func stderrNote(b []byte) string {
	s := strings.TrimSpace(text(b))
	if s == "" {
		return ""
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return ": " + s
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
