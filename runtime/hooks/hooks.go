// Package hooks is luagent's lifecycle hooks in Claude Code's format: the
// events (SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest,
// PostToolUse, Notification, PreCompact, Stop, SubagentStop, SessionEnd),
// the "hooks" member of a config.json (Parse), the event as JSON on a
// command's stdin (Input), the command runner (Runner: sh -c, bounded in
// time and output, its process group killed), what a hook's exit code and
// stdout say (ParseOutput), and a Set of handlers that fires an event and
// merges what they answered (Outcome). A handler is a command or a Lua
// function (luabind adapts it); runtime/agent fires the events.
//
//	cfg, problems := hooks.Parse(raw, "/home/me/.luagent/config.json")
//	set := hooks.NewSet(hooks.Commands(cfg, hooks.Runner{Dir: cwd})...)
//	out := set.Fire(ctx, hooks.Input{HookEventName: hooks.PreToolUse, ToolName: "fs__write", ...}, "fs__write", "mcp__fs__write")
//	if out.Block { ... out.Reason goes to the model ... }
package hooks

import "encoding/json"

// The events luagent fires (Claude Code's names).
const (
	SessionStart      = "SessionStart"
	UserPromptSubmit  = "UserPromptSubmit"
	PreToolUse        = "PreToolUse"
	PermissionRequest = "PermissionRequest"
	PostToolUse       = "PostToolUse"
	Notification      = "Notification"
	PreCompact        = "PreCompact"
	Stop              = "Stop"
	SubagentStop      = "SubagentStop"
	SessionEnd        = "SessionEnd"
)

// Events are the events luagent fires, in the order of a session.
var Events = []string{SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse,
	Notification, PreCompact, Stop, SubagentStop, SessionEnd}

// Fired reports whether luagent fires ev. Claude Code has events luagent
// does not (PostToolUseFailure, ...): a config.json may name them (a file
// copied from Claude Code still loads), and their hooks never run.
func Fired(ev string) bool {
	for _, e := range Events {
		if e == ev {
			return true
		}
	}
	return false
}

// Input is an event as a hook gets it: the JSON object on a command's
// stdin, the table a Lua handler gets. The common fields are always
// there; the others only for the events that have them.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode,omitempty"`
	HookEventName  string `json:"hook_event_name"`

	// PreToolUse, PermissionRequest, PostToolUse: ToolName is the
	// qualified name (server__tool, or a local tool's own name).
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"` // PostToolUse
	ToolUseID    string          `json:"tool_use_id,omitempty"`

	// UserPromptSubmit.
	Prompt string `json:"prompt,omitempty"`
	// Stop, SubagentStop: whether the model goes on because a Stop hook
	// said so already (a hook checks it so as not to loop forever).
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// SessionStart: "startup", "resume", "clear" or "compact".
	Source string `json:"source,omitempty"`
	// SessionEnd: "clear", "logout", "prompt_input_exit" or "other".
	Reason string `json:"reason,omitempty"`
	// Notification.
	Message          string `json:"message,omitempty"`
	Title            string `json:"title,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
	// PreCompact: "manual" or "auto", and what the person asked the
	// compaction to keep.
	Trigger            string  `json:"trigger,omitempty"`
	CustomInstructions *string `json:"custom_instructions,omitempty"`
}

// matchOn is what an event's matcher is matched against besides a tool's
// names: the field Claude Code matches for that event.
func (in *Input) matchOn() string {
	switch in.HookEventName {
	case SessionStart:
		return in.Source
	case SessionEnd:
		return in.Reason
	case Notification:
		return in.NotificationType
	case PreCompact:
		return in.Trigger
	}
	return ""
}

// matched reports whether the event has a matcher at all: the others run
// every hook of the event whatever its matcher says.
func matched(ev string) bool {
	switch ev {
	case UserPromptSubmit, Stop, SubagentStop:
		return false
	}
	return true
}
