// Package trace carries typed events about what luagent does on the wire and
// with processes, to sinks: a JSONL file (--trace FILE), human lines on
// stderr (-v), or nothing. Events hold names and ids, never environment
// values or tokens: whoever builds an Event must not put secrets in it, and
// the sinks print only the fields defined here.
package trace

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/visible"
)

// Kind says what happened.
type Kind string

const (
	RequestSent     Kind = "request_sent"
	Response        Kind = "response"
	ErrorReply      Kind = "error"
	NotificationIn  Kind = "notification_in"
	NotificationOut Kind = "notification_out"
	ProcessStarted  Kind = "process_started"
	ProcessStopped  Kind = "process_stopped"
	JunkSkipped     Kind = "junk_skipped"
	BufferMoved     Kind = "buffer_moved"     // a stdout line came in pieces: Count its bytes; Message how many reads
	StreamCancelled Kind = "stream_cancelled" // a 2026-07-28 HTTP request cancelled by closing its stream (nothing sent)
	ToolsRefreshed  Kind = "tools_refreshed"
	ToolDropped     Kind = "tool_dropped"
	ToolCallStart   Kind = "tool_call_start"
	ToolCallEnd     Kind = "tool_call_end"
	EraChosen       Kind = "era_chosen"
	Retry           Kind = "retry" // a request sent again (broken reply stream, stale tools/list; a model's 429/5xx or fallback: Method the model, Count the attempt, Duration the wait)

	// An agent's loop (runtime/agent). Method is the model's name on model
	// events; Tool is the name the model called; Count is the turn.
	ModelRequest  Kind = "model_request"   // Count: the turn; Message: how many messages and tools
	ModelResponse Kind = "model_response"  // Duration; Message: stop reason and tokens, or the error
	Approval      Kind = "approval"        // Tool; Message: "allow|deny: reason"
	AgentToolCall Kind = "agent_tool_call" // Tool, Server, Duration; Message: the error, if any
	AgentEnd      Kind = "agent_end"       // Count: turns; Duration; Message: the end reason (answer, max_turns, ...)
	Hook          Kind = "hook"            // Method: the event; Tool; Count: hooks run; Duration; Message: what they said
	Compact       Kind = "compact"         // Method: the trigger; Count: messages summarised; Input, Output: tokens before, after; Duration; Message: what it did

	// Span starts: each pairs with the end kind above it in a span
	// (Span names both). AgentStart → AgentEnd, TurnStart → TurnEnd,
	// ModelRequest → ModelResponse, AgentToolStart → AgentToolCall,
	// RequestSent → Response or ErrorReply.
	AgentStart     Kind = "agent_start"      // Method: the model
	TurnStart      Kind = "turn_start"       // Count: the turn
	TurnEnd        Kind = "turn_end"         // Count: the turn; Duration; Message: stop reason or error
	AgentToolStart Kind = "agent_tool_start" // Tool, Server, ID: the model's call id

	// A server's side (luagent serve): a request from a client and the
	// answer to it, one span; Tool on tools/call, Code and Error on a
	// JSON-RPC error, Error alone on a tool result with isError.
	RequestIn Kind = "request_in"
	ReplySent Kind = "reply_sent"
)

