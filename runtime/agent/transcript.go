package agent

import (
	"encoding/json"
	"time"

	"github.com/luagent/luagent/runtime/llm"
)

// Transcript is what one Ask did: the messages it added to the
// conversation, every tool call with its decision and result, usage per
// model turn and in total, timings and why it ended. It marshals to JSON
// with these field names (stable; durations in nanoseconds, times in
// RFC 3339), and unmarshals back to an equal value:
//
//	{"model": "mock", "start": "...", "duration_ns": 1234,
//	 "end": "answer", "error": "", "error_kind": "",
//	 "messages": [{"role": "user", "parts": [{"type": "text", "text": "..."}]},
//	              {"role": "assistant", "tool_calls": [{"id": "c1", "name": "fs__read", "arguments": {...}}]},
//	              {"role": "tool", "tool_call_id": "c1", "is_error": false, "parts": [...]}],
//	 "turns": [{"turn": 1, "start": "...", "duration_ns": 99, "stop_reason": "tool_calls",
//	            "usage": {"input_tokens": 10, "output_tokens": 5}, "tool_calls": 1}],
//	 "tool_calls": [{"turn": 1, "id": "c1", "name": "fs__read", "server": "fs", "tool": "read",
//	                 "kind": "mcp", "arguments": {...}, "decision": "allow", "reason": "...",
//	                 "result": {"content": [...], "isError": false}, "error": "", "error_kind": "",
//	                 "start": "...", "duration_ns": 42}],
//	 "usage": {"input_tokens": 10, "output_tokens": 5}}
type Transcript struct {
	Model string `json:"model"`
	// ContextWindow is the model's window in tokens (0: unknown).
	ContextWindow int           `json:"context_window,omitempty"`
	Start         time.Time     `json:"start"`
	Duration      time.Duration `json:"duration_ns"`
	End           EndReason     `json:"end"`
	// Error and ErrorKind say why the loop ended when it was not an
	// answer (the kind's name: "timeout", "limit", ...).
	Error     string           `json:"error,omitempty"`
	ErrorKind string           `json:"error_kind,omitempty"`
	Messages  []Message        `json:"messages"`
	Turns     []Turn           `json:"turns"`
	ToolCalls []ToolCallRecord `json:"tool_calls"`
	Usage     Usage            `json:"usage"`
	// CostUSD is what this Ask's requests cost by their models' prices
	// (runtime/cost; config.json's "price"); Unpriced says a model had
	// none, so CostUSD counts the priced requests only. ModelUsage is
	// the tokens and cost of each model that answered.
	CostUSD    float64               `json:"cost_usd"`
	Unpriced   bool                  `json:"cost_unknown,omitempty"`
	ModelUsage map[string]ModelUsage `json:"model_usage,omitempty"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// The parts of InputTokens read from and written to the provider's
	// prompt cache.
	CacheReadTokens  int `json:"cache_read_input_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_creation_input_tokens,omitempty"`
}

// Total is input plus output.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Add adds v's counts to u's.
func (u *Usage) Add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CacheReadTokens += v.CacheReadTokens
	u.CacheWriteTokens += v.CacheWriteTokens
}

// Turn is one model call.
type Turn struct {
	Turn       int           `json:"turn"`
	Start      time.Time     `json:"start"`
	Duration   time.Duration `json:"duration_ns"`
	StopReason string        `json:"stop_reason,omitempty"`
	Usage      Usage         `json:"usage"`
	ToolCalls  int           `json:"tool_calls"`
	// Model is the model that answered when a fallback did; CostUSD is
	// the request's cost (nil: its model has no known price).
	Model   string   `json:"model,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// ToolCallRecord is one tool call: what was asked, decided and answered.
type ToolCallRecord struct {
	Turn      int             `json:"turn"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Server    string          `json:"server,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Kind      string          `json:"kind"`
	Arguments json.RawMessage `json:"arguments"`
	Decision  Decision        `json:"decision"`
	Reason    string          `json:"reason,omitempty"`
	// Result is what the tool answered (nil when it did not run or
	// failed with Error); the model saw it, or Error, as its result.
	Result    *Result       `json:"result,omitempty"`
	Error     string        `json:"error,omitempty"`
	ErrorKind string        `json:"error_kind,omitempty"`
	Start     time.Time     `json:"start"`
	Duration  time.Duration `json:"duration_ns"`
	// Parent is the run_lua call that made this one; Calls are a run_lua
	// call's own, in the order they ended.
	Parent string           `json:"parent,omitempty"`
	Calls  []ToolCallRecord `json:"calls,omitempty"`
}

// Message is a conversation message in the transcript (llm.Message with
// JSON names; image data is base64).
type Message struct {
	Role       string     `json:"role"`
	Parts      []Part     `json:"parts,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	IsError    bool       `json:"is_error,omitempty"`
}

// Part is a piece of a Message.
type Part struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	MIME string `json:"mime,omitempty"`
	Data []byte `json:"data,omitempty"`
}

// ToolCall is a model's tool call in a Message.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func messageOf(m llm.Message) Message {
	out := Message{Role: m.Role, ToolCallID: m.ToolCallID, IsError: m.IsError}
	for _, p := range m.Parts {
		out.Parts = append(out.Parts, Part(p))
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall(tc))
	}
	return out
}

// LLM returns the message as the model interface has it (to resume a
// saved conversation).
func (m Message) LLM() llm.Message {
	out := llm.Message{Role: m.Role, ToolCallID: m.ToolCallID, IsError: m.IsError}
	for _, p := range m.Parts {
		out.Parts = append(out.Parts, llm.Part(p))
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall(tc))
	}
	return out
}
