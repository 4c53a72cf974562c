package chat

import (
	"context"
)

// The chat's side of the lifecycle hooks (runtime/hooks): one session id
// for every agent the chat runs (/model builds another: it continues the
// session, SessionStart not fired again), SessionEnd when the chat ends,
// Notification when it notifies the person.

// ID is the session's id (hooks' session_id).
func (s *Session) ID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// joinSession gives a the session: old's when it replaces one.
func (s *Session) joinSession(a, old Agent) {
	if old != nil && old != a {
		a.Agent().AdoptSession(old.Agent())
		return
	}
	id, path := s.ID(), ""
	if w := s.Record(); w != nil {
		path = w.Path()
	}
	a.Agent().SetSession(id, path)
}

// End fires SessionEnd (reason: "prompt_input_exit" when the person left
// at the prompt, "clear", "logout" or "other") and returns what its hooks
// said for the person.
func (s *Session) End(ctx context.Context, reason string) []string {
	return s.Agent().Agent().EndSession(ctx, reason).Notes
}

// Notify fires Notification (typ: "permission_prompt" when an approval
// waits, "elicitation_dialog" for a server's form, "idle_prompt" when a
// long turn ended): the chat calls it where it rings the terminal. It
// returns what the hooks said for the person.
func (s *Session) Notify(ctx context.Context, message, typ string) []string {
	return s.Agent().Agent().Notify(ctx, message, "luagent", typ).Notes
}