// Event is one traced occurrence. Zero fields are omitted from output.
type Event struct {
	Time time.Time `json:"time"`
	Kind Kind      `json:"kind"`
	// Span names the operation an event starts or ends (see the span
	// kinds); Parent the operation it ran under. Both are 16 hex digits.
	Span     string        `json:"span,omitempty"`
	Parent   string        `json:"parent,omitempty"`
	Agent    string        `json:"agent,omitempty"` // the agent's name, on its events
	Server   string        `json:"server,omitempty"`
	Method   string        `json:"method,omitempty"`
	ID       string        `json:"id,omitempty"`
	Tool     string        `json:"tool,omitempty"`
	Duration time.Duration `json:"duration_ns,omitempty"`
	Code     int           `json:"code,omitempty"`          // JSON-RPC error code
	Exit     *int          `json:"exit,omitempty"`          // process exit status
	PID      int           `json:"pid,omitempty"`           // process id
	Count    int           `json:"count,omitempty"`         // tools refreshed, bytes skipped
	Message  string        `json:"message,omitempty"`       // error text, era, junk preview
	Error    string        `json:"error,omitempty"`         // the failure, on an end event that failed
	Input    int           `json:"input_tokens,omitempty"`  // on model responses
	Output   int           `json:"output_tokens,omitempty"` // on model responses
	Command  string        `json:"command,omitempty"`       // program and arguments, never env values
	EnvNames []string      `json:"env_names,omitempty"`     // names of env variables set for a process
	// CostUSD is a model response's cost by its model's price (nil: no
	// price known, or not a model response).
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// NewSpan returns a fresh span id: 16 hex digits, not secret (ids need to
// be unique in a trace, not unguessable).
func NewSpan() string {
	var b [8]byte
	u := rand.Uint64()
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return hex.EncodeToString(b[:])
}

type spanKey struct{}

// WithSpan returns ctx carrying span as the parent of what runs under it
// (an agent's tool call carries it to the MCP request it makes).
func WithSpan(ctx context.Context, span string) context.Context {
	return context.WithValue(ctx, spanKey{}, span)
}

// SpanOf returns the span ctx carries, or "".
func SpanOf(ctx context.Context) string {
	s, _ := ctx.Value(spanKey{}).(string)
	return s
}

// Sink receives events. Implementations must be safe for concurrent use.
type Sink interface {
	Emit(Event)
}

// Nop discards events.
var Nop Sink = nopSink{}

type nopSink struct{}

func (nopSink) Emit(Event) {}

// Enabled says whether events sent to s go anywhere: a caller that
// builds an event at a cost (a span id, a parsed name) checks it first.
func Enabled(s Sink) bool { return s != nil && s != Nop }

// Emit sends e to s with the time filled in; s may be nil. A URL in its
// text (an error quoting one, a server named by its URL) reaches no sink
// with its secrets: each is shown as secret.URL shows it.
func Emit(s Sink, e Event) {
	if !Enabled(s) {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Server, e.Message, e.Error, e.Command = secret.URLsIn(e.Server), secret.URLsIn(e.Message), secret.URLsIn(e.Error), secret.URLsIn(e.Command)
	s.Emit(e)
}

// JSONL writes one JSON object per line.
type JSONL struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONL returns a sink writing to w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: w} }

func (j *JSONL) Emit(e Event) {
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	b = append(b, '\n')
	j.mu.Lock()
	j.w.Write(b)
	j.mu.Unlock()
}

// Human writes one readable line per event, for -v.
type Human struct {
	mu sync.Mutex
	w  io.Writer
}

// NewHuman returns a sink writing human lines to w.
func NewHuman(w io.Writer) *Human { return &Human{w: w} }

func (h *Human) Emit(e Event) {
	line := fmt.Sprintf("%s trace %s", e.Time.Format("15:04:05.000"), e.Kind)
	if e.Agent != "" {
		line += " agent=" + e.Agent
	}
	if e.Server != "" {
		line += " [" + e.Server + "]"
	}
	if e.Method != "" {
		line += " " + e.Method
	}
	if e.Tool != "" {
		line += " tool=" + e.Tool
	}
	if e.ID != "" {
		line += " id=" + e.ID
	}
	if e.Code != 0 {
		line += fmt.Sprintf(" code=%d", e.Code)
	}
	if e.Exit != nil {
		line += fmt.Sprintf(" exit=%d", *e.Exit)
	}
	if e.PID != 0 {
		line += fmt.Sprintf(" pid=%d", e.PID)
	}
	if e.Count != 0 {
		line += fmt.Sprintf(" count=%d", e.Count)
	}
	if e.Duration != 0 {
		line += " in " + e.Duration.Round(time.Microsecond).String()
	}
	if e.Command != "" {
		line += " cmd=" + e.Command
	}
	if len(e.EnvNames) > 0 {
		line += fmt.Sprintf(" env=%v", e.EnvNames)
	}
	if e.Input != 0 || e.Output != 0 {
		line += fmt.Sprintf(" tokens=%d+%d", e.Input, e.Output)
	}
	if e.CostUSD != nil {
		line += fmt.Sprintf(" cost=$%.6f", *e.CostUSD)
	}
	if e.Message != "" {
		line += ": " + e.Message
	}
	if e.Error != "" && e.Error != e.Message {
		line += ": " + e.Error
	}
	line = visible.Line(line) // names and messages are the servers' own
	h.mu.Lock()
	fmt.Fprintln(h.w, line)
	h.mu.Unlock()
}

// Multi sends each event to every sink.
type Multi []Sink

func (m Multi) Emit(e Event) {
	for _, s := range m {
		s.Emit(e)
	}
}

// Recorder keeps events in memory, for tests.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *Recorder) Emit(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// Events returns a copy of what was recorded.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}
