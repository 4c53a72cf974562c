// Package task is the Lua `task` module: structured concurrency over the
// scheduler's coroutines.
//
//	local h = task.spawn(function(n) task.sleep(0.1); return n * 2 end, 21)
//	print(h:await())                      --> 42
//	local a, b = table.unpack(task.all{f, g})
//	local ok, err = task.pcall(function() conn:call("x") end)
//	task.timeout(2, function() ... end)   -- raises a timeout error after 2 s
package task

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/trace"
	lua "github.com/yuin/gopher-lua"
)

const handleType = "task.handle"

type module struct {
	lp      *sched.Loop
	handles map[*sched.Task]*lua.LUserData
	mt      *lua.LTable
	queueMT *lua.LTable
	await   *lua.LFunction
}

// Preload registers `task` so require("task") returns it.
func Preload(lp *sched.Loop) {
	lp.L.PreloadModule("task", func(L *lua.LState) int {
		L.Push(Open(lp))
		return 1
	})
}

// Open builds the module table.
func Open(lp *sched.Loop) *lua.LTable {
	L := lp.L
	m := &module{lp: lp, handles: make(map[*sched.Task]*lua.LUserData)}
	m.await = lp.Async("task.await", m.readAwait)

	m.mt = L.NewTypeMetatable(handleType)
	methods := L.CreateTable(0, 6)
	methods.RawSetString("await", m.await)
	methods.RawSetString("cancel", L.NewFunction(m.handleCancel))
	methods.RawSetString("status", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(m.check(L, 1).Status()))
		return 1
	}))
	methods.RawSetString("done", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(m.check(L, 1).Finished()))
		return 1
	}))
	methods.RawSetString("id", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(m.check(L, 1).ID))
		return 1
	}))
	methods.RawSetString("error", L.NewFunction(func(L *lua.LState) int {
		t := m.check(L, 1)
		if f := t.Failure(); f != nil {
			L.Push(f.Value)
			return 1
		}
		return 0
	}))
	m.mt.RawSetString("__index", methods)
	m.mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		t := m.check(L, 1)
		name := ""
		if t.Name != "" {
			name = " " + t.Name
		}
		L.Push(lua.LString(fmt.Sprintf("task %d%s (%s)", t.ID, name, t.Status())))
		return 1
	}))
	m.mt.RawSetString("__metatable", lua.LString(handleType))

	mod := L.CreateTable(0, 10)
	L.SetFuncs(mod, map[string]lua.LGFunction{
		"spawn":   m.spawn,
		"cancel":  m.handleCancel,
		"current": m.current,
		"queue":   m.queue,
	})
	m.queueMT = m.queueMetatable(L)
	mod.RawSetString("sleep", lp.Async("task.sleep", readSleep))
	mod.RawSetString("yield", lp.Async("task.yield", func(L *lua.LState) sched.Start {
		return func(_ context.Context, done func(sched.Completion)) { done(sched.Values()) }
	}))
	mod.RawSetString("await", m.await)
	mod.RawSetString("pcall", lp.Async("task.pcall", m.readPcall))
	mod.RawSetString("timeout", lp.Async("task.timeout", m.readTimeout))
	mod.RawSetString("all", lp.Async("task.all", m.readAll))
	return mod
}

// handle returns the one userdata of t, so handles compare equal.
func (m *module) handle(t *sched.Task) *lua.LUserData {
	if ud, ok := m.handles[t]; ok {
		return ud
	}
	ud := m.lp.L.NewUserData()
	ud.Value = t
	ud.Metatable = m.mt
	m.handles[t] = ud
	// Forget the handle once the task is over and nobody else holds it; the
	// Lua side keeps the userdata alive as long as it references it.
	t.OnDoneQuiet(func(t *sched.Task) { delete(m.handles, t) })
	return ud
}

func (m *module) check(L *lua.LState, n int) *sched.Task {
	return value.Check[*sched.Task](L, n, "task handle expected, got %s")
}

// spawn(fn, ...) starts fn(...) as a new task and returns its handle at
// once. The task is detached: it outlives the task that spawned it and is
// cancelled only by its handle or when the whole program is interrupted.
// It keeps its spawner's place in the trace: what it does (an agent run
// a served call started) is a child of the spawner's span.
func (m *module) spawn(L *lua.LState) int {
	fn := L.CheckFunction(1)
	args := make([]lua.LValue, 0, L.GetTop()-1)
	for i := 2; i <= L.GetTop(); i++ {
		args = append(args, L.Get(i))
	}
	var o sched.SpawnOptions
	if caller := m.lp.TaskOf(L); caller != nil {
		if span := trace.SpanOf(caller.Context()); span != "" {
			o.Parent = trace.WithSpan(m.lp.Context(), span)
		}
	}
	t := m.lp.Spawn(fn, args, o)
	L.Push(m.handle(t))
	return 1
}

func (m *module) current(L *lua.LState) int {
	if t := m.lp.TaskOf(L); t != nil {
		L.Push(m.handle(t))
		return 1
	}
	return 0
}

func (m *module) handleCancel(L *lua.LState) int {
	t := m.check(L, 1)
	msg := L.OptString(2, "task cancelled")
	t.Cancel(errs.New(errs.Cancelled, "", msg))
	return 0
}

