package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
)

// Prompt is one entry of prompts/list. Raw, when set, is the entry as is
// (the registry reads name and arguments from it).
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Raw         json.RawMessage  `json:"-"`
}

// PromptArgument is an argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptHandler serves prompts/get of one prompt; it answers with
// get.Return, as a ToolHandler does.
type PromptHandler func(get *PromptGet)

// PromptGet is one prompts/get of a registered prompt, its required
// arguments present.
type PromptGet struct {
	*Request
	Name      string
	Arguments map[string]string
}

// GetPromptResult is what prompts/get answers. Raw, when set, is the whole
// result, sent as is.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Raw         json.RawMessage `json:"-"`
}

// PromptMessage is one message of a prompt; Content is a content block
// (TextContent, say).
type PromptMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type serverPrompt struct {
	def      json.RawMessage
	required []string
	handler  PromptHandler
}

// AddPrompt registers p, served by h, or replaces the prompt of that name
// where it stands in the list (and drops its completions: set them again).
// Errors are of kind Invalid.
func (s *Server) AddPrompt(p Prompt, h PromptHandler) error {
	if s.reg == nil {
		return errCustomHandler
	}
	if err := rawFields(p.Raw, &p); err != nil {
		return err
	}
	if p.Name == "" || h == nil {
		return errs.New(errs.Invalid, "", "a prompt needs a name and a handler")
	}
	sp := &serverPrompt{handler: h}
	for _, a := range p.Arguments {
		if a.Required {
			sp.required = append(sp.required, a.Name)
		}
	}
	var err error
	if sp.def, err = definition(p.Raw, p); err != nil {
		return err
	}
	return add(s, "prompts", promptEntries, "ref/prompt", p.Name, sp)
}

// RemovePrompts removes the named prompts (and their completions) and says
// how many there were.
func (s *Server) RemovePrompts(names ...string) int {
	return remove(s, "prompts", promptEntries, "ref/prompt", names)
}

// Return answers the get once: with res (nil is no messages), or, when
// err is not nil, an error with err's message.
func (g *PromptGet) Return(res *GetPromptResult, err error) {
	switch {
	case err != nil:
		g.Fail(err)
	case res != nil && res.Raw != nil:
		g.Reply(res.Raw)
	default:
		out := GetPromptResult{Messages: []PromptMessage{}}
		if res != nil {
			out.Description = res.Description
			out.Messages = append(out.Messages, res.Messages...)
		}
		b, err := json.Marshal(out)
		if err != nil {
			g.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the prompt cannot be sent: " + err.Error()})
			return
		}
		g.Reply(b)
	}
}

func (reg *registry) getPrompt(r *Request) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompts/get: arguments must be strings"})
		return
	}
	reg.mu.RLock()
	sp := reg.prompts.get(p.Name)
	reg.mu.RUnlock()
	if sp == nil {
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown prompt: " + p.Name})
		return
	}
	for _, req := range sp.required {
		if _, ok := p.Arguments[req]; !ok {
			r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s needs argument %s", p.Name, req)})
			return
		}
	}
	if p.Arguments == nil {
		p.Arguments = map[string]string{}
	}
	sp.handler(&PromptGet{Request: r, Name: p.Name, Arguments: p.Arguments})
}
