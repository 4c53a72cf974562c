package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/trace"
)

var errAgentTimeout = errors.New("agent timeout")

// Ask adds prompt to the conversation and runs the loop: the model is
// called with the conversation and the offered tools, the tools it asks
// for run (through BeforeTool, the policy and AfterTool) and their
// results go back, until the model answers without asking for tools or
// a limit ends the loop. text is the model's last text; tr says what
// happened and is returned even with an error. The error's kind says why
// a loop ended without an answer: limit (max turns, token budget),
// timeout, cancelled, or the model's own (auth, rate_limit, ...).
func (a *Agent) Ask(ctx context.Context, prompt string) (text string, tr *Transcript, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	start := time.Now()
	tr = &Transcript{Start: start.Round(0), Messages: []Message{}, Turns: []Turn{}, ToolCalls: []ToolCallRecord{}}
	if a.cfg.Model == nil {
		err = errs.New(errs.Invalid, "agent", "the agent has no model")
		tr.End, tr.Error, tr.ErrorKind = EndError, err.Error(), errs.KindOf(err).String()
		return "", tr, err
	}
	tr.Model = a.cfg.Model.Name()
	tr.ContextWindow = a.window()
	ctx = a.beginCost(ctx, tr)
	defer a.endCost()
	ctx, run, parent := a.span(ctx)
	a.trace(trace.Event{Kind: trace.AgentStart, Span: run, Parent: parent, Method: tr.Model})
	var cancel context.CancelFunc
	if a.cfg.Timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, a.cfg.Timeout, errAgentTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()

	a.trBase = len(a.messages)
	user, end, err := a.submit(ctx, prompt) // SessionStart, UserPromptSubmit (hooks.go)
	if err == nil {
		if err = a.checkCostBound(tr.Model); err != nil {
			end = EndCost
			if errs.KindOf(err) != errs.Limit {
				end = EndError
			}
		}
	}
	if err == nil {
		a.messages = append(a.messages, user)
		a.record(tr)
		end, err = a.loop(ctx, tr, &text)
	}

	a.endCost() // a subagent still running past its call counts in a.costs alone
	for _, m := range a.messages[min(a.trBase, len(a.messages)):] {
		tr.Messages = append(tr.Messages, messageOf(m))
	}
	tr.End = end
	tr.Duration = time.Since(start)
	err = a.redactErr(err)
	if err != nil {
		tr.Error, tr.ErrorKind = err.Error(), errs.KindOf(err).String()
	}
	text = a.redact(text)
	a.redactTranscript(tr)
	a.recordEnd(tr)
	a.trace(trace.Event{Kind: trace.AgentEnd, Span: run, Parent: parent, Method: tr.Model, Count: len(tr.Turns), Duration: tr.Duration, Message: string(end), Error: tr.Error})
	a.emit(Event{Type: EventEnd, Turn: len(tr.Turns), End: end, Err: err, Text: text})
	return text, tr, err
}

func (a *Agent) loop(ctx context.Context, tr *Transcript, text *string) (EndReason, error) {
	for turn := 1; ; turn++ {
		if ctx.Err() != nil {
			return ctxEnd(ctx)
		}
		if turn > a.cfg.MaxTurns {
			return EndMaxTurns, errs.Errorf(errs.Limit, "agent", "the model took %d turns without answering (max_turns %d; raise it with --max-turns N or max_turns to go on)", a.cfg.MaxTurns, a.cfg.MaxTurns)
		}
		if spent, bound, over := a.overBound(); over { // a subagent's calls spent it
			return EndCost, costReached(spent, bound)
		}
		if end, done, err := a.turn(ctx, turn, tr, text); done {
			return end, err
		}
		if err := a.halted(); err != nil { // a hook's continue:false
			return EndHook, err
		}
	}
}

