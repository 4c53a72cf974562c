package agent

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
)

// What an interactive host (luagent chat) needs of an agent a script
// built: who answers its asks, a saved conversation to continue, and
// messages of its own (a server prompt's) to put before the next Ask.
// Each waits for a running Ask to finish.

// SetAsk replaces Config.Ask (nil: nobody to ask). It may be called at any
// time; an ask already being answered finishes with the old one.
func (a *Agent) SetAsk(fn func(ctx context.Context, c Call) (Decision, string)) {
	a.approver.SetAsk(fn)
}

// Seed replaces the conversation with msgs (a resumed one) and forgets
// the tools found by search.
func (a *Agent) Seed(msgs []llm.Message) {
	a.mu.Lock()
	a.messages = append([]llm.Message(nil), msgs...)
	a.found = map[string]bool{}
	a.recorded = len(a.messages) // already kept, as it came
	a.lastInput = 0
	a.mu.Unlock()
}

// Append adds msgs to the end of the conversation; the next Ask's prompt
// follows them.
func (a *Agent) Append(msgs ...llm.Message) {
	a.mu.Lock()
	a.messages = append(a.messages, msgs...)
	a.mu.Unlock()
}

// Hub is the agent's hub (nil: none) and Model its model.
func (a *Agent) Hub() *hub.Hub    { return a.cfg.Hub }
func (a *Agent) Model() llm.Model { return a.cfg.Model }

// MessageOf is a conversation message as a transcript has it (to save a
// whole conversation; Message.LLM reads it back).
func MessageOf(m llm.Message) Message { return messageOf(m) }

// SampleEdit returns the params an allowed sampling request is to run with
// instead of c.Arguments (nil: as it came): the person edited it.
type SampleEdit func(ctx context.Context, c Call) json.RawMessage

// SetSampleEdit sets the hook that may change a sampling request after it
// is allowed and before the model is called (nil: none).
func (a *Agent) SetSampleEdit(fn SampleEdit) {
	if fn == nil {
		a.sampleEdit.Store(nil)
		return
	}
	a.sampleEdit.Store(&fn)
}

func (a *Agent) editedSample(ctx context.Context, c Call, req *llm.Request) (*llm.Request, error) {
	fn := a.sampleEdit.Load()
	if fn == nil {
		return req, nil
	}
	p := (*fn)(ctx, c)
	if p == nil {
		return req, nil
	}
	return samplingRequest(p)
}

// AddServers adds servers of the hub to the ones the agent uses, when
// it uses a subset (Config.Servers): an editor's MCP servers join an
// agent file's own list.
func (a *Agent) AddServers(names ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cfg.Servers == nil {
		return // all of the hub's already
	}
	for _, n := range names {
		if !slices.Contains(a.cfg.Servers, n) {
			a.cfg.Servers = append(a.cfg.Servers, n)
		}
	}
}

// AddTools offers tools of the host's beside the agent's own (luagent
// acp: the editor's file system and terminal). Call it before the first
// Ask; a name already offered by a local tool is replaced.
func (a *Agent) AddTools(tools ...LocalTool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range tools {
		replaced := false
		for i := range a.cfg.Tools {
			if a.cfg.Tools[i].Name == t.Name {
				a.cfg.Tools[i], replaced = t, true
			}
		}
		if !replaced {
			a.cfg.Tools = append(a.cfg.Tools, t)
		}
	}
}
