// Package render is the one renderer of an agent's turn (runtime/agent
// events) for luagent ask, chat and chat's /meta: the answer as it
// streams; each tool call a line "server › tool {args}" (a call a run_lua
// snippet made indented under it); its progress ("… 3/10 message", or on
// a terminal one line redrawn with a spinner and a bar); its end
// ("✓ 1.2s result" or "✗ 1.2s error"); and the approvals that did not
// allow. Everything that came from outside passes Options.Shown (secrets
// masked, control characters made visible): only the renderer's own
// redraw writes escapes.
package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	ragent "github.com/luagent/luagent/runtime/agent"
	"github.com/luagent/luagent/runtime/visible"
)

// Options say where and how a turn is shown.
type Options struct {
	// Text gets the answer; Tools the tool activity (nil: Text). ask
	// keeps them apart (stdout, stderr); a chat shows both in one.
	Text, Tools io.Writer
	// Shown is what every outside string passes before it is written
	// (nil: visible.Text).
	Shown func(string) string
	// Live says Text is a terminal: progress is one line, redrawn.
	Live bool
	// Quiet leaves the answer out (ask --json prints the transcript).
	Quiet bool
	// Hold shows the answer a piece at a time, when a tool call starts
	// and at Flush, not as it streams: /meta masks values it learns from
	// the calls, and a value must not be split across two writes.
	Hold bool
	// Start is a tool call's line (nil: CallName and Args).
	Start func(c *ragent.Call) string
}

// Renderer shows one turn after another. It is not safe for concurrent
// use: the caller serializes Event with its own output (a chat's lock).
type Renderer struct {
	o    Options
	st   *state
	held strings.Builder
}

// state is what the output so far ends with, shared by renderers derived
// from one another (a chat and its /meta write to the same lines).
type state struct {
	printed  bool // answer text was written since the last Finish
	lastNL   bool // and it ends with a newline
	progress bool // a progress line is drawn (Live)
	spin     int
}

// New returns a renderer.
func New(o Options) *Renderer {
	if o.Tools == nil {
		o.Tools = o.Text
	}
	if o.Shown == nil {
		o.Shown = visible.Text
	}
	return &Renderer{o: o, st: &state{}}
}

