package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/compact"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

// The context window (runtime/compact): before a model request, when the
// previous request's input tokens (the provider's usage) reached
// Config.CompactThreshold of the window, the conversation is compacted —
// the PreCompact hooks run first (trigger "auto"; a block keeps it whole),
// then the older turns are replaced by a summary (Config.Summarize, else
// the model), the last Config.KeepTurns turns and the pinned notes (Pin)
// kept. A model answering that the request is too long (errs.ContextLength)
// gets it compacted and sent once more. The host's Compact is /compact.
// The recorder (the session file) keeps the whole history: it is told of
// the compaction (Compacted, when it has that method), not of the summary
// as a message.

// EventCompact is a compaction (Message says what it did, Compaction
// its figures; Err why it failed).
const EventCompact EventType = "compact"

// Compaction is what an EventCompact did.
type Compaction struct {
	Trigger string // "auto" or "manual"
	// PreTokens is the last request's input tokens (the provider's count;
	// the estimate when there is none); PostTokens the estimate after.
	PreTokens, PostTokens int
	Summarized, Kept      int
	Duration              time.Duration
}

// CompactRecorder is a Recorder that is told of compactions: the summary
// the conversation goes on from, and how many of its last messages were
// kept whole.
type CompactRecorder interface {
	Compacted(summary Message, kept int)
}

// window is the context window in effect (0: unknown).
func (a *Agent) window() int {
	switch w := a.cfg.ContextWindow; {
	case w > 0:
		return w
	case w < 0 || a.cfg.Model == nil:
		return 0
	}
	return llm.KnownWindow(a.cfg.Model.Name())
}

// ContextWindow is the context window in effect, in tokens (0: unknown:
// no automatic compaction).
func (a *Agent) ContextWindow() int { return a.window() }

func (a *Agent) policy() compact.Policy {
	return compact.Policy{Window: a.window(), Threshold: a.cfg.CompactThreshold}
}

// Pin keeps text verbatim through every compaction (in the summary
// message the compacted conversation starts with). Text pinned is not sent
// until a compaction happens: say it in a prompt too if the model is to
// see it now.
func (a *Agent) Pin(text string) {
	a.mu.Lock()
	a.pinned = append(a.pinned, text)
	a.mu.Unlock()
}

// Compact compacts the conversation now (chat's /compact): PreCompact
// hooks (trigger "manual"), then the summary. It waits for a running Ask.
func (a *Agent) Compact(ctx context.Context, focus string) (compact.Result, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.compactLocked(ctx, nil, "manual", focus)
}

