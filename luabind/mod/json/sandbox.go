package json

import (
	"fmt"

	"github.com/luagent/luagent/luabind/vm"
	lua "github.com/yuin/gopher-lua"
)

// MaxSandboxDecode caps json.decode's input in a sandbox.
const MaxSandboxDecode = 2 << 20

// MeterSandbox wraps the json module table mod of a sandboxed state so that
// its results are charged to the run's memory meter: encode of a table
// holding one large string many times would write it many times.
func MeterSandbox(L *lua.LState, mod *lua.LTable) {
	wrap := func(name string, cost func(L *lua.LState) int64, check func(*lua.LState, int64, string)) {
		orig, _ := mod.RawGetString(name).(*lua.LFunction)
		if orig == nil || !orig.IsG {
			return
		}
		f := orig.GFunction
		mod.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			check(L, cost(L), "json."+name)
			return f(L)
		}))
	}
	encoded := func(L *lua.LState) int64 { return vm.EncodedSize(L.Get(1), 1<<40) }
	wrap("encode", encoded, vm.CheckSize)
	wrap("pretty", func(L *lua.LState) int64 { return 2 * encoded(L) }, vm.CheckSize)
	// A decoded value takes a few times its text. The decoder does not
	// stop for the time limit, so its input is capped too: 2 MiB decode in
	// about 0.2 s (and stay under vm.MaxArrayIndex elements, past which
	// gopher-lua's tables grow slowly).
	wrap("decode", func(L *lua.LState) int64 {
		return 4 * int64(len(L.CheckString(1)))
	}, func(L *lua.LState, n int64, what string) {
		if n > 4*MaxSandboxDecode {
			vm.Fail(L, fmt.Sprintf("json.decode: input of %d bytes is over the sandbox's limit of %d", n/4, MaxSandboxDecode))
		}
		vm.Charge(L, n, what)
	})
}
