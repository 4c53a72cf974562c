package session

import (
	"encoding/json"

	"github.com/luagent/luagent/runtime/agent"
)

// masked is l with the secrets masked in each thing it repeats: texts,
// arguments, results, errors. Masking is per value (never over the JSON
// text), so a secret that looks like JSON syntax cannot break a line.
func (w *Writer) masked(l Line) Line {
	if w.mask == nil {
		return l
	}
	if l.Message != nil {
		m := maskMessage(w, *l.Message)
		l.Message = &m
	}
	if l.Call != nil {
		c := maskCall(w, *l.Call)
		l.Call = &c
	}
	l.Error, l.Text = w.mask.String(l.Error), w.mask.String(l.Text)
	return l
}

func maskMessage(w *Writer, m agent.Message) agent.Message {
	parts := make([]agent.Part, len(m.Parts))
	for i, p := range m.Parts {
		p.Text = w.mask.String(p.Text)
		parts[i] = p
	}
	m.Parts = parts
	if m.ToolCalls != nil {
		tcs := make([]agent.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			tc.Arguments = w.maskJSON(tc.Arguments)
			tcs[i] = tc
		}
		m.ToolCalls = tcs
	}
	return m
}

func maskCall(w *Writer, c agent.ToolCallRecord) agent.ToolCallRecord {
	c.Arguments, c.Reason, c.Error = w.maskJSON(c.Arguments), w.mask.String(c.Reason), w.mask.String(c.Error)
	if c.Result != nil {
		r := agent.Result{IsError: c.Result.IsError, StructuredContent: w.maskJSON(c.Result.StructuredContent)}
		for _, b := range c.Result.Content {
			r.Content = append(r.Content, w.maskJSON(b))
		}
		c.Result = &r
	}
	if c.Calls != nil {
		calls := make([]agent.ToolCallRecord, len(c.Calls))
		for i, in := range c.Calls {
			calls[i] = maskCall(w, in)
		}
		c.Calls = calls
	}
	return c
}

// maskJSON masks the secrets in the strings (keys too) of a JSON value; a
// value that is not JSON is masked as text and kept as a JSON string.
func (w *Writer) maskJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	masked := w.mask.Bytes(raw)
	if string(masked) == string(raw) {
		return raw // nothing secret in it: as it was, byte for byte
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		b, _ := json.Marshal(string(masked))
		return b
	}
	b, err := json.Marshal(w.maskValue(v))
	if err != nil {
		b, _ = json.Marshal(string(masked))
	}
	return b
}

func (w *Writer) maskValue(v any) any {
	switch x := v.(type) {
	case string:
		return w.mask.String(x)
	case []any:
		for i := range x {
			x[i] = w.maskValue(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[w.mask.String(k)] = w.maskValue(e)
		}
		return out
	}
	return v
}
