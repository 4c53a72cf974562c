package headless

import (
	"encoding/json"
	"strings"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// The messages, field for field as the Claude Agent SDK types them. The
// fields luagent has no value for carry the SDK's neutral one (no slash
// commands, output style "default"). Costs are the models' prices
// (runtime/cost); a model with no known price counts 0 in them (the
// SDK's fields are numbers), and the result's cost_unknown says so.

// SystemInit is the first line of a stream: the session and what it has.
type SystemInit struct {
	Type           string      `json:"type"`    // "system"
	Subtype        string      `json:"subtype"` // "init"
	Cwd            string      `json:"cwd"`
	SessionID      string      `json:"session_id"`
	Tools          []string    `json:"tools"`
	MCPServers     []MCPServer `json:"mcp_servers"`
	Model          string      `json:"model"`
	PermissionMode string      `json:"permissionMode"`
	SlashCommands  []string    `json:"slash_commands"`
	APIKeySource   string      `json:"apiKeySource"`
	OutputStyle    string      `json:"output_style"`
	Skills         []string    `json:"skills"`
	Plugins        []struct{}  `json:"plugins"`
	// ClaudeCodeVersion is luagent's version (the SDK requires the field).
	ClaudeCodeVersion string `json:"claude_code_version"`
	UUID              string `json:"uuid"`
}

// CompactBoundary says the conversation was compacted (context.md): the
// SDK's SDKCompactBoundaryMessage.
type CompactBoundary struct {
	Type            string          `json:"type"`    // "system"
	Subtype         string          `json:"subtype"` // "compact_boundary"
	CompactMetadata CompactMetadata `json:"compact_metadata"`
	SessionID       string          `json:"session_id"`
	UUID            string          `json:"uuid"`
}

// CompactMetadata is a compact_boundary's figures.
type CompactMetadata struct {
	Trigger    string `json:"trigger"` // "auto" or "manual"
	PreTokens  int    `json:"pre_tokens"`
	PostTokens int    `json:"post_tokens"`
	DurationMS int64  `json:"duration_ms"`
}

// MCPServer is one server of the init line: its catalog name and status
// (connected, failed, needs-auth, pending, disabled).
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

// AssistantMessage is one model response.
type AssistantMessage struct {
	Type            string     `json:"type"` // "assistant"
	Message         APIMessage `json:"message"`
	ParentToolUseID *string    `json:"parent_tool_use_id"`
	SessionID       string     `json:"session_id"`
	UUID            string     `json:"uuid"`
}

// APIMessage is an assistant message as the Messages API returns it.
type APIMessage struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"` // "message"
	Role         string    `json:"role"` // "assistant"
	Model        string    `json:"model"`
	Content      []Block   `json:"content"`
	StopReason   *string   `json:"stop_reason"`
	StopSequence *string   `json:"stop_sequence"`
	Usage        UsageJSON `json:"usage"`
	// The Messages API's other members, always null here.
	Container         *struct{} `json:"container"`
	ContextManagement *struct{} `json:"context_management"`
	Diagnostics       *struct{} `json:"diagnostics"`
	StopDetails       *struct{} `json:"stop_details"`
}

// UserMessage carries tool results back (the model's view of them).
type UserMessage struct {
	Type            string  `json:"type"` // "user"
	Message         UserAPI `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
}

// UserAPI is a user message's role and content.
type UserAPI struct {
	Role    string  `json:"role"` // "user"
	Content []Block `json:"content"`
}

// Block is a content block: text, tool_use, tool_result or image.
type Block struct {
	Type string `json:"type"`
	// text (Citations: a text block's, null)
	Text      *string     `json:"text,omitempty"`
	Citations *[]struct{} `json:"citations,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	// (Content is a []Block; any, so that an empty one is still there.)
	ToolUseID string `json:"tool_use_id,omitempty"`
	Content   any    `json:"content,omitempty"`
	IsError   *bool  `json:"is_error,omitempty"`
	// image
	Source *ImageSource `json:"source,omitempty"`
}

