package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// KindSampling is the Kind of the Call the approval policy sees for a
// server's sampling/createMessage request: Name and Tool are the method,
// Server the server asking, Arguments the request's params (messages,
// systemPrompt, maxTokens, ...). It is never read-only, so the default
// policy asks (and denies when nobody can answer, unless Yes).
const KindSampling = approval.KindSampling

// SamplingMethod is the method a sampling Call names.
const SamplingMethod = "sampling/createMessage"

// maxSamplingTokens caps a server's maxTokens: a server must not make the
// user's model write without bound.
const maxSamplingTokens = 16384

// Sample answers a server's sampling/createMessage request with the
// agent's model, once the approval policy allows it: the request's
// messages, system prompt, maxTokens, temperature, stop sequences and
// tools become one model call, and its answer a CreateMessageResult. The
// server's model preferences are hints only: the agent's model answers.
// It runs beside an Ask (a server usually samples during a tool call), so
// it does not touch the conversation. hub.SetSampler takes it.
func (a *Agent) Sample(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
	req, err := samplingRequest(params)
	if err != nil {
		return nil, err
	}
	call := Call{Name: SamplingMethod, Tool: SamplingMethod, Server: server, Kind: KindSampling, Arguments: params}
	// A person asked here is a person the server's running tool call
	// waits for: its time is not the call's.
	waited := approval.Asking(server)
	d, reason := a.decide(ctx, call)
	waited()
	if d != Allow {
		return nil, a.denied(0, &call, reason)
	}
	a.approved(0, &call, reason)
	if req, err = a.editedSample(ctx, call, req); err != nil {
		return nil, err
	}
	start := time.Now()
	resp, err := a.cfg.Model.Stream(ctx, req, nil)
	a.trace(trace.Event{Kind: trace.ModelResponse, Server: server, Method: SamplingMethod, Duration: time.Since(start), Message: modelMessage(resp, err)})
	if err != nil {
		return nil, err
	}
	a.accountSample(resp) // the agent's model answered: its cost is the agent's (cost.go)
	return samplingResult(a.cfg.Model.Name(), resp), nil
}

func modelMessage(resp *llm.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s, %d+%d tokens", resp.StopReason, resp.Usage.InputTokens, resp.Usage.OutputTokens)
}

// samplingBlock is one content block of a SamplingMessage.
type samplingBlock struct {
	Type string `json:"type"`
	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// tool_result
	ToolUseID string            `json:"toolUseId"`
	Content   []json.RawMessage `json:"content"`
	IsError   bool              `json:"isError"`
}

// samplingRequest maps CreateMessageRequest params to a model request.
func samplingRequest(params json.RawMessage) (*llm.Request, error) {
	var p struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemPrompt  string   `json:"systemPrompt"`
		MaxTokens     int      `json:"maxTokens"`
		Temperature   *float64 `json:"temperature"`
		StopSequences []string `json:"stopSequences"`
		Tools         []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
		ToolChoice *struct {
			Mode string `json:"mode"`
		} `json:"toolChoice"`
	}
	bad := func(format string, args ...any) error {
		return errs.Errorf(errs.Invalid, SamplingMethod, format, args...)
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, bad("the request's params are not a CreateMessageRequest: %v", err)
	}
	if len(p.Messages) == 0 {
		return nil, bad("the request has no messages")
	}
	req := &llm.Request{System: p.SystemPrompt, MaxTokens: min(max(p.MaxTokens, 1), maxSamplingTokens),
		Temperature: p.Temperature, Stop: p.StopSequences}
	for i, m := range p.Messages {
		if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
			return nil, bad("messages[%d].role is %q, not user or assistant", i, m.Role)
		}
		// content is one block or (2025-11-25 and later) a list.
		var raws []json.RawMessage
		if len(m.Content) > 0 && m.Content[0] == '[' {
			if err := json.Unmarshal(m.Content, &raws); err != nil {
				return nil, bad("messages[%d].content: %v", i, err)
			}
		} else {
			raws = []json.RawMessage{m.Content}
		}
		msg := llm.Message{Role: m.Role}
		var shown []json.RawMessage // text, image and audio blocks, in order
		for j, raw := range raws {
			var b samplingBlock
			if err := json.Unmarshal(raw, &b); err != nil {
				return nil, bad("messages[%d].content[%d]: %v", i, j, err)
			}
			switch b.Type {
			case "tool_use":
				if m.Role != llm.RoleAssistant {
					return nil, bad("messages[%d]: tool_use belongs to an assistant message", i)
				}
				args := b.Input
				if len(args) == 0 {
					args = json.RawMessage("{}")
				}
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
			case "tool_result":
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, ToolCallID: b.ToolUseID,
					IsError: b.IsError, Parts: parts(Result{Content: b.Content})})
			default:
				shown = append(shown, raw)
			}
		}
		if len(shown) > 0 {
			msg.Parts = parts(Result{Content: shown})
		}
		if len(msg.Parts) > 0 || len(msg.ToolCalls) > 0 {
			req.Messages = append(req.Messages, msg)
		}
	}
	if p.ToolChoice == nil || p.ToolChoice.Mode != "none" {
		for _, t := range p.Tools {
			schema := t.InputSchema
			if len(schema) == 0 {
				schema = anyObject
			}
			req.Tools = append(req.Tools, llm.Tool{Name: t.Name, Description: t.Description, Schema: schema})
		}
	}
	return req, nil
}

// samplingResult maps a model response to a CreateMessageResult: one text
// block, or a list of the text and tool_use blocks when the model asks
// for tools.
func samplingResult(model string, resp *llm.Response) json.RawMessage {
	stop := map[string]string{llm.StopEnd: "endTurn", llm.StopToolCalls: "toolUse",
		llm.StopMaxTokens: "maxTokens", llm.StopStop: "stopSequence"}[resp.StopReason]
	if stop == "" {
		stop = "endTurn"
	}
	type block = map[string]any
	var blocks []block
	for _, p := range resp.Message.Parts {
		switch p.Type {
		case "text":
			blocks = append(blocks, block{"type": "text", "text": p.Text})
		case "image":
			blocks = append(blocks, block{"type": "image", "mimeType": p.MIME, "data": base64.StdEncoding.EncodeToString(p.Data)})
		}
	}
	for _, tc := range resp.Message.ToolCalls {
		blocks = append(blocks, block{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": tc.Arguments})
	}
	out := struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		Model      string `json:"model"`
		StopReason string `json:"stopReason"`
	}{Role: llm.RoleAssistant, Model: model, StopReason: stop}
	switch {
	case len(resp.Message.ToolCalls) > 0:
		out.Content = blocks
	case len(blocks) == 1:
		out.Content = blocks[0]
	default:
		// A text answer is one text block, even when the model said
		// nothing or split it.
		out.Content = block{"type": "text", "text": textOf(resp.Message)}
	}
	b, _ := json.Marshal(out)
	return b
}
