package chat

import "github.com/luagent/luagent/runtime/session"

// SetRecord makes w the session file the conversation's next turns are
// saved in (the agent's recorder; /model's agents get it too), and
// returns the one it replaces (nil: none), for the caller to close.
func (s *Session) SetRecord(w *session.Writer) *session.Writer {
	s.mu.Lock()
	old := s.rec
	s.rec = w
	if w != nil {
		s.id = w.ID() // hooks' session_id is the saved session's
	}
	a := s.agent
	s.mu.Unlock()
	if w != nil {
		a.Agent().SetRecorder(w)
		a.Agent().SetSession(w.ID(), w.Path())
	} else {
		a.Agent().SetRecorder(nil)
	}
	return old
}

// Record is the session file the turns are saved in (nil: none).
func (s *Session) Record() *session.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

// SessionID is the chat's session id: THE id of this conversation
// (hooks' session_id; "" before the session file is opened). /clear
// starts a new session, with a new id.
func (s *Session) SessionID() string {
	if w := s.Record(); w != nil {
		return w.ID()
	}
	return ""
}
