package session

import (
	"encoding/json"
	"fmt"

	"github.com/luagent/luagent/runtime/agent"
)

// cutLine is l marshalled within max bytes (newline included): its
// texts and arguments cut, binary data and the full result dropped, each
// place saying how much was cut. Only what is on disk is cut: the model
// saw the whole message.
func cutLine(l Line, max int64) []byte {
	l.Cut = true
	budget := int(max / 4)
	for budget >= 64 {
		c := l
		if c.Message != nil {
			m := cutMessage(*c.Message, budget)
			c.Message = &m
		}
		if c.Call != nil {
			call := *c.Call
			call.Arguments = cutJSON(call.Arguments, budget)
			if call.Result != nil {
				if b, _ := json.Marshal(call.Result); len(b) > budget {
					call.Result = &agent.Result{IsError: call.Result.IsError, Content: []json.RawMessage{textBlock(fmt.Sprintf("[cut: a result of %d bytes, over the session file's line cap]", len(b)))}}
				}
			}
			if b, _ := json.Marshal(call.Calls); len(b) > budget {
				call.Calls = nil
			}
			c.Call = &call
		}
		b, err := marshal(c)
		if err == nil && int64(len(b))+1 <= max {
			return b
		}
		budget /= 2
	}
	// Nothing left to cut: the line says what it was.
	m := agent.Message{Parts: []agent.Part{{Type: "text", Text: "[cut: over the session file's line cap]"}}}
	if l.Message != nil {
		m.Role, m.ToolCallID, m.IsError = l.Message.Role, l.Message.ToolCallID, l.Message.IsError
	}
	b, _ := marshal(Line{Type: l.Type, Turn: l.Turn, Message: &m, Cut: true})
	return b
}

func cutMessage(m agent.Message, budget int) agent.Message {
	parts := make([]agent.Part, 0, len(m.Parts))
	for _, p := range m.Parts {
		if len(p.Data) > budget {
			p = agent.Part{Type: "text", Text: fmt.Sprintf("[cut: %s data of %d bytes, over the session file's line cap]", p.MIME, len(p.Data))}
		}
		p.Text = cutText(p.Text, budget)
		parts = append(parts, p)
	}
	m.Parts = parts
	if m.ToolCalls != nil {
		tcs := make([]agent.ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			tc.Arguments = cutJSON(tc.Arguments, budget)
			tcs[i] = tc
		}
		m.ToolCalls = tcs
	}
	return m
}

func cutText(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	keep := budget / 2
	for keep > 0 && keep < len(s) && s[keep]&0xc0 == 0x80 { // a whole rune
		keep--
	}
	return s[:keep] + fmt.Sprintf("\n[cut: %d more bytes, over the session file's line cap]", len(s)-keep)
}

func cutJSON(raw json.RawMessage, budget int) json.RawMessage {
	if len(raw) <= budget {
		return raw
	}
	b, _ := json.Marshal(map[string]string{"_cut": fmt.Sprintf("arguments of %d bytes, over the session file's line cap", len(raw))})
	return b
}

func textBlock(s string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
	return b
}
