package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/approval"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/hub"
	"github.com/luagent/luagent/runtime/llm"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/trace"
)

// outcome is one finished call.
type outcome struct {
	msg   llm.Message
	rec   ToolCallRecord
	found []string
	err   error // why the call failed (the model saw it as an error result)
}

// runCalls runs one turn's calls, concurrently when there are several,
// and returns their result messages in the model's order.
func (a *Agent) runCalls(ctx context.Context, turn int, ts *toolset, calls []llm.ToolCall, tr *Transcript) []llm.Message {
	outs := make([]outcome, len(calls))
	if len(calls) == 1 {
		outs[0] = a.runCall(ctx, turn, ts, calls[0])
	} else {
		var wg sync.WaitGroup
		for i, tc := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i] = a.runCall(ctx, turn, ts, tc)
			}()
		}
		wg.Wait()
	}
	msgs := make([]llm.Message, len(outs))
	for i, o := range outs {
		msgs[i] = o.msg
		tr.ToolCalls = append(tr.ToolCalls, o.rec)
		for _, name := range o.found {
			a.found[name] = true
		}
	}
	return msgs
}

// runCall runs one call: resolve, BeforeTool, the policy, the tool,
// AfterTool. Whatever happens, the model gets a result.
func (a *Agent) runCall(ctx context.Context, turn int, ts *toolset, tc llm.ToolCall) (o outcome) {
	start := time.Now()
	// The call is a span under the turn; the MCP request it makes runs
	// under the call.
	ctx, span, parent := a.span(ctx)
	args := tc.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	call := Call{ID: tc.ID, Name: tc.Name, Tool: tc.Name, Arguments: args}
	e, rerr := a.resolve(ts, tc.Name)
	call.Kind = e.kind
	switch e.kind {
	case KindMCP:
		call.Server, call.Tool, call.Qualified = e.hub.Server, e.hub.Def.Name, e.hub.Name
		call.Annotations = annotationsOf(e.hub)
	case KindLocal:
		call.Annotations = e.local.Annotations
	case KindMeta, KindCode:
		// run_lua only runs a sandbox: each call its snippet makes is
		// judged on its own.
		t := true
		call.Annotations = &Annotations{ReadOnlyHint: &t}
	}
	var inner *codeCalls // run_lua's calls, for its record
	if cc := codeCallsOf(ctx); cc != nil {
		call.Parent = cc.parent
	}
	if e.kind == KindCode {
		inner = &codeCalls{parent: call.ID}
		ctx = context.WithValue(ctx, codeCallsKey{}, inner)
	}
	call.ReadOnly = call.Annotations.ReadOnly()
	a.trace(trace.Event{Kind: trace.AgentToolStart, Span: span, Parent: parent, ID: call.ID, Server: call.Server, Tool: call.Name})
	a.emit(Event{Type: EventToolStart, Turn: turn, Call: call.Clone()})

	var res *Result
	var err error
	var bound *Call // the call as sent, when bindings changed it
	decision, reason := Deny, ""
	// The call's time is its run's, from approval to result: not the
	// approval's wait, nor a person answering its server meanwhile.
	var sw *approval.Stopwatch
	defer func() {
		var took time.Duration
		if sw != nil {
			took = sw.Stop()
		}
		args := call.Arguments
		if bound != nil {
			args = bound.Arguments // the record says what the tool got
		}
		o.rec = ToolCallRecord{Turn: turn, ID: call.ID, Name: call.Name, Server: call.Server, Tool: call.Tool, Kind: call.Kind,
			Arguments: a.redactJSON(args), Decision: decision, Reason: reason, Result: res, Start: start.Round(0), Duration: took, Parent: call.Parent}
		if inner != nil {
			o.rec.Calls = inner.records()
		}
		o.err = err
		shown := Result{}
		if err != nil {
			o.rec.Error, o.rec.ErrorKind = err.Error(), errs.KindOf(err).String()
			shown = errorResult(call.Name, err)
		}
		if res != nil {
			shown = *res
		}
		o.msg = llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Parts: a.cutResult(call.ID, call.Name, parts(shown)), IsError: shown.IsError}
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		a.trace(trace.Event{Kind: trace.AgentToolCall, Span: span, Parent: parent, ID: call.ID, Server: call.Server, Tool: call.Name, Duration: o.rec.Duration, Message: msg, Error: msg})
		a.emit(Event{Type: EventToolEnd, Turn: turn, Call: call.Clone(), Result: res, Duration: o.rec.Duration, Err: err})
	}()
	if rerr != nil {
		decision, err = "", errs.Wrap(errs.NotFound, "agent", rerr)
		return o
	}
	if a.cfg.BeforeTool != nil {
		if herr := a.cfg.BeforeTool(ctx, &call); herr != nil {
			reason = "before_tool: " + herr.Error()
			err = a.denied(turn, &call, reason)
			return o
		}
		if len(call.Arguments) == 0 {
			call.Arguments = json.RawMessage("{}")
		}
	}
	ctx, denial, note := a.preToolUse(ctx, turn, &call) // PreToolUse hooks (hooks.go)
	if denial != "" {
		reason = denial
		err = a.denied(turn, &call, reason)
		return o
	}
	// Bindings apply last: the hooks and the policy judge what the model
	// asked for, and never hold a bound secret.
	sent := call
	if b := a.bound(call.Name, call.Tool); b != nil && e.kind != KindMeta {
		if sent.Arguments, err = withArgs(call.Arguments, b); err != nil {
			decision = ""
			return o
		}
		bound = &sent
	}
	// A call that cannot run is the model's to fix, not a person's to
	// approve: the arguments as sent are checked first.
	if err = validate(e, &sent); err != nil {
		decision = ""
		return o
	}
	call.Rule = a.approver.Match(call) // the events and the policy see it
	decision, reason = a.decide(ctx, call)
	if decision != Allow {
		err = a.denied(turn, &call, reason)
		return o
	}
	a.approved(turn, &call, reason)
	sw = approval.StartCall(call.Server)
	r, found, cerr := a.invoke(ctx, e, &sent, turn)
	r, cerr = a.redactResult(r), a.redactErr(cerr)
	if cerr != nil {
		err = cerr
		if a.cfg.AfterTool == nil {
			return o
		}
		// AfterTool sees the failure as the error result the model gets.
		r = errorResult(call.Name, cerr)
	}
	if a.cfg.AfterTool != nil {
		a.cfg.AfterTool(ctx, call, &r)
	}
	if cerr == nil {
		r = a.postToolUse(ctx, turn, call, r, note) // PostToolUse hooks (hooks.go)
	}
	res, o.found = &r, found
	return o
}

