package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/luagent/luagent/luabind/chat"
	ragent "github.com/luagent/luagent/runtime/agent"
)

// How a chat shows a turn: the answer streams as it comes; each tool call
// is a line "server › tool {args}", then its progress (one line redrawn
// on a terminal: spinner, bar, count and the server's message), then
// "✓ 1.2s result" or "✗ ...".

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Event is chat.UI's: one thing the running turn did.
func (t *chatTerm) Event(e ragent.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.trackCall(e)
	ind := "" // a call a run_lua snippet made shows under run_lua's line
	if e.Call != nil && e.Call.Parent != "" {
		ind = "  "
	}
	switch e.Type {
	case ragent.EventText:
		t.clearProgressLocked()
		io.WriteString(t.out, t.shown(e.Text))
		t.printed, t.lastNL = true, strings.HasSuffix(e.Text, "\n")
	case ragent.EventToolStart:
		t.endAnswerLocked()
		fmt.Fprintf(t.out, "%s%s\n", ind, t.shown(callName(e.Call)+shortArgs(e.Call.Arguments)))
	case ragent.EventApproval:
		if e.Call != nil && e.Call.Kind == ragent.KindSampling {
			t.endAnswerLocked()
			fmt.Fprintln(t.out, t.shown(fmt.Sprintf("  %s asks the model (sampling): %s: %s", e.Call.Server, e.Decision, e.Reason)))
			break
		}
		if e.Decision != ragent.Allow {
			t.endAnswerLocked()
			fmt.Fprintf(t.out, "%s  %s: %s\n", ind, e.Decision, t.shown(e.Reason))
		}
	case ragent.EventToolProgress:
		t.progressLocked(e)
	case ragent.EventToolEnd:
		t.clearProgressLocked()
		dur := ""
		if e.Duration > 0 { // a call denied or refused never ran: no time (as ask shows it)
			dur = " " + chat.RoundDuration(e.Duration).String()
		}
		if e.Err != nil {
			fmt.Fprintf(t.out, "%s  ✗%s %s\n", ind, dur, t.shown(chat.OneLine(e.Err.Error(), 100)))
			break
		}
		mark := "✓"
		if e.Result != nil && e.Result.IsError {
			mark = "✗"
		}
		fmt.Fprintf(t.out, "%s  %s%s %s\n", ind, mark, dur, t.shown(chat.OneLine(resultLine(e.Result), 100)))
	}
}

func (t *chatTerm) progressLocked(e ragent.Event) {
	count := trimFloat(e.Progress)
	bar := ""
	if e.Total > 0 {
		count += "/" + trimFloat(e.Total)
		const width = 20
		n := int(e.Progress / e.Total * width)
		n = max(0, min(width, n))
		bar = " [" + strings.Repeat("█", n) + strings.Repeat("░", width-n) + "]"
	}
	msg := ""
	if e.Message != "" {
		msg = " " + t.shown(chat.OneLine(e.Message, 80))
	}
	if !t.tty {
		fmt.Fprintf(t.out, "  … %s%s\n", count, msg)
		return
	}
	t.spin = (t.spin + 1) % len(spinner)
	t.clearProgressLocked()
	fmt.Fprintf(t.out, "  %s%s %s%s", spinner[t.spin], bar, count, msg)
	t.progress = true
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

func callName(c *ragent.Call) string {
	if c == nil {
		return "?"
	}
	if c.Server != "" {
		return c.Server + " › " + c.Tool
	}
	return c.Name
}

func shortArgs(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "{}" || s == "null" {
		return ""
	}
	return " " + chat.OneLine(s, 100)
}

func resultLine(r *ragent.Result) string {
	if r == nil {
		return ""
	}
	var parts []string
	for _, raw := range r.Content {
		var b struct{ Type, Text string }
		json.Unmarshal(raw, &b)
		if b.Type == "text" {
			parts = append(parts, b.Text)
		} else if b.Type != "" {
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, " ")
}

// Approve is chat.UI's: it shows the call and reads an answer (y, a, or n
// with a reason). Ctrl-C at the question cancels the turn; end of input
// denies.
func (t *chatTerm) Approve(ctx context.Context, c ragent.Call) chat.Approval {
	t.askMu.Lock()
	defer t.askMu.Unlock()
	if !t.working.Load() {
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
		fmt.Fprintln(t.out, t.shown(fmt.Sprintf("    y = once, a = allow %s for this session, n [REASON] = deny (the reason goes to the model)", c.Tool)))
	}
	t.mu.Unlock()
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
			text, err := t.ask("    the last message instead of " + strconv.Quote(chat.OneLine(chat.LastUserText(c.Arguments), 80)) + ": ")
			if err != nil {
				continue
			}
			if ap.Edited, err = chat.EditSampling(c.Arguments, text); err != nil {
				t.fail(err)
				continue
			}
			return ap
		}
		if ok {
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
		w = append(w, "title "+chat.OneLine(a.Title, 60))
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
		return []string{chat.OneLine(string(raw), 200)}
	}
	var out []string
	if p.SystemPrompt != "" {
		out = append(out, "[system] "+chat.OneLine(p.SystemPrompt, 200))
	}
	for _, m := range msgs {
		out = append(out, "["+m.Role+"] "+chat.OneLine(partsText(m), 200))
	}
	if p.MaxTokens > 0 {
		out = append(out, fmt.Sprintf("(at most %d tokens)", p.MaxTokens))
	}
	return out
}
