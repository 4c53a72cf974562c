package vm

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// baseError is Lua 5.1's error(message [, level]). gopher-lua's is off by
// one for level 2 and above: error("x", 2) blamed the function that called
// error rather than its caller, so library code written the standard way
// pointed users at the library.
func baseError(L *lua.LState) int {
	obj := L.CheckAny(1)
	level := L.OptInt(2, 1)
	if s, ok := obj.(lua.LString); ok && level > 0 {
		obj = lua.LString(where(L, level) + string(s))
	}
	L.Error(obj, 0)
	return 0
}

// where is "source:line: " of the function at the given level (1 = the
// caller of the running Go function), or "" when that is not Lua code.
func where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	fn, err := L.GetInfo("Slf", dbg, lua.LNil)
	if err != nil {
		return ""
	}
	if lf, ok := fn.(*lua.LFunction); !ok || lf.IsG || dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}