// turn is one model request and the tool calls it asks for, traced as a
// span with those under it; done when the loop ends with this turn.
func (a *Agent) turn(ctx context.Context, turn int, tr *Transcript, text *string) (end EndReason, done bool, err error) {
	ctx, span, parent := a.span(ctx)
	start := time.Now()
	a.trace(trace.Event{Kind: trace.TurnStart, Span: span, Parent: parent, Count: turn})
	defer func() {
		e := trace.Event{Kind: trace.TurnEnd, Span: span, Parent: parent, Count: turn, Duration: time.Since(start), Message: string(end)}
		if err != nil {
			e.Message, e.Error = err.Error(), err.Error()
		}
		a.trace(e)
	}()
	a.autoCompact(ctx, tr) // the last request crossed the threshold (context.go)
	var (
		ts    *toolset
		req   *llm.Request
		resp  *llm.Response
		t0    time.Time
		d     time.Duration
		mspan string
	)
	for retried := false; ; retried = true {
		ts = a.toolset()
		req = &llm.Request{System: withSkills(a.withHookContext(a.system()), ts.skills), Messages: slices.Clone(a.messages), Tools: ts.tools}
		if a.cfg.BeforeModel != nil {
			a.cfg.BeforeModel(ctx, req)
		}
		_, mspan, _ = a.span(ctx)
		a.trace(trace.Event{Kind: trace.ModelRequest, Span: mspan, Parent: span, Method: tr.Model, Count: turn, Message: fmt.Sprintf("%d messages, %d tools", len(req.Messages), len(req.Tools))})
		t0 = time.Now()
		// The provider's retries and fallbacks show as the turn waits.
		rspan := mspan
		mctx := llm.WithObserver(ctx, func(n llm.Notice) {
			a.trace(trace.Event{Kind: trace.Retry, Span: rspan, Parent: span, Method: n.Model, Count: n.Attempt, Duration: n.Wait, Message: n.String(), Error: n.Message})
			a.emit(Event{Type: EventRetry, Turn: turn, Message: n.String(), Notice: &n})
		})
		resp, err = a.cfg.Model.Stream(mctx, req, func(e llm.Event) {
			if e.Text != "" {
				a.emit(Event{Type: EventText, Turn: turn, Text: e.Text})
			}
		})
		d = time.Since(t0)
		if err == nil {
			break
		}
		a.trace(trace.Event{Kind: trace.ModelResponse, Span: mspan, Parent: span, Method: tr.Model, Count: turn, Duration: d, Message: err.Error(), Error: err.Error()})
		if ctx.Err() != nil {
			end, err := ctxEnd(ctx)
			return end, true, err
		}
		// Longer than the window: compacted, the request goes once more
		// (the model refused it, so nothing of it ran).
		if errs.KindOf(err) == errs.ContextLength && !retried && !a.cfg.NoCompaction {
			if res, cerr := a.compactLocked(ctx, tr, "auto", ""); cerr == nil && res.Summarized > 0 {
				continue
			}
		}
		if errs.Is(err, errs.Incomplete) && resp != nil {
			// The answer broke off after it began: what came (shown
			// already) is kept in the conversation, and is the answer.
			if t := textOf(resp.Message); t != "" {
				a.messages = append(a.messages, llm.Message{Role: llm.RoleAssistant, Parts: resp.Message.Parts})
				a.record(tr)
				*text = t
			}
		}
		return EndError, true, err
	}
	if a.cfg.AfterModel != nil {
		a.cfg.AfterModel(ctx, resp)
	}
	u := Usage(resp.Usage)
	model, usd, known := a.price(tr.Model, resp, u)
	a.trace(costAttrs(trace.Event{Kind: trace.ModelResponse, Span: mspan, Parent: span, Method: tr.Model, Count: turn, Duration: d,
		Input: u.InputTokens, Output: u.OutputTokens, Message: fmt.Sprintf("%s, %d+%d tokens", resp.StopReason, u.InputTokens, u.OutputTokens)}, usd, known))
	a.lastInput = u.InputTokens
	tr.Usage.Add(u)
	a.account(model, u, usd, known)
	spent, bound, over := a.overBound()

	msg := resp.Message
	msg.Role = llm.RoleAssistant
	msg.ToolCalls = slices.Clone(msg.ToolCalls)
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" {
			a.ids++
			msg.ToolCalls[i].ID = fmt.Sprintf("call_%d", a.ids)
		}
	}
	a.messages = append(a.messages, msg)
	a.record(tr)
	tt := Turn{Turn: turn, Start: t0.Round(0), Duration: d, StopReason: resp.StopReason, Usage: u, ToolCalls: len(msg.ToolCalls), Model: resp.Model}
	if known {
		tt.CostUSD = &usd
	}
	tr.Turns = append(tr.Turns, tt)
	a.emitResponse(turn, msg, u, resp.StopReason, resp.Model)
	*text = textOf(msg)
	if len(msg.ToolCalls) == 0 {
		if more := a.onStop(ctx, turn); more != "" { // a Stop hook says go on
			if over { // but no next request past the bound
				return EndCost, true, costReached(spent, bound)
			}
			a.messages = append(a.messages, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.Text(more)}})
			return "", false, nil
		}
		return EndAnswer, true, nil
	}
	if over {
		a.answerUnrun(msg.ToolCalls, "not run: the cost bound (max_cost) is reached")
		return EndCost, true, costReached(spent, bound)
	}
	if b := a.cfg.TokenBudget; b > 0 && tr.Usage.Total() >= b {
		a.answerUnrun(msg.ToolCalls, "not run: the token budget is spent")
		return EndBudget, true, errs.Errorf(errs.Limit, "agent", "the token budget is spent: %d of %d tokens", tr.Usage.Total(), b)
	}
	results := a.runCalls(ctx, turn, ts, msg.ToolCalls, tr)
	a.messages = append(a.messages, withContractNote(results, a.contractNote(ts))...)
	a.record(tr)
	return "", false, nil
}

