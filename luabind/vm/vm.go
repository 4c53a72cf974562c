// Package vm builds Lua states for luagent: the gopher-lua options, the
// library set of each profile, the Lua 5.1 fixes, and the require loader.
// Every sandbox decision lives here, so a security review reads one package.
//
// Two profiles:
//   - Full, for the user's own scripts (REPL, run, serve, init.lua): the
//     whole standard library, as Neovim gives init.lua, with print and
//     os.exit routed through the host.
//   - Sandbox, for untrusted code: no io, no os.execute/exit/getenv/remove,
//     no debug, no loadfile/dofile, require only of preloaded and embedded
//     modules, load of source only, and chunks compiled with meters: code
//     running under a budget context (BudgetContext, Sandbox.Run) has a
//     wall-time limit, an instruction budget and a memory ceiling, enforced
//     in the VM and in every built-in that can grow or loop (sandbox*.go).
//
// What the sandbox guarantees and what it approximates is in
// stdlib/doc/sandbox.md.
package vm

import (
	"io"
	"io/fs"
	"os"

	lua "github.com/yuin/gopher-lua"
)

// Profile selects the library set of a state.
type Profile int

const (
	Full Profile = iota
	Sandbox
)

func (p Profile) String() string {
	if p == Sandbox {
		return "sandbox"
	}
	return "full"
}

// Options configure a new state.
type Options struct {
	Profile Profile
	// Stdout receives print output. Nil means os.Stdout.
	Stdout io.Writer
	// Exit is called by os.exit (Full profile). Nil means os.Exit.
	Exit func(code int)
	// Paths are filesystem search patterns for require, in order, each with
	// a '?' for the module name ("/home/u/.luagent/lua/?.lua"). Ignored in
	// the Sandbox profile. See SearchPath.
	Paths []string
	// Embedded is searched after Paths: the stdlib shipped in the binary.
	Embedded fs.FS
}

// Lua states are built with small stacks that may grow: the defaults cannot
// grow at all, so table.concat or unpack of a few thousand values failed with
// "registry overflow", and each coroutine cost 112 KB (LUA.md §1.1).
var stateOptions = lua.Options{
	SkipOpenLibs:        true,
	RegistrySize:        1024,
	RegistryMaxSize:     1 << 20,
	RegistryGrowStep:    1024,
	CallStackSize:       200,
	MinimizeStackMemory: true,
}

// MaxArrayIndex bounds the array part of every table. gopher-lua pads the
// array with nils up to any integer key below its limit, so with the default
// (2^26) `t[6e7] = true` allocated gigabytes; larger keys go to the hash part.
// Arrays longer than this keep working for t[k] but #t stops at the bound.
const MaxArrayIndex = 1 << 20

func init() { lua.MaxArrayIndex = MaxArrayIndex }

// New returns a state of the given profile with the libraries opened, the
// Lua 5.1 fixes applied and the require loader installed. The caller owns
// the state and must use it from one goroutine only.
func New(o Options) *lua.LState {
	L := lua.NewState(stateOptions)
	open := []lua.LGFunction{lua.OpenPackage, lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath, lua.OpenCoroutine, lua.OpenOs}
	names := []string{lua.LoadLibName, lua.BaseLibName, lua.TabLibName, lua.StringLibName, lua.MathLibName, lua.CoroutineLibName, lua.OsLibName}
	if o.Profile == Full {
		open = append(open, lua.OpenIo, lua.OpenDebug)
		names = append(names, lua.IoLibName, lua.DebugLibName)
	}
	for i, f := range open {
		L.Push(L.NewFunction(f))
		L.Push(lua.LString(names[i]))
		L.Call(1, 0)
	}
	InstallCompat(L)
	stdout := o.Stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	g := L.G.Global
	g.RawSetString("print", L.NewFunction(printTo(stdout)))
	g.RawSetString("error", L.NewFunction(baseError))
	for _, name := range []string{"_printregs", "module", "newproxy", "collectgarbage"} {
		g.RawSetString(name, lua.LNil)
	}
	if pkg, ok := g.RawGetString("package").(*lua.LTable); ok {
		pkg.RawSetString("loadlib", lua.LNil)
		pkg.RawSetString("seeall", lua.LNil)
		pkg.RawSetString("cpath", lua.LString(""))
	}
	if o.Profile == Sandbox {
		sandbox(L)
		installLoader(L, nil, o.Embedded)
	} else {
		exit := o.Exit
		if exit == nil {
			exit = os.Exit
		}
		if osT, ok := g.RawGetString("os").(*lua.LTable); ok {
			osT.RawSetString("exit", L.NewFunction(osExit(stdout, exit)))
		}
		installLoader(L, o.Paths, o.Embedded)
	}
	return L
}

// SandboxMaxStringSize caps string.rep and table.concat results in the
// sandbox profile (MaxStringSize elsewhere).
const SandboxMaxStringSize = 16 << 20

const maxStringKey = "luagent.vm.maxstring"

// maxStringSize is the string cap of L's profile.
func maxStringSize(L *lua.LState) int {
	if n, ok := L.G.Registry.RawGetString(maxStringKey).(lua.LNumber); ok {
		return int(n)
	}
	return MaxStringSize
}

// sandbox removes what untrusted code must not reach.
func sandbox(L *lua.LState) {
	L.G.Registry.RawSetString(maxStringKey, lua.LNumber(SandboxMaxStringSize))
	g := L.G.Global
	for _, name := range []string{"dofile", "loadfile", "io", "debug", "channel", "getfenv", "setfenv"} {
		g.RawSetString(name, lua.LNil)
	}
	if osT, ok := g.RawGetString("os").(*lua.LTable); ok {
		safe := L.CreateTable(0, 4)
		for _, name := range []string{"time", "date", "clock", "difftime"} {
			safe.RawSetString(name, osT.RawGetString(name))
		}
		g.RawSetString("os", safe)
		if loaded, ok := L.G.Registry.RawGetString("_LOADED").(*lua.LTable); ok {
			loaded.RawSetString("os", safe)
		}
	}
	if loaded, ok := L.G.Registry.RawGetString("_LOADED").(*lua.LTable); ok {
		for _, name := range []string{"io", "debug"} {
			loaded.RawSetString(name, lua.LNil)
		}
	}
	L.G.Registry.RawSetString(sandboxKey, lua.LTrue)
	installMeters(L)
}

// printTo is print writing to w: values through tostring (honouring
// __tostring, with Lua's inf/nan spellings), tab-separated, one write per
// call so concurrent tasks' lines do not interleave.
func printTo(w io.Writer) lua.LGFunction {
	return func(L *lua.LState) int {
		top := L.GetTop()
		buf := make([]byte, 0, 64)
		for i := 1; i <= top; i++ {
			if i > 1 {
				buf = append(buf, '\t')
			}
			buf = append(buf, ToString(L, L.Get(i))...)
		}
		buf = append(buf, '\n')
		w.Write(buf)
		return 0
	}
}

// osExit replaces os.exit so the host can flush output and save state
// (REPL history) before the process ends.
func osExit(stdout io.Writer, exit func(int)) lua.LGFunction {
	return func(L *lua.LState) int {
		code := 0
		switch v := L.Get(1).(type) {
		case lua.LBool:
			if !v {
				code = 1
			}
		case lua.LNumber:
			code = int(v)
		}
		if f, ok := stdout.(interface{ Sync() error }); ok {
			f.Sync()
		}
		exit(code)
		return 0
	}
}
