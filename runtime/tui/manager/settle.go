package manager

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/render"
)

// pending is a note about a server on its way ("srv: restarting"): once
// the server is ready, failed or needs authorization, the note — on the
// screen and in the log — says where it got instead.
type pending struct {
	name   string
	action string // what was done: "restarted", "enabled (saved)", ...
	shown  string // the note as shown, replaced only while it still is
	log    int    // its line in the log
	prefix string // shown in front of the note (not logged)
}

// track makes the note just shown (and logged) about name follow it.
func (m *Model) track(name, action, prefix string) {
	if action == "" {
		return
	}
	m.pend = &pending{name: name, action: action, shown: m.note, log: len(m.log) - 1, prefix: prefix}
	m.settle()
}

// settle replaces the pending note once its server got somewhere.
func (m *Model) settle() {
	p := m.pend
	if p == nil {
		return
	}
	for _, st := range m.states {
		if st.Name != p.name {
			continue
		}
		outcome, failed := "", false
		switch st.Status {
		case hub.Ready:
			noun := "tools"
			if st.Tools == 1 {
				noun = "tool"
			}
			outcome = fmt.Sprintf("ready (%d %s)", st.Tools, noun)
		case hub.Failed:
			outcome, failed = "failed", true
			if st.Err != nil {
				outcome += ": " + render.OneLine(st.Err.Error(), 300)
			}
		case hub.NeedsAuth:
			outcome = "needs authorization (i starts the login)"
			if m.pendingAuth == p.name {
				outcome = "needs authorization" // the login starts by itself
			}
		default:
			return // still on its way
		}
		m.pend = nil
		note := m.o.Redact(p.name + ": " + p.action + ", " + outcome)
		if m.note == p.shown {
			m.note, m.noteErr = p.prefix+note, failed
		}
		if p.log >= 0 && p.log < len(m.log) {
			m.log[p.log] = note
		}
		return
	}
	m.pend = nil // the server is gone
}

// doFollow is do for an action that sets name on its way: its note
// follows the server (track).
func (m Model) doFollow(name, action string, fn func(ctx context.Context) (string, error)) tea.Cmd {
	cmd := m.do(fn)
	return func() tea.Msg {
		msg := cmd().(doneMsg)
		msg.name, msg.action = name, action
		return msg
	}
}
