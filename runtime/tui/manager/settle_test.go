package manager

import (
	"errors"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/hub"
)

// A note about a server on its way ("restarting", "enabled, starting",
// "added, connecting") is replaced, on screen and in the log, once the
// server gets where it was going.
func TestNotesFollowTheServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    []string
		server  string
		first   string
		outcome hub.State
		final   string
	}{
		{"restart, ready", []string{"r"}, "srv", "srv: restarting", hub.State{Status: hub.Ready, Tools: 3}, "srv: restarted, ready (3 tools)"},
		{"restart, failed", []string{"r"}, "srv", "srv: restarting", hub.State{Status: hub.Failed, Err: errors.New("exit status 1")}, "srv: restarted, failed: exit status 1"},
		{"enable, ready", []string{"down", "down", "e"}, "off", "off: enabled (saved), starting", hub.State{Status: hub.Ready, Tools: 1}, "off: enabled (saved), ready (1 tool)"},
		{"enable, needs auth", []string{"down", "down", "e"}, "off", "off: enabled (saved), starting", hub.State{Status: hub.NeedsAuth}, "off: enabled (saved), needs authorization (i starts the login)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackend()
			d := newDriver(t, b)
			// The backend's action puts the server back to connecting, as
			// the hub does.
			d.keys(tc.keys...)
			d.send(StatusMsg{})
			d.shows(tc.first)
			b.mu.Lock()
			for i := range b.states {
				if b.states[i].Name == tc.server {
					st := tc.outcome
					st.Name = tc.server
					b.states[i] = st
				}
			}
			b.mu.Unlock()
			d.send(StatusMsg{})
			d.shows(tc.final)
			d.lacks(tc.first + " ")
			log := strings.Join(d.m.Log(), "\n")
			if !strings.Contains(log, tc.final) || strings.Contains(log, tc.first) {
				t.Errorf("the log: %q, want %q in place of %q", log, tc.final, tc.first)
			}
		})
	}
}

// A note whose server got there before the note came is settled at once.
func TestNoteSettledBeforeItCame(t *testing.T) {
	b := newBackend()
	b.instant = true
	d := newDriver(t, b)
	d.keys("r") // srv is ready: the fake's restart does not change it
	d.shows("srv: restarted, ready (2 tools)")
}
