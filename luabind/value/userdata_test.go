package value_test

import (
	"testing"

	"github.com/luagent/luagent/luabind/value"
	lua "github.com/yuin/gopher-lua"
)

// An object made with TypeMetatable and NewUserData finds the methods the
// Lua side adds, names its type to getmetatable, and comes back through
// Check; FromLuar reads an option table by Go field names.
func TestUserData(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	type thing struct{ n int }
	natives := L.NewTable()
	mt := value.TypeMetatable(L, natives, "test.thing", "thing_methods", func(L *lua.LState) int {
		L.Push(lua.LString("a thing"))
		return 1
	})
	L.SetGlobal("natives", natives)
	L.SetGlobal("obj", value.NewUserData(L, &thing{n: 7}, mt))
	L.SetGlobal("n", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(value.Check[*thing](L, 1, "thing expected, got %s").n))
		return 1
	}))
	if err := L.DoString(`
natives.thing_methods.twice = function(self) return 2 * n(self) end
assert(obj:twice() == 14)
assert(getmetatable(obj) == "test.thing")
assert(tostring(obj) == "a thing")
local ok, err = pcall(n, {})
assert(not ok and err:find("thing expected, got table"), err)`); err != nil {
		t.Fatal(err)
	}
	type options struct {
		Name  string
		Count int
	}
	tb := L.NewTable()
	tb.RawSetString("Name", lua.LString("x"))
	tb.RawSetString("Count", lua.LNumber(3))
	L.Push(tb)
	if o := value.FromLuar[options](L, L.GetTop()); o != (options{"x", 3}) {
		t.Errorf("FromLuar = %+v", o)
	}
}
