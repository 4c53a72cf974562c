package sched

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// Call is one call of Lua from Go that a goroutine other than the loop's
// waits for (Loop.Call): a tool handler, a policy, a hook or a model the
// agent calls, a client callback (sampling, elicitation, roots), an
// authorization check, a chat command's chunk.
type Call struct {
	// Name names the task and is the Op of every error Call returns.
	Name string
	// Func returns the function to run and its arguments. It runs on the
	// loop goroutine; an error it returns is Call's, as it is.
	Func func(L *lua.LState) (*lua.LFunction, []lua.LValue, error)
	// Read turns the function's results into Go values. It runs on the loop
	// goroutine (Lua values belong to the state), only while Call still
	// waits; an error it returns is Call's, as it is. Nil ignores them.
	Read func(L *lua.LState, results []lua.LValue) error
	// Inline runs the call on the calling goroutine when the state is idle
	// (see RunHere): for a goroutine that exists to serve one request.
	// Never set it on a goroutine that reads a connection.
	Inline bool
	// Timeout, when positive, bounds the call: past it the task is
	// cancelled and Call fails with kind timeout and TimeoutMsg (a default
	// names the time), even if the loop never got to run it.
	Timeout    time.Duration
	TimeoutMsg string
}

// Call runs a Lua function as a task on the loop and waits for it on the
// calling goroutine, which must not be the one running the loop. The task
// may itself wait (it is a task like any other); its context derives from
// ctx, and it is cancelled when Call returns. Call returns:
//
//   - nil, once Read has read the results;
//   - when ctx ends first (before the task started or while it runs), an
//     error of kind timeout for a deadline, else cancelled, with the
//     cause's message (see CallError); the task is cancelled;
//   - when the loop is closed (Close), before or while waiting, an error
//     of kind closed: "NAME: the Lua host has stopped";
//   - when the task raises, an error with the raised error's kind and
//     message (runtime for a plain string), wrapping the *Failure (its
//     Value and Traceback; errors.As finds it);
//   - Func's or Read's error, as it is.
//
// Read is never called after Call has returned.
func (lp *Loop) Call(ctx context.Context, c Call) error {
	if c.Timeout > 0 {
		msg := c.TimeoutMsg
		if msg == "" {
			msg = "no answer after " + FormatDuration(c.Timeout)
		}
		var stop context.CancelFunc
		ctx, stop = context.WithTimeoutCause(ctx, c.Timeout, errs.New(errs.Timeout, "", msg))
		defer stop()
	}
	if ctx.Err() != nil {
		return CallError(ctx, c.Name)
	}
	select {
	case <-lp.closed:
		return lp.closedError(c.Name)
	default:
	}
	// The task's own context: it ends with the task, or when Call returns.
	tctx, cancel := context.WithCancelCause(ctx)
	defer cancel(errCallReturned)

	w := &caller{done: make(chan error, 1)}
	run := lp.Post
	if c.Inline {
		run = lp.RunHere
	}
	run(func() { w.start(lp, ctx, tctx, cancel, c) })
	var err error
	select {
	case err = <-w.done:
		return err
	case <-ctx.Done():
		err = CallError(ctx, c.Name)
	case <-lp.closed:
		err = lp.closedError(c.Name)
	}
	// The answer may have come meanwhile: it wins, as it was read.
	if w.leave() {
		return <-w.done
	}
	return err
}

var errCallReturned = errs.New(errs.Cancelled, "", "the caller stopped waiting")

// caller is the loop's side of a Call: it runs Func and Read under mu, so
// that once the waiter has left (leave) neither touches its values again.
type caller struct {
	mu   sync.Mutex
	left bool
	sent bool
	done chan error
}

// leave marks the waiter gone; it reports whether an answer was sent.
func (w *caller) leave() (sent bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.left = true
	return w.sent
}

// send delivers err unless the waiter has left. mu is held.
func (w *caller) send(err error) {
	if !w.left && !w.sent {
		w.sent = true
		w.done <- err
	}
}

// start runs on the loop goroutine: it spawns the task, under tctx (a
// child of the caller's ctx), and reads its outcome when it ends.
func (w *caller) start(lp *Loop, ctx, tctx context.Context, cancel context.CancelCauseFunc, c Call) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.left {
		return
	}
	fn, args, err := c.Func(lp.L)
	if err != nil {
		w.send(err)
		return
	}
	t := lp.Spawn(fn, args, SpawnOptions{Name: c.Name, Context: tctx, Cancel: cancel})
	t.OnDone(func(t *Task) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.left {
			return
		}
		switch f := t.Failure(); {
		case f != nil && ctx.Err() != nil:
			// Cancelled or timed out: the same error whether the waiter
			// or the task saw it first.
			w.send(CallError(ctx, c.Name))
		case f != nil:
			w.send(&errs.Error{Kind: f.Kind, Op: c.Name, Msg: f.Message, Err: f})
		case c.Read != nil:
			w.send(c.Read(lp.L, t.Results()))
		default:
			w.send(nil)
		}
	})
}

// CallError is the error of a call named name whose ctx has ended: kind
// timeout when its deadline passed or its cause has kind timeout, else
// cancelled; the message is the cause's ("interrupted", "the validator did
// not answer within 5s"), or "cancelled" / "timed out" for a bare context
// error. It wraps the cause.
func CallError(ctx context.Context, name string) error {
	cause := context.Cause(ctx)
	kind := errs.Cancelled
	if errs.KindOf(cause) == errs.Timeout || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		kind = errs.Timeout
	}
	var msg string
	var e *errs.Error
	switch {
	case errors.As(cause, &e) && e.Msg != "":
		msg = e.Msg
	case cause == context.Canceled:
		msg = "cancelled"
	case cause == context.DeadlineExceeded:
		msg = "timed out"
	default:
		msg = cause.Error()
	}
	return &errs.Error{Kind: kind, Op: name, Msg: msg, Err: cause}
}

func (lp *Loop) closedError(name string) error {
	return errs.New(errs.Closed, name, "the Lua host has stopped")
}
