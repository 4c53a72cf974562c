package value

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Check returns the Go value of type T that the userdata at argument n
// holds, or raises an argument error with msg ("%s" in it, if any, stands
// for the Lua type found): the one userdata check of every binding.
func Check[T any](L *lua.LState, n int, msg string) T {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		if v, ok := ud.Value.(T); ok {
			return v
		}
	}
	if strings.Contains(msg, "%s") {
		msg = fmt.Sprintf(msg, L.Get(n).Type().String())
	}
	L.ArgError(n, msg)
	var zero T
	return zero
}
