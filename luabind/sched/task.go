package sched

import (
	"context"
	"fmt"
	"time"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// State is where a task is in its life.
type State uint8

const (
	Pending State = iota // spawned, not started yet
	Running              // its coroutine is executing
	Waiting              // suspended until a wait completes
	Done                 // returned normally
	Failed               // raised an error, was cancelled or timed out
)

// Task is one coroutine run by the loop: a script's main chunk, a REPL
// line, a spawned function, an incoming request's handler. Its fields are
// owned by the loop goroutine.
type Task struct {
	ID   int64
	Name string

	lp     *Loop
	co     *lua.LState
	fn     *lua.LFunction
	args   []lua.LValue
	ctx    context.Context
	cancel context.CancelCauseFunc

	state    State
	wait     *wait
	parked   bool // the trampoline reported the job finished
	results  []lua.LValue
	failure  *Failure
	joiners  []func(*Task)
	observed bool
	failedAt time.Time
	tb       string // traceback captured where the error was raised
}

// SpawnOptions configure a new task.
type SpawnOptions struct {
	Name string
	// Parent is the context the task's context derives from: cancelling it
	// cancels the task. Nil means the loop's root (a detached task).
	Parent context.Context
	// Timeout, when positive, fails the task with kind timeout after it.
	Timeout time.Duration
	// TimeoutMsg is the message of that failure; a default names the time.
	TimeoutMsg string
	// Context, if set, is the task's own context as it is, and Cancel
	// cancels it: no child context is made (a child costs an allocation
	// and a registration with its parent per task). For a task that is all
	// its context stands for, such as a tool call's handler. Parent and
	// Timeout are then ignored.
	Context context.Context
	Cancel  context.CancelCauseFunc
}

// Spawn creates a task that will call fn(args...) on a later tick. It must
// be called on the loop goroutine.
func (lp *Loop) Spawn(fn *lua.LFunction, args []lua.LValue, o SpawnOptions) *Task {
	parent := o.Parent
	if parent == nil {
		parent = lp.root
	}
	lp.nextID++
	t := &Task{ID: lp.nextID, Name: o.Name, lp: lp, fn: fn, args: args}
	if o.Context != nil {
		t.ctx, t.cancel = o.Context, o.Cancel
	} else if o.Timeout > 0 {
		msg := o.TimeoutMsg
		if msg == "" {
			msg = "timed out after " + FormatDuration(o.Timeout)
		}
		tctx, stop := context.WithTimeoutCause(parent, o.Timeout, errs.New(errs.Timeout, "", msg))
		ctx, cancel := context.WithCancelCause(tctx)
		t.ctx = ctx
		t.cancel = func(cause error) { cancel(cause); stop() }
	} else {
		t.ctx, t.cancel = context.WithCancelCause(parent)
	}
	if wrap := lp.opts.TaskContext; wrap != nil {
		var spawner context.Context
		if lp.running != nil {
			spawner = lp.running.ctx
		}
		ctx, stop := wrap(t.ctx, spawner)
		cancel := t.cancel
		t.ctx = ctx
		t.cancel = func(cause error) { cancel(cause); stop() }
	}
	lp.live++
	lp.ready = append(lp.ready, resumption{t: t})
	return t
}

// FormatDuration prints d the way error messages in luagent do: "250ms",
// "1.5s", "2m0s" (vm.FormatDuration, which the sandbox's limits use too).
func FormatDuration(d time.Duration) string { return vm.FormatDuration(d) }

// Context is the task's context: it ends when the task is cancelled or
// times out, or when it finishes.
func (t *Task) Context() context.Context { return t.ctx }

// State returns the task's state.
func (t *Task) State() State { return t.state }

// Status returns the state as Lua code sees it: "pending", "running",
// "waiting", "done", "failed" or "cancelled".
func (t *Task) Status() string {
	switch t.state {
	case Pending:
		return "pending"
	case Running:
		return "running"
	case Waiting:
		return "waiting"
	case Done:
		return "done"
	}
	if t.failure != nil && (t.failure.Kind == errs.Cancelled || t.failure.Kind == errs.Timeout) {
		return "cancelled"
	}
	return "failed"
}

// Finished reports whether the task is done or failed.
func (t *Task) Finished() bool { return t.state >= Done }

// Results returns the values the task's function returned.
func (t *Task) Results() []lua.LValue { return t.results }

// Failure returns why the task failed, or nil.
func (t *Task) Failure() *Failure { return t.failure }

// OnDone calls fn on the loop goroutine when the task finishes (at once if
// it has). A task with an OnDone callback counts as observed: its failure is
// not reported as unobserved.
func (t *Task) OnDone(fn func(*Task)) {
	t.observed = true
	if t.Finished() {
		fn(t)
		return
	}
	t.joiners = append(t.joiners, fn)
}

// OnDoneQuiet is OnDone without marking the task observed: for bookkeeping
// that does not handle the outcome.
func (t *Task) OnDoneQuiet(fn func(*Task)) {
	if t.Finished() {
		fn(t)
		return
	}
	t.joiners = append(t.joiners, fn)
}

// Cancel stops the task with cause (kind cancelled when cause is nil). A
// waiting task is woken with the error; a running one stops at its next VM
// instruction; a pending one never starts.
func (t *Task) Cancel(cause error) {
	if t.Finished() {
		return
	}
	if cause == nil {
		cause = errs.New(errs.Cancelled, "", "task cancelled")
	}
	t.cancel(cause)
	if t.state == Pending {
		t.lp.fail(t, nil)
	}
	// Wake a waiting task now rather than when its wait's context watch
	// gets round to it, so cancellation takes effect in this tick.
	if w := t.wait; w != nil && w.once.CompareAndSwap(false, true) {
		t.lp.complete(w, Fail(context.Cause(t.ctx)))
	}
}

// Interrupt cancels the task's context with cause. Unlike Cancel it may be
// called from any goroutine (a signal handler): a waiting task is woken by
// its wait's context watch, and a running one stops at its next VM
// instruction.
func (t *Task) Interrupt(cause error) {
	t.cancel(cause)
}

// resume runs t until it waits, finishes or fails.
func (lp *Loop) resume(t *Task, args []lua.LValue) {
	if t.Finished() {
		return
	}
	if t.state == Pending {
		if t.ctx.Err() != nil {
			lp.fail(t, nil)
			return
		}
		t.co = lp.thread()
		t.co.SetContext(t.ctx)
		var argv lua.LValue = lua.LNil
		if len(t.args) > 0 {
			tb := lp.L.CreateTable(len(t.args), 0)
			for i, a := range t.args {
				tb.RawSetInt(i+1, a)
			}
			argv = tb
		}
		args = []lua.LValue{t.fn, argv, lua.LNumber(len(t.args))}
		t.fn, t.args = nil, nil
	}
	t.state = Running
	lp.running = t
	st, err := lp.protectedResume(t.co, nil, args)
	lp.running = nil
	if f := lp.fatal; f != nil {
		lp.fatal = nil
		if err == nil {
			// The task went on after a guard error (a handler swallowed it
			// and the code waited again or returned): fail it anyway.
			err = &lua.ApiError{Type: lua.ApiErrorRun, Object: f}
			if st == lua.ResumeYield && !t.parked {
				t.wait = nil
			}
		}
	}
	switch {
	case err != nil:
		lp.fail(t, err)
	case st == lua.ResumeYield && t.parked:
		t.parked = false
		co := t.co
		t.co = nil
		lp.finish(t)
		if len(lp.pool) < maxPooledThreads {
			lp.pool = append(lp.pool, co)
		}
	case st == lua.ResumeYield && t.wait != nil:
		t.state = Waiting
	case st == lua.ResumeYield:
		// A bare coroutine.yield in a task: let the other tasks run, then
		// continue it, like task.yield.
		lp.ready = append(lp.ready, resumption{t: t})
	default:
		// The trampoline never returns; treat it as a finished job anyway.
		t.co = nil
		lp.finish(t)
	}
}

// protectedResume resumes co under recover: misuse that gopher-lua does not
// catch panics the Go process, and the user must never see a Go panic.
func (lp *Loop) protectedResume(co *lua.LState, fn *lua.LFunction, args []lua.LValue) (st lua.ResumeState, err error) {
	top := lp.L.GetTop()
	defer func() {
		if r := recover(); r != nil {
			lp.L.G.CurrentThread = lp.L
			lp.L.SetTop(top)
			st = lua.ResumeError
			err = &lua.ApiError{Type: lua.ApiErrorPanic, Object: lua.LString(fmt.Sprintf("internal error in the Lua VM: %v (please report it)", r))}
		}
	}()
	st, err, _ = lp.L.Resume(co, fn, args...)
	return st, err
}

// thread returns a parked coroutine running the trampoline, from the pool
// or new.
func (lp *Loop) thread() *lua.LState {
	if n := len(lp.pool); n > 0 {
		co := lp.pool[n-1]
		lp.pool[n-1] = nil
		lp.pool = lp.pool[:n-1]
		return co
	}
	co, _ := lp.L.NewThread()
	// Start the trampoline: it parks at once, waiting for its first job.
	if st, err := lp.protectedResume(co, lp.trampoline, nil); err != nil || st != lua.ResumeYield {
		panic(fmt.Sprintf("sched: trampoline did not park: %v %v", st, err))
	}
	co.Panic = lp.onPanic
	return co
}

// park is the trampoline's Go half: it receives a finished job's results
// and yields until the next job.
func (lp *Loop) park(L *lua.LState) int {
	if t := lp.running; t != nil && t.co == L {
		n := L.GetTop()
		if n > 0 {
			t.results = make([]lua.LValue, n)
			for i := 1; i <= n; i++ {
				t.results[i-1] = L.Get(i)
			}
		}
		t.parked = true
	}
	return L.Yield()
}

// onPanic is the Panic hook of task threads: it records a traceback while the
// failing frames still exist (Resume discards them), then raises as usual.
// pcall swaps the hook out during protected calls, so caught errors cost
// nothing extra.
func (lp *Loop) onPanic(L *lua.LState) {
	obj := L.Get(-1)
	if t := lp.running; t != nil && t.co == L && t.tb == "" {
		t.tb = Traceback(L, 0)
	}
	panic(&lua.ApiError{Type: lua.ApiErrorRun, Object: obj})
}

func (lp *Loop) finish(t *Task) {
	t.state = Done
	lp.live--
	t.cancel(errTaskFinished)
	lp.notify(t)
}

var errTaskFinished = errs.New(errs.Cancelled, "", "the task has finished")

// fail ends t with err (nil: cancelled before it ran). A thread that raised
// is dead in gopher-lua, so it is not pooled.
func (lp *Loop) fail(t *Task, err error) {
	t.co = nil
	t.state = Failed
	t.failedAt = time.Now()
	t.failure = lp.failureOf(t, err)
	lp.live--
	t.cancel(errTaskFinished)
	if !t.observed && lp.opts.OnUnobserved != nil {
		lp.unobserved = append(lp.unobserved, t)
		time.AfterFunc(UnobservedGrace, func() { lp.Post(func() { lp.reportUnobserved(false) }) })
	}
	lp.notify(t)
}

// UnobservedGrace is how long a failed task may wait for someone to await
// it before its failure is reported: a script often spawns, works, then
// awaits, and the failure may come first.
var UnobservedGrace = time.Second

// reportUnobserved reports failed tasks nobody has awaited: those older
// than the grace period, or all of them when flushing.
func (lp *Loop) reportUnobserved(all bool) {
	keep := lp.unobserved[:0]
	for _, t := range lp.unobserved {
		switch {
		case t.observed:
		case all || time.Since(t.failedAt) >= UnobservedGrace:
			t.observed = true
			lp.opts.OnUnobserved(t, t.failure)
		default:
			keep = append(keep, t)
		}
	}
	clear(lp.unobserved[len(keep):])
	lp.unobserved = keep
}

// FlushUnobserved reports, at once, every failed task nobody awaited. Hosts
// call it when a run ends.
func (lp *Loop) FlushUnobserved() {
	if lp.opts.OnUnobserved != nil {
		lp.reportUnobserved(true)
	}
}

func (lp *Loop) notify(t *Task) {
	js := t.joiners
	t.joiners = nil
	for _, j := range js {
		j(t)
	}
}

// failureOf classifies why t failed. A task whose context ended failed
// because of that (cancel, timeout, Ctrl-C) whatever the VM raised on the
// way out, so the kind and message come from the context's cause.
func (lp *Loop) failureOf(t *Task, err error) *Failure {
	f := &Failure{Kind: errs.Runtime, Traceback: t.tb}
	if ae, ok := err.(*lua.ApiError); ok {
		f.Value = ae.Object
		if ae.Type == lua.ApiErrorPanic {
			f.Kind = errs.Internal
		}
	} else if err != nil {
		f.Value = lua.LString(err.Error())
	}
	if t.ctx.Err() != nil {
		// The raised value has where the code stopped ("x.lua:3: time
		// limit of 1s exceeded") when the context's Err was the cause.
		f.Kind, f.Message = vm.EndedBy(t.ctx, f.Value)
		f.Value = ErrorValue(lp.L, f.Kind, f.Message)
		return f
	}
	f.Kind, f.Message = describe(lp.L, f.Value, f.Kind)
	return f
}

// describe returns the kind and one-line message of an error value: a
// luagent error table carries its kind; anything else is runtime, printed
// through tostring (so __tostring is honoured).
func describe(L *lua.LState, v lua.LValue, def errs.Kind) (errs.Kind, string) {
	if tb, ok := v.(*lua.LTable); ok {
		if k, ok := tb.RawGetString("kind").(lua.LString); ok {
			if kind := errs.ParseKind(string(k)); kind != errs.Unknown {
				def = kind
			}
		}
	}
	if v == nil {
		return def, "error"
	}
	return def, Message(L, v)
}

// Message renders an error value as one line: strings as they are, values
// with __tostring through it (an error inside it falls back), tables by
// their message field, other values through inspect (bounded: an enormous
// table gives a few hundred characters, not megabytes), nil as Lua
// describes it. In a sandbox state no metamethod is called (vm.ErrorText).
func Message(L *lua.LState, v lua.LValue) (s string) {
	if vm.IsSandbox(L) {
		// Calling the code's __tostring here would run it outside its
		// limits (on the loop, after the task's context ended).
		return vm.ErrorText(v)
	}
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("(error object is a %s value)", v.Type())
		}
	}()
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber, lua.LBool:
		return vm.ToString(L, x)
	case *lua.LFunction:
		return vm.ToString(L, x) // inspect's <function 1> says less
	case *lua.LTable:
		if L.GetMetaField(x, "__tostring") != lua.LNil {
			return vm.ToString(L, x)
		}
		if m, ok := x.RawGetString("message").(lua.LString); ok {
			return string(m)
		}
	case *lua.LUserData:
		if L.GetMetaField(x, "__tostring") != lua.LNil {
			return vm.ToString(L, x)
		}
	}
	if v != lua.LNil {
		if s, ok := vm.Inspect(L, v, errorInspect); ok {
			return s
		}
	}
	return fmt.Sprintf("(error object is a %s value)", v.Type())
}

// errorInspect bounds how an error value is shown.
var errorInspect = vm.InspectOptions{Oneline: true, Depth: 4, Max: 400}
