package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// openaiModel speaks Chat Completions (POST {base}/chat/completions,
// bearer auth; streamed as server-sent events of chat.completion.chunk
// objects ending in "data: [DONE]").
type openaiModel struct {
	wireModel
	// maxCompletion sends max_completion_tokens (OpenAI's own endpoint,
	// where reasoning models refuse max_tokens); compatible servers get
	// max_tokens, which they all know.
	maxCompletion bool
}

func newOpenAI(spec string, mc ModelConfig, cfg *Config) (Model, error) {
	keyVar, baseVar, defBase, needKey := "OPENAI_API_KEY", "OPENAI_BASE_URL", DefaultOpenAIBaseURL, true
	if mc.Provider == ProviderOllama {
		keyVar, baseVar, defBase, needKey = "", "", DefaultOllamaBaseURL, false
		if mc.APIKeyEnv != "" {
			keyVar = mc.APIKeyEnv
		}
	}
	base, key, err := endpoint(spec, mc, cfg, keyVar, baseVar, defBase, needKey)
	if err != nil {
		return nil, err
	}
	if mc.APIKeyEnv != "" {
		keyVar = mc.APIKeyEnv
	}
	if mc.KeyFrom != "" {
		keyVar = mc.KeyFrom
	}
	m := &openaiModel{
		wireModel:     newWireModel(spec, mc, cfg, base, key, keyVar),
		maxCompletion: strings.TrimSuffix(base, "/") == DefaultOpenAIBaseURL,
	}
	m.header = func(h http.Header) {
		if m.key != "" {
			h.Set("Authorization", "Bearer "+m.key)
		}
	}
	return m, nil
}

// The wire's objects: what is sent, and what is read of the answers.
type (
	oaRequest struct {
		Model               string           `json:"model"`
		Messages            []oaMessage      `json:"messages"`
		Tools               []oaTool         `json:"tools,omitempty"`
		MaxCompletionTokens int              `json:"max_completion_tokens,omitempty"`
		MaxTokens           int              `json:"max_tokens,omitempty"`
		Temperature         *float64         `json:"temperature,omitempty"`
		Stop                []string         `json:"stop,omitempty"`
		Stream              bool             `json:"stream,omitempty"`
		StreamOptions       *oaStreamOptions `json:"stream_options,omitempty"`
	}
	oaStreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	}
	oaMessage struct {
		Role string `json:"role"`
		// Content is a string, or a list of oaPart for a user message
		// with images; an assistant's with only calls has none.
		Content    any          `json:"content,omitempty"`
		ToolCalls  []oaToolCall `json:"tool_calls,omitempty"`
		ToolCallID string       `json:"tool_call_id,omitempty"`
	}
	oaPart struct {
		Type     string      `json:"type"` // "text" or "image_url"
		Text     string      `json:"text,omitempty"`
		ImageURL *oaImageURL `json:"image_url,omitempty"`
	}
	oaImageURL struct {
		URL string `json:"url"`
	}
	oaToolCall struct {
		Index    int        `json:"index,omitempty"` // of a stream's delta only (decoded, never sent)
		ID       string     `json:"id,omitempty"`
		Type     string     `json:"type,omitempty"`
		Function oaFunction `json:"function"`
	}
	oaFunction struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	}
	oaTool struct {
		Type     string        `json:"type"`
		Function oaFunctionDef `json:"function"`
	}
	oaFunctionDef struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	oaUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		// PromptTokensDetails.CachedTokens is the part of PromptTokens
		// served from the provider's prompt cache (OpenAI caches a
		// request's prefix of 1024 tokens or more on its own).
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	}
	// oaAnswer is a chat.completion (Message) or a chat.completion.chunk
	// (Delta); Error is a stream's error event.
	oaAnswer struct {
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Content   string       `json:"content"`
				ToolCalls []oaToolCall `json:"tool_calls"`
			} `json:"message"`
			Delta struct {
				Content   string       `json:"content"`
				ToolCalls []oaToolCall `json:"tool_calls"`
			} `json:"delta"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage *oaUsage        `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
)

