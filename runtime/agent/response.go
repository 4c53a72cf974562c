package agent

import "github.com/luagent/luagent/runtime/llm"

// What a host that replays the conversation as it happens (ask's
// stream-json) needs beyond the text deltas: each model response whole,
// and the names of the tools on offer.

// emitResponse sends a model response, whole, as EventResponse.
func (a *Agent) emitResponse(turn int, msg llm.Message, u Usage, stop, model string) {
	m := messageOf(msg)
	a.emit(Event{Type: EventResponse, Turn: turn, Response: &m, Usage: u, StopReason: stop, Model: model})
}

// redactMessage masks the secrets in a message's text and tool call
// arguments (a copy: the conversation keeps what the model said).
func (a *Agent) redactMessage(m Message) Message {
	out := m
	out.Parts = append([]Part(nil), m.Parts...)
	for i := range out.Parts {
		out.Parts[i].Text = a.redact(out.Parts[i].Text)
	}
	out.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	for i := range out.ToolCalls {
		out.ToolCalls[i].Arguments = a.redactJSON(out.ToolCalls[i].Arguments)
	}
	return out
}

// Offered returns the names of the tools the next model turn would be
// offered, in the order the model sees them, and of the skills offered
// with them. It waits for a running Ask.
func (a *Agent) Offered() (tools, skills []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ts := a.toolset()
	tools, skills = make([]string, 0, len(ts.tools)), make([]string, 0, len(ts.skills))
	for _, t := range ts.tools {
		tools = append(tools, t.Name)
	}
	for _, s := range ts.skills {
		skills = append(skills, s.Name)
	}
	return tools, skills
}

// UsesServer says whether the agent uses the hub's server name (Config.Servers).
func (a *Agent) UsesServer(name string) bool { return a.inSubset(name) }
