package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/luagent/luagent/runtime/errs"
)

// anthropicModel speaks the Messages API through the official SDK.
type anthropicModel struct {
	sdkModel
	svc anthropic.MessageService
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
	m := &anthropicModel{sdkModel: sdkModel{name: spec, model: mc.Model, base: base, key: key, keyVar: keyVar, retries: cfg.retries(), maxWait: cfg.retryWait()}}
	opts := []option.RequestOption{option.WithBaseURL(base), option.WithMaxRetries(m.retries)}
	if key != "" {
		// x-api-key, as the API reference documents (the SDK's
		// WithAPIKey sends it as a bearer token).
		opts = append(opts, option.WithHeader("x-api-key", key))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	// The service alone, not anthropic.NewClient: the client would read
	// ANTHROPIC_* from the process environment behind Config.Lookup.
	m.svc = anthropic.NewMessageService(opts...)
	return m, nil
}

func (m *anthropicModel) Stream(ctx context.Context, req *Request, on func(Event)) (*Response, error) {
	params, opts, err := m.params(req)
	if err != nil {
		return nil, err
	}
	rec := m.recorder()
	opts = append(opts, option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return rec.middleware(r, next)
	}))
	if on == nil {
		msg, err := m.svc.New(ctx, params, opts...)
		if err != nil {
			return nil, m.failure(ctx, rec, m.streamError(err))
		}
		return m.response(msg), nil
	}
	stream := m.svc.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var (
		resp    = Response{Message: Message{Role: RoleAssistant}}
		text    strings.Builder
		stop    string
		stopped bool
		blocks  = map[int64]*ToolCall{}
		inputs  = map[int64]*strings.Builder{}
	)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			resp.Usage.InputTokens = int(ev.Message.Usage.InputTokens + ev.Message.Usage.CacheReadInputTokens + ev.Message.Usage.CacheCreationInputTokens)
			resp.Usage.OutputTokens = int(ev.Message.Usage.OutputTokens)
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
			stop = string(ev.Delta.StopReason)
			if ev.Usage.OutputTokens > 0 {
				resp.Usage.OutputTokens = int(ev.Usage.OutputTokens)
			}
			if ev.Usage.InputTokens > 0 {
				resp.Usage.InputTokens = int(ev.Usage.InputTokens + ev.Usage.CacheReadInputTokens + ev.Usage.CacheCreationInputTokens)
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return nil, m.failure(ctx, rec, m.streamError(err))
	}
	if ctx.Err() != nil {
		return nil, m.failure(ctx, rec, ctx.Err())
	}
	if !stopped {
		return nil, m.failure(ctx, rec, streamCut("message_stop"))
	}
	if text.Len() > 0 {
		resp.Message.Parts = []Part{Text(text.String())}
	}
	resp.StopReason = anthropicStop(stop, len(resp.Message.ToolCalls) > 0)
	return &resp, nil
}

// streamError types an error event of a 200 stream (overloaded_error,
// rate_limit_error, ...); HTTP errors are typed by the recorder.
func (m *anthropicModel) streamError(err error) error {
	var ae *anthropic.Error
	if errors.As(err, &ae) && ae.StatusCode < 400 {
		msg, typ := providerMessage([]byte(ae.RawJSON()))
		if msg == "" {
			msg = ae.Message
		}
		return errs.New(kindOfType(typ), "", msg)
	}
	return err
}

func (m *anthropicModel) response(msg *anthropic.Message) *Response {
	resp := &Response{
		Message: Message{Role: RoleAssistant},
		Usage: Usage{
			InputTokens:  int(msg.Usage.InputTokens + msg.Usage.CacheReadInputTokens + msg.Usage.CacheCreationInputTokens),
			OutputTokens: int(msg.Usage.OutputTokens),
		},
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
	resp.StopReason = anthropicStop(string(msg.StopReason), len(resp.Message.ToolCalls) > 0)
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
	}
	if calls {
		return StopToolCalls
	}
	return StopEnd
}

func (m *anthropicModel) params(req *Request) (anthropic.MessageNewParams, []option.RequestOption, error) {
	model := req.Model
	if model == "" {
		model = m.model
	}
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: DefaultAnthropicMaxTokens}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	// Roles alternate in the Messages API: tool results are blocks of a
	// user message, so consecutive messages of one role are merged.
	add := func(role string, blocks []anthropic.ContentBlockParamUnion) {
		if n := len(p.Messages); n > 0 {
			last := &p.Messages[n-1]
			if role == RoleUser && last.OfUser != nil {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
				return
			}
			if role == RoleAssistant && last.OfAssistant != nil {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
				return
			}
		}
		if role == RoleUser {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		} else {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		}
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleUser:
			var blocks []anthropic.ContentBlockParamUnion
			for _, pt := range msg.Parts {
				if pt.Type == "image" {
					blocks = append(blocks, anthropic.NewImageBlockBase64(pt.MIME, base64.StdEncoding.EncodeToString(pt.Data)))
				} else if pt.Text != "" {
					blocks = append(blocks, anthropic.NewTextBlock(pt.Text))
				}
			}
			add(RoleUser, blocks)
		case RoleAssistant:
			var blocks []anthropic.ContentBlockParamUnion
			if t := textOf(msg.Parts); t != "" {
				blocks = append(blocks, anthropic.NewTextBlock(t))
			}
			for _, c := range msg.ToolCalls {
				args := c.Arguments
				if len(args) == 0 || !json.Valid(args) || args[0] != '{' {
					args = json.RawMessage("{}")
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, args, c.Name))
			}
			add(RoleAssistant, blocks)
		case RoleTool:
			tr := anthropic.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
			if msg.IsError {
				tr.IsError = anthropic.Bool(true)
			}
			for _, pt := range msg.Parts {
				if pt.Type == "image" {
					img := anthropic.NewImageBlockBase64(pt.MIME, base64.StdEncoding.EncodeToString(pt.Data)).OfImage
					tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: img})
				} else if pt.Text != "" {
					tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: pt.Text}})
				}
			}
			add(RoleUser, []anthropic.ContentBlockParamUnion{{OfToolResult: &tr}})
		default:
			return p, nil, errs.Errorf(errs.Invalid, m.name, "message role %q (user, assistant, tool)", msg.Role)
		}
	}
	for _, t := range req.Tools {
		var s struct {
			Properties any      `json:"properties"`
			Required   []string `json:"required"`
		}
		var extra map[string]any
		if len(t.Schema) > 0 {
			if err := json.Unmarshal(t.Schema, &s); err != nil {
				return p, nil, errs.Errorf(errs.Invalid, m.name, "tool %s: the schema is not a JSON object: %v", t.Name, err)
			}
			_ = json.Unmarshal(t.Schema, &extra)
			for _, k := range []string{"type", "properties", "required"} {
				delete(extra, k)
			}
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: anthropic.ToolInputSchemaParam{Properties: s.Properties, Required: s.Required, ExtraFields: extra}}
		if tp.InputSchema.Properties == nil {
			tp.InputSchema.Properties = map[string]any{}
		}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	if len(req.Stop) > 0 {
		p.StopSequences = req.Stop
	}
	var opts []option.RequestOption
	if req.Temperature != nil {
		// MessageNewParams of SDK v2 has no temperature field; the API
		// still takes it.
		opts = append(opts, option.WithJSONSet("temperature", *req.Temperature))
	}
	return p, opts, nil
}