func (m *openaiModel) Stream(ctx context.Context, req *Request, on func(Event)) (*Response, error) {
	body, err := m.request(req)
	if err != nil {
		return nil, err
	}
	const path = "/chat/completions"
	if on == nil {
		return m.exchange(ctx, path, body, false, nil, func(r io.Reader, _ func(Event)) (*Response, error) {
			var cc oaAnswer
			if err := decodeJSON(r, &cc); err != nil {
				return nil, err
			}
			return m.response(&cc)
		})
	}
	body.Stream = true
	body.StreamOptions = &oaStreamOptions{IncludeUsage: true}
	return m.exchange(ctx, path, body, true, on, func(r io.Reader, on func(Event)) (*Response, error) { return m.stream(r, on) })
}

// stream reads the chunks: text deltas are sent as they come, and each
// tool call once whole (when a call of a higher index begins, or at the
// end).
func (m *openaiModel) stream(r io.Reader, on func(Event)) (*Response, error) {
	var (
		resp     Response
		text     strings.Builder
		finish   string
		calls    = map[int]*ToolCall{}
		args     = map[int]*strings.Builder{}
		sent     = map[int]bool{}
		maxIndex = -1
	)
	flush := func(below int) {
		idx := make([]int, 0, len(calls))
		for i := range calls {
			if i < below && !sent[i] {
				idx = append(idx, i)
			}
		}
		sort.Ints(idx)
		for _, i := range idx {
			sent[i] = true
			c := calls[i]
			c.Arguments = argsJSON(args[i].String())
			on(Event{ToolCall: c})
		}
	}
	sr := newSSEReader(r, maxEvent)
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if string(ev.Data) == "[DONE]" {
			break
		}
		var chunk oaAnswer
		if err := json.Unmarshal(ev.Data, &chunk); err != nil {
			return nil, errs.New(errs.Server, "", "a stream chunk is not JSON: "+err.Error())
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			return nil, streamError(ev.Data)
		}
		if chunk.Usage != nil {
			resp.Usage = chunk.Usage.usage()
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			d := ch.Delta
			if d.Content != "" {
				text.WriteString(d.Content)
				on(Event{Text: d.Content})
			}
			for _, tc := range d.ToolCalls {
				c, ok := calls[tc.Index]
				if !ok {
					if tc.Index > maxIndex {
						// A new call begins: the ones before it are whole.
						flush(tc.Index)
						maxIndex = tc.Index
					}
					c = &ToolCall{}
					calls[tc.Index], args[tc.Index] = c, &strings.Builder{}
				}
				if tc.ID != "" {
					c.ID = tc.ID
				}
				c.Name += tc.Function.Name
				args[tc.Index].WriteString(tc.Function.Arguments)
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if finish == "" {
		return nil, streamCut("its finish_reason")
	}
	flush(maxIndex + 1)
	resp.Message = Message{Role: RoleAssistant}
	if text.Len() > 0 {
		resp.Message.Parts = []Part{Text(text.String())}
	}
	idx := make([]int, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for i, n := range idx {
		c := calls[n]
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i)
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, *c)
	}
	resp.StopReason = openaiStop(finish, len(calls) > 0)
	return &resp, nil
}

func (m *openaiModel) response(cc *oaAnswer) (*Response, error) {
	if len(cc.Error) > 0 && string(cc.Error) != "null" {
		return nil, streamError([]byte(`{"error":` + string(cc.Error) + `}`))
	}
	resp := &Response{Message: Message{Role: RoleAssistant}}
	if cc.Usage != nil {
		resp.Usage = cc.Usage.usage()
	}
	if len(cc.Choices) == 0 {
		return nil, errs.New(errs.Server, m.name, "the answer has no choices")
	}
	ch := cc.Choices[0]
	if ch.Message.Content != "" {
		resp.Message.Parts = []Part{Text(ch.Message.Content)}
	}
	for i, tc := range ch.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, ToolCall{ID: id, Name: tc.Function.Name, Arguments: argsJSON(tc.Function.Arguments)})
	}
	resp.StopReason = openaiStop(ch.FinishReason, len(resp.Message.ToolCalls) > 0)
	return resp, nil
}

