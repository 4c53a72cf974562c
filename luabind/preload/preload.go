// Package preload makes stdlib's Lua modules requirable under names of
// their own (mcp, agent, luagent.meta), ahead of any file, each compiled
// once per process however many states load it.
//
// The mcp modules are not compiled at all: they are on the way to every
// Lua server's first answer, and gopher-lua's parser costs about half a
// microsecond a byte (a third of a server's start-up for mcp.lua and
// mcp_features.lua). protos_gen.go holds their compiled form instead, and
// a test checks it against a fresh compile.
package preload

import (
	"io/fs"
	"reflect"
	"sync"
	"unsafe"

	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/stdlib"
	lua "github.com/yuin/gopher-lua"
)

// Embedded makes require(module) run stdlib's file.lua. In a sandbox it
// is compiled with the meters (vm.EmbeddedSandboxed), as the modules the
// sandbox's loader finds are: mcp's server half is in every sandbox, and
// what it allocates for a script (a tool registered, a schema copied) is
// the script's.
func Embedded(L *lua.LState, module, file string) {
	L.PreloadModule(module, func(L *lua.LState) int {
		var fn *lua.LFunction
		if vm.IsSandbox(L) {
			src, err := fs.ReadFile(stdlib.FS, file+".lua")
			if err == nil {
				fn, err = vm.EmbeddedSandboxed(L, src, "luagent/"+file+".lua")
			}
			if err != nil {
				L.RaiseError("module %s: %v", module, err)
			}
		} else {
			proto, err := compiled(file)
			if err != nil {
				L.RaiseError("module %s: %v", module, err)
			}
			fn = L.NewFunctionFromProto(proto)
		}
		L.Push(fn)
		L.Call(0, 1)
		return 1
	})
}

var protos sync.Map // file -> func() (*lua.FunctionProto, error)

// compiled is stdlib's file.lua compiled, from protos_gen.go when it is
// there; a second caller waits for the first's compile.
func compiled(file string) (*lua.FunctionProto, error) {
	f, ok := protos.Load(file)
	if !ok {
		f, _ = protos.LoadOrStore(file, sync.OnceValues(func() (*lua.FunctionProto, error) {
			if p, ok := generated[file]; ok {
				return withStrings(p), nil
			}
			src, err := fs.ReadFile(stdlib.FS, file+".lua")
			if err != nil {
				return nil, err
			}
			return vm.Compile(src, "luagent/"+file+".lua")
		}))
	}
	return f.(func() (*lua.FunctionProto, error))()
}

// SchedSource is the source name of the scheduler's chunk (luabind/sched,
// whose tracebacks leave out frames of that name).
const SchedSource = "=luagent"

// SchedInternal is luabind/sched/internal.lua compiled, from protos_gen.go
// (a test checks it against a fresh compile): parsing it cost ~0.2 ms of
// every start. The prototype is shared and never changed.
var SchedInternal = sync.OnceValue(func() *lua.FunctionProto { return withStrings(protoSched) })

// withStrings fills in, through p and its nested prototypes, what
// gopher-lua's compiler derives last from the constants (their string
// forms, for global and field access by name), which it keeps unexported.
func withStrings(p *lua.FunctionProto) *lua.FunctionProto {
	strs := make([]string, len(p.Constants))
	for i, c := range p.Constants {
		if s, ok := c.(lua.LString); ok {
			strs[i] = string(s)
		}
	}
	f := reflect.ValueOf(p).Elem().FieldByName("stringConstants")
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(strs))
	for _, c := range p.FunctionPrototypes {
		withStrings(c)
	}
	return p
}
