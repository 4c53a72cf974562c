package mcp

import (
	"encoding/json"
	"maps"
)

// CompletionRef names what a completion handler completes: an argument of
// a prompt (Type "ref/prompt", Name) or a variable of a resource template
// (Type "ref/resource", URI the uriTemplate). An empty Argument covers
// every argument of the ref; the zero CompletionRef covers whatever has no
// handler of its own.
type CompletionRef struct {
	Type     string
	Name     string
	URI      string
	Argument string
}

// CompletionHandler serves completion/complete; it answers with c.Return,
// as a ToolHandler does.
type CompletionHandler func(c *CompleteCall)

// CompleteCall is one completion/complete.
type CompleteCall struct {
	*Request
	Ref       CompletionRef     // Argument is the argument's name
	Value     string            // what has been typed so far
	Arguments map[string]string // the other arguments, already given (context.arguments)
}

// CompleteResult is what completion/complete answers: at most 100 values
// are sent (HasMore then set). Raw, when set, is the whole result, sent as
// is.
type CompleteResult struct {
	Values  []string        `json:"values"`
	Total   int             `json:"total,omitempty"` // 0: not said
	HasMore bool            `json:"hasMore"`
	Raw     json.RawMessage `json:"-"`
}

// maxCompletions is the most values a completion may carry.
const maxCompletions = 100

// SetCompletion sets h as the completion of ref (nil removes it). Adding a
// prompt or template again, or removing it, drops its completions.
func (s *Server) SetCompletion(ref CompletionRef, h CompletionHandler) error {
	reg := s.reg
	if reg == nil {
		return errCustomHandler
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if h == nil {
		delete(reg.completions, ref)
		return nil
	}
	if reg.completions == nil {
		reg.completions = map[CompletionRef]CompletionHandler{}
	}
	reg.completions[ref] = h
	return nil
}

// dropCompletions forgets the completions of a prompt or template (none
// for typ ""); the lock is held.
func (reg *registry) dropCompletions(typ, key string) {
	if typ == "" {
		return
	}
	maps.DeleteFunc(reg.completions, func(r CompletionRef, _ CompletionHandler) bool {
		return r.Type == typ && (r.Name == key && typ == "ref/prompt" || r.URI == key && typ == "ref/resource")
	})
}

// Return answers the completion once: with res (nil is no values), or,
// when err is not nil, an error with err's message.
func (c *CompleteCall) Return(res *CompleteResult, err error) {
	switch {
	case err != nil:
		c.Fail(err)
	case res != nil && res.Raw != nil:
		c.Reply(res.Raw)
	default:
		out := CompleteResult{Values: []string{}}
		if res != nil {
			out.Values = append(out.Values, res.Values...)
			out.Total, out.HasMore = res.Total, res.HasMore
		}
		if len(out.Values) > maxCompletions {
			out.Values, out.HasMore = out.Values[:maxCompletions], true
		}
		b, _ := json.Marshal(map[string]any{"completion": out})
		c.Reply(b)
	}
}

func (reg *registry) complete(r *Request) {
	var p struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	json.Unmarshal(r.Params, &p)
	ref := CompletionRef{Type: p.Ref.Type, Argument: p.Argument.Name}
	switch ref.Type {
	case "ref/prompt":
		ref.Name = p.Ref.Name
	case "ref/resource":
		ref.URI = p.Ref.URI
	}
	whole := ref
	whole.Argument = ""
	reg.mu.RLock()
	h := reg.completions[ref]
	if h == nil && ref.Type != "" {
		h = reg.completions[whole]
	}
	if h == nil {
		h = reg.completions[CompletionRef{}]
	}
	reg.mu.RUnlock()
	call := &CompleteCall{Request: r, Ref: ref, Value: p.Argument.Value, Arguments: p.Context.Arguments}
	if call.Arguments == nil {
		call.Arguments = map[string]string{}
	}
	if h == nil {
		call.Return(nil, nil)
		return
	}
	h(call)
}
