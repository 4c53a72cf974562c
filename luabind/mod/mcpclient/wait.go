package mcpclient

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// waiter(name [, soft]) is a waiting function name(view, method, args...)
// for mcp_client.lua: it calls view's Go method (view is a gopher-luar
// value, the method's first parameter a context) on a goroutine of its
// own, the arguments converted by gopher-luar, and returns its results
// but the error: JSON (json.RawMessage) decoded, lists of JSON as arrays,
// the rest as gopher-luar values. An error is raised, or with soft
// returned after the results (nil when there is none). name is what the
// wait is called in errors ("conn:read"). Which Go method serves which
// Lua method is mcp_client.lua's.
func (m *module) waiter(L *lua.LState) int {
	name, soft := L.CheckString(1), L.ToBool(2)
	L.Push(m.lp.Async(name, func(L *lua.LState) sched.Start {
		fn := reflect.ValueOf(L.CheckUserData(1).Value).MethodByName(L.CheckString(2))
		if !fn.IsValid() {
			L.ArgError(2, "no such method")
		}
		ft := fn.Type()
		in := make([]reflect.Type, ft.NumIn()-1)
		for i := range in {
			in[i] = ft.In(i + 1)
		}
		args := make([]reflect.Value, 1, ft.NumIn())
		convert := reflect.MakeFunc(reflect.FuncOf(in, nil, false), func(a []reflect.Value) []reflect.Value {
			args = append(args, a...)
			return nil
		})
		top := L.GetTop()
		L.Push(luar.New(L, convert.Interface()))
		for i := 3; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top-2, 0)
		return goDo(func(ctx context.Context) sched.Completion {
			args[0] = reflect.ValueOf(ctx)
			out := fn.Call(args)
			err, _ := out[len(out)-1].Interface().(error)
			if err != nil && !soft {
				return fail(err)
			}
			return func(L *lua.LState) ([]lua.LValue, error) {
				vals := make([]lua.LValue, 0, len(out))
				for _, o := range out[:len(out)-1] {
					v, err := toLua(L, o.Interface())
					if err != nil {
						return nil, err
					}
					vals = append(vals, v)
				}
				if soft && err != nil {
					return append(vals, sched.ErrorValueOf(L, err)), nil
				}
				return vals, nil
			}
		})
	}))
	return 1
}

// toLua is a result as the waiter returns it.
func toLua(L *lua.LState, v any) (lua.LValue, error) {
	switch x := v.(type) {
	case json.RawMessage:
		if x == nil {
			return lua.LNil, nil
		}
		return decodeRaw(L, x)
	case []json.RawMessage:
		return rawList(L, len(x), func(i int) json.RawMessage { return x[i] })
	case []rmcp.Tool: // hand-written: three times faster than through gopher-luar
		return rawList(L, len(x), func(i int) json.RawMessage { return x[i].Raw })
	}
	return luar.New(L, v), nil
}

// rawList is n JSON values, raw(i), decoded into a Lua array.
func rawList(L *lua.LState, n int, raw func(i int) json.RawMessage) (*lua.LTable, error) {
	t := L.CreateTable(n, 0)
	for i := range n {
		v, err := toLua(L, raw(i))
		if err != nil {
			return nil, err
		}
		t.RawSetInt(i+1, v)
	}
	return value.MarkArray(t), nil
}
