package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/chat"
	"github.com/luagent/luagent/runtime/notify"
	"github.com/luagent/luagent/runtime/render"
)

// How a chat shows a turn: runtime/render's lines, the answer streaming
// as it comes and each tool call's progress one line redrawn on a
// terminal.

// Event is chat.UI's: one thing the running turn did.
func (t *chatTerm) Event(e ragent.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.trackCall(e)
	t.r.Event(e)
}

func callName(c *ragent.Call) string { return render.CallName(c) }

func shortArgs(raw json.RawMessage) string { return render.Args(raw) }

// Approve is chat.UI's: it shows the call and reads an answer (y, a, or n
// with a reason). Ctrl-C at the question cancels the turn; end of input
// denies.
func (t *chatTerm) Approve(ctx context.Context, c ragent.Call) chat.Approval {
	release, ok := t.asking(ctx)
	defer release()
	if !ok {
		t.say("  %s was asked about while nothing ran (a background task?): denied", callName(&c))
		return chat.Approval{Choice: chat.Deny, Reason: "asked outside a turn; nobody could answer"}
	}
	t.mu.Lock()
	t.endAnswerLocked()
	what := "run " + callName(&c)
	if c.Kind == ragent.KindSampling {
		what = "let " + c.Server + " use the model (sampling)"
	}
	if c.Kind == ragent.KindSampling {
		fmt.Fprintln(t.out, t.shown("  ? allow "+what))
		for _, line := range samplingLines(c.Arguments) {
			fmt.Fprintf(t.out, "    %s\n", t.shown(line))
		}
		fmt.Fprintln(t.out, t.shown(fmt.Sprintf("    y = once, a = allow %s's requests for this session, e = edit the last message then run it, n [REASON] = deny", c.Server)))
	} else {
		fmt.Fprintln(t.out, t.shown("  ? allow "+what+shortArgs(c.Arguments)))
		fmt.Fprintln(t.out, t.shown("    annotations: "+annotationWords(c.Annotations)))
		fmt.Fprintln(t.out, t.shown(fmt.Sprintf("    y = once, %s, n [REASON] = deny (the reason goes to the model)", t.alwaysChoices(c))))
	}
	t.mu.Unlock()
	t.notify(notify.Notice{Type: notify.PermissionPrompt, Message: "allow " + what + "?"})
	for ctx.Err() == nil {
		q := "  allow? [y/a/n] "
		if c.Kind == ragent.KindSampling {
			q = "  allow? [y/a/e/n] "
		}
		line, err := t.ask(q)
		if errors.Is(err, ErrAborted) {
			t.s.Cancel()
			return chat.Approval{Choice: chat.Deny, Reason: "the user cancelled the turn"}
		}
		if err != nil {
			return chat.Approval{Choice: chat.Deny, Reason: "no answer (end of input)"}
		}
		ap, ok := chat.ParseApproval(line)
		if ok && ap.Edit {
			if c.Kind != ragent.KindSampling {
				t.say("    only a sampling request can be edited: answer y, a or n")
				continue
			}
			text, err := t.ask("    the last message instead of " + strconv.Quote(render.OneLine(chat.LastUserText(c.Arguments), 80)) + ": ")
			if err != nil {
				continue
			}
			if ap.Edited, err = chat.EditSampling(c.Arguments, text); err != nil {
				t.fail(err)
				continue
			}
			return ap
		}
		if ok && c.Kind == ragent.KindSampling && (ap.Choice == chat.AllowAlways || ap.Choice == chat.AllowSession) {
			return chat.Approval{Choice: chat.AllowSession} // a server's requests: for the session
		}
		if ok && ap.Choice == chat.AllowAlways && t.cfg.Perms == nil {
			ap.Choice = chat.AllowSession // nowhere to save a rule
		}
		if ok {
			t.saveAlways(ctx, c, ap)
			return ap
		}
		t.say("    answer y, a or n (n REASON tells the model why)")
	}
	return chat.Approval{Choice: chat.Deny}
}

// annotationWords says what a tool's annotations claim, in words.
func annotationWords(a *ragent.Annotations) string {
	if a == nil {
		return "none (the server says nothing of what the tool does)"
	}
	var w []string
	if a.Title != "" {
		w = append(w, "title "+render.OneLine(a.Title, 60))
	}
	flag := func(p *bool, yes, no string) {
		if p != nil && *p {
			w = append(w, yes)
		} else if p != nil && no != "" {
			w = append(w, no)
		}
	}
	flag(a.ReadOnlyHint, "read-only", "not read-only")
	flag(a.DestructiveHint, "destructive", "not destructive")
	flag(a.IdempotentHint, "idempotent", "")
	flag(a.OpenWorldHint, "open world", "closed world")
	if len(w) == 0 {
		return "none"
	}
	return strings.Join(w, ", ")
}

func promptName(raw json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
	}
	json.Unmarshal(raw, &p)
	return p.Name
}

// samplingLines show what a server asks the model: its system prompt and
// messages, each on a line.
func samplingLines(raw json.RawMessage) []string {
	var p struct {
		SystemPrompt string `json:"systemPrompt"`
		MaxTokens    int    `json:"maxTokens"`
	}
	msgs, err := chat.PromptMessages(raw) // sampling's messages are shaped as a prompt's
	if err != nil || json.Unmarshal(raw, &p) != nil {
		return []string{render.OneLine(string(raw), 200)}
	}
	var out []string
	if p.SystemPrompt != "" {
		out = append(out, "[system] "+render.OneLine(p.SystemPrompt, 200))
	}
	for _, m := range msgs {
		out = append(out, "["+m.Role+"] "+render.OneLine(partsText(m), 200))
	}
	if p.MaxTokens > 0 {
		out = append(out, fmt.Sprintf("(at most %d tokens)", p.MaxTokens))
	}
	return out
}
