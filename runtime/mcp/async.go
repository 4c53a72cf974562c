package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/trace"
)

// CallToolAsync is CallToolRaw for a caller that must not block, such as
// the Lua event loop: it returns at once and done is called exactly once,
// on another goroutine, with the result or the error.
//
// When the session is up and the tool is already known, the request is
// written from the calling goroutine and answered from the connection's
// reader: no goroutine waits for it, so a round trip costs one goroutine
// handoff instead of three. Otherwise (first call, reconnect, tasks) it
// runs CallToolRaw on a goroutine of its own.
func (c *Client) CallToolAsync(ctx context.Context, name string, args json.RawMessage, o CallOptions, done func(json.RawMessage, error)) {
	s := c.liveSession()
	var t *Tool
	if s != nil {
		t = c.cachedTool(name)
	}
	if s == nil || t == nil || c.useLegacyTask(t, o) {
		go func() { done(c.CallToolRaw(ctx, name, args, o)) }()
		return
	}
	params, err := c.callParams(t, args, o)
	if err != nil {
		done(nil, err)
		return
	}
	o.Progress = oneAtATime(o.Progress)
	started := c.startToolCall(ctx, name)
	ro := reqOpts{progress: o.Progress, timeout: o.Timeout, mrtr: true, tasks: true}
	c.roundTripAsync(ctx, s, "tools/call", params, ro, func(res json.RawMessage, err error) {
		if err == nil && s.info.Era == EraModern {
			if rt := resultType(res); rt != "" && rt != ResultComplete {
				// More rounds (input_required) or a task: follow them on a
				// goroutine with the blocking machinery.
				go func() {
					res, err := c.toolResult(c.follow(ctx, s, "tools/call", params, ro, 0, res, nil))
					c.endToolCall(name, started, err)
					done(res, err)
				}()
				return
			}
		}
		if err != nil && mayResend(err) {
			// Maybe sent again (resend waits and may reconnect): on a
			// goroutine, never the reader's.
			go func() {
				if ns, ok := c.resend(ctx, s, "tools/call", params, err); ok {
					ro.resent = true
					res, err = c.follow(ctx, ns, "tools/call", params, ro, 0, nil, nil)
				} else {
					err = c.unanswered("tools/call", err)
				}
				res, err = c.toolResult(res, err)
				c.endToolCall(name, started, err)
				done(res, err)
			}()
			return
		}
		res, err = c.toolResult(res, err)
		c.endToolCall(name, started, err)
		done(res, err)
	})
}

// toolSpan is a tools/call being traced: a span under the caller's (an
// agent's tool call) when ctx carries one.
type toolSpan struct {
	span, parent string
	start        time.Time
}

func (c *Client) startToolCall(ctx context.Context, name string) toolSpan {
	ts := toolSpan{start: time.Now()}
	if trace.Enabled(c.opts.Trace) { // a span id costs an allocation per call
		ts.span, ts.parent = trace.NewSpan(), trace.SpanOf(ctx)
		trace.Emit(c.opts.Trace, trace.Event{Kind: trace.ToolCallStart, Span: ts.span, Parent: ts.parent, Server: c.opts.Name, Tool: name})
	}
	return ts
}

func (c *Client) endToolCall(name string, started toolSpan, err error) {
	if !trace.Enabled(c.opts.Trace) {
		return
	}
	ev := trace.Event{Kind: trace.ToolCallEnd, Span: started.span, Parent: started.parent, Server: c.opts.Name, Tool: name, Duration: time.Since(started.start)}
	if err != nil {
		ev.Error = err.Error()
		ev.Message = ev.Error
	}
	trace.Emit(c.opts.Trace, ev)
}

// liveSession returns the session when it is up, without waiting or dialing.
func (c *Client) liveSession() *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.dialing != nil || c.sess == nil || !c.sess.alive() {
		return nil
	}
	return c.sess
}

// cachedTool returns the named tool from the cached list (fresh or not),
// without fetching.
func (c *Client) cachedTool(name string) *Tool {
	e := c.lists.get("tools/list", false)
	if e == nil {
		return nil
	}
	for i := range e.tools {
		if e.tools[i].Name == name {
			return &e.tools[i]
		}
	}
	return nil
}

// roundTripAsync is roundTrip without a waiting goroutine: the answer, the
// inactivity timeout and the context's end race to call done, once.
func (c *Client) roundTripAsync(ctx context.Context, s *session, method string, fields json.RawMessage, o reqOpts, done func(json.RawMessage, error)) {
	if ctx.Err() != nil {
		done(nil, ctxError(ctx, method, c.opts.Name))
		return
	}
	tok := c.tokenFor(method, o)
	params := c.params(s, fields, tok, o.tasks || o.taskCaps)
	timeout := o.timeout
	if timeout <= 0 {
		timeout = c.opts.Timeout
	}
	var finished atomic.Bool
	var callPtr atomic.Pointer[jsonrpc.Call]
	key := jsonscan.Quote(tok)
	start := time.Now()
	// The timer and the context watch exist before the request is sent, so
	// the answer's callback (on the reader goroutine) can stop them.
	var timer *time.Timer
	var stopCtx func() bool
	var setup sync.Mutex // held until timer and stopCtx are assigned
	setup.Lock()
	end := func() bool {
		if !finished.CompareAndSwap(false, true) {
			return false
		}
		setup.Lock()
		timer.Stop()
		stopCtx()
		setup.Unlock()
		if tok != "" {
			c.progress.Delete(key)
		}
		return true
	}
	giveUp := func(reason string, err error) {
		if call := callPtr.Load(); call != nil {
			call.Abandon()
			c.cancelRequest(s, call.ID, method, reason)
		}
		done(nil, err)
	}
	timer = time.AfterFunc(timeout, func() {
		if end() {
			giveUp("timed out", c.timeoutError(method, time.Since(start), timeout))
		}
	})
	stopCtx = context.AfterFunc(ctx, func() {
		if end() {
			giveUp("cancelled by the caller", ctxError(ctx, method, c.opts.Name))
		}
	})
	setup.Unlock()
	if tok != "" {
		c.progress.Store(key, func(p Progress) {
			if o.progress != nil {
				o.progress(p)
			}
			if !finished.Load() {
				timer.Reset(max(min(timeout, 10*timeout-time.Since(start)), 0))
			}
		})
	}
	call, err := s.conn.StartThen(method, params, func(call *jsonrpc.Call) {
		if !end() {
			return
		}
		resp, err := call.Result()
		switch {
		case err != nil:
			done(nil, c.connectionLost(method, err))
		case resp.Error != nil:
			done(nil, c.serverError(method, resp.Error))
		default:
			done(resp.Result, nil)
		}
	})
	if err != nil {
		if end() {
			done(nil, c.transportError(method, err))
		}
		return
	}
	callPtr.Store(call)
	if finished.Load() {
		// The timeout or the context ended before the request was on its
		// way: forget it and tell the server.
		select {
		case <-call.Done():
		default:
			call.Abandon()
			c.cancelRequest(s, call.ID, method, "cancelled by the caller")
		}
	}
}
