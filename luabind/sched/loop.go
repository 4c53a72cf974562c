package sched

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// Options configure a Loop.
type Options struct {
	// OnUnobserved is called, on the loop goroutine, when a task failed and
	// nobody awaited it within UnobservedGrace (or when FlushUnobserved is
	// called). Nil reports nothing.
	OnUnobserved func(t *Task, f *Failure)
	// TimeLimit, when positive, bounds the life of every task of the loop:
	// past it they all fail with kind timeout, even a loop that never waits
	// (the sandbox's CPU limit; gopher-lua has no instruction hook).
	TimeLimit time.Duration
	// TaskContext, if set, replaces each task's context when it is spawned:
	// given the task's context and the context of the task spawning it (nil
	// when spawned from outside any task), it returns the context the task
	// runs under and a func to call when the task is over. The sandbox's
	// budgets (vm.BudgetContext, vm.ShareBudget) come in this way.
	TaskContext func(ctx, spawner context.Context) (context.Context, func())
}

// Loop owns one Lua state and runs its tasks. Create it with New; run it
// with Run on the goroutine that will own the state.
type Loop struct {
	L    *lua.LState
	opts Options

	root   context.Context
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	inbox  []func()
	wakeCh chan struct{}
	holds  atomic.Int64
	mode   RunMode    // the running Run's mode (mu)
	inRun  bool       // a Run is in progress (mu)
	busy   bool       // some goroutine runs the state: Run, or RunHere's caller (mu)
	freed  *sync.Cond // on mu: signalled when busy ends

	ready   []resumption // tasks to resume this tick, in order
	running *Task        // the task whose thread is executing, if any
	live    int          // tasks not yet finished
	nextID  int64
	pool    []*lua.LState // parked task threads, ready for a new job

	trampoline *lua.LFunction
	guards     map[uintptr]frameKind
	pcs        []uintptr
	fatal      *lua.LTable // a guard error pcall must not swallow, while its task runs
	unobserved []*Task     // failed tasks nobody has awaited yet
	closers    []func()
	stopped    bool
	closed     chan struct{} // closed by Close: Call stops waiting
	closeOnce  sync.Once

	beforeTick, afterTick func() // see SetTickHooks
}

type resumption struct {
	t    *Task
	args []lua.LValue
}

// maxPooledThreads bounds the idle coroutines kept for reuse: each holds a
// small stack (~20 KB); creating one costs 16–34 µs, reusing one ~0.4 µs.
const maxPooledThreads = 64

// New returns a loop owning L. It does not start running until Run.
func New(L *lua.LState, opts Options) *Loop {
	base, stopTimer := context.Background(), func() {}
	if opts.TimeLimit > 0 {
		base, stopTimer = context.WithTimeoutCause(base, opts.TimeLimit,
			errs.New(errs.Timeout, "", "time limit of "+FormatDuration(opts.TimeLimit)+" exceeded"))
	}
	ctx, cancelRoot := context.WithCancelCause(base)
	cancel := func(cause error) { cancelRoot(cause); stopTimer() }
	lp := &Loop{
		L:      L,
		opts:   opts,
		root:   ctx,
		cancel: cancel,
		wakeCh: make(chan struct{}, 1),
		closed: make(chan struct{}),
		guards: make(map[uintptr]frameKind),
		pcs:    make([]uintptr, 64),
	}
	lp.freed = sync.NewCond(&lp.mu)

	lp.trampoline = closure(L, internal().trampoline, L.NewFunction(lp.park), L.G.Global.RawGetString("unpack"))
	lp.installGuards()
	return lp
}

// Context is the loop's root context: it ends when Cancel is called.
func (lp *Loop) Context() context.Context { return lp.root }

// Cancel cancels every task (their contexts derive from the root) with the
// given cause, e.g. errs.New(errs.Cancelled, "", "interrupted").
func (lp *Loop) Cancel(cause error) { lp.cancel(cause) }

// Post queues fn to run with the state, on the goroutine running Run. It
// may be called from any goroutine and never runs Lua itself: the reader
// of a connection posts what it read and goes back to reading, so a
// handler that computes for seconds cannot delay a ping, a cancellation or
// another request's reply (DESIGN.md: I/O never waits for Lua).
func (lp *Loop) Post(fn func()) {
	lp.mu.Lock()
	lp.inbox = append(lp.inbox, fn)
	lp.mu.Unlock()
	lp.wake()
}

// RunHere runs fn on the calling goroutine, as if posted, when a Run is in
// progress and nobody is running the state; otherwise it posts fn. Only
// what fn starts runs here (a task it spawns, up to its first wait):
// whatever else is posted meanwhile is left to Run's goroutine.
//
// It is for a goroutine that exists to serve one request and would only
// wait for its answer otherwise — an HTTP request's own handler
// goroutine — where handing the request over to Run's goroutine and the
// answer back cost two thread wake-ups on a small machine. Never call it
// from a goroutine that reads a connection others depend on (a stdio or
// client reader): Lua may run for as long as it likes here.
func (lp *Loop) RunHere(fn func()) {
	lp.mu.Lock()
	if !lp.inRun || lp.busy {
		lp.inbox = append(lp.inbox, fn)
		lp.mu.Unlock()
		lp.wake()
		return
	}
	lp.busy = true
	lp.mu.Unlock()
	lp.pass(func() { lp.runGuarded(fn) })
	lp.mu.Lock()
	lp.busy = false
	// Run may have been woken meanwhile, found the state busy and gone
	// back to waiting: wake it for what came, or for its end.
	pending := len(lp.inbox) > 0 || len(lp.ready) > 0 || lp.ended()
	lp.freed.Broadcast()
	lp.mu.Unlock()
	if pending {
		lp.wake()
	}
}

