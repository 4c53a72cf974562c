package session

import (
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/secret"
)

// Begin opens the session a run records into: a new one (prior nil),
// prior itself to go on with (its next turns appended), or a fork of
// prior (a new id holding its history). It returns the writer and the
// conversation to seed the agent with (nil for a new one).
func (s *Store) Begin(prior *Session, fork bool, h Header) (*Writer, []agent.Message, error) {
	switch {
	case prior == nil:
		w, err := s.Create(h)
		return w, nil, err
	case fork:
		w, err := s.Fork(prior, h)
		if err != nil {
			if w != nil {
				w.Close()
			}
			return nil, nil, err
		}
		return w, prior.Messages(), nil
	}
	w, cur, err := s.Append(prior.ID)
	if err != nil {
		return nil, nil, err
	}
	return w, cur.Messages(), nil
}

// Import starts a new session holding msgs, a conversation saved in
// another form (chat's JSON of before sessions), as its first turn.
func (s *Store) Import(h Header, msgs []agent.Message, model string) (*Writer, error) {
	w, err := s.Create(h)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return w, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range msgs {
		w.writeLocked(Line{Type: TypeMessage, Turn: 1, Message: &msgs[i]})
	}
	w.writeLocked(Line{Type: TypeTurnEnd, Turn: 1, End: string(agent.EndAnswer), Model: model, Time: time.Now().UTC().Round(time.Millisecond)})
	w.turn, w.first = 2, 2
	return w, w.err
}

// EnvSecrets are the values of environ's variables whose names say they
// hold a secret (API_KEY, GITHUB_TOKEN, ...; secret.Name), for a Store's
// Mask: a session file never holds them. Short values are left out
// (they would mask common words), and so are paths and the variables
// whose names only look secret (PWD, SSH_AUTH_SOCK: a folder, a socket).
func EnvSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || len(v) < 6 || !secret.Name(k) || notSecret[strings.ToUpper(k)] || strings.HasPrefix(v, "/") || strings.HasPrefix(strings.ToUpper(k), "XDG_SESSION_") {
			continue
		}
		out = append(out, v)
	}
	return out
}

// notSecret are variables Name takes for secrets that are not.
var notSecret = map[string]bool{"PWD": true, "OLDPWD": true, "SSH_AUTH_SOCK": true, "DBUS_SESSION_BUS_ADDRESS": true, "GPG_AGENT_INFO": true, "XAUTHORITY": true, "SESSION_MANAGER": true, "DESKTOP_SESSION": true}

// Turns says whether the writer recorded a turn of its own (a run that
// said nothing leaves a file worth removing).
func (w *Writer) Turns() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.turn - w.first
}
