package sched

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/luagent/luagent/luabind/preload"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// The scheduler's Lua half, internal.lua, is the trampoline every task
// coroutine runs and the wrapper of waiting bindings (see the file). It
// sits beside the package rather than in stdlib/ because it is not a
// module: stdlib's files are what require finds, in the sandbox too,
// while this chunk is the base of the tasks that run require, and its
// frames are hidden from tracebacks under its own source name. It is not
// compiled at start: luabind/preload holds its compiled form (a test there
// checks it against internal.lua), which cost ~0.2 ms of every start to
// parse (scripts/bench/BENCHMARKS.md, 2026-12-04).

type internalProtos struct {
	trampoline, check, async *lua.FunctionProto
}

// internal is the chunk's three functions, checked once per process; the
// protos are immutable and shared by every state.
var internal = sync.OnceValue(func() internalProtos {
	p := preload.SchedInternal()
	f := p.FunctionPrototypes
	if len(f) != 3 {
		panic("sched: the internal chunk must define three functions")
	}
	// closure passes upvalues in this order: the order the compiler numbered
	// them, checked here once.
	for i, want := range [][]string{{"park", "unpack"}, {"error"}, {"check", "raw"}} {
		if strings.Join(f[i].DbgUpvalues, ",") != strings.Join(want, ",") {
			panic(fmt.Sprintf("sched: internal function %d has upvalues %v, want %v", i, f[i].DbgUpvalues, want))
		}
	}
	return internalProtos{trampoline: f[0], check: f[1], async: f[2]}
})

// closure instantiates proto, a function of the internal chunk, in L with
// the given upvalues (in the order internal checked).
func closure(L *lua.LState, proto *lua.FunctionProto, upvalues ...lua.LValue) *lua.LFunction {
	fn := L.NewFunctionFromProto(proto)
	for i, v := range upvalues {
		uv := &lua.Upvalue{} // closed: it holds its own value
		uv.SetValue(v)
		fn.Upvalues[i] = uv
	}
	return fn
}

// Completion turns the outcome of a wait into Lua values. It runs on the
// loop goroutine, with the loop's state. An error is raised in the task as
// a luagent error table carrying its kind.
type Completion func(L *lua.LState) ([]lua.LValue, error)

// Start begins the work of one wait. It runs on the loop goroutine and must
// not block: it starts goroutines or timers that eventually call done once,
// from any goroutine (later calls are ignored). ctx is the waiting task's
// context; when it ends, the wait fails with its cause even if done is never
// called, so Start need not watch ctx except to stop its own work.
type Start func(ctx context.Context, done func(Completion))

// Values is a Completion that returns vs as they are.
func Values(vs ...lua.LValue) Completion {
	return func(*lua.LState) ([]lua.LValue, error) { return vs, nil }
}

// Fail is a Completion that raises err.
func Fail(err error) Completion {
	return func(*lua.LState) ([]lua.LValue, error) { return nil, err }
}

// Async returns a Lua function that waits. When called, read reads the Lua
// arguments (raising argument errors as any binding does) and returns the
// Start of the work; the calling task then waits until the work completes.
// name prefixes the errors ("task.sleep: cannot wait inside pcall; ...").
func (lp *Loop) Async(name string, read func(L *lua.LState) Start) *lua.LFunction {
	raw := lp.L.NewFunction(func(L *lua.LState) int {
		start := lp.readArgs(L, name, read)
		return lp.await(L, name, start)
	})
	// check raises with the global error of the moment, as a wrapper made
	// by running Lua code here would.
	p := internal()
	check := closure(lp.L, p.check, lp.L.GetGlobal("error"))
	return closure(lp.L, p.async, check, raw)
}

// readArgs runs read and, when it raises an argument error, rewrites it to
// name the binding and the user's line: gopher-lua would name the internal
// wrapper ("bad argument #1 to raw") at the wrapper's position.
func (lp *Loop) readArgs(L *lua.LState, name string, read func(L *lua.LState) Start) (start Start) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		ae, ok := r.(*lua.ApiError)
		if !ok {
			panic(r)
		}
		msg, ok := ae.Object.(lua.LString)
		if !ok {
			panic(r)
		}
		s := string(msg)
		if strings.HasPrefix(s, internalSource+":") {
			if i := strings.Index(s, ": "); i >= 0 {
				s = s[i+2:]
			}
			s = userWhere(L) + strings.Replace(s, " to raw (", " to '"+name+"' (", 1)
		}
		L.Error(lua.LString(s), 0)
	}()
	return read(L)
}

