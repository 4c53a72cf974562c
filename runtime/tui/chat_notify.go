package tui

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/notify"
)

// How a chat calls the person back: the terminal rings (runtime/notify)
// when an approval or a form waits and when a long turn ends.

// notify is the one place the chat notifies: n says what waits. On a
// terminal, with notifications on, it writes the bell or an OSC 9
// notification through the chat's output (under mu, between lines).
func (t *chatTerm) notify(n notify.Notice) {
	if s := t.s; s != nil {
		// The Notification hooks run beside the question, not before it:
		// a slow hook must not hold the prompt.
		go func() {
			for _, note := range s.Notify(context.Background(), n.Message, n.Type) {
				t.say("%s", note)
			}
		}()
	}
	if !t.tty {
		return
	}
	seq := notify.Sequence(t.cfg.Notify, n)
	if seq == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	io.WriteString(t.out, seq)
}

// turnEnded rings when a turn that took long ended, unless it was
// cancelled (the person is there: they pressed Ctrl-C).
func (t *chatTerm) turnEnded(took time.Duration, err error) {
	if took < notify.LongTurn || errs.KindOf(err) == errs.Cancelled {
		return
	}
	msg := fmt.Sprintf("the turn ended after %d s; the chat waits for you", int(took.Seconds()))
	if err != nil {
		msg = fmt.Sprintf("the turn failed after %d s; the chat waits for you", int(took.Seconds()))
	}
	t.notify(notify.Notice{Type: notify.IdlePrompt, Message: msg})
}

// showMemory is /memory: what project memory put into the system prompt.
func (t *chatTerm) showMemory() {
	switch {
	case t.cfg.NoMemory:
		t.say("memory: off (--no-memory): no AGENTS.md in the system prompt")
	case t.memorySkipped.Load():
		t.say("%s\n(the agent was made with memory = false: none of it is in its system prompt)", t.cfg.Memory.Report())
	default:
		t.say("%s", t.cfg.Memory.Report())
	}
}
