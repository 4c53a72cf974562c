package agent

import (
	"os"

	lua "github.com/yuin/gopher-lua"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/session"
)

// Sessions from Lua (stdlib/agent.lua): agent.new{session = true} saves
// an agent's asks in a new session, agent.resume(id [, opts]) goes on
// with a saved one, and a:session() says which (ask and chat give the
// agent they build their run's session).

func (m *module) store(op string) (*session.Store, error) {
	if m.cfg.Home == "" {
		return nil, errs.New(errs.Invalid, op, "sessions need luagent's folder (LUAGENT_HOME or ~/.luagent), and this host has none")
	}
	return &session.Store{Dir: session.Dir(m.cfg.Home), Mask: secret.NewMasker(session.EnvSecrets(os.Environ()))}, nil
}

// native.session_info(id) -> {id=, model=, cwd=, turns=, path=}: a saved
// session, "latest" the latest of the current folder. An unknown id
// raises not_found.
func (m *module) sessionInfo(L *lua.LState) int {
	sess, err := m.loadSession(L.CheckString(1))
	if err != nil {
		L.Error(sched.ErrorValueOf(L, err), 0)
	}
	t := L.CreateTable(0, 5)
	t.RawSetString("id", lua.LString(sess.ID))
	t.RawSetString("model", lua.LString(sess.LastModel()))
	t.RawSetString("cwd", lua.LString(sess.Cwd))
	t.RawSetString("turns", lua.LNumber(sess.Turns()))
	t.RawSetString("path", lua.LString(sess.Path))
	L.Push(t)
	return 1
}

func (m *module) loadSession(id string) (*session.Session, error) {
	st, err := m.store("agent.resume")
	if err != nil {
		return nil, err
	}
	if id == "latest" {
		cwd, _ := os.Getwd()
		latest, err := st.Latest(cwd)
		if err != nil {
			return nil, retag(err)
		}
		id = latest.ID
	}
	sess, err := st.Load(id)
	return sess, retag(err)
}

// retag names the Lua function in a session error.
func retag(err error) error {
	if e, ok := err.(*errs.Error); ok && e.Op == "session" {
		return &errs.Error{Kind: e.Kind, Op: "agent.resume", Msg: e.Msg}
	}
	return err
}

// ud:record(id, fork) -> {id=, path=}: the agent's asks are saved in a
// session from now on: a new one (id nil), the saved session id (its
// conversation given to the agent), or its fork.
func (m *module) record(L *lua.LState) int {
	la := m.checkAgent(L)
	id := L.OptString(2, "")
	fork := L.OptBool(3, false)
	fail := func(err error) { L.Error(sched.ErrorValueOf(L, err), 0) }
	st, err := m.store("agent.new")
	if err != nil {
		fail(err)
	}
	var prior *session.Session
	if id != "" {
		if prior, err = m.loadSession(id); err != nil {
			fail(err)
		}
	}
	cwd, _ := os.Getwd()
	h := session.Header{Cwd: cwd, LuagentVersion: m.cfg.Version, Command: "lua"}
	if mo := la.a.Model(); mo != nil {
		h.Model = mo.Name()
	}
	w, msgs, err := st.Begin(prior, fork, h)
	if err != nil {
		fail(retag(err))
	}
	if len(msgs) > 0 {
		seed := make([]llm.Message, len(msgs))
		for i, msg := range msgs {
			seed[i] = msg.LLM()
		}
		la.a.Seed(seed)
	}
	la.a.SetRecorder(w)
	L.Push(sessionTable(L, w))
	return 1
}

// ud:session() -> {id=, path=} | nil: the session the agent's asks are
// saved in.
func (m *module) session(L *lua.LState) int {
	w, ok := m.checkAgent(L).a.Recorder().(*session.Writer)
	if !ok || w == nil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(sessionTable(L, w))
	return 1
}

func sessionTable(L *lua.LState, w *session.Writer) *lua.LTable {
	t := L.CreateTable(0, 2)
	t.RawSetString("id", lua.LString(w.ID()))
	t.RawSetString("path", lua.LString(w.Path()))
	return t
}