func openaiStop(finish string, calls bool) string {
	switch {
	case calls && (finish == "tool_calls" || finish == "function_call" || finish == "stop"):
		return StopToolCalls // some compatible servers say "stop" after calls
	case finish == "length":
		return StopMaxTokens
	case finish == "content_filter":
		return StopRefusal
	}
	return StopEnd
}

// argsJSON is a call's arguments as JSON: "" is {}; text that is not JSON
// (a model's slip) becomes a JSON string, so the call still reaches the
// caller, whose schema check tells the model.
func argsJSON(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// usage is the wire's usage as llm.Usage has it.
func (u *oaUsage) usage() Usage {
	out := Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CacheReadTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}

// request maps a Request to the wire.
func (m *openaiModel) request(req *Request) (*oaRequest, error) {
	model := req.Model
	if model == "" {
		model = m.model
	}
	p := &oaRequest{Model: model, Messages: []oaMessage{}}
	if req.System != "" {
		p.Messages = append(p.Messages, oaMessage{Role: "system", Content: req.System})
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleUser:
			if len(msg.Parts) == 1 && msg.Parts[0].Type != "image" {
				p.Messages = append(p.Messages, oaMessage{Role: "user", Content: msg.Parts[0].Text})
				continue
			}
			parts := []oaPart{}
			for _, pt := range msg.Parts {
				switch pt.Type {
				case "image":
					parts = append(parts, oaPart{Type: "image_url", ImageURL: &oaImageURL{URL: dataURL(pt)}})
				default:
					parts = append(parts, oaPart{Type: "text", Text: pt.Text})
				}
			}
			p.Messages = append(p.Messages, oaMessage{Role: "user", Content: parts})
		case RoleAssistant:
			a := oaMessage{Role: "assistant"}
			if t := textOf(msg.Parts); t != "" {
				a.Content = t
			}
			for _, c := range msg.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, oaToolCall{ID: c.ID, Type: "function", Function: oaFunction{Name: c.Name, Arguments: args}})
			}
			p.Messages = append(p.Messages, a)
		case RoleTool:
			// The tool role takes text only: an image is described.
			t := describeParts(msg.Parts)
			if msg.IsError && !strings.HasPrefix(t, "error") {
				t = "error: " + t
			}
			p.Messages = append(p.Messages, oaMessage{Role: "tool", Content: t, ToolCallID: msg.ToolCallID})
		default:
			return nil, errs.Errorf(errs.Invalid, m.name, "message role %q (user, assistant, tool)", msg.Role)
		}
	}
	for _, t := range stableTools(req.Tools) {
		schema, err := openaiSchemas.of(t.Schema, func() (json.RawMessage, error) { return objectSchema(m.name, t) })
		if err != nil {
			return nil, err
		}
		p.Tools = append(p.Tools, oaTool{Type: "function", Function: oaFunctionDef{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	if req.MaxTokens > 0 {
		if m.maxCompletion {
			p.MaxCompletionTokens = req.MaxTokens
		} else {
			p.MaxTokens = req.MaxTokens
		}
	}
	p.Temperature = req.Temperature
	p.Stop = req.Stop
	return p, nil
}

// objectSchema is a tool's schema, checked to be a JSON object (none is
// an object schema without properties).
func objectSchema(model string, t Tool) (json.RawMessage, error) {
	var schema map[string]json.RawMessage
	if len(t.Schema) > 0 {
		if err := json.Unmarshal(t.Schema, &schema); err != nil {
			return nil, errs.Errorf(errs.Invalid, model, "tool %s: the schema is not a JSON object: %v", t.Name, err)
		}
	}
	if schema == nil {
		return json.RawMessage(`{"properties":{},"type":"object"}`), nil
	}
	return canonicalJSON(t.Schema), nil
}

func dataURL(p Part) string {
	return "data:" + p.MIME + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// textOf joins a message's text parts.
func textOf(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "image" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// describeParts is text, with each image named in place.
func describeParts(parts []Part) string {
	var out []string
	for _, p := range parts {
		if p.Type == "image" {
			out = append(out, fmt.Sprintf("[image %s, %d bytes]", p.MIME, len(p.Data)))
		} else if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}
