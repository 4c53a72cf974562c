package agent

import (
	"context"
	"time"

	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// EventType says what an Event is.
type EventType string

// The event types.
const (
	EventText         EventType = "text"          // Text: a delta of the model's text
	EventToolStart    EventType = "tool_start"    // Call: the model asked for it
	EventApproval     EventType = "approval"      // Call, Decision, Reason
	EventToolProgress EventType = "tool_progress" // Call, Progress, Total, Message
	EventToolEnd      EventType = "tool_end"      // Call, Result, Duration, Err
	EventEnd          EventType = "end"           // Reason, Err
	// EventResponse is one model response, whole: Response (its text and
	// tool calls, in the model's order), Usage and StopReason. It comes
	// after the response's text deltas and before its calls start. Lua's
	// on_event does not get it (the deltas and calls say the same).
	EventResponse EventType = "response"
	// EventRetry is the model provider failing while the turn waits:
	// Notice says a retry coming (after Notice.Wait) or a fallback model
	// taking over; Message is it as a status line ("↻ provider
	// overloaded (529), retry 2/4 in 3.2s").
	EventRetry EventType = "retry"
)

// Event is one thing the loop did, for Config.OnEvent.
type Event struct {
	Type EventType
	Turn int // 1-based model turn
	Text string
	Call *Call
	// Decision and Reason of an approval.
	Decision Decision
	Reason   string
	// Progress of a running tool (Total is 0 when unknown); Message is
	// the server's progress message.
	Progress float64
	Total    float64
	Message  string
	// Result and Duration of a finished tool call; Err is why it failed
	// (the model then saw an error result), or why the loop ended.
	Result   *Result
	Duration time.Duration
	Err      error
	// End is the loop's end reason (EventEnd).
	End EndReason
	// Response, Usage and StopReason of a model response (EventResponse).
	Response   *Message
	Usage      Usage
	StopReason string
	// Model is the model that answered (EventResponse) when a fallback
	// did; "" is the agent's model.
	Model string
	// Notice is a retry's or a fallback's (EventRetry).
	Notice *llm.Notice
	// Compaction is what an EventCompact did (context.go).
	Compaction *Compaction
}

func (a *Agent) emit(e Event) {
	if a.cfg.OnEvent == nil {
		return
	}
	if a.secrets != nil {
		e.Text, e.Reason, e.Message, e.Err = a.redact(e.Text), a.redact(e.Reason), a.redact(e.Message), a.redactErr(e.Err)
		if e.Call != nil {
			e.Call = a.shown(e.Call)
		}
		if e.Result != nil {
			r := a.redactResult(*e.Result)
			e.Result = &r
		}
		if e.Response != nil {
			m := a.redactMessage(*e.Response)
			e.Response = &m
		}
		if e.Notice != nil {
			n := *e.Notice
			n.Message = a.redact(n.Message)
			e.Notice = &n
		}
	}
	a.evMu.Lock()
	defer a.evMu.Unlock()
	a.cfg.OnEvent(e)
}

// span starts a traced operation under the one ctx carries: its id, its
// parent's, and ctx carrying it to what runs under it. Untraced, it
// returns ctx as it is and no ids.
func (a *Agent) span(ctx context.Context) (context.Context, string, string) {
	if !trace.Enabled(a.cfg.Trace) {
		return ctx, "", ""
	}
	id := trace.NewSpan()
	return trace.WithSpan(ctx, id), id, trace.SpanOf(ctx)
}

func (a *Agent) trace(e trace.Event) {
	if e.Agent == "" {
		e.Agent = a.cfg.Name
	}
	e.Message, e.Error = a.redact(e.Message), a.redact(e.Error)
	trace.Emit(a.cfg.Trace, e)
}
