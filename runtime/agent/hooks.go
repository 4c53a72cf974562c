package agent

import (
	"context"
	"encoding/json"
	"github.com/luagent/luagent/runtime/sessionid"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hooks"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// The lifecycle hooks (runtime/hooks; stdlib/doc/hooks.md): config.json's
// command hooks and Lua handlers, in Config.HookSet or added with On. The
// loop fires SessionStart (before the first Ask), UserPromptSubmit,
// PreToolUse, PermissionRequest (through the approver, where a person
// would be asked), PostToolUse and Stop (SubagentStop for Config.Subagent);
// the host fires SessionEnd (EndSession), Notification (Notify) and
// PreCompact (PreCompact). What a hook says for the user (its errors,
// systemMessage, stopReason) comes as EventHook events during an Ask, and
// in the Outcome the host's calls return.

// EndHook is the end of a loop a hook stopped: a UserPromptSubmit hook
// blocked the prompt, or a hook answered "continue": false.
const EndHook EndReason = "hook"

// EventHook is a hook's message for the user (Message).
const EventHook EventType = "hook"

// lifecycle is the agent's hook state.
type lifecycle struct {
	set *hooks.Set

	mu         sync.Mutex
	id, path   string // the session's id and transcript path (SetSession)
	started    bool   // SessionStart fired
	source     string // the next SessionStart's source ("": startup or resume)
	context    string // SessionStart hooks' context, in every system prompt
	stopActive bool   // the model goes on because a Stop hook said so
	halt       error  // a hook's continue:false, ending the loop after the turn
}

func (a *Agent) initHooks() {
	a.lc.set = a.cfg.HookSet
	if a.lc.set == nil {
		a.lc.set = hooks.NewSet()
	}
	a.approver.SetPermissionHook(a.permissionRequest)
	// An agent of a script is a session of its own until a host (ask,
	// chat) gives it the host's (SetSession).
	a.lc.id = sessionid.New()
}

// On adds a handler (a Lua function, a command) to the agent's hooks.
func (a *Agent) On(h hooks.Handler) { a.lc.set.Add(h) }

// HookSet is the agent's hooks.
func (a *Agent) HookSet() *hooks.Set { return a.lc.set }

// SetSession gives the hooks the session's id and transcript path (the
// host's: ask and chat make the id with sessionid.New).
func (a *Agent) SetSession(id, transcriptPath string) {
	a.lc.mu.Lock()
	a.lc.id, a.lc.path = id, transcriptPath
	a.lc.mu.Unlock()
}

// AdoptSession continues old's session (chat's /model builds a new agent
// for the same conversation): its id, and SessionStart already fired.
func (a *Agent) AdoptSession(old *Agent) {
	old.lc.mu.Lock()
	id, path, started, ctx := old.lc.id, old.lc.path, old.lc.started, old.lc.context
	old.lc.mu.Unlock()
	a.lc.mu.Lock()
	a.lc.id, a.lc.path, a.lc.started, a.lc.context = id, path, started, ctx
	a.lc.mu.Unlock()
}

// input is an event's hook input with the common fields filled.
func (a *Agent) input(ev string) hooks.Input {
	a.lc.mu.Lock()
	in := hooks.Input{SessionID: a.lc.id, TranscriptPath: a.lc.path, HookEventName: ev, PermissionMode: "default"}
	a.lc.mu.Unlock()
	in.Cwd, _ = os.Getwd()
	if a.cfg.Yes {
		in.PermissionMode = "bypassPermissions"
	}
	return in
}

// fire runs the event's hooks and shows their notes (as EventHook events).
func (a *Agent) fire(ctx context.Context, turn int, in hooks.Input, names ...string) hooks.Outcome {
	if !a.lc.set.Has(in.HookEventName) {
		return hooks.Outcome{}
	}
	start := time.Now()
	out := a.lc.set.Fire(ctx, in, names...)
	if out.Ran > 0 {
		a.trace(trace.Event{Kind: trace.Hook, Parent: trace.SpanOf(ctx), Method: in.HookEventName, Tool: in.ToolName,
			Count: out.Ran, Duration: time.Since(start), Message: said(out)})
	}
	for _, n := range out.Notes {
		a.emit(Event{Type: EventHook, Turn: turn, Message: n})
	}
	if out.Stop && out.StopReason != "" {
		a.emit(Event{Type: EventHook, Turn: turn, Message: in.HookEventName + " hook stopped the agent: " + out.StopReason})
	}
	return out
}

// said is what an event's hooks said, for its trace event.
func said(out hooks.Outcome) string {
	switch {
	case out.Stop:
		return "stop: " + out.StopReason
	case out.Block:
		return "block: " + out.Reason
	case out.Permission != "":
		return "permission " + out.Permission
	}
	return "go on"
}

// stopped is the error of a loop a hook's continue:false ended.
func stopped(ev, reason string) error {
	msg := "a " + ev + " hook stopped the agent"
	if reason != "" {
		msg += ": " + reason
	}
	return errs.New(errs.Cancelled, "agent", msg)
}

// StartSession fires SessionStart, once per session (Ask does before its
// first prompt; a host may earlier). source is "startup", "resume",
// "clear" or "compact" ("": startup, or resume when the conversation was
// seeded). The hooks' additionalContext (or plain stdout) joins the
// system prompt.
func (a *Agent) StartSession(ctx context.Context, source string) hooks.Outcome {
	a.lc.mu.Lock()
	if a.lc.started {
		a.lc.mu.Unlock()
		return hooks.Outcome{}
	}
	a.lc.started = true
	if source == "" {
		source = a.lc.source
	}
	a.lc.mu.Unlock()
	if source == "" {
		source = "startup"
		if len(a.Messages()) > 0 {
			source = "resume"
		}
	}
	in := a.input(hooks.SessionStart)
	in.Source = source
	out := a.fire(ctx, 0, in)
	if out.Context != "" {
		a.lc.mu.Lock()
		a.lc.context = out.Context
		a.lc.mu.Unlock()
	}
	return out
}

// EndSession fires SessionEnd (reason: "clear", "logout",
// "prompt_input_exit" or "other"); the host shows the Outcome's notes.
// Its hooks cannot block the end.
func (a *Agent) EndSession(ctx context.Context, reason string) hooks.Outcome {
	in := a.input(hooks.SessionEnd)
	in.Reason = reason
	return a.fire(ctx, 0, in)
}

// Notify fires Notification: the host calls it when it notifies the
// person (an approval or a form waits: typ "permission_prompt" or
// "elicitation_dialog"; a long turn ended: "idle_prompt").
func (a *Agent) Notify(ctx context.Context, message, title, typ string) hooks.Outcome {
	in := a.input(hooks.Notification)
	in.Message, in.Title, in.NotificationType = message, title, typ
	return a.fire(ctx, 0, in)
}

// PreCompact fires PreCompact before the conversation is compacted
// (trigger "manual" or "auto"; instructions are what the person asked the
// summary to keep). ok is false when a hook blocked it (exit 2,
// "decision": "block" or "continue": false), with why.
func (a *Agent) PreCompact(ctx context.Context, trigger, instructions string) (ok bool, reason string, out hooks.Outcome) {
	in := a.input(hooks.PreCompact)
	in.Trigger, in.CustomInstructions = trigger, &instructions
	out = a.fire(ctx, 0, in)
	switch {
	case out.Block:
		return false, out.Reason, out
	case out.Stop:
		return false, out.StopReason, out
	}
	return true, "", out
}

// submit starts the session if it is not yet and fires UserPromptSubmit:
// the user message to add, or why the prompt is not to be run.
func (a *Agent) submit(ctx context.Context, prompt string) (llm.Message, EndReason, error) {
	a.lc.mu.Lock()
	a.lc.stopActive, a.lc.halt = false, nil
	started, source := a.lc.started, a.lc.source
	a.lc.mu.Unlock()
	if !started {
		// a.mu is held: StartSession cannot look at the conversation.
		if source == "" {
			source = "startup"
			if len(a.messages) > 0 {
				source = "resume"
			}
		}
		a.StartSession(ctx, source)
	}
	msg := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text(prompt)}}
	in := a.input(hooks.UserPromptSubmit)
	in.Prompt = prompt
	out := a.fire(ctx, 0, in)
	switch {
	case out.Stop:
		return msg, EndHook, stopped(hooks.UserPromptSubmit, out.StopReason)
	case out.Block:
		reason := out.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return msg, EndHook, errs.New(errs.Auth, "agent", "a UserPromptSubmit hook blocked the prompt: "+reason)
	}
	if out.Context != "" {
		msg.Parts = append(msg.Parts, llm.Text("Context from a UserPromptSubmit hook:\n"+out.Context))
	}
	return msg, "", nil
}

