package tui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/notify"
	"github.com/luagent/luagent/runtime/render"
	"github.com/luagent/luagent/runtime/secret"
)

// A long turn's end rings; a short one, a cancelled one, one with
// notifications off or one without a terminal does not.
func TestTurnEndedRings(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		tty  bool
		took time.Duration
		err  error
		want string
	}{
		{"long", notify.Bell, true, 11 * time.Second, nil, "\a"},
		{"long, osc9", notify.OSC9, true, 12 * time.Second, nil, "\x1b]9;luagent: the turn ended after 12 s; the chat waits for you\a"},
		{"long, failed", notify.OSC9, true, 12 * time.Second, errs.New(errs.Timeout, "agent", "x"), "\x1b]9;luagent: the turn failed after 12 s; the chat waits for you\a"},
		{"short", notify.Bell, true, 9 * time.Second, nil, ""},
		{"cancelled", notify.Bell, true, time.Minute, errs.New(errs.Cancelled, "agent", "x"), ""},
		{"off", notify.Off, true, time.Minute, nil, ""},
		{"unset", "", true, time.Minute, nil, ""},
		{"piped", notify.Bell, false, time.Minute, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			ct := &chatTerm{cfg: ChatConfig{Notify: tc.mode}, tty: tc.tty, out: &out}
			ct.turnEnded(tc.took, tc.err)
			if got := out.String(); got != tc.want {
				t.Errorf("wrote %q, want %q", got, tc.want)
			}
		})
	}
}

func TestShowMemoryOff(t *testing.T) {
	var out bytes.Buffer
	ct := &chatTerm{cfg: ChatConfig{NoMemory: true}, out: &out}
	ct.r = render.New(render.Options{Text: &out, Shown: ct.shown})
	ct.mask = secret.NewMasker(nil)
	ct.showMemory()
	if !strings.Contains(out.String(), "memory: off (--no-memory)") {
		t.Errorf("got %q", out.String())
	}
}
