// Package llm puts model providers behind one interface: a request of
// messages and tool definitions, a streamed response of text deltas and
// whole tool calls. Providers: OpenAI Chat Completions and every
// OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio, OpenRouter),
// Anthropic Messages, and mock, a deterministic model for demos and tests.
// It knows nothing of MCP: runtime/agent hands it the hub's tools.
package llm

import (
	"context"
	"encoding/json"
)

// Roles of a Message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleTool carries one tool call's result (ToolCallID, IsError).
	RoleTool = "tool"
)

// Part is one piece of a message's content.
type Part struct {
	// Type is "text" or "image".
	Type string
	Text string
	// MIME and Data hold an image ("image/png", the bytes).
	MIME string
	Data []byte
}

// Text is a text part.
func Text(s string) Part { return Part{Type: "text", Text: s} }

// ToolCall is the model asking for one tool.
type ToolCall struct {
	// ID pairs the call with its result (the provider's, or made up for
	// providers without one).
	ID   string
	Name string
	// Arguments is a JSON object (assembled from the stream's deltas).
	Arguments json.RawMessage
}

// Message is one turn of the conversation.
type Message struct {
	Role  string
	Parts []Part
	// ToolCalls are an assistant message's calls, in the model's order.
	ToolCalls []ToolCall
	// ToolCallID and IsError belong to a RoleTool message.
	ToolCallID string
	IsError    bool
}

// Tool is a tool the model may call.
type Tool struct {
	Name        string // ^[a-zA-Z0-9_-]{1,64}$
	Description string
	// Schema is the JSON Schema of the arguments (an object schema).
	Schema json.RawMessage
}

// Request is one model call.
type Request struct {
	// Model is the provider's model name ("gpt-4.1-mini"); "" is the
	// model's own default.
	Model    string
	System   string
	Messages []Message
	Tools    []Tool
	// MaxTokens bounds the answer (0: the provider's default, or 4096
	// where the API requires one).
	MaxTokens   int
	Temperature *float64
	Stop        []string
}

// Stop reasons of a Response.
const (
	StopEnd       = "end"        // the model finished its answer
	StopToolCalls = "tool_calls" // the model asks for tools
	StopMaxTokens = "max_tokens" // the answer was cut at MaxTokens
	StopStop      = "stop"       // a stop sequence ended it
	StopRefusal   = "refusal"    // the provider refused to answer (Anthropic's refusal, OpenAI's content_filter)
)

// Usage counts tokens. InputTokens is every prompt token, cached or not:
// CacheReadTokens (served from the provider's prompt cache) and
// CacheWriteTokens (written to it) are parts of it, so prices apply as
// (InputTokens-CacheReadTokens-CacheWriteTokens)*input + reads*cached +
// writes*cache-write.
type Usage struct {
	InputTokens      int
	OutputTokens     int
	CacheReadTokens  int
	CacheWriteTokens int
}

// Event is one piece of a streamed response, in order.
type Event struct {
	// Text is a delta of the answer's text ("" for a tool call event).
	Text string
	// ToolCall is a whole tool call, sent once its arguments are complete
	// (before the stream ends, for display). The calls to run are the
	// returned Response's: a stream that fails after a call's event
	// returns an error and no calls.
	ToolCall *ToolCall
}

// Response is a finished model call.
type Response struct {
	// Message is the assistant's whole message: its text and tool calls.
	Message    Message
	StopReason string
	Usage      Usage
	// Model names the model that answered when it is not the one asked
	// (a fallback answered); "" is the model asked.
	Model string
}

// Model is one configured model of one provider.
type Model interface {
	// Name is how the model was named ("openai:gpt-4.1-mini", "mock").
	Name() string
	// Stream runs req, calling on (if not nil) for each event as it
	// arrives, and returns the whole response. With on nil the providers
	// make a request without streaming. Ending ctx stops the stream. A
	// stream that ends before the provider's end event is an error, never
	// a shorter answer. Errors carry a kind: auth, rate_limit, bad_request, server,
	// timeout, cancelled, context_length (the request is longer than the
	// model's window) (runtime/errs), with the provider's message; a
	// stream that broke after events were sent is incomplete, never sent
	// again, and returns with its error the Response of the text that came.
	Stream(ctx context.Context, req *Request, on func(Event)) (*Response, error)
}
