// Package compact keeps a long conversation within a model's context
// window: it says when a conversation is due for compaction (the last
// request's input tokens, from the provider's usage, reached a share of
// the window) and builds the compacted conversation: the older turns
// replaced by one summary message a Summarizer writes (by default the
// model itself, asked with SummaryPrompt), the last turns kept whole (a
// tool call is never split from its result), pinned notes kept verbatim.
// It also estimates tokens where no count exists (bytes/4) and cuts tool
// results over a bound, keeping the rest to be paged (Store).
//
//	p := compact.Policy{Window: 200000}
//	if p.Due(lastInputTokens) {
//		msgs, res, err := compact.Compact(ctx, msgs, compact.Options{Summarize: compact.ModelSummarizer(m)})
//	}
//
// It knows nothing of Lua or of the agent loop (runtime/agent uses it).
package compact

import (
	"context"
	"fmt"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
)

// Defaults of Policy and Options.
const (
	DefaultThreshold = 0.8 // compact when the last request used 80% of the window
	DefaultKeepTurns = 2   // the last two user turns stay whole
)

// Policy says when a conversation is due.
type Policy struct {
	// Window is the model's context window in tokens (0: unknown, never
	// due).
	Window int
	// Threshold is the share of Window a request's input tokens reach
	// for the next request to compact first (0: DefaultThreshold; at
	// most 1).
	Threshold float64
}

// Limit is the input tokens at which a conversation is due (0: never).
func (p Policy) Limit() int {
	if p.Window <= 0 {
		return 0
	}
	t := p.Threshold
	if t <= 0 || t > 1 {
		t = DefaultThreshold
	}
	return max(1, int(float64(p.Window)*t))
}

// Due reports whether a conversation whose last request took inputTokens
// prompt tokens is to be compacted before its next request.
func (p Policy) Due(inputTokens int) bool {
	l := p.Limit()
	return l > 0 && inputTokens >= l
}

// Summarizer writes the summary of msgs (the older turns), keeping what
// focus asks for ("" : nothing in particular).
type Summarizer func(ctx context.Context, msgs []llm.Message, focus string) (string, error)

// SummaryPrompt is what ModelSummarizer asks the model.
const SummaryPrompt = `Summarise the conversation so far for your own later use: it will replace the conversation, so keep what is needed to go on with the task. Keep: the user's requests and goals, decisions made, facts learnt (file names, values, identifiers, errors and how they were fixed), the state of the work and what is left to do. Leave out pleasantries and whatever was superseded. Write plain text, no tool calls.`

// SummaryHeader starts the summary message the compacted conversation
// begins with.
const SummaryHeader = "[The conversation before this point was compacted to fit the context window. Summary of it:]"

// MaxSummaryPart bounds each message part's bytes in the transcript
// ModelSummarizer sends (a long tool result is summarised from its start).
const MaxSummaryPart = 4096

// ModelSummarizer asks m for the summary in one request: SummaryPrompt
// (and the focus) over the older turns written out as text — so that no
// tool call or result goes without its pair, and no tools need be
// declared — with each part cut at MaxSummaryPart bytes. A model that
// answers that even this is too long (errs.ContextLength) is asked again
// with the older half of the transcript left out, up to three times.
func ModelSummarizer(m llm.Model) Summarizer {
	return func(ctx context.Context, msgs []llm.Message, focus string) (string, error) {
		entries := transcript(msgs)
		var err error
		for range 4 {
			var resp *llm.Response
			resp, err = m.Stream(ctx, summaryRequest(entries, len(msgs)-len(entries), focus), nil)
			if err == nil {
				var b strings.Builder
				for _, p := range resp.Message.Parts {
					if p.Type == "text" {
						b.WriteString(p.Text)
					}
				}
				return b.String(), nil
			}
			if errs.KindOf(err) != errs.ContextLength || len(entries) < 2 {
				return "", err
			}
			entries = entries[len(entries)/2:]
		}
		return "", err
	}
}

// summaryRequest is the one user message ModelSummarizer sends: the
// prompt, then the transcript (dropped: how many older messages were
// left out).
func summaryRequest(entries []string, dropped int, focus string) *llm.Request {
	var b strings.Builder
	b.WriteString(SummaryPrompt)
	if focus = strings.TrimSpace(focus); focus != "" {
		b.WriteString("\n\nFocus on: " + focus)
	}
	b.WriteString("\n\n<conversation>\n")
	if dropped > 0 {
		fmt.Fprintf(&b, "[%d earlier messages were too long to include]\n", dropped)
	}
	for _, e := range entries {
		b.WriteString(e)
		b.WriteString("\n")
	}
	b.WriteString("</conversation>")
	return &llm.Request{System: "You summarise conversations faithfully and briefly.",
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.Text(b.String())}}}}
}

// transcript writes each message as text, one entry a message.
func transcript(msgs []llm.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var b strings.Builder
		switch {
		case m.Role == llm.RoleTool && m.IsError:
			b.WriteString("[tool error]")
		case m.Role == llm.RoleTool:
			b.WriteString("[tool result]")
		default:
			b.WriteString(m.Role + ":")
		}
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				b.WriteString(" " + cut(p.Text))
			default:
				fmt.Fprintf(&b, " [%s %s, %d bytes]", p.Type, p.MIME, len(p.Data))
			}
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, " [calls %s %s]", tc.Name, cut(string(tc.Arguments)))
		}
		out = append(out, b.String())
	}
	return out
}

