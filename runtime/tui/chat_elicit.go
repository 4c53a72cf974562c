package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/notify"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/render"
)

// A server's elicitation in the chat: a form asked field by field (each
// value checked before anything is sent; !decline and !cancel always
// work), or a URL shown in full that a browser opens only when the person
// says so. Nothing is fetched.

// asker names the server asking: the hub's word for it, else the one
// whose tool call runs, when only one does.
func (t *chatTerm) asker(server string) string {
	if server != "" {
		return server
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.running) == 1 {
		for s := range t.running {
			return s
		}
	}
	return "a server"
}

func (t *chatTerm) trackCall(e ragent.Event) {
	if e.Call == nil || e.Call.Server == "" {
		return
	}
	switch e.Type {
	case ragent.EventToolStart:
		t.running[e.Call.Server]++
	case ragent.EventToolEnd:
		if t.running[e.Call.Server]--; t.running[e.Call.Server] <= 0 {
			delete(t.running, e.Call.Server)
		}
	}
}

// elicit answers one elicitation/create request.
func (t *chatTerm) elicit(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
	release, ok := t.asking(ctx)
	defer release()
	who := t.asker(server)
	if !ok {
		t.say("  %s asked for input while nothing ran (a background task?): declined", who)
		return chat.Decline, nil
	}
	t.notify(notify.Notice{Type: notify.ElicitationDialog, Message: who + " asks for input"})
	if u, ok := chat.ParseURLRequest(params); ok {
		return t.elicitURL(ctx, who, u), nil
	}
	form, err := chat.ParseForm(params)
	if err != nil {
		t.say("  %s asked with a form this chat cannot show (%v): declined", who, err)
		return chat.Decline, nil
	}
	t.say("  ? %s asks: %s", who, render.OneLine(form.Message, 300))
	t.say("    (Enter takes the [default]; !decline declines, !cancel or Ctrl-C cancels)")
	content := map[string]any{}
	for _, f := range form.Fields {
		if f.Description != "" {
			t.say("    %s", render.OneLine(f.Description, 200))
		}
		for {
			line, err := t.ask("    " + f.Label() + ": ")
			if ans, done := control(line, err); done {
				return ans, nil
			}
			v, set, perr := f.Parse(line)
			if perr != nil {
				t.say("    ✗ %v", perr)
				continue
			}
			if set {
				content[f.Name] = v
			}
			break
		}
	}
	b, _ := json.Marshal(content) // keys in order: a stable preview
	t.say("    to send: %s", t.shown(render.OneLine(string(b), 300)))
	for {
		line, err := t.ask("    send? [y = send, n = decline, c = cancel] ")
		if ans, done := control(line, err); done {
			return ans, nil
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return chat.Accept(content), nil
		case "n", "no":
			return chat.Decline, nil
		case "c":
			return chat.Cancel, nil
		}
	}
}

// control reads the answers that end a form at any field.
func control(line string, err error) (json.RawMessage, bool) {
	if errors.Is(err, ErrAborted) || err != nil {
		return chat.Cancel, true
	}
	switch strings.TrimSpace(line) {
	case "!decline":
		return chat.Decline, true
	case "!cancel":
		return chat.Cancel, true
	}
	return nil, false
}

func (t *chatTerm) elicitURL(ctx context.Context, who string, u chat.URLRequest) json.RawMessage {
	t.say("  ? %s asks you to open a URL: %s", who, render.OneLine(u.Message, 300))
	t.say("    %s", u.URL)
	t.say("    (nothing is fetched unless you say y)")
	for {
		line, err := t.ask("    open it in your browser? [y/n, c = cancel] ")
		if ans, done := control(line, err); done {
			return ans
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			if err := oauth.OpenURL(u.URL); err != nil {
				t.say("    could not open a browser (%v): open the URL above yourself", err)
			}
			return chat.AcceptURL
		case "n", "no", "":
			return chat.Decline
		case "c":
			return chat.Cancel
		}
	}
}