func readSleep(L *lua.LState) sched.Start {
	secs := float64(L.CheckNumber(1))
	if math.IsNaN(secs) || secs < 0 {
		L.ArgError(1, "seconds must be a number >= 0")
	}
	d := toDuration(secs)
	return func(ctx context.Context, done func(sched.Completion)) {
		tm := time.AfterFunc(d, func() { done(sched.Values()) })
		context.AfterFunc(ctx, func() { tm.Stop() })
	}
}

func toDuration(secs float64) time.Duration {
	if secs > float64(math.MaxInt64/int64(time.Second)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(secs * float64(time.Second))
}

// joined completes a wait with t's outcome: its results, or its error value
// as it was raised (so error tables and strings pass through unchanged).
func joined(t *sched.Task) sched.Completion {
	if f := t.Failure(); f != nil {
		return sched.Fail(f)
	}
	return sched.Values(t.Results()...)
}

func (m *module) readAwait(L *lua.LState) sched.Start {
	t := m.check(L, 1)
	return func(_ context.Context, done func(sched.Completion)) {
		t.OnDone(func(t *sched.Task) { done(joined(t)) })
	}
}

// child spawns fn(args from L at index first...) as a child of the calling
// task: cancelling the caller cancels it.
func (m *module) child(L *lua.LState, fnIdx int, o sched.SpawnOptions) *sched.Task {
	fn := L.CheckFunction(fnIdx)
	args := make([]lua.LValue, 0, L.GetTop()-fnIdx)
	for i := fnIdx + 1; i <= L.GetTop(); i++ {
		args = append(args, L.Get(i))
	}
	if caller := m.lp.TaskOf(L); caller != nil {
		o.Parent = caller.Context()
	}
	return m.lp.Spawn(fn, args, o)
}

// pcall(fn, ...) is pcall that may wait: fn runs as a child task and the
// result is true, results... or false, the error value.
func (m *module) readPcall(L *lua.LState) sched.Start {
	m.lp.CheckWait(L, "task.pcall")
	t := m.child(L, 1, sched.SpawnOptions{Name: "pcall"})
	return func(_ context.Context, done func(sched.Completion)) {
		t.OnDone(func(t *sched.Task) {
			if f := t.Failure(); f != nil {
				done(sched.Values(lua.LFalse, f.Value))
				return
			}
			done(sched.Values(append([]lua.LValue{lua.LTrue}, t.Results()...)...))
		})
	}
}

// timeout(seconds, fn, ...) runs fn as a child task with a deadline and
// returns its results; past the deadline the child is cancelled and a
// timeout error is raised.
func (m *module) readTimeout(L *lua.LState) sched.Start {
	secs := float64(L.CheckNumber(1))
	if math.IsNaN(secs) || secs < 0 {
		L.ArgError(1, "seconds must be a number >= 0")
	}
	m.lp.CheckWait(L, "task.timeout")
	d := toDuration(secs)
	t := m.child(L, 2, sched.SpawnOptions{Name: "timeout", Timeout: d,
		TimeoutMsg: "task.timeout: timed out after " + sched.FormatDuration(d)})
	return func(_ context.Context, done func(sched.Completion)) {
		t.OnDone(func(t *sched.Task) { done(joined(t)) })
	}
}

// all(list) waits for every function or task handle in list and returns a
// table of their first results, in order. The first failure cancels the
// children all started and is raised.
func (m *module) readAll(L *lua.LState) sched.Start {
	list := L.CheckTable(1)
	m.lp.CheckWait(L, "task.all")
	n := list.Len()
	tasks := make([]*sched.Task, n)
	owned := make([]bool, n)
	var parent context.Context
	if caller := m.lp.TaskOf(L); caller != nil {
		parent = caller.Context()
	}
	for i := 1; i <= n; i++ {
		switch v := list.RawGetInt(i).(type) {
		case *lua.LFunction:
			tasks[i-1] = m.lp.Spawn(v, nil, sched.SpawnOptions{Name: "all", Parent: parent})
			owned[i-1] = true
		case *lua.LUserData:
			if t, ok := v.Value.(*sched.Task); ok {
				tasks[i-1] = t
				continue
			}
			L.ArgError(1, fmt.Sprintf("item %d is not a function or task handle", i))
		default:
			L.ArgError(1, fmt.Sprintf("item %d is a %s, not a function or task handle", i, v.Type()))
		}
	}
	return func(_ context.Context, done func(sched.Completion)) {
		left := n
		if left == 0 {
			done(func(L *lua.LState) ([]lua.LValue, error) { return []lua.LValue{L.CreateTable(0, 0)}, nil })
			return
		}
		failed := false
		for _, t := range tasks {
			t.OnDone(func(t *sched.Task) {
				if failed {
					return
				}
				if f := t.Failure(); f != nil {
					failed = true
					for i, o := range tasks {
						if owned[i] && o != t {
							o.Cancel(errs.New(errs.Cancelled, "", "task.all: cancelled because another task failed"))
						}
					}
					done(sched.Fail(f))
					return
				}
				left--
				if left == 0 {
					done(func(L *lua.LState) ([]lua.LValue, error) {
						res := L.CreateTable(n, 0)
						for i, t := range tasks {
							var v lua.LValue = lua.LNil
							if r := t.Results(); len(r) > 0 {
								v = r[0]
							}
							res.RawSetInt(i+1, v)
						}
						return []lua.LValue{res}, nil
					})
				}
			})
		}
	}
}
