// Package chat is the session behind `luagent chat`, without a terminal:
// it runs turns (one at a time, each cancellable), answers the agent's
// approval asks through a UI (allow once, allow a tool for the session,
// deny with a reason), parses slash commands and prompt arguments, turns
// a server's prompt into the next turn, formats the servers' status, and
// saves and resumes conversations. The terminal (runtime/tui) implements
// UI and reads lines; luabind/chatlua builds the agent in a Lua state.
package chat

import (
	"context"
	"encoding/json"
	"github.com/luagent/luagent/runtime/sessionid"
	"sync"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/session"
)

// Agent is what a session needs of its agent: a turn with a Go event sink,
// and the runtime agent (conversation, asks). luabind/mod/agent's Handle is
// one.
type Agent interface {
	Ask(ctx context.Context, prompt string, onEvent func(ragent.Event)) (string, *ragent.Transcript, error)
	Agent() *ragent.Agent
}

// UI is what a session shows and asks.
type UI interface {
	// Event shows one thing the running turn did (text, tool activity).
	// It runs on the turn's goroutines, one call at a time.
	Event(ragent.Event)
	// Approve asks the person about a call the policy asks about; ctx ends
	// when the turn is cancelled (answer Deny then).
	Approve(ctx context.Context, c ragent.Call) Approval
}

// Options configure a Session.
type Options struct {
	Agent Agent
	UI    UI
	// Hub is the session's servers (nil: none); Catalog the entries behind
	// it, for what the hub does not say (transport).
	Hub     *hub.Hub
	Catalog []*catalog.Server
	// File is where Save writes the conversation (a resumed one's file, or
	// a new one under Home/sessions).
	File string
	// AgentFile is --agent's file, kept in the saved conversation.
	AgentFile string
	// Lua is the Lua side the agent was built by: /model, /lua and /meta
	// use it (nil: they fail saying so).
	Lua Lua
	// Rules are the permission rules every agent of the session gets
	// (the user's, the project's, --allow, --deny; nil: none).
	Rules approval.Rules
	// MaxTurns and MaxCost bound every agent of the session (--max-turns,
	// --max-cost; 0: the agent's own). The cost is the session's: an
	// agent /model makes goes on from what the old one spent.
	MaxTurns int
	MaxCost  float64
}

// Session is one conversation with an agent.
type Session struct {
	o        Options
	*Servers // the hub and the catalog (Options.Hub, Options.Catalog)

	mu     sync.Mutex
	agent  Agent
	cancel context.CancelCauseFunc    // the running turn's (nil: none)
	person *approval.Person           // answers asks; remembers tools allowed for the session
	edits  map[string]json.RawMessage // sampling requests as the person edited them
	conv   Conversation
	meta   *metaState      // /meta's catalog agent, built on first use
	rec    *session.Writer // the session file the turns are saved in (record.go)
	id     string          // the session's id: rec's, or sessionid.New while unsaved (hooks.go)
}

// New returns a session over o.Agent, whose asks it answers from now on.
func New(o Options) *Session {
	s := &Session{o: o, Servers: NewServers(o.Hub, o.Catalog), edits: map[string]json.RawMessage{}}
	s.person = approval.NewPerson(o.UI.Approve)
	s.conv = Conversation{Version: conversationVersion, Start: time.Now().UTC().Round(time.Second), AgentFile: o.AgentFile}
	s.id = sessionid.New() // the chat's one session id
	s.SetAgent(o.Agent)
	return s
}

// SetAgent replaces the agent (/model builds a new one) and gives it the
// conversation so far.
func (s *Session) SetAgent(a Agent) {
	s.mu.Lock()
	old := s.agent
	s.agent = a
	s.mu.Unlock()
	ra := a.Agent()
	ra.SetAsk(s.ask)
	ra.SetSampleEdit(s.sampleEdit)
	if s.o.Rules != nil {
		ra.SetRules(s.o.Rules)
	}
	ra.SetLimits(s.o.MaxTurns, s.o.MaxCost)
	if old != nil && old != a {
		ra.AddCosts(old.Agent().Costs()) // /cost and --max-cost count the whole session
	}
	s.joinSession(a, old) // hooks.go
	if old != nil && old != a {
		ra.Seed(old.Agent().Messages())
		if w := s.Record(); w != nil {
			ra.SetRecorder(w) // the session goes on with the new model
		}
	}
}

// Agent is the session's agent.
func (s *Session) Agent() Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent
}

// ErrCancelled is the cause a cancelled turn ends with.
var ErrCancelled = errs.New(errs.Cancelled, "chat", "the turn was cancelled (Ctrl-C)")

// begin starts a turn (Turn's or MetaTurn's: one at a time), which Cancel
// ends through the context it returns; end finishes it.
func (s *Session) begin(ctx context.Context) (context.Context, func(), error) {
	ctx, cancel := context.WithCancelCause(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		cancel(nil)
		return nil, nil, errs.New(errs.Invalid, "chat", "a turn is already running: wait for it or press Ctrl-C")
	}
	s.cancel = cancel
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel(nil)
	}, nil
}

// Turn sends prompt to the agent and waits for its answer; Cancel (from
// another goroutine) ends it early, the model's stream and the tool calls
// with it. The conversation keeps what the turn did either way.
func (s *Session) Turn(ctx context.Context, prompt string) (string, error) {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return "", err
	}
	defer end()
	s.mu.Lock()
	a := s.agent
	s.mu.Unlock()
	text, tr, err := a.Ask(ctx, prompt, s.o.UI.Event)
	s.mu.Lock()
	if tr != nil {
		s.conv.Turns = append(s.conv.Turns, *tr)
		s.conv.Model = tr.Model
	}
	s.mu.Unlock()
	return text, err
}

// Cancel cancels the running turn; false when none runs.
func (s *Session) Cancel() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel == nil {
		return false
	}
	s.cancel(ErrCancelled)
	return true
}

// Busy says whether a turn runs.
func (s *Session) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancel != nil
}

// Clear starts a new conversation (the tools allowed for the session stay
// allowed).
func (s *Session) Clear() {
	s.mu.Lock()
	a := s.agent
	s.conv = Conversation{Version: conversationVersion, Start: time.Now().UTC().Round(time.Second), AgentFile: s.o.AgentFile}
	m := s.meta
	s.mu.Unlock()
	a.Agent().Reset()
	if m != nil {
		m.agent.Agent().Reset() // /clear starts /meta's conversation over too
	}
}

// ask is the agent's Config.Ask: the session's person answers (tools
// allowed for the session pass unasked); an edited sampling request is
// kept for sampleEdit.
func (s *Session) ask(ctx context.Context, c ragent.Call) (ragent.Decision, string) {
	d, reason, ap := s.person.Decide(ctx, c)
	if d == ragent.Allow && ap.Choice == AllowOnce && ap.Edited != nil && c.Kind == ragent.KindSampling {
		s.mu.Lock()
		s.edits[editKey(c)] = ap.Edited
		s.mu.Unlock()
		return ragent.Allow, "allowed by the user, edited"
	}
	return d, reason
}

// editKey pairs a sampling request with its edit: approvals and the edit
// hook see the same call, and two requests alike need the same edit.
func editKey(c ragent.Call) string { return c.Server + "\x00" + string(c.Arguments) }

// sampleEdit is the agent's SampleEdit: the request as the person edited
// it, once.
func (s *Session) sampleEdit(_ context.Context, c ragent.Call) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := editKey(c)
	p := s.edits[k]
	delete(s.edits, k)
	return p
}
