package value

import (
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// TypeMetatable makes the metatable of a binding's object type, named
// name: its __index is a fresh methods table, stored in t as field for
// the Lua side to fill; getmetatable says name (the Lua side's type
// check) and the metatable itself cannot be reached or replaced.
func TypeMetatable(L *lua.LState, t *lua.LTable, name, field string, tostring lua.LGFunction) *lua.LTable {
	methods := L.CreateTable(0, 24)
	t.RawSetString(field, methods)
	mt := L.NewTypeMetatable(name)
	mt.RawSetString("__index", methods)
	if tostring != nil {
		mt.RawSetString("__tostring", L.NewFunction(tostring))
	}
	mt.RawSetString("__metatable", lua.LString(name))
	return mt
}

// NewUserData is v as a Lua object of the type mt.
func NewUserData(L *lua.LState, v any, mt *lua.LTable) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value, ud.Metatable = v, mt
	return ud
}

// FromLuar converts the Lua value at n to a T as gopher-luar converts a Go
// function's argument: a table's keys are T's field names. It is for
// option tables the Lua side has already checked (a mismatch is a bug
// there, raised as gopher-luar's error), not for per-call values, where
// the hand-written conversion of this package is faster.
func FromLuar[T any](L *lua.LState, n int) T {
	var out T
	L.Push(luar.New(L, func(v T) { out = v }))
	L.Push(L.Get(n))
	L.Call(1, 0)
	return out
}
