// Package env is the Lua `env` module: read the process environment.
//
//	env.get("HOME")                  --> "/home/me" (nil when unset)
//	env.get("PORT", "8080")          --> a default when unset or empty
//	env.require("OPENAI_API_KEY")    -- raises "environment variable OPENAI_API_KEY is not set; export it and run again"
//	env.has("CI")                    --> true/false
//
// It reads only: scripts change the environment of processes they start
// through those APIs' env options, never the host's.
package env

import (
	"os"
	"sort"
	"strings"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// Lookup is how the module reads a variable; tests replace it.
type Lookup func(name string) (string, bool)

// Preload registers `env`. A nil lookup reads the real environment.
func Preload(L *lua.LState, lookup Lookup) {
	L.PreloadModule("env", func(L *lua.LState) int {
		L.Push(Open(L, lookup))
		return 1
	})
}

// Open builds the module table.
func Open(L *lua.LState, lookup Lookup) *lua.LTable {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	mod := L.CreateTable(0, 4)
	L.SetFuncs(mod, map[string]lua.LGFunction{
		"get": func(L *lua.LState) int {
			name := L.CheckString(1)
			if v, ok := lookup(name); ok && v != "" {
				L.Push(lua.LString(v))
				return 1
			}
			if L.GetTop() >= 2 {
				L.Push(L.Get(2))
				return 1
			}
			L.Push(lua.LNil)
			return 1
		},
		"has": func(L *lua.LState) int {
			_, ok := lookup(L.CheckString(1))
			L.Push(lua.LBool(ok))
			return 1
		},
		"require": func(L *lua.LState) int {
			name := L.CheckString(1)
			if v, ok := lookup(name); ok && v != "" {
				L.Push(lua.LString(v))
				return 1
			}
			L.Error(sched.ErrorValue(L, errs.NotFound, sched.Where(L)+"environment variable "+name+" is not set; export it and run again"), 0)
			return 0
		},
		"names": func(L *lua.LState) int {
			// Names only: values may be secrets, and a listing is what ends up
			// in logs and transcripts.
			var names []string
			for _, kv := range os.Environ() {
				if i := strings.IndexByte(kv, '='); i > 0 {
					if _, ok := lookup(kv[:i]); ok {
						names = append(names, kv[:i])
					}
				}
			}
			sort.Strings(names)
			t := L.CreateTable(len(names), 0)
			for i, n := range names {
				t.RawSetInt(i+1, lua.LString(n))
			}
			L.Push(t)
			return 1
		},
	})
	return mod
}
