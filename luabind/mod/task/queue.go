package task

import (
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	lua "github.com/yuin/gopher-lua"
)

const queueType = "task.queue"

// DefaultQueueMax is the bound of task.queue() without one.
const DefaultQueueMax = 256

// queueMetatable makes task.queue's values:
//
//	local q = task.queue([max])   -- max values may wait (default 256)
//	q:put(v)                      -- true, or false when full; never waits
//	local v = q:take()            -- waits for a value (first in, first out)
//	#q                            -- how many wait
func (m *module) queueMetatable(L *lua.LState) *lua.LTable {
	check := func(L *lua.LState) *sched.Queue {
		return value.Check[*sched.Queue](L, 1, "task queue expected (call it as q:method(...)), got %s")
	}
	methods := L.CreateTable(0, 2)
	methods.RawSetString("put", L.NewFunction(func(L *lua.LState) int {
		q := check(L)
		L.Push(lua.LBool(q.Put(L.Get(2))))
		return 1
	}))
	methods.RawSetString("take", m.lp.TakeFunc("q:take", check))
	mt := L.NewTypeMetatable(queueType)
	mt.RawSetString("__index", methods)
	mt.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(check(L).Len()))
		return 1
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		check(L)
		L.Push(lua.LString(queueType))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(queueType))
	return mt
}

// queue([max]) -> a new queue
func (m *module) queue(L *lua.LState) int {
	n := L.OptInt(1, DefaultQueueMax)
	if n < 1 {
		L.ArgError(1, "max must be at least 1")
	}
	ud := L.NewUserData()
	ud.Value = m.lp.NewQueue(n)
	ud.Metatable = m.queueMT
	L.Push(ud)
	return 1
}
