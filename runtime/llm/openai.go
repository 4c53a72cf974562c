package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/luagent/luagent/runtime/errs"
)

// openaiModel speaks Chat Completions through the official SDK.
type openaiModel struct {
	sdkModel
	svc openai.ChatCompletionService
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
	m := &openaiModel{
		sdkModel:      sdkModel{name: spec, model: mc.Model, base: base, key: key, keyVar: keyVar, retries: cfg.retries(), maxWait: cfg.retryWait()},
		maxCompletion: strings.TrimSuffix(base, "/") == DefaultOpenAIBaseURL,
	}
	opts := []option.RequestOption{option.WithBaseURL(base), option.WithMaxRetries(m.retries), option.WithMaxRetryDelay(m.maxWait)}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	// The service alone, not openai.NewClient: the client would read
	// OPENAI_* from the process environment behind Config.Lookup.
	m.svc = openai.NewChatCompletionService(opts...)
	return m, nil
}

func (m *openaiModel) Stream(ctx context.Context, req *Request, on func(Event)) (*Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	rec := m.recorder()
	mw := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		return rec.middleware(r, next)
	})
	if on == nil {
		cc, err := m.svc.New(ctx, params, mw)
		if err != nil {
			return nil, m.failure(ctx, rec, err)
		}
		return m.response(cc)
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	stream := m.svc.NewStreaming(ctx, params, mw)
	defer stream.Close()
	var (
		resp     Response
		text     strings.Builder
		finish   string
		calls    = map[int64]*ToolCall{}
		args     = map[int64]*strings.Builder{}
		sent     = map[int64]bool{}
		maxIndex = int64(-1)
	)
	flush := func(below int64) {
		idx := make([]int64, 0, len(calls))
		for i := range calls {
			if i < below && !sent[i] {
				idx = append(idx, i)
			}
		}
		sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
		for _, i := range idx {
			sent[i] = true
			c := calls[i]
			c.Arguments = argsJSON(args[i].String())
			on(Event{ToolCall: c})
		}
	}
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() {
			resp.Usage = Usage{InputTokens: int(chunk.Usage.PromptTokens), OutputTokens: int(chunk.Usage.CompletionTokens)}
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
	if err := stream.Err(); err != nil {
		return nil, m.failure(ctx, rec, m.streamError(err))
	}
	if ctx.Err() != nil {
		return nil, m.failure(ctx, rec, ctx.Err())
	}
	if finish == "" {
		return nil, m.failure(ctx, rec, streamCut("its finish_reason"))
	}
	flush(maxIndex + 1)
	resp.Message = Message{Role: RoleAssistant}
	if text.Len() > 0 {
		resp.Message.Parts = []Part{Text(text.String())}
	}
	idx := make([]int64, 0, len(calls))
	for i := range calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
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

// streamError types an error event inside a 200 stream.
func (m *openaiModel) streamError(err error) error {
	s := err.Error()
	if i := strings.Index(s, "{"); i >= 0 && strings.Contains(s, "received error while streaming") {
		var e struct{ Message, Type, Code string }
		if json.Unmarshal([]byte(s[i:]), &e) == nil && e.Message != "" {
			t := e.Type
			if t == "" {
				t = e.Code
			}
			return errs.New(kindOfType(t), "", e.Message)
		}
	}
	return err
}

func (m *openaiModel) response(cc *openai.ChatCompletion) (*Response, error) {
	resp := &Response{
		Message: Message{Role: RoleAssistant},
		Usage:   Usage{InputTokens: int(cc.Usage.PromptTokens), OutputTokens: int(cc.Usage.CompletionTokens)},
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

func (m *openaiModel) params(req *Request) (openai.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = m.model
	}
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case RoleUser:
			var parts []openai.ChatCompletionContentPartUnionParam
			for _, pt := range msg.Parts {
				switch pt.Type {
				case "image":
					parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(pt)}))
				default:
					parts = append(parts, openai.TextContentPart(pt.Text))
				}
			}
			if len(parts) == 1 && msg.Parts[0].Type != "image" {
				p.Messages = append(p.Messages, openai.UserMessage(msg.Parts[0].Text))
			} else {
				p.Messages = append(p.Messages, openai.UserMessage(parts))
			}
		case RoleAssistant:
			a := openai.ChatCompletionAssistantMessageParam{}
			if t := textOf(msg.Parts); t != "" {
				a.Content.OfString = param.NewOpt(t)
			}
			for _, c := range msg.ToolCalls {
				args := string(c.Arguments)
				if args == "" {
					args = "{}"
				}
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					}})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case RoleTool:
			// The tool role takes text only: an image is described.
			t := describeParts(msg.Parts)
			if msg.IsError && !strings.HasPrefix(t, "error") {
				t = "error: " + t
			}
			p.Messages = append(p.Messages, openai.ToolMessage(t, msg.ToolCallID))
		default:
			return p, errs.Errorf(errs.Invalid, m.name, "message role %q (user, assistant, tool)", msg.Role)
		}
	}
	for _, t := range req.Tools {
		var schema map[string]any
		if len(t.Schema) > 0 {
			if err := json.Unmarshal(t.Schema, &schema); err != nil {
				return p, errs.Errorf(errs.Invalid, m.name, "tool %s: the schema is not a JSON object: %v", t.Name, err)
			}
		}
		if schema == nil {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schema)}
		if t.Description != "" {
			fd.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	if req.MaxTokens > 0 {
		if m.maxCompletion {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if len(req.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	return p, nil
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