// validate checks an MCP tool call's arguments against the tool's input
// schema, as the client would before sending them. Local tools take what
// their handler accepts (a Lua handler coerces "10" to 10), as they always
// did; the meta-tools and run_lua check their own.
func validate(e entry, c *Call) error {
	if e.kind != KindMCP {
		return nil
	}
	return mcp.ValidateArguments(e.hub.Def.Name, e.hub.Def.InputSchema, c.Arguments)
}

// errorResult is the result the model gets for a call that failed with
// err. A call whose answer was lost after it was sent may have run (it was
// not sent again): the model is told so plainly, so that it looks before it
// calls again rather than repeat a send, a payment or a deletion.
func errorResult(name string, err error) Result {
	if errs.KindOf(err) == errs.UnknownOutcome {
		return TextResult(fmt.Sprintf("The call to %s may have run: its answer was lost, so whether it took effect is unknown, and it was not sent again. "+
			"Do not repeat it blindly: inspect its effect before retrying. (%s)", name, err), true)
	}
	return TextResult(err.Error(), true)
}

// decide runs the policy, and asks (or not) when it says Ask.
func (a *Agent) decide(ctx context.Context, call Call) (Decision, string) {
	return a.approver.Decide(ctx, call)
}

func (a *Agent) approved(turn int, call *Call, reason string) {
	a.trace(trace.Event{Kind: trace.Approval, Server: call.Server, Tool: call.Name, Message: "allow: " + reason})
	a.emit(Event{Type: EventApproval, Turn: turn, Call: call.Clone(), Decision: Allow, Reason: reason})
}

// denied reports a denial and returns the error the model sees.
func (a *Agent) denied(turn int, call *Call, reason string) error {
	a.trace(trace.Event{Kind: trace.Approval, Server: call.Server, Tool: call.Name, Message: "deny: " + reason})
	a.emit(Event{Type: EventApproval, Turn: turn, Call: call.Clone(), Decision: Deny, Reason: reason})
	return errs.Errorf(errs.Auth, "agent", "the call to %s was denied: %s", call.Name, reason)
}

// invoke runs an approved call.
func (a *Agent) invoke(ctx context.Context, e entry, call *Call, turn int) (r Result, found []string, err error) {
	switch e.kind {
	case KindMeta:
		return a.runMeta(ctx, call.Name, call.Arguments)
	case KindCode:
		r, err = a.runCode(ctx, e.code, call, turn)
		return r, nil, err
	case KindLocal:
		defer func() {
			if p := recover(); p != nil {
				err = errs.Errorf(errs.Internal, "agent", "tool %s panicked: %v", call.Name, p)
			}
		}()
		lctx := context.WithValue(ctx, callIDKey{}, call.ID)
		if hr := a.approver.HostRules(); hr != nil {
			lctx = context.WithValue(lctx, callerRulesKey{}, hr)
		}
		r, err = e.local.Call(lctx, call.Arguments)
		return r, nil, err
	}
	shown := a.shown(call)
	progress := func(p mcp.Progress) {
		ev := Event{Type: EventToolProgress, Turn: turn, Call: shown, Progress: p.Progress, Message: p.Message}
		if p.Total != nil {
			ev.Total = *p.Total
		}
		a.emit(ev)
	}
	// validate checked the arguments; SchemaHash keeps the schema the one
	// it checked them against.
	cr, err := a.cfg.Hub.Call(ctx, e.hub.Name, call.Arguments, hub.CallOptions{SchemaHash: e.hub.SchemaHash,
		CallOptions: mcp.CallOptions{Progress: progress, NoValidate: true}})
	if err != nil {
		return Result{}, nil, err
	}
	return Result{Content: cr.Content, StructuredContent: cr.StructuredContent, IsError: cr.IsError}, nil, nil
}

type callIDKey struct{}

// CallID is the id of the tool call a local tool's Call runs for ("" for
// a ctx that is not one): a host that shows the call can say more about
// it while it runs (luagent acp: the editor's terminal running it).
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}