func cut(s string) string {
	if len(s) <= MaxSummaryPart {
		return s
	}
	end := runeStart(s, MaxSummaryPart)
	return s[:end] + fmt.Sprintf(" [... %d more bytes]", len(s)-end)
}

// Options are how Compact builds the compacted conversation.
type Options struct {
	// Summarize writes the summary (required).
	Summarize Summarizer
	// Focus is what the summary is to keep (/compact's text).
	Focus string
	// KeepTurns is how many of the last user turns stay whole (0:
	// DefaultKeepTurns; < 0: none).
	KeepTurns int
	// Pinned are notes kept verbatim in every compacted conversation.
	Pinned []string
}

// KeepOf is the number of last user turns Options.KeepTurns keeps (0:
// DefaultKeepTurns).
func KeepOf(n int) int {
	if n == 0 {
		return DefaultKeepTurns
	}
	return n
}

// Result says what a compaction did.
type Result struct {
	Summarized int // messages replaced by the summary
	Kept       int // messages kept whole
	// Before and After are the conversation's estimated tokens (bytes/4).
	Before, After int
	Summary       string
}

// Compact returns msgs with the older turns replaced by a summary: one
// user message (SummaryHeader, the summary, the pinned notes) followed by
// the last turns. Nothing older: msgs as they are and a zero Result. An
// error of the summariser is returned as it came, with msgs unchanged.
func Compact(ctx context.Context, msgs []llm.Message, o Options) ([]llm.Message, Result, error) {
	if o.Summarize == nil {
		return msgs, Result{}, errs.New(errs.Invalid, "compact", "no summariser")
	}
	older, kept := Split(msgs, KeepOf(o.KeepTurns))
	if len(older) == 0 {
		return msgs, Result{}, nil
	}
	summary, err := o.Summarize(ctx, older, o.Focus)
	if err != nil {
		return msgs, Result{}, err
	}
	out := append([]llm.Message{SummaryMessage(summary, o.Pinned)}, kept...)
	return out, Result{Summarized: len(older), Kept: len(kept), Before: Estimate(msgs), After: Estimate(out), Summary: summary}, nil
}

// SummaryMessage is the user message a compacted conversation starts
// with.
func SummaryMessage(summary string, pinned []string) llm.Message {
	var b strings.Builder
	b.WriteString(SummaryHeader)
	b.WriteString("\n")
	b.WriteString(strings.TrimSpace(summary))
	if len(pinned) > 0 {
		b.WriteString("\n\n[Pinned notes, kept verbatim:]")
		for _, p := range pinned {
			b.WriteString("\n- ")
			b.WriteString(p)
		}
	}
	return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text(b.String())}}
}

// IsSummary reports whether m is a summary message Compact made (a
// compacted conversation compacted again summarises it with the rest).
func IsSummary(m llm.Message) bool {
	return m.Role == llm.RoleUser && len(m.Parts) > 0 && strings.HasPrefix(m.Parts[0].Text, SummaryHeader)
}

// Split cuts msgs before the last keep user turns: a turn starts at a user
// message (not a tool result), so an assistant's tool calls and their
// results always fall on one side. older is empty when msgs have no more
// than keep turns (or keep turns start at the first message).
func Split(msgs []llm.Message, keep int) (older, kept []llm.Message) {
	cut := len(msgs)
	if keep > 0 {
		n := 0
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == llm.RoleUser {
				n++
				cut = i
				if n == keep {
					break
				}
			}
		}
		if n < keep {
			cut = 0
		}
	}
	if cut == 0 && len(msgs) > 0 {
		// One long turn (a prompt, then call after call): cut before its
		// last keep model steps, each an assistant message with the
		// results of its calls.
		return splitSteps(msgs, max(keep, 1))
	}
	// Never let the kept part begin with a tool result (a conversation
	// that does not start at a user message).
	for cut < len(msgs) && msgs[cut].Role == llm.RoleTool {
		cut++
	}
	return msgs[:cut], msgs[cut:]
}

// splitSteps cuts msgs before the last keep assistant messages (none
// when that would leave nothing older but the first message).
func splitSteps(msgs []llm.Message, keep int) (older, kept []llm.Message) {
	n, cut := 0, len(msgs)
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			n++
			cut = i
			if n == keep {
				break
			}
		}
	}
	if n < keep || cut < 2 {
		return nil, msgs
	}
	return msgs[:cut], msgs[cut:]
}

// EstimateText is the estimated tokens of s where no count exists: its
// bytes over 4, rounded up.
func EstimateText(s string) int { return (len(s) + 3) / 4 }

// EstimateMessage is a message's estimated tokens: its text, the tool
// calls' names and arguments, an image as its bytes (a generous bound).
func EstimateMessage(m llm.Message) int {
	n := 0
	for _, p := range m.Parts {
		n += EstimateText(p.Text) + len(p.Data)/4
	}
	for _, tc := range m.ToolCalls {
		n += EstimateText(tc.Name) + EstimateText(string(tc.Arguments))
	}
	return n
}

// Estimate is the estimated tokens of msgs.
func Estimate(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += EstimateMessage(m)
	}
	return n
}

// Describe says what a compaction did, on one line.
func (r Result) Describe() string {
	if r.Summarized == 0 {
		return "nothing to compact: the conversation is only its last turns"
	}
	return fmt.Sprintf("compacted %s into a summary, kept the last %d (about %d tokens before, %d after, estimated as bytes/4)",
		messages(r.Summarized), r.Kept, r.Before, r.After)
}

func messages(n int) string {
	if n == 1 {
		return "1 message"
	}
	return fmt.Sprintf("%d messages", n)
}