// withHookContext is the system prompt with SessionStart's context.
func (a *Agent) withHookContext(system string) string {
	a.lc.mu.Lock()
	c := a.lc.context
	a.lc.mu.Unlock()
	if c == "" {
		return system
	}
	if system != "" {
		system += "\n\n"
	}
	return system + "## Context from a SessionStart hook\n" + c
}

// halted is the error of a hook's continue:false during the turn (nil:
// go on).
func (a *Agent) halted() error {
	a.lc.mu.Lock()
	defer a.lc.mu.Unlock()
	return a.lc.halt
}

func (a *Agent) haltAfterTurn(ev, reason string) {
	a.lc.mu.Lock()
	if a.lc.halt == nil {
		a.lc.halt = stopped(ev, reason)
	}
	a.lc.mu.Unlock()
}

// hookNames are the names a tool hook's matcher is matched against: what
// the model called, and an MCP tool's name as Claude Code has it
// (mcp__server__tool), so a matcher written for Claude Code matches.
func hookNames(c *Call) []string {
	names := []string{c.Name}
	if c.Kind == KindMCP && c.Server != "" {
		names = append(names, "mcp__"+c.Server+"__"+c.Tool)
	}
	return names
}

// preToolUse fires PreToolUse for call: ctx carries its permission hint
// for the approver; denial is why the call is not to run ("": it runs);
// note is the hooks' additionalContext, for the result the model sees.
// updatedInput replaces call's arguments.
func (a *Agent) preToolUse(ctx context.Context, turn int, call *Call) (_ context.Context, denial, note string) {
	ctx = approval.WithHint(ctx, "", "") // a run_lua call's hint is not its snippet's calls'
	if !a.lc.set.Has(hooks.PreToolUse) {
		return ctx, "", ""
	}
	in := a.input(hooks.PreToolUse)
	in.ToolName, in.ToolInput, in.ToolUseID = call.Name, call.Arguments, call.ID
	out := a.fire(ctx, turn, in, hookNames(call)...)
	if out.Stop {
		a.haltAfterTurn(hooks.PreToolUse, out.StopReason)
		return ctx, "PreToolUse hook stopped the agent" + colon(out.StopReason), ""
	}
	if out.Block {
		return ctx, "PreToolUse hook: " + orElse(out.Reason, "blocked"), ""
	}
	if out.UpdatedInput != nil {
		call.Arguments = out.UpdatedInput
	}
	switch out.Permission {
	case "allow":
		ctx = approval.WithHint(ctx, Allow, "PreToolUse hook allowed it"+colon(out.PermissionReason))
	case "ask":
		ctx = approval.WithHint(ctx, Ask, "PreToolUse hook asks"+colon(out.PermissionReason))
	}
	return ctx, "", out.Context
}

