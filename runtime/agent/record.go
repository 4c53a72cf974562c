package agent

import "github.com/luagent/luagent/runtime/llm"

// Recorder is told of the conversation as it grows, to keep it on disk
// (runtime/session's Writer is one): each message once it is complete —
// the prompt, the model's message, each tool's result with its call's
// record (whose Result is the tool's whole answer) — and the end of
// each Ask, which makes its turn complete. Calls come from the Ask's
// goroutine, in order; what they get has the agent's secrets masked.
type Recorder interface {
	Message(m Message, call *ToolCallRecord)
	End(tr *Transcript)
}

// SetRecorder sets the recorder of the next Asks (nil: none). The
// conversation so far is not told to it: it is taken as already kept
// (a resumed session's).
func (a *Agent) SetRecorder(r Recorder) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r == nil {
		a.recorder.Store(nil)
	} else {
		a.recorder.Store(&recorderBox{r})
	}
	a.recorded = len(a.messages)
}

type recorderBox struct{ r Recorder }

// Recorder is the agent's recorder (nil: none). It does not wait for a
// running Ask (a tool may ask which session it is in).
func (a *Agent) Recorder() Recorder {
	if b := a.recorder.Load(); b != nil {
		return b.r
	}
	return nil
}

// record tells the recorder the messages added since it was last told
// (the caller holds a.mu).
func (a *Agent) record(tr *Transcript) {
	if a.recorded > len(a.messages) {
		a.recorded = len(a.messages)
	}
	rec := a.Recorder()
	if rec == nil {
		a.recorded = len(a.messages)
		return
	}
	for _, m := range a.messages[a.recorded:] {
		msg := messageOf(m)
		for j := range msg.Parts {
			msg.Parts[j].Text = a.redact(msg.Parts[j].Text)
		}
		for j := range msg.ToolCalls {
			msg.ToolCalls[j].Arguments = a.redactJSON(msg.ToolCalls[j].Arguments)
		}
		var call *ToolCallRecord
		if m.Role == llm.RoleTool && tr != nil {
			for i := len(tr.ToolCalls) - 1; i >= 0; i-- {
				if tr.ToolCalls[i].ID == m.ToolCallID {
					r := tr.ToolCalls[i]
					r.Arguments, r.Error, r.Reason = a.redactJSON(r.Arguments), a.redact(r.Error), a.redact(r.Reason)
					call = &r
					break
				}
			}
		}
		rec.Message(msg, call)
	}
	a.recorded = len(a.messages)
}

// recordEnd tells the recorder the Ask ended (the caller holds a.mu).
func (a *Agent) recordEnd(tr *Transcript) {
	a.record(tr)
	if rec := a.Recorder(); rec != nil {
		rec.End(tr)
	}
}