// Derive returns a renderer writing to the same lines as r (the writers
// and Live are r's) with o's Shown, Quiet, Hold and Start.
func (r *Renderer) Derive(o Options) *Renderer {
	o.Text, o.Tools, o.Live = r.o.Text, r.o.Tools, r.o.Live
	if o.Shown == nil {
		o.Shown = r.o.Shown
	}
	return &Renderer{o: o, st: r.st}
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Event shows one thing the turn did.
func (r *Renderer) Event(e ragent.Event) {
	ind := "" // a call a run_lua snippet made shows under run_lua's line
	if e.Call != nil && e.Call.Parent != "" {
		ind = "  "
	}
	switch e.Type {
	case ragent.EventText:
		switch {
		case r.o.Quiet || e.Text == "":
		case r.o.Hold:
			r.held.WriteString(e.Text)
		default:
			r.ClearProgress()
			r.write(r.o.Shown(e.Text))
		}
	case ragent.EventToolStart:
		r.Flush()
		r.EndAnswer()
		line := ""
		if r.o.Start != nil {
			line = r.o.Start(e.Call)
		} else {
			line = CallName(e.Call)
			if e.Call != nil {
				line += Args(e.Call.Arguments)
			}
		}
		fmt.Fprintf(r.o.Tools, "%s%s\n", ind, r.o.Shown(line))
	case ragent.EventApproval:
		if e.Call != nil && e.Call.Kind == ragent.KindSampling {
			// A server asking the user's model is worth a line either way.
			r.EndAnswer()
			fmt.Fprintln(r.o.Tools, r.o.Shown(fmt.Sprintf("  %s asks the model (sampling): %s: %s", e.Call.Server, e.Decision, e.Reason)))
			break
		}
		if e.Decision != ragent.Allow {
			r.EndAnswer()
			fmt.Fprintf(r.o.Tools, "%s  %s: %s\n", ind, e.Decision, r.o.Shown(e.Reason))
		}
	case ragent.EventHook, ragent.EventRetry, ragent.EventCompact: // a hook's error, systemMessage or stopReason; a retry's status; a compaction
		r.ClearProgress()
		r.EndAnswer()
		fmt.Fprintf(r.o.Tools, "%s  %s\n", ind, r.o.Shown(OneLine(e.Message, 300)))
	case ragent.EventToolProgress:
		r.progress(ind, e)
	case ragent.EventToolEnd:
		r.ClearProgress()
		dur := ""
		if e.Duration != 0 {
			dur = " " + RoundDuration(e.Duration).String()
		}
		if e.Err != nil {
			fmt.Fprintf(r.o.Tools, "%s  ✗%s %s\n", ind, dur, r.o.Shown(OneLine(e.Err.Error(), 100)))
			break
		}
		mark := "✓"
		if e.Result != nil && e.Result.IsError {
			mark = "✗"
		}
		fmt.Fprintf(r.o.Tools, "%s  %s%s %s\n", ind, mark, dur, r.o.Shown(OneLine(ResultText(e.Result), 100)))
	}
}

func (r *Renderer) progress(ind string, e ragent.Event) {
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
		msg = " " + r.o.Shown(OneLine(e.Message, 80))
	}
	if !r.o.Live {
		fmt.Fprintf(r.o.Tools, "%s  … %s%s\n", ind, count, msg)
		return
	}
	r.st.spin = (r.st.spin + 1) % len(spinner)
	r.ClearProgress()
	fmt.Fprintf(r.o.Tools, "  %s%s %s%s", spinner[r.st.spin], bar, count, msg)
	r.st.progress = true
}

func (r *Renderer) write(s string) {
	io.WriteString(r.o.Text, s)
	r.st.printed, r.st.lastNL = true, strings.HasSuffix(s, "\n")
}

// Flush shows the answer held so far (Hold).
func (r *Renderer) Flush() {
	s := r.held.String()
	r.held.Reset()
	if s == "" {
		return
	}
	r.ClearProgress()
	r.write(r.o.Shown(s))
}

// EndAnswer ends a line of answer text (and a progress line) before
// other output.
func (r *Renderer) EndAnswer() {
	r.ClearProgress()
	if r.st.printed && !r.st.lastNL {
		io.WriteString(r.o.Text, "\n")
		r.st.lastNL = true
	}
}

// ClearProgress erases a drawn progress line.
func (r *Renderer) ClearProgress() {
	if r.st.progress {
		io.WriteString(r.o.Tools, "\r\x1b[K")
		r.st.progress = false
	}
}

// Finish ends a turn's output: the held answer shown, its last line
// ended.
func (r *Renderer) Finish() {
	r.Flush()
	r.EndAnswer()
	r.st.printed = false
}

// CallName is a call as a line names it: "server › tool", or a local
// tool's name.
func CallName(c *ragent.Call) string {
	if c == nil {
		return "?"
	}
	if c.Server != "" {
		return c.Server + " › " + c.Tool
	}
	return c.Name
}

// Args is a call's arguments as its line shows them: " " and the JSON on
// one line, shortened; "" for none.
func Args(raw json.RawMessage) string {
	var b bytes.Buffer
	s := strings.TrimSpace(string(raw))
	if json.Compact(&b, raw) == nil {
		s = b.String() // as the model's JSON was meant, whatever its spacing
	}
	switch s {
	case "", "{}", "[]", "null":
		return ""
	}
	return " " + OneLine(s, 100)
}

// ResultText is a tool result's text blocks, the others as [type].
func ResultText(r *ragent.Result) string {
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

// OneLine folds white space, makes control characters visible and
// shortens s to n runes.
func OneLine(s string, n int) string {
	s = visible.Line(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

// RoundDuration keeps two or three significant digits: 1.2s, 15ms, 340µs.
func RoundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}