// compactLocked compacts a.messages (a.mu held). tr (nil outside an Ask)
// gets the messages this Ask added before they are replaced.
func (a *Agent) compactLocked(ctx context.Context, tr *Transcript, trigger, focus string) (compact.Result, error) {
	if a.cfg.Model == nil && a.cfg.Summarize == nil {
		return compact.Result{}, errs.New(errs.Invalid, "agent", "the agent has no model to summarise with")
	}
	if older, _ := compact.Split(a.messages, compact.KeepOf(a.cfg.KeepTurns)); len(older) == 0 {
		return compact.Result{}, nil
	}
	if ok, why, _ := a.PreCompact(ctx, trigger, focus); !ok {
		if why == "" {
			why = "a PreCompact hook blocked it"
		}
		err := errs.Errorf(errs.Auth, "agent", "the conversation was not compacted: %s", why)
		a.emit(Event{Type: EventCompact, Message: err.Error(), Err: err})
		return compact.Result{}, err
	}
	start := time.Now()
	pre := a.lastInput // the provider's count; else Compact's estimate, below
	sum := a.cfg.Summarize
	var used Usage // the default summariser's request, counted in the Ask's usage
	if sum == nil {
		// Its requests are priced as the agent's own: they count in /cost,
		// the totals and max_cost, manual or not.
		sum = compact.ModelSummarizer(usageModel{a.cfg.Model, &used, a.accountSample})
	}
	msgs, res, err := compact.Compact(ctx, a.messages, compact.Options{Summarize: sum, Focus: focus, KeepTurns: a.cfg.KeepTurns, Pinned: a.pinned})
	if err != nil {
		err = errs.Wrap(errs.KindOf(err), "agent: compacting the conversation", err)
		a.trace(trace.Event{Kind: trace.Compact, Parent: trace.SpanOf(ctx), Method: trigger, Duration: time.Since(start), Message: err.Error(), Error: err.Error()})
		a.emit(Event{Type: EventCompact, Message: err.Error(), Err: err})
		return res, err
	}
	if tr != nil {
		tr.Usage.Add(used)
	}
	if res.Summarized == 0 {
		return res, nil
	}
	if pre == 0 {
		pre = res.Before
	}
	// What this Ask added goes to its transcript, and everything to the
	// recorder, before the conversation is replaced.
	a.record(tr)
	if tr != nil {
		for _, m := range a.messages[min(a.trBase, len(a.messages)):] {
			tr.Messages = append(tr.Messages, messageOf(m))
		}
	}
	a.messages = msgs
	a.trBase, a.recorded = len(a.messages), len(a.messages)
	a.lastInput = 0
	a.compactions++
	if r, ok := a.Recorder().(CompactRecorder); ok {
		m := messageOf(msgs[0])
		for j := range m.Parts {
			m.Parts[j].Text = a.redact(m.Parts[j].Text)
		}
		r.Compacted(m, res.Kept)
	}
	a.trace(trace.Event{Kind: trace.Compact, Parent: trace.SpanOf(ctx), Method: trigger, Count: res.Summarized, Input: pre, Output: res.After,
		Duration: time.Since(start), Message: res.Describe()})
	a.emit(Event{Type: EventCompact, Message: res.Describe(), Compaction: &Compaction{Trigger: trigger, PreTokens: pre,
		PostTokens: res.After, Summarized: res.Summarized, Kept: res.Kept, Duration: time.Since(start)}})
	return res, nil
}

// usageModel is a model that adds each response's usage to *u and
// passes the response to priced.
type usageModel struct {
	llm.Model
	u      *Usage
	priced func(*llm.Response)
}

func (m usageModel) Stream(ctx context.Context, req *llm.Request, on func(llm.Event)) (*llm.Response, error) {
	resp, err := m.Model.Stream(ctx, req, on)
	if err == nil {
		m.u.Add(Usage(resp.Usage))
		m.priced(resp)
	}
	return resp, err
}

// Compactions is how many times the conversation was compacted.
func (a *Agent) Compactions() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.compactions
}

// autoCompact compacts before a request when the last one crossed the
// threshold (a.mu held). A failure is reported (EventCompact) and the
// request goes as it is.
func (a *Agent) autoCompact(ctx context.Context, tr *Transcript) {
	if !a.cfg.NoCompaction && a.policy().Due(a.lastInput) {
		_, _ = a.compactLocked(ctx, tr, "auto", "")
	}
}

// cutResult bounds a tool result's text parts the model sees
// (Config.ToolResultLimit); the whole text stays in the agent's store for
// read_tool_result.
func (a *Agent) cutResult(id, name string, ps []llm.Part) []llm.Part {
	if a.results == nil || name == compact.ReadToolResult { // a page is bounded already
		return ps
	}
	out := make([]llm.Part, len(ps))
	copy(out, ps)
	for i, p := range out {
		if p.Type != "text" {
			continue
		}
		key := id
		if i > 0 {
			key = fmt.Sprintf("%s#%d", id, i)
		}
		out[i].Text, _ = a.results.Cut(key, p.Text)
	}
	return out
}

