package llm

import (
	"context"
	"strings"
)

// Func makes a model of a Go function — a Lua function, through its
// binding, or a test's scripted turns. fn returns the whole response;
// Stream sends its text as one event, then each tool call. A response
// without a StopReason gets StopToolCalls when it has calls, else
// StopEnd; a tool call without arguments gets {}.
func Func(name string, fn func(context.Context, *Request) (*Response, error)) Model {
	return &funcModel{name: name, fn: fn}
}

type funcModel struct {
	name string
	fn   func(context.Context, *Request) (*Response, error)
}

func (f *funcModel) Name() string { return f.name }

func (f *funcModel) Stream(ctx context.Context, req *Request, on func(Event)) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(f.name, err)
	}
	resp, err := f.fn(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		resp = &Response{}
	}
	out := *resp
	out.Message.Role = RoleAssistant
	out.Message.ToolCalls = append([]ToolCall(nil), resp.Message.ToolCalls...)
	for i := range out.Message.ToolCalls {
		if len(out.Message.ToolCalls[i].Arguments) == 0 {
			out.Message.ToolCalls[i].Arguments = []byte("{}")
		}
	}
	if out.StopReason == "" {
		out.StopReason = StopEnd
		if len(out.Message.ToolCalls) > 0 {
			out.StopReason = StopToolCalls
		}
	}
	if on != nil {
		if t := textOf(out.Message.Parts); t != "" {
			for _, piece := range strings.SplitAfter(t, " ") {
				on(Event{Text: piece})
			}
		}
		for i := range out.Message.ToolCalls {
			c := out.Message.ToolCalls[i]
			on(Event{ToolCall: &c})
		}
	}
	return &out, nil
}