// ImageSource is an image block's data.
type ImageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// UsageJSON is token usage as the Messages API counts it: input_tokens
// are the prompt's tokens that were not read from or written to the
// provider's prompt cache, cache_read_input_tokens and
// cache_creation_input_tokens those that were.
type UsageJSON struct {
	InputTokens              int           `json:"input_tokens"`
	OutputTokens             int           `json:"output_tokens"`
	CacheCreationInputTokens int           `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int           `json:"cache_read_input_tokens"`
	CacheCreation            CacheCreation `json:"cache_creation"`
	ServerToolUse            ServerToolUse `json:"server_tool_use"`
	ServiceTier              string        `json:"service_tier"` // "standard"
	// The API's newer members, with their neutral values.
	FallbackCredit      *struct{}           `json:"fallback_credit"`
	InferenceGeo        string              `json:"inference_geo"`
	Iterations          []struct{}          `json:"iterations"`
	OutputTokensDetails OutputTokensDetails `json:"output_tokens_details"`
	Speed               string              `json:"speed"` // "standard"
}

// OutputTokensDetails breaks the output tokens down (luagent's: 0).
type OutputTokensDetails struct {
	ThinkingTokens int `json:"thinking_tokens"`
}

// CacheCreation is the Messages API's cache breakdown: luagent's cache
// writes are all five-minute ones (cache_control "ephemeral").
type CacheCreation struct {
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
}

// ServerToolUse counts the API's own tools' requests (luagent's: 0).
type ServerToolUse struct {
	WebSearchRequests int `json:"web_search_requests"`
	WebFetchRequests  int `json:"web_fetch_requests"`
}

// usageOf is a usage as the Messages API counts it.
func usageOf(u ragent.Usage) UsageJSON {
	return UsageJSON{InputTokens: uncached(u), OutputTokens: u.OutputTokens,
		CacheCreationInputTokens: u.CacheWriteTokens, CacheReadInputTokens: u.CacheReadTokens,
		CacheCreation: CacheCreation{Ephemeral5m: u.CacheWriteTokens},
		ServiceTier:   "standard", Iterations: []struct{}{}, Speed: "standard"}
}

// uncached is the part of u's input tokens neither read from nor written
// to the cache (luagent's InputTokens counts them all).
func uncached(u ragent.Usage) int {
	return max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
}

// ResultMessage is the last line of a run (each input message's, with
// --input-format stream-json), and json's one object.
type ResultMessage struct {
	Type              string                `json:"type"`    // "result"
	Subtype           string                `json:"subtype"` // Success, ErrorMaxTurns, ErrorDuringExecution
	IsError           bool                  `json:"is_error"`
	DurationMS        int64                 `json:"duration_ms"`
	DurationAPIMS     int64                 `json:"duration_api_ms"`
	NumTurns          int                   `json:"num_turns"`
	Result            string                `json:"result"`
	StopReason        *string               `json:"stop_reason"`
	SessionID         string                `json:"session_id"`
	TotalCostUSD      float64               `json:"total_cost_usd"`
	Usage             UsageJSON             `json:"usage"`
	ModelUsage        map[string]ModelUsage `json:"modelUsage"`
	PermissionDenials []PermissionDenial    `json:"permission_denials"`
	// Errors says why, on an error result (the SDK's errors: string[]).
	Errors []string `json:"errors,omitempty"`
	// ErrorKind is luagent's own: the error's kind (auth, limit,
	// timeout, ...), as ask's text mode prints it.
	ErrorKind string `json:"error_kind,omitempty"`
	UUID      string `json:"uuid"`
	// CostUnknown is luagent's own: a model that answered has no known
	// price, so total_cost_usd counts only the priced ones.
	CostUnknown bool `json:"cost_unknown,omitempty"`
}

// ModelUsage is one model's usage in a result.
type ModelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	// ContextWindow is the model's window (0: unknown); MaxOutputTokens
	// is 0: not known here.
	ContextWindow   int `json:"contextWindow"`
	MaxOutputTokens int `json:"maxOutputTokens"`
}

// PermissionDenial is a tool call the rules or the policy refused.
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// The result subtypes luagent gives (the SDK's names).
const (
	Success              = "success"
	ErrorMaxTurns        = "error_max_turns"
	ErrorMaxBudgetUSD    = "error_max_budget_usd"
	ErrorDuringExecution = "error_during_execution"
)

// assistantOf is a model response as an assistant message.
func assistantOf(m *ragent.Message, model string, u ragent.Usage, stop, session, uuid string) AssistantMessage {
	content := []Block{}
	for _, p := range m.Parts {
		if p.Type == "text" && p.Text != "" {
			t := p.Text
			content = append(content, Block{Type: "text", Text: &t, Citations: &noCitations})
		}
	}
	for _, tc := range m.ToolCalls {
		content = append(content, Block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: objectOf(tc.Arguments)})
	}
	return AssistantMessage{Type: "assistant", SessionID: session, UUID: uuid,
		Message: APIMessage{ID: msgID(uuid), Type: "message", Role: "assistant", Model: model, Content: content,
			StopReason: stopReason(stop), Usage: usageOf(u)}}
}

// noCitations is an assistant text block's citations: null.
var noCitations []struct{}

// stopReason is a model's stop reason as the Messages API names it.
func stopReason(s string) *string {
	switch s {
	case "":
		return nil
	case llm.StopEnd:
		s = "end_turn"
	case llm.StopToolCalls:
		s = "tool_use"
	case llm.StopStop:
		s = "stop_sequence"
	}
	return &s
}

// objectOf is a tool call's arguments as a JSON object ({} when the model
// sent none, or something that is not one).
func objectOf(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil {
		return json.RawMessage(`{}`)
	}
	return raw
}

// toolResultOf is a finished call as the model saw its result.
func toolResultOf(e ragent.Event, session, uuid string) UserMessage {
	var content []Block
	isErr := false
	switch {
	case e.Result != nil:
		content, isErr = resultBlocks(e.Result), e.Result.IsError
	case e.Err != nil:
		t := e.Err.Error()
		content, isErr = []Block{{Type: "text", Text: &t}}, true
	}
	if content == nil {
		content = []Block{}
	}
	id := ""
	if e.Call != nil {
		id = e.Call.ID
	}
	return UserMessage{Type: "user", SessionID: session, UUID: uuid,
		Message: UserAPI{Role: "user", Content: []Block{{Type: "tool_result", ToolUseID: id, Content: content, IsError: &isErr}}}}
}

// resultBlocks are an MCP result's content blocks as the Messages API's:
// text as text, images as base64 images, the rest (audio, resources) as
// a text naming them.
func resultBlocks(r *ragent.Result) []Block {
	out := []Block{}
	for _, raw := range r.Content {
		var b struct {
			Type, Text, Data, MimeType, URI string
			Resource                        struct{ URI, Text string }
		}
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		var t string
		switch b.Type {
		case "text":
			t = b.Text
		case "image":
			out = append(out, Block{Type: "image", Source: &ImageSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
			continue
		case "resource":
			t = b.Resource.Text
			if t == "" {
				t = "[resource " + b.Resource.URI + "]"
			}
		case "resource_link":
			t = "[resource_link " + b.URI + "]"
		default:
			t = "[" + b.Type + "]"
		}
		out = append(out, Block{Type: "text", Text: &t})
	}
	if len(out) == 0 && len(r.StructuredContent) > 0 {
		t := string(r.StructuredContent)
		out = append(out, Block{Type: "text", Text: &t})
	}
	return out
}

// ResultOf is the result of one ask: tr (nil when the agent never ran),
// the answer text, and err, why it failed (nil: it answered). took is the
// ask's wall time.
func ResultOf(tr *ragent.Transcript, text string, err error, took time.Duration, session, uuid string) ResultMessage {
	r := ResultMessage{Type: "result", Subtype: Success, Result: text, SessionID: session, UUID: uuid,
		DurationMS: took.Milliseconds(), Usage: usageOf(ragent.Usage{}), ModelUsage: map[string]ModelUsage{}, PermissionDenials: []PermissionDenial{}}
	if tr != nil {
		r.NumTurns = len(tr.Turns)
		var api time.Duration
		for _, t := range tr.Turns {
			api += t.Duration
		}
		r.DurationAPIMS = api.Milliseconds()
		r.Usage = usageOf(tr.Usage)
		if n := len(tr.Turns); n > 0 {
			r.StopReason = stopReason(tr.Turns[n-1].StopReason)
		}
		r.TotalCostUSD, r.CostUnknown = tr.CostUSD, tr.Unpriced
		for m, mu := range tr.ModelUsage {
			// Claude Code's shape: inputTokens is the uncached part.
			r.ModelUsage[m] = ModelUsage{InputTokens: uncached(mu.Usage), OutputTokens: mu.OutputTokens,
				CacheReadInputTokens: mu.CacheReadTokens, CacheCreationInputTokens: mu.CacheWriteTokens, CostUSD: mu.CostUSD,
				ContextWindow: windowOf(tr, m)}
		}
		if len(tr.ModelUsage) == 0 && tr.Model != "" {
			r.ModelUsage[tr.Model] = ModelUsage{InputTokens: uncached(tr.Usage), OutputTokens: tr.Usage.OutputTokens,
				CacheReadInputTokens: tr.Usage.CacheReadTokens, CacheCreationInputTokens: tr.Usage.CacheWriteTokens,
				ContextWindow: windowOf(tr, tr.Model)}
		}
		for _, c := range tr.ToolCalls {
			if c.Decision == ragent.Deny {
				r.PermissionDenials = append(r.PermissionDenials, PermissionDenial{ToolName: c.Name, ToolUseID: c.ID, ToolInput: objectOf(c.Arguments)})
			}
		}
	}
	if err != nil {
		r.IsError, r.Subtype = true, ErrorDuringExecution
		switch {
		case tr != nil && tr.End == ragent.EndMaxTurns:
			r.Subtype = ErrorMaxTurns
		case tr != nil && tr.End == ragent.EndCost:
			r.Subtype = ErrorMaxBudgetUSD
		}
		kind := errs.KindOf(err)
		if kind == errs.Unknown {
			kind = errs.Runtime
		}
		msg := oneLine(err.Error())
		r.Result, r.Errors, r.ErrorKind = msg, []string{msg}, kind.String()
	}
	return r
}

// FailureOf is the result of an ask that failed before its agent ran
// (a usage error, a model that could not be made): msg is the one line
// ask printed to stderr.
func FailureOf(kind errs.Kind, msg string, took time.Duration, session, uuid string) ResultMessage {
	r := ResultOf(nil, "", &errs.Error{Kind: kind, Msg: msg}, took, session, uuid)
	return r
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// windowOf is model's context window: the agent's, for its own model,
// else a known model's (a fallback's).
func windowOf(tr *ragent.Transcript, model string) int {
	if model == tr.Model {
		return tr.ContextWindow
	}
	return llm.KnownWindow(model)
}