func (lp *Loop) wake() {
	select {
	case lp.wakeCh <- struct{}{}:
	default:
	}
}

// tick runs what is posted and ready. Run's goroutine only.
func (lp *Loop) tick() { lp.pass(lp.drain) }

// pass runs first (what is posted, or RunHere's function) and then the
// tasks that became ready, between the tick hooks. The state's runner only.
func (lp *Loop) pass(first func()) {
	if lp.beforeTick != nil {
		lp.beforeTick()
	}
	first()
	lp.runReady()
	if lp.afterTick != nil {
		lp.afterTick()
	}
}

// SetTickHooks sets functions run, by whoever runs the state, before and
// after each pass over what is posted and ready (a tick, or a RunHere); nil
// clears them. A transport batches what a tick's handlers send with them:
// the replies to a burst of requests go out in one write (see
// transport.Stdio.Cork). Code running with the state only: Post it from
// elsewhere.
func (lp *Loop) SetTickHooks(before, after func()) {
	lp.beforeTick, lp.afterTick = before, after
}

// ended reports whether Run should return: stopped, or idle in UntilIdle
// mode. Called with mu held by the state's runner.
func (lp *Loop) ended() bool {
	return lp.stopped || (lp.mode == UntilIdle && lp.live == 0 && lp.holds.Load() == 0 && len(lp.inbox) == 0 && len(lp.ready) == 0)
}

// Hold keeps Run(ExitWhenIdle) from returning while something outside the
// loop may still post work (an open connection, the REPL's reader). The
// returned release function is idempotent.
func (lp *Loop) Hold() (release func()) {
	lp.holds.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			lp.holds.Add(-1)
			lp.wake()
		})
	}
}

// OnClose registers fn to run when the loop is closed (modules release
// what they hold: server processes, listeners). Loop goroutine only.
func (lp *Loop) OnClose(fn func()) { lp.closers = append(lp.closers, fn) }

// Close cancels every task and runs the OnClose functions, last registered
// first. The state stays the caller's to close.
func (lp *Loop) Close() {
	lp.closeOnce.Do(func() { close(lp.closed) })
	lp.cancel(errs.New(errs.Closed, "", "the Lua host is shutting down"))
	for i := len(lp.closers) - 1; i >= 0; i-- {
		lp.closers[i]()
	}
	lp.closers = nil
}

// Stop makes Run return after the current tick. Code running with the
// state only.
func (lp *Loop) Stop() {
	lp.mu.Lock()
	lp.stopped = true
	lp.mu.Unlock()
}

// RunMode says when Run returns.
type RunMode int

const (
	// UntilIdle returns when no task is alive, nothing is held and the
	// inbox is empty: the end of a script.
	UntilIdle RunMode = iota
	// UntilStopped returns only on Stop or when ctx ends (REPL, servers).
	UntilStopped
)

// Run runs the loop on the calling goroutine until mode's condition holds
// or ctx ends. Runs do not nest.
func (lp *Loop) Run(ctx context.Context, mode RunMode) error {
	lp.mu.Lock()
	lp.inRun, lp.mode, lp.stopped = true, mode, false
	lp.mu.Unlock()
	for {
		lp.mu.Lock()
		if !lp.busy { // else RunHere's caller runs the state: it wakes us
			lp.busy = true
			lp.mu.Unlock()
			lp.tick()
			lp.mu.Lock()
			lp.busy = false // only Run waits on freed: nobody to tell
			switch {
			case lp.ended():
				lp.inRun = false
				lp.mu.Unlock()
				return nil
			case len(lp.inbox) > 0 || len(lp.ready) > 0:
				lp.mu.Unlock()
				continue
			}
		}
		lp.mu.Unlock()
		select {
		case <-lp.wakeCh:
		case <-ctx.Done():
			// Leave only once nobody runs the state.
			lp.mu.Lock()
			lp.inRun = false
			for lp.busy {
				lp.freed.Wait()
			}
			lp.mu.Unlock()
			return ctx.Err()
		}
	}
}

func (lp *Loop) drain() {
	lp.mu.Lock()
	items := lp.inbox
	lp.inbox = nil
	lp.mu.Unlock()
	for i, fn := range items {
		items[i] = nil
		lp.runGuarded(fn)
	}
}

// runGuarded runs a posted function; a Go panic in it is a bug in a binding,
// reported without taking the loop down.
func (lp *Loop) runGuarded(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			lp.L.G.CurrentThread = lp.L
			if lp.opts.OnUnobserved != nil {
				lp.opts.OnUnobserved(nil, &Failure{Kind: errs.Internal, Message: fmt.Sprintf("internal error in a posted callback: %v", r)})
			}
		}
	}()
	fn()
}

func (lp *Loop) runReady() {
	for len(lp.ready) > 0 {
		r := lp.ready[0]
		lp.ready[0] = resumption{}
		lp.ready = lp.ready[1:]
		lp.resume(r.t, r.args)
	}
	lp.ready = lp.ready[:0]
}

// Live reports how many tasks have not finished.
func (lp *Loop) Live() int { return lp.live }

// Running returns the task being executed, or nil between tasks.
func (lp *Loop) Running() *Task { return lp.running }

// TaskOf returns the task whose coroutine is L, or nil when L is not a task
// thread (the main state, or a coroutine made with coroutine.create).
func (lp *Loop) TaskOf(L *lua.LState) *Task {
	if t := lp.running; t != nil && t.co == L {
		return t
	}
	return nil
}
