package vm

import lua "github.com/yuin/gopher-lua"

// InspectOptions are the options of the stdlib's inspect (stdlib/inspect.lua)
// that Go callers use; zero values keep inspect's defaults.
type InspectOptions struct {
	Oneline bool
	Depth   int // tables nested deeper print as {...}
	Max     int // characters before the output is cut, with a note
}

// Inspect renders v through the stdlib module inspect, as Lua code calling
// inspect(v, opts) would. ok is false when the module cannot be loaded (a
// state without the embedded stdlib) or fails; callers then fall back to
// tostring.
func Inspect(L *lua.LState, v lua.LValue, o InspectOptions) (s string, ok bool) {
	fn := inspectFunc(L)
	if fn == nil {
		return "", false
	}
	opts := L.CreateTable(0, 3)
	if o.Oneline {
		opts.RawSetString("oneline", lua.LTrue)
	}
	if o.Depth > 0 {
		opts.RawSetString("depth", lua.LNumber(o.Depth))
	}
	if o.Max > 0 {
		opts.RawSetString("max", lua.LNumber(o.Max))
	}
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, v, opts); err != nil {
		return "", false
	}
	r := L.Get(-1)
	L.Pop(1)
	str, ok := r.(lua.LString)
	return string(str), ok
}

// inspectFunc finds inspect.inspect of the built-in module inspect.
func inspectFunc(L *lua.LState) *lua.LFunction {
	v, err := RequireBuiltin(L, "inspect")
	mod, _ := v.(*lua.LTable)
	if err != nil || mod == nil {
		return nil
	}
	fn, _ := mod.RawGetString("inspect").(*lua.LFunction)
	return fn
}
