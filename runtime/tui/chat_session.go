package tui

import (
	"github.com/luagent/luagent/runtime/sessionid"
	"os"
	"path/filepath"
	"strings"

	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/session"
)

// A chat is a session (runtime/session): its turns are saved in
// Home/sessions/ID.jsonl as they happen; --resume ID|latest goes on with
// one, --resume FILE with a conversation saved before sessions (it goes
// on in a new session).

func (t *chatTerm) sessionStore() *session.Store {
	return &session.Store{Dir: session.Dir(t.cfg.Home), Mask: secret.NewMasker(append(append([]string{}, t.cfg.Secrets...), t.cfg.SessionSecrets...)),
		Warn: func(msg string) { t.say("%s", msg) }}
}

// resumed reads what --resume names: a saved session, or a conversation
// file of before (nil, nil: none).
func (t *chatTerm) resumed() (*session.Session, *chat.Conversation, error) {
	r := t.cfg.Resume
	switch {
	case r == "":
		return nil, nil, nil
	case r == "latest":
		cwd, _ := os.Getwd()
		latest, err := t.store.Latest(cwd)
		if err != nil {
			return nil, nil, err
		}
		sess, err := t.store.Load(latest.ID)
		return sess, nil, err
	case !sessionid.Valid(r) && (strings.ContainsRune(r, filepath.Separator) || strings.HasSuffix(r, ".json") || fileExists(r)):
		conv, err := chat.Load(r)
		return nil, conv, err
	}
	sess, err := t.store.Load(r)
	return sess, nil, err
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// openSession opens the session the chat's turns are saved in and gives
// the agent its conversation: prior's (appended to), conv's (imported
// into a new session), or none (a new session).
func (t *chatTerm) openSession(prior *session.Session, conv *chat.Conversation) (*session.Writer, error) {
	cwd, _ := os.Getwd()
	h := session.Header{Cwd: cwd, AgentFile: t.cfg.AgentFile, LuagentVersion: t.cfg.Version, Command: "chat", Model: modelName(t.s.Agent())}
	switch {
	case prior != nil:
		w, msgs, err := t.store.Begin(prior, false, h)
		if err != nil {
			return nil, err
		}
		t.s.Resume(&chat.Conversation{Messages: msgs, Start: prior.Start})
		return w, nil
	case conv != nil:
		t.s.Resume(conv)
		return t.store.Import(h, conv.Messages, conv.Model)
	}
	return t.store.Create(h)
}

// endSession closes the chat's session file and returns it; a session
// nothing was said in is removed (nil).
func (t *chatTerm) endSession() *session.Writer {
	w := t.s.SetRecord(nil)
	if w == nil {
		return nil
	}
	w.Close()
	if sess, err := t.store.Load(w.ID()); err == nil && sess.Turns() == 0 && len(sess.Entries) == 0 {
		t.store.Remove(w.ID())
		return nil
	}
	return w
}

// sessionErr is err's message, without the op of a session error.
func sessionErr(err error) string {
	if e, ok := err.(*errs.Error); ok && e.Op == "session" {
		return e.Kind.String() + ": " + e.Msg
	}
	return err.Error()
}
