package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// anthropicVersion is the Messages API version sent.
const anthropicVersion = "2023-06-01"

// anthropicModel speaks the Messages API (POST {base}/v1/messages,
// x-api-key and anthropic-version; streamed as server-sent events
// message_start, content_block_start/delta/stop, message_delta,
// message_stop, with ping and error between).
type anthropicModel struct {
	wireModel
	// noCache: no cache_control breakpoints (DISABLE_PROMPT_CACHING set,
	// as Claude Code reads it).
	noCache bool
}

func newAnthropic(spec string, mc ModelConfig, cfg *Config) (Model, error) {
	base, key, err := endpoint(spec, mc, cfg, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", DefaultAnthropicBaseURL, true)
	if err != nil {
		return nil, err
	}
	keyVar := "ANTHROPIC_API_KEY"
	if mc.APIKeyEnv != "" {
		keyVar = mc.APIKeyEnv
	}
	if mc.KeyFrom != "" {
		keyVar = mc.KeyFrom
	}
	m := &anthropicModel{wireModel: newWireModel(spec, mc, cfg, base, key, keyVar)}
	if v, _ := cfg.lookup("DISABLE_PROMPT_CACHING"); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		m.noCache = true
	}
	m.header = func(h http.Header) {
		if m.key != "" {
			h.Set("x-api-key", m.key)
		}
		h.Set("anthropic-version", anthropicVersion)
	}
	return m, nil
}

