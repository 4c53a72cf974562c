package value

import lua "github.com/yuin/gopher-lua"

// Null is the json.null sentinel. JSON null becomes Null rather than nil so
// that [1,null] keeps its length and {"a":null} keeps its key. Its metatable
// is locked (__metatable = "json.null") and tostring(Null) is "json.null".
// It is shared by every state and never mutated after init, so concurrent
// reads from several states are safe.
var Null *lua.LUserData

// ArrayMeta and ObjectMeta are the marker metatables that say whether a table
// is a JSON array or object, so [] and {} survive a round trip. They are
// locked with __metatable ("json.array" / "json.object") so Lua code can
// neither read nor replace them, and they are never mutated after init.
var ArrayMeta, ObjectMeta *lua.LTable

func init() {
	nullMeta := lockedMeta("json.null")
	// A shared G function: it touches no state-specific data, so any state
	// may call it.
	nullMeta.RawSetString("__tostring", &lua.LFunction{
		IsG: true,
		Env: emptyTable(),
		GFunction: func(L *lua.LState) int {
			L.Push(lua.LString("json.null"))
			return 1
		},
	})
	// Env is set because LState.GetFEnv returns it, and a nil *LTable inside
	// an LValue would crash whoever reads it.
	Null = &lua.LUserData{Env: emptyTable(), Metatable: nullMeta}
	ArrayMeta = lockedMeta("json.array")
	ObjectMeta = lockedMeta("json.object")
}

// emptyTable is what LState.CreateTable(0, 0) returns, without a state.
func emptyTable() *lua.LTable { return &lua.LTable{Metatable: lua.LNil} }

func lockedMeta(name string) *lua.LTable {
	t := emptyTable()
	t.RawSetString("__metatable", lua.LString(name))
	return t
}

// IsNull reports whether v is the json.null sentinel.
func IsNull(v lua.LValue) bool {
	ud, ok := v.(*lua.LUserData)
	return ok && ud == Null
}

// MarkArray gives t the array marker metatable and returns t.
func MarkArray(t *lua.LTable) *lua.LTable {
	t.Metatable = ArrayMeta
	return t
}

// MarkObject gives t the object marker metatable and returns t.
func MarkObject(t *lua.LTable) *lua.LTable {
	t.Metatable = ObjectMeta
	return t
}

// IsArray reports whether t carries the array marker.
func IsArray(t *lua.LTable) bool { return t != nil && t.Metatable == lua.LValue(ArrayMeta) }

// IsObject reports whether t carries the object marker.
func IsObject(t *lua.LTable) bool { return t != nil && t.Metatable == lua.LValue(ObjectMeta) }