// ctxEnd says how an ended context ends the loop: the agent's own Timeout,
// a caller's typed cause (a Lua task.timeout says timeout) or deadline, or
// a cancel.
func ctxEnd(ctx context.Context) (EndReason, error) {
	cause := context.Cause(ctx)
	switch k := errs.KindOf(cause); {
	case cause == errAgentTimeout:
		return EndTimeout, errs.New(errs.Timeout, "agent", "the agent's time ran out (its timeout)")
	case k == errs.Timeout:
		return EndTimeout, &errs.Error{Kind: k, Op: "agent", Msg: "the agent was stopped: " + cause.Error(), Err: cause}
	case k != errs.Unknown:
		return EndCancelled, &errs.Error{Kind: k, Op: "agent", Msg: "the agent was stopped: " + cause.Error(), Err: cause}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return EndTimeout, errs.New(errs.Timeout, "agent", "the caller's deadline passed while the agent ran")
	}
	return EndCancelled, errs.New(errs.Cancelled, "agent", "the agent was cancelled")
}

func textOf(m llm.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// system is the agent's prompt and each ready server's instructions,
// labelled, in catalog order.
func (a *Agent) system() string {
	h := a.cfg.Hub
	if h == nil {
		return a.cfg.System
	}
	ins := h.Instructions()
	if len(ins) == 0 {
		return a.cfg.System
	}
	var b strings.Builder
	b.WriteString(a.cfg.System)
	for _, st := range h.Status() {
		text, ok := ins[st.Name]
		if !ok || !a.inSubset(st.Name) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "## Instructions from the MCP server %q (its tools are named %s__TOOL)\n%s", st.Name, st.Name, text)
	}
	return b.String()
}

// answerUnrun answers calls that will not run, so the conversation stays
// well-formed for a next Ask.
func (a *Agent) answerUnrun(calls []llm.ToolCall, why string) {
	for _, tc := range calls {
		a.messages = append(a.messages, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, IsError: true,
			Parts: []llm.Part{llm.Text(why)}})
	}
}
