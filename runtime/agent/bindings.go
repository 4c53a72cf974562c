package agent

import (
	"encoding/json"
	"path"
	"slices"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
)

// Binding pins one argument of the tools it matches: the model does not
// see the argument (it is left out of the tool's schema) and the call
// gets Value whatever the model sent. Operators use it to fix an
// organisation, a project or a credential without trusting the model
// with it.
type Binding struct {
	// Tool is a path.Match pattern ("github__*", "search") matched
	// against the name the model sees and, for MCP tools, the server's
	// own tool name.
	Tool string
	// Arg is the argument's name; Value its JSON value.
	Arg   string
	Value json.RawMessage
}

// SecretMask is what a secret value is replaced with wherever the agent
// reports it (Config.Secrets).
const SecretMask = secret.Mask

// bound returns the bindings that apply to a tool, by argument (nil: none).
func (a *Agent) bound(name, own string) map[string]json.RawMessage {
	var out map[string]json.RawMessage
	for _, b := range a.cfg.Bindings {
		m, _ := path.Match(b.Tool, name)
		if !m && own != "" {
			m, _ = path.Match(b.Tool, own)
		}
		if m {
			if out == nil {
				out = map[string]json.RawMessage{}
			}
			out[b.Arg] = b.Value
		}
	}
	return out
}

// withoutArgs is schema without the named properties (and their required
// entries). A schema it cannot read is kept as it is.
func withoutArgs(schema json.RawMessage, args map[string]json.RawMessage) json.RawMessage {
	var s map[string]json.RawMessage
	if json.Unmarshal(schema, &s) != nil {
		return schema
	}
	var props map[string]json.RawMessage
	if json.Unmarshal(s["properties"], &props) == nil && props != nil {
		for k := range args {
			delete(props, k)
		}
		s["properties"], _ = json.Marshal(props)
	}
	var req []string
	if json.Unmarshal(s["required"], &req) == nil && req != nil {
		req = slices.DeleteFunc(req, func(r string) bool { _, ok := args[r]; return ok })
		if len(req) == 0 {
			delete(s, "required")
		} else {
			s["required"], _ = json.Marshal(req)
		}
	}
	out, err := json.Marshal(s)
	if err != nil {
		return schema
	}
	return out
}

// withArgs is the arguments object with the bound values set over what
// the model sent.
func withArgs(args json.RawMessage, bound map[string]json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(args) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return nil, errs.Errorf(errs.Invalid, "agent", "the arguments are not a JSON object: %v", err)
		}
		if m == nil {
			m = map[string]json.RawMessage{}
		}
	}
	for k, v := range bound {
		m[k] = v
	}
	return json.Marshal(m)
}

// redact masks the secrets in s.
func (a *Agent) redact(s string) string {
	return a.secrets.String(s)
}

func (a *Agent) redactJSON(raw json.RawMessage) json.RawMessage {
	return a.secrets.Bytes(raw)
}

// redactErr keeps err's kind and masks its text.
func (a *Agent) redactErr(err error) error {
	if a.secrets == nil || err == nil {
		return err
	}
	if msg := a.redact(err.Error()); msg != err.Error() {
		return &errs.Error{Kind: errs.KindOf(err), Msg: msg}
	}
	return err
}

func (a *Agent) redactResult(r Result) Result {
	if a.secrets == nil {
		return r
	}
	out := Result{IsError: r.IsError, StructuredContent: a.redactJSON(r.StructuredContent)}
	for _, c := range r.Content {
		out.Content = append(out.Content, a.redactJSON(c))
	}
	return out
}

// shown is a call as events carry it: a copy (later changes, BeforeTool's,
// do not reach an event already sent) with the secrets masked.
func (a *Agent) shown(c *Call) *Call {
	cp := *c
	cp.Arguments = a.redactJSON(cp.Arguments)
	return &cp
}

// redactTranscript masks the secrets in what the transcript repeats.
func (a *Agent) redactTranscript(tr *Transcript) {
	if a.secrets == nil {
		return
	}
	tr.Error = a.redact(tr.Error)
	for i := range tr.Messages {
		m := &tr.Messages[i]
		for j := range m.Parts {
			m.Parts[j].Text = a.redact(m.Parts[j].Text)
		}
		for j := range m.ToolCalls {
			m.ToolCalls[j].Arguments = a.redactJSON(m.ToolCalls[j].Arguments)
		}
	}
	for i := range tr.ToolCalls {
		r := &tr.ToolCalls[i]
		r.Arguments, r.Error, r.Reason = a.redactJSON(r.Arguments), a.redact(r.Error), a.redact(r.Reason)
		if r.Result != nil {
			res := a.redactResult(*r.Result)
			r.Result = &res
		}
	}
}
