// Package json is the Lua `json` module.
//
//	local t = json.decode('{"a":[1,null,3]}')   -- t.a[2] == json.null, #t.a == 3
//	json.encode(t)                               --> {"a":[1,null,3]}
//	json.encode({}), json.encode(json.array{})   --> {}   []
//	json.pretty(t)                               -- indented, keys sorted
//
// The mapping rules live in package value.
package json

import (
	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// Preload registers `json` so require("json") returns it.
func Preload(L *lua.LState) {
	L.PreloadModule("json", func(L *lua.LState) int {
		L.Push(Open(L))
		return 1
	})
}

// Open builds the module table.
func Open(L *lua.LState) *lua.LTable {
	mod := L.CreateTable(0, 8)
	L.SetFuncs(mod, map[string]lua.LGFunction{
		"encode": encode,
		"decode": decode,
		"pretty": pretty,
		"array":  array,
		"object": object,
		"is_array": func(L *lua.LState) int {
			tb, ok := L.Get(1).(*lua.LTable)
			L.Push(lua.LBool(ok && value.IsArray(tb)))
			return 1
		},
	})
	mod.RawSetString("null", value.Null)
	return mod
}

// raise raises a Go error as a Lua error table with the error's kind and
// the caller's position, e.g. {kind="invalid", message="x.lua:3: json.decode:
// expected ',' or '}' at offset 17"}.
func raise(L *lua.LState, err error) {
	k := errs.KindOf(err)
	if k == errs.Unknown {
		k = errs.Invalid
	}
	L.Error(sched.ErrorValue(L, k, sched.Where(L)+err.Error()), 0)
}

// encode(v [, opts]): opts.indent pretty-prints with that indent.
func encode(L *lua.LState) int {
	opt := value.EncodeOptions{}
	if o, ok := L.Get(2).(*lua.LTable); ok {
		if s, ok := o.RawGetString("indent").(lua.LString); ok {
			opt.Indent = string(s)
		} else if n, ok := o.RawGetString("indent").(lua.LNumber); ok && n > 0 && n <= 16 {
			opt.Indent = spaces[:int(n)]
		}
	}
	out, err := value.Encode(L.CheckAny(1), opt)
	if err != nil {
		raise(L, err)
	}
	L.Push(lua.LString(out))
	return 1
}

const spaces = "                "

func pretty(L *lua.LState) int {
	out, err := value.Encode(L.CheckAny(1), value.EncodeOptions{Indent: "  "})
	if err != nil {
		raise(L, err)
	}
	L.Push(lua.LString(out))
	return 1
}

func decode(L *lua.LState) int {
	s := L.CheckString(1)
	v, err := value.Decode(L, []byte(s))
	if err != nil {
		raise(L, err)
	}
	L.Push(v)
	return 1
}

// array([t]) marks t (or a new table) as a JSON array, so it encodes as []
// even when empty.
func array(L *lua.LState) int { return mark(L, value.MarkArray) }

// object([t]) marks t (or a new table) as a JSON object.
func object(L *lua.LState) int { return mark(L, value.MarkObject) }

func mark(L *lua.LState, marker func(*lua.LTable) *lua.LTable) int {
	tb, ok := L.Get(1).(*lua.LTable)
	if !ok {
		if L.Get(1) != lua.LNil {
			L.ArgError(1, "table or nil expected")
		}
		tb = L.CreateTable(0, 0)
	}
	L.Push(marker(tb))
	return 1
}