// postToolUse fires PostToolUse for a call that ran: a block's reason,
// exit 2's stderr and additionalContext (with PreToolUse's note) join
// the result the model sees.
func (a *Agent) postToolUse(ctx context.Context, turn int, call Call, r Result, note string) Result {
	var add []string
	if note != "" {
		add = append(add, "Context from a PreToolUse hook:\n"+note)
	}
	if a.lc.set.Has(hooks.PostToolUse) {
		in := a.input(hooks.PostToolUse)
		in.ToolName, in.ToolInput, in.ToolUseID = call.Name, call.Arguments, call.ID
		in.ToolResponse, _ = json.Marshal(r)
		out := a.fire(ctx, turn, in, hookNames(&call)...)
		if out.Block {
			add = append(add, "PostToolUse hook: "+orElse(out.Reason, "the hook objects to this result"))
		}
		if out.Context != "" {
			add = append(add, "Context from a PostToolUse hook:\n"+out.Context)
		}
		if out.Stop {
			a.haltAfterTurn(hooks.PostToolUse, out.StopReason)
		}
	}
	if len(add) == 0 {
		return r
	}
	r.Content = append(append([]json.RawMessage(nil), r.Content...), TextResult(strings.Join(add, "\n\n"), false).Content...)
	return r
}

// permissionRequest is the approver's PermissionHook: PermissionRequest's
// hooks answer where a person would be asked.
func (a *Agent) permissionRequest(ctx context.Context, c Call, reason string) (Decision, string) {
	if !a.lc.set.Has(hooks.PermissionRequest) {
		return "", ""
	}
	in := a.input(hooks.PermissionRequest)
	in.ToolName, in.ToolInput, in.ToolUseID = c.Name, c.Arguments, c.ID
	out := a.fire(ctx, 0, in, hookNames(&c)...)
	switch {
	case out.Block:
		return Deny, "PermissionRequest hook: " + orElse(out.Reason, "denied")
	case out.Permission == "allow":
		return Allow, "PermissionRequest hook allowed it" + colon(out.PermissionReason)
	}
	return "", ""
}

// onStop fires Stop (SubagentStop) when the model answered: what to tell
// the model when a hook wants it to go on ("": the loop ends).
func (a *Agent) onStop(ctx context.Context, turn int) string {
	ev := hooks.Stop
	if a.cfg.Subagent {
		ev = hooks.SubagentStop
	}
	if !a.lc.set.Has(ev) {
		return ""
	}
	in := a.input(ev)
	a.lc.mu.Lock()
	active := a.lc.stopActive
	a.lc.mu.Unlock()
	in.StopHookActive = &active
	out := a.fire(ctx, turn, in)
	if out.Stop || !out.Block {
		return ""
	}
	a.lc.mu.Lock()
	a.lc.stopActive = true
	a.lc.mu.Unlock()
	return ev + " hook: " + orElse(out.Reason, "go on: the task is not finished")
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// resetHooks is Reset's: the next Ask starts a session again, from "clear".
func (a *Agent) resetHooks() {
	a.lc.mu.Lock()
	a.lc.started, a.lc.source, a.lc.context = false, "clear", ""
	a.lc.mu.Unlock()
}
