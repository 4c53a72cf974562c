package chat

import (
	"context"

	ragent "github.com/luagent/luagent/runtime/agent"
)

// /meta REQUEST: the catalog agent (built by the session's Lua side, on
// the session's model) edits the catalog for the person. Its turns are a
// conversation of their own (a later /meta goes on with it; the chat's
// conversation neither sees nor saves them).

// metaState is the catalog agent and the agent it was made for.
type metaState struct {
	agent Agent
	for_  Agent
}

// MetaTurn sends request to the catalog agent, built by build on first
// use and again after /model changed the session's agent (its
// conversation carried over). Cancel ends it as it ends a turn; the
// chat's conversation does not change.
func (s *Session) MetaTurn(ctx context.Context, request string, build func(context.Context) (Agent, error), onEvent func(ragent.Event)) (string, error) {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return "", err
	}
	defer end()
	s.mu.Lock()
	main, m := s.agent, s.meta
	s.mu.Unlock()
	if m == nil || m.for_ != main {
		a, err := build(ctx)
		if err != nil {
			return "", err
		}
		if m != nil {
			a.Agent().Seed(m.agent.Agent().Messages())
		}
		m = &metaState{agent: a, for_: main}
		s.mu.Lock()
		s.meta = m
		s.mu.Unlock()
	}
	text, _, err := m.agent.Ask(ctx, request, onEvent)
	return text, err
}

// ApplyCatalog reads the catalog at path again and makes the hub match
// it: only the servers whose entries changed start, stop or restart. A
// session whose agent has no hub, or a hub of its own servers, keeps it
// as it is (the catalog then changes the next session).
func (s *Session) ApplyCatalog(path string) error {
	h, err := s.catalogHub("the change applies to the next session")
	if err != nil {
		return err
	}
	return s.reload(h, path)
}