type wait struct {
	lp   *Loop
	t    *Task
	once atomic.Bool
	stop func() bool // releases the context watch
}

// finish may be called from any goroutine; the first call wins.
func (w *wait) finish(c Completion) {
	if !w.once.CompareAndSwap(false, true) {
		return
	}
	w.lp.Post(func() { w.lp.complete(w, c) })
}

// CheckWait raises the await-guard error if L may not wait here, and returns
// the task that would wait. Bindings that yield by other means than Async
// call it first.
func (lp *Loop) CheckWait(L *lua.LState, name string) *Task {
	t := lp.TaskOf(L)
	if t == nil {
		if lp.running != nil {
			lp.raiseFatal(L, name+": cannot wait inside a coroutine made with coroutine.create or coroutine.wrap; use task.spawn")
		}
		lp.raiseFatal(L, name+": cannot wait outside a task")
	}
	if reason := lp.unsafeContext(); reason != "" {
		lp.raiseFatal(L, fmt.Sprintf("%s: cannot wait inside %s; use task.pcall", name, reason))
	}
	return t
}

func (lp *Loop) await(L *lua.LState, name string, start Start) int {
	t := lp.CheckWait(L, name)
	if t.ctx.Err() != nil {
		L.Push(lua.LFalse)
		L.Push(ErrorValue(L, errs.KindOf(context.Cause(t.ctx)), vm.CauseText(context.Cause(t.ctx))))
		return 2
	}
	w := &wait{lp: lp, t: t}
	t.wait = w
	ctx := t.ctx
	w.stop = context.AfterFunc(ctx, func() {
		cause := context.Cause(ctx)
		w.finish(Fail(cause))
	})
	start(ctx, w.finish)
	return L.Yield()
}

// complete resumes the task of w with the completion's outcome.
func (lp *Loop) complete(w *wait, c Completion) {
	t := w.t
	if t.wait != w {
		return
	}
	t.wait = nil
	w.stop()
	vals, err := runCompletion(lp.L, c)
	var args []lua.LValue
	if err != nil {
		args = []lua.LValue{lua.LFalse, ErrorValueOf(lp.L, err)}
	} else {
		args = make([]lua.LValue, 0, len(vals)+1)
		args = append(args, lua.LTrue)
		args = append(args, vals...)
	}
	lp.ready = append(lp.ready, resumption{t: t, args: args})
}

func runCompletion(L *lua.LState, c Completion) (vals []lua.LValue, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errs.Errorf(errs.Internal, "", "internal error converting a result: %v (please report it)", r)
		}
	}()
	return c(L)
}

// installGuards replaces pcall, xpcall and coroutine.yield so that misuse
// of waiting cannot be swallowed or crash: pcall and xpcall re-raise the
// guard's error instead of returning false, and coroutine.yield refuses to
// yield where gopher-lua cannot.
func (lp *Loop) installGuards() {
	g := lp.L.G.Global
	for _, name := range []string{"pcall", "xpcall"} {
		orig, ok := g.RawGetString(name).(*lua.LFunction)
		if !ok || !orig.IsG {
			continue
		}
		inner := orig.GFunction
		g.RawSetString(name, lp.L.NewFunction(func(L *lua.LState) int {
			n := inner(L)
			if f := lp.fatal; f != nil && n >= 1 && L.Get(L.GetTop()-n+1) == lua.LFalse {
				L.Error(f, 0)
			}
			return n
		}))
	}
	if co, ok := g.RawGetString("coroutine").(*lua.LTable); ok {
		if orig, ok := co.RawGetString("yield").(*lua.LFunction); ok && orig.IsG {
			inner := orig.GFunction
			co.RawSetString("yield", lp.L.NewFunction(func(L *lua.LState) int {
				if L != lp.L {
					if reason := lp.unsafeContext(); reason != "" {
						lp.raiseFatal(L, "coroutine.yield: cannot yield inside "+reason)
					}
				}
				return inner(L)
			}))
		}
	}
}