// The wire's objects: what is sent, and what is read of the answers.
type (
	anRequest struct {
		Model         string      `json:"model"`
		MaxTokens     int         `json:"max_tokens"`
		System        []anBlock   `json:"system,omitempty"`
		Messages      []anMessage `json:"messages"`
		Tools         []anTool    `json:"tools,omitempty"`
		StopSequences []string    `json:"stop_sequences,omitempty"`
		Temperature   *float64    `json:"temperature,omitempty"`
		Stream        bool        `json:"stream,omitempty"`
	}
	anMessage struct {
		Role    string    `json:"role"`
		Content []anBlock `json:"content"`
	}
	// anBlock is a content block: text, image, tool_use or tool_result.
	anBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text,omitempty"`
		Source    *anSource       `json:"source,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   []anBlock       `json:"content,omitempty"`
		IsError   bool            `json:"is_error,omitempty"`
		// CacheControl marks a prompt-cache breakpoint (cache.go).
		CacheControl *anCacheControl `json:"cache_control,omitempty"`
	}
	// anCacheControl is {"type": "ephemeral"}: the prefix up to and
	// including the marked block is cached for five minutes.
	anCacheControl struct {
		Type string `json:"type"`
	}
	anSource struct {
		Type      string `json:"type"` // "base64"
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	}
	anTool struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		InputSchema json.RawMessage `json:"input_schema"`
		// CacheControl marks a prompt-cache breakpoint (cache.go).
		CacheControl *anCacheControl `json:"cache_control,omitempty"`
	}
	anUsage struct {
		InputTokens         int `json:"input_tokens"`
		OutputTokens        int `json:"output_tokens"`
		CacheReadTokens     int `json:"cache_read_input_tokens"`
		CacheCreationTokens int `json:"cache_creation_input_tokens"`
	}
	// anAnswer is a whole message (not streamed).
	anAnswer struct {
		Content    []anBlock `json:"content"`
		StopReason string    `json:"stop_reason"`
		Usage      anUsage   `json:"usage"`
	}
	// anEvent is one streamed event's data.
	anEvent struct {
		Type    string `json:"type"`
		Index   int    `json:"index"`
		Message struct {
			Usage anUsage `json:"usage"`
		} `json:"message"`
		ContentBlock anBlock `json:"content_block"`
		Delta        struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			PartialJSON string `json:"partial_json"`
			StopReason  string `json:"stop_reason"`
		} `json:"delta"`
		Usage anUsage `json:"usage"`
	}
)

// usage is the wire's usage as llm.Usage has it: the API's input_tokens
// are the tokens after the last cache breakpoint only, so InputTokens is
// their sum with the cache's reads and writes.
func (u anUsage) usage() Usage {
	return Usage{InputTokens: u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheCreationTokens}
}

func (m *anthropicModel) Stream(ctx context.Context, req *Request, on func(Event)) (*Response, error) {
	body, err := m.request(req)
	if err != nil {
		return nil, err
	}
	const path = "/v1/messages"
	if on == nil {
		return m.exchange(ctx, path, body, false, nil, func(r io.Reader, _ func(Event)) (*Response, error) {
			var msg anAnswer
			if err := decodeJSON(r, &msg); err != nil {
				return nil, err
			}
			return m.response(&msg), nil
		})
	}
	body.Stream = true
	return m.exchange(ctx, path, body, true, on, func(r io.Reader, on func(Event)) (*Response, error) { return m.stream(r, on) })
}

// stream reads the events up to message_stop: text as it comes, each
// tool_use block once its content_block_stop arrives.
func (m *anthropicModel) stream(r io.Reader, on func(Event)) (*Response, error) {
	var (
		resp   = Response{Message: Message{Role: RoleAssistant}}
		text   strings.Builder
		stop   string
		blocks = map[int]*ToolCall{}
		inputs = map[int]*strings.Builder{}
	)
	sr := newSSEReader(r, maxEvent)
	for {
		sse, err := sr.Next()
		if err == io.EOF {
			return nil, streamCut("message_stop")
		}
		if err != nil {
			return nil, err
		}
		var ev anEvent
		if err := json.Unmarshal(sse.Data, &ev); err != nil {
			return nil, errs.New(errs.Server, "", "a stream event is not JSON: "+err.Error())
		}
		if ev.Type == "" {
			ev.Type = sse.Event
		}
		switch ev.Type {
		case "error":
			return nil, streamError(sse.Data)
		case "message_start":
			resp.Usage = ev.Message.Usage.usage()
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				blocks[ev.Index] = &ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
				inputs[ev.Index] = &strings.Builder{}
			} else if ev.ContentBlock.Type == "text" && ev.ContentBlock.Text != "" {
				text.WriteString(ev.ContentBlock.Text)
				on(Event{Text: ev.ContentBlock.Text})
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				text.WriteString(ev.Delta.Text)
				on(Event{Text: ev.Delta.Text})
			case "input_json_delta":
				if b := inputs[ev.Index]; b != nil {
					b.WriteString(ev.Delta.PartialJSON)
				}
			}
		case "content_block_stop":
			if c := blocks[ev.Index]; c != nil {
				c.Arguments = argsJSON(inputs[ev.Index].String())
				resp.Message.ToolCalls = append(resp.Message.ToolCalls, *c)
				on(Event{ToolCall: c})
				delete(blocks, ev.Index)
			}
		case "message_delta":
			stop = ev.Delta.StopReason
			if ev.Usage.OutputTokens > 0 {
				resp.Usage.OutputTokens = ev.Usage.OutputTokens
			}
			// message_delta's usage is cumulative; the input counts,
			// when it has them, replace message_start's.
			if u := ev.Usage; u.InputTokens > 0 || u.CacheReadTokens > 0 || u.CacheCreationTokens > 0 {
				out := resp.Usage.OutputTokens
				resp.Usage = u.usage()
				resp.Usage.OutputTokens = out
			}
		case "message_stop":
			if text.Len() > 0 {
				resp.Message.Parts = []Part{Text(text.String())}
			}
			resp.StopReason = anthropicStop(stop, len(resp.Message.ToolCalls) > 0)
			return &resp, nil
		}
	}
}

func (m *anthropicModel) response(msg *anAnswer) *Response {
	resp := &Response{
		Message: Message{Role: RoleAssistant},
		Usage:   msg.Usage.usage(),
	}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: argsJSON(string(b.Input))})
		}
	}
	if text.Len() > 0 {
		resp.Message.Parts = []Part{Text(text.String())}
	}
	resp.StopReason = anthropicStop(msg.StopReason, len(resp.Message.ToolCalls) > 0)
	return resp
}

func anthropicStop(s string, calls bool) string {
	switch s {
	case "tool_use":
		return StopToolCalls
	case "max_tokens":
		return StopMaxTokens
	case "stop_sequence":
		return StopStop
	case "refusal":
		return StopRefusal
	}
	if calls {
		return StopToolCalls
	}
	return StopEnd
}

func imageBlock(p Part) anBlock {
	return anBlock{Type: "image", Source: &anSource{Type: "base64", MediaType: p.MIME, Data: base64.StdEncoding.EncodeToString(p.Data)}}
}

// request maps a Request to the wire.
func (m *anthropicModel) request(req *Request) (*anRequest, error) {
	model := req.Model
	if model == "" {
		model = m.model
	}
	p := &anRequest{Model: model, MaxTokens: DefaultAnthropicMaxTokens, Messages: []anMessage{}, StopSequences: req.Stop, Temperature: req.Temperature}
	if req.MaxTokens > 0 {
		p.MaxTokens = req.MaxTokens
	}
	if req.System != "" {
		p.System = []anBlock{{Type: "text", Text: req.System}}
	}
	// Roles alternate in the Messages API: tool results are blocks of a
	// user message, so consecutive messages of one role are merged.
	add := func(role string, blocks []anBlock) {
		if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == role {
			p.Messages[n-1].Content = append(p.Messages[n-1].Content, blocks...)
			return
		}
		p.Messages = append(p.Messages, anMessage{Role: role, Content: append([]anBlock{}, blocks...)})
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleUser:
			var blocks []anBlock
			for _, pt := range msg.Parts {
				if pt.Type == "image" {
					blocks = append(blocks, imageBlock(pt))
				} else if pt.Text != "" {
					blocks = append(blocks, anBlock{Type: "text", Text: pt.Text})
				}
			}
			add(RoleUser, blocks)
		case RoleAssistant:
			var blocks []anBlock
			if t := textOf(msg.Parts); t != "" {
				blocks = append(blocks, anBlock{Type: "text", Text: t})
			}
			for _, c := range msg.ToolCalls {
				args := c.Arguments
				if len(args) == 0 || !json.Valid(args) || args[0] != '{' {
					args = json.RawMessage("{}")
				}
				blocks = append(blocks, anBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: args})
			}
			add(RoleAssistant, blocks)
		case RoleTool:
			tr := anBlock{Type: "tool_result", ToolUseID: msg.ToolCallID, IsError: msg.IsError}
			for _, pt := range msg.Parts {
				if pt.Type == "image" {
					tr.Content = append(tr.Content, imageBlock(pt))
				} else if pt.Text != "" {
					tr.Content = append(tr.Content, anBlock{Type: "text", Text: pt.Text})
				}
			}
			add(RoleUser, []anBlock{tr})
		default:
			return nil, errs.Errorf(errs.Invalid, m.name, "message role %q (user, assistant, tool)", msg.Role)
		}
	}
	for _, t := range stableTools(req.Tools) {
		schema, err := anthropicSchemas.of(t.Schema, func() (json.RawMessage, error) { return anthropicSchema(m.name, t) })
		if err != nil {
			return nil, err
		}
		p.Tools = append(p.Tools, anTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if !m.noCache {
		markCache(p)
	}
	return p, nil
}

// anthropicSchema is a tool's input_schema, an object schema: "type":
// "object" always, properties ({} when none), required when any, and the
// schema's other members as they are; canonical JSON (keys sorted at
// every level), so that the same tools are the same bytes every turn.
func anthropicSchema(model string, t Tool) (json.RawMessage, error) {
	schema := map[string]any{}
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(t.Schema) > 0 {
		var extra map[string]json.RawMessage
		if err := json.Unmarshal(t.Schema, &s); err != nil {
			return nil, errs.Errorf(errs.Invalid, model, "tool %s: the schema is not a JSON object: %v", t.Name, err)
		}
		_ = json.Unmarshal(t.Schema, &extra)
		for k, v := range extra {
			schema[k] = v
		}
	}
	schema["type"] = "object"
	if len(s.Properties) == 0 || string(s.Properties) == "null" {
		schema["properties"] = map[string]any{}
	} else {
		schema["properties"] = s.Properties
	}
	delete(schema, "required")
	if len(s.Required) > 0 {
		schema["required"] = s.Required
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, errs.Errorf(errs.Invalid, model, "tool %s: the schema: %v", t.Name, err)
	}
	return canonicalJSON(raw), nil
}
