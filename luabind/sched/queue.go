package sched

import (
	"context"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// Queue passes Lua values between the tasks of one loop, first in first
// out: Put never waits (it refuses when Max values wait already), Take
// waits for a value. A value goes to exactly one taker: one whose wait was
// cancelled is passed over, so nothing is lost or delivered twice. Loop
// goroutine only.
type Queue struct {
	lp     *Loop
	max    int
	items  []lua.LValue
	takers []*wait
}

// NewQueue returns a queue holding at most n values (at least 1).
func (lp *Loop) NewQueue(n int) *Queue {
	return &Queue{lp: lp, max: max(n, 1)}
}

// Len is how many values wait to be taken.
func (q *Queue) Len() int { return len(q.items) }

// Put hands v to the task that has waited longest in Take, or keeps it;
// false when the queue is full.
func (q *Queue) Put(v lua.LValue) bool {
	for len(q.takers) > 0 {
		w := q.takers[0]
		q.takers = q.takers[1:]
		if w.once.CompareAndSwap(false, true) {
			q.lp.complete(w, Values(v))
			return true
		}
	}
	if len(q.items) >= q.max {
		return false
	}
	q.items = append(q.items, v)
	return true
}

// TakeFunc returns the Lua function take(q): it returns the first value,
// waiting for one; check gives the queue of its first argument.
func (lp *Loop) TakeFunc(name string, check func(L *lua.LState) *Queue) *lua.LFunction {
	raw := lp.L.NewFunction(func(L *lua.LState) int {
		q := check(L)
		t := lp.CheckWait(L, name)
		// A value that waits is taken without waiting, even by a
		// cancelled task (one tidying up after itself).
		if len(q.items) > 0 {
			v := q.items[0]
			q.items[0] = lua.LNil
			q.items = q.items[1:]
			L.Push(lua.LTrue)
			L.Push(v)
			return 2
		}
		if err := t.ctx.Err(); err != nil {
			L.Push(lua.LFalse)
			L.Push(ErrorValue(L, errs.KindOf(context.Cause(t.ctx)), vm.CauseText(context.Cause(t.ctx))))
			return 2
		}
		w := &wait{lp: lp, t: t}
		t.wait = w
		ctx := t.ctx
		w.stop = context.AfterFunc(ctx, func() {
			w.finish(Fail(context.Cause(ctx)))
			lp.Post(func() { q.forget(w) })
		})
		q.takers = append(q.takers, w)
		return L.Yield()
	})
	p := internal()
	return closure(lp.L, p.async, closure(lp.L, p.check, lp.L.GetGlobal("error")), raw)
}

func (q *Queue) forget(w *wait) {
	for i, x := range q.takers {
		if x == w {
			q.takers = append(q.takers[:i], q.takers[i+1:]...)
			return
		}
	}
}