// readToolResultTool is the tool that pages cut results.
func (a *Agent) readToolResultTool() LocalTool {
	t := true
	return LocalTool{Name: compact.ReadToolResult, Description: compact.ReadToolResultDescription,
		Schema: json.RawMessage(compact.ReadToolResultSchema), Annotations: &Annotations{ReadOnlyHint: &t},
		Call: func(_ context.Context, args json.RawMessage) (Result, error) {
			var in struct {
				ID     string `json:"id"`
				Offset int    `json:"offset"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return Result{}, errs.Errorf(errs.Invalid, compact.ReadToolResult, "bad arguments: %v (give id and offset)", err)
			}
			page, ok := a.results.Read(in.ID, in.Offset)
			if !ok {
				return Result{}, errs.Errorf(errs.NotFound, compact.ReadToolResult, "no cut tool result has id %q: use the id its note names", in.ID)
			}
			return TextResult(page, false), nil
		}}
}

// ContextPart is one share of the context in a ContextReport.
type ContextPart struct {
	Name   string
	Tokens int
}

// ContextReport says where the context's tokens go.
type ContextReport struct {
	Model  string
	Window int // 0: unknown
	// LastInput is the last request's input tokens as the provider
	// counted them (0: none since the start or the last compaction).
	LastInput int
	// Parts are estimates (bytes/4): the system prompt, the memory, each
	// server's tool schemas, the agent's own tools, the messages, the
	// tool results.
	Parts       []ContextPart
	Pinned      int
	Compactions int
}

// Context reports where the tokens of the next request go. memory is the
// project memory text that is part of the system prompt (shown on its
// own; "" none). It waits for a running Ask.
func (a *Agent) Context(memory string) ContextReport {
	a.mu.Lock()
	defer a.mu.Unlock()
	r := ContextReport{Window: a.window(), LastInput: a.lastInput, Pinned: len(a.pinned), Compactions: a.compactions}
	if a.cfg.Model != nil {
		r.Model = a.cfg.Model.Name()
	}
	ts := a.toolset()
	sys := withSkills(a.withHookContext(a.system()), ts.skills)
	mem := 0
	if memory != "" && strings.Contains(sys, memory) {
		mem = compact.EstimateText(memory)
	}
	r.Parts = append(r.Parts, ContextPart{"system prompt", compact.EstimateText(sys) - mem})
	if mem > 0 {
		r.Parts = append(r.Parts, ContextPart{"memory (AGENTS.md)", mem})
	}
	byServer := map[string]int{}
	for _, t := range ts.tools {
		n := compact.EstimateText(t.Name) + compact.EstimateText(t.Description) + compact.EstimateText(string(t.Schema))
		name := "tools: luagent's own"
		if e := ts.byName[t.Name]; e.kind == KindMCP {
			name = "tools: server " + e.hub.Server
		}
		byServer[name] += n
	}
	names := make([]string, 0, len(byServer))
	for n := range byServer {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		r.Parts = append(r.Parts, ContextPart{n, byServer[n]})
	}
	msgs, results := 0, 0
	for _, m := range a.messages {
		if m.Role == llm.RoleTool {
			results += compact.EstimateMessage(m)
		} else {
			msgs += compact.EstimateMessage(m)
		}
	}
	r.Parts = append(r.Parts, ContextPart{"messages", msgs}, ContextPart{"tool results", results})
	return r
}

// String is the report as /context shows it.
func (r ContextReport) String() string {
	var b strings.Builder
	total := 0
	for _, p := range r.Parts {
		total += p.Tokens
	}
	if r.Window > 0 {
		fmt.Fprintf(&b, "context: %s, window %d tokens\n", r.Model, r.Window)
	} else {
		fmt.Fprintf(&b, "context: %s, window unknown (set models.NAME.contextWindow or --context-window to compact automatically)\n", r.Model)
	}
	for _, p := range r.Parts {
		fmt.Fprintf(&b, "  %-28s ~%7d tokens%s\n", p.Name, p.Tokens, share(p.Tokens, r.Window))
	}
	fmt.Fprintf(&b, "  %-28s ~%7d tokens%s\n", "total (estimated)", total, share(total, r.Window))
	if r.LastInput > 0 {
		fmt.Fprintf(&b, "last request: %d input tokens (the provider's count)%s\n", r.LastInput, share(r.LastInput, r.Window))
	}
	fmt.Fprintf(&b, "estimates are bytes/4; %s this session; %s", times(r.Compactions), plural(r.Pinned, "pinned note"))
	return b.String()
}

func share(n, window int) string {
	if window <= 0 {
		return ""
	}
	return fmt.Sprintf("  %5.1f%%", 100*float64(n)/float64(window))
}

// times says how often the conversation was compacted.
func times(n int) string {
	switch n {
	case 0:
		return "not compacted"
	case 1:
		return "compacted once"
	}
	return fmt.Sprintf("compacted %d times", n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
