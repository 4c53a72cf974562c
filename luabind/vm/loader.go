package vm

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
	lua "github.com/yuin/gopher-lua"
)

// SearchPath returns the filesystem require patterns in luagent's order:
// the script's own folder (scriptDir; "" for the REPL, -e and a script
// read from stdin, which search no folder of their own), then home/lua,
// then the entries of LUA_PATH (";;" there stands for the first two).
// Built-in modules are found before any of these (installLoader).
func SearchPath(scriptDir, home, luaPath string) []string {
	var defaults []string
	if scriptDir != "" {
		defaults = append(defaults, filepath.Join(scriptDir, "?.lua"), filepath.Join(scriptDir, "?", "init.lua"))
	}
	if home != "" {
		defaults = append(defaults, filepath.Join(home, "lua", "?.lua"), filepath.Join(home, "lua", "?", "init.lua"))
	}
	if luaPath == "" {
		return defaults
	}
	out := append([]string(nil), defaults...)
	for _, p := range strings.Split(strings.ReplaceAll(luaPath, ";;", ";\x00;"), ";") {
		switch p {
		case "":
		case "\x00":
			// ";;" in LUA_PATH means "the default path here"; ours is already first.
		default:
			if !contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// builtinKey holds, in the registry, the embedded stdlib of a state.
const builtinKey = "luagent.vm.builtin"

// installLoader replaces the Lua-file searcher (package.loaders[2]) in
// place: require reads the registry's _LOADERS, the same table object as
// package.loaders, so reassigning package.loaders would have no effect.
//
// The searcher looks in the binary first: a module of the embedded stdlib
// (inspect, help, ...) is luagent's own, whatever file of that name a
// folder on the path holds. Only then does it search package.path, which
// is kept as the ';'-joined patterns and read on every require, so scripts
// may change it as in plain Lua. With paths nil (the sandbox) no file is
// ever read.
func installLoader(L *lua.LState, paths []string, embedded fs.FS) {
	pkg, _ := L.G.Global.RawGetString("package").(*lua.LTable)
	loaders, _ := L.G.Registry.RawGetString("_LOADERS").(*lua.LTable)
	if pkg == nil || loaders == nil {
		return
	}
	if embedded != nil {
		L.G.Registry.RawSetString(builtinKey, &lua.LUserData{Value: embedded, Metatable: lua.LNil})
	}
	pkg.RawSetString("path", lua.LString(strings.Join(paths, ";")))
	files := paths != nil
	loaders.RawSetInt(2, L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		fn, tried, err := builtinLoader(L, name)
		if err != nil {
			L.RaiseError("%s", err.Error())
		}
		if fn != nil {
			L.Push(fn)
			return 1
		}
		if files {
			p, _ := pkg.RawGetString("path").(lua.LString)
			file, t := findFile(name, string(p))
			tried = append(tried, t...)
			if file != "" {
				src, err := os.ReadFile(file)
				if err != nil {
					L.RaiseError("cannot read module '%s': %v", name, err)
				}
				L.Push(load(L, src, file))
				return 1
			}
		}
		L.Push(lua.LString(strings.Join(tried, "\n\t")))
		return 1
	}))
}

// builtinLoader is the chunk of the embedded module name (compiled for L's
// profile, once per process), or nil and what was tried.
func builtinLoader(L *lua.LState, name string) (*lua.LFunction, []string, error) {
	ud, _ := L.G.Registry.RawGetString(builtinKey).(*lua.LUserData)
	if ud == nil {
		return nil, nil, nil
	}
	embedded := ud.Value.(fs.FS)
	var tried []string
	rel := strings.ReplaceAll(name, ".", "/")
	for _, cand := range []string{rel + ".lua", rel + "/init.lua"} {
		src, err := fs.ReadFile(embedded, cand)
		if err != nil {
			tried = append(tried, "no built-in module '"+cand+"'")
			continue
		}
		compile := CompileCached
		if IsSandbox(L) {
			compile = compileSandboxedCached
		}
		proto, err := compile(src, "luagent/"+cand)
		if err != nil {
			return nil, nil, err
		}
		fn, err := FunctionOf(L, proto)
		return fn, nil, err
	}
	return nil, tried, nil
}

// RequireBuiltin is require(name) for a module that ships with luagent: a
// native module registered in package.preload or one of the embedded
// stdlib, never a file. The host loads its own modules (the REPL's inspect
// and help) through it, so no folder, LUA_PATH or package.path set by a
// script decides what they are. A module already loaded is returned as
// require would; a new one is recorded in package.loaded.
func RequireBuiltin(L *lua.LState, name string) (v lua.LValue, err error) {
	loaded, _ := L.G.Registry.RawGetString("_LOADED").(*lua.LTable)
	if loaded == nil {
		return lua.LNil, errs.New(errs.Internal, "require", "the package library is not open")
	}
	if v := loaded.RawGetString(name); v != lua.LNil {
		return v, nil
	}
	var fn *lua.LFunction
	if pkg, ok := L.G.Global.RawGetString("package").(*lua.LTable); ok {
		if pre, ok := pkg.RawGetString("preload").(*lua.LTable); ok {
			fn, _ = pre.RawGetString(name).(*lua.LFunction)
		}
	}
	if fn == nil {
		if fn, _, err = builtinLoader(L, name); err != nil {
			return lua.LNil, err
		}
	}
	if fn == nil {
		return lua.LNil, errs.New(errs.NotFound, "require", "module "+name+" is not built into luagent")
	}
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, lua.LString(name)); err != nil {
		return lua.LNil, err
	}
	v = L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	if cur := loaded.RawGetString(name); cur != lua.LNil {
		return cur, nil // the module set package.loaded itself
	}
	loaded.RawSetString(name, v)
	return v, nil
}

func load(L *lua.LState, src []byte, name string) *lua.LFunction {
	proto, err := Compile(src, name)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	return L.NewFunctionFromProto(proto)
}

// findFile returns the first existing file for module name on the
// ';'-separated patterns, and the candidates it tried.
func findFile(name, patterns string) (string, []string) {
	if strings.Contains(name, "..") || path.IsAbs(name) {
		return "", []string{"module name '" + name + "' may not contain '..' or start with '/'"}
	}
	rel := strings.ReplaceAll(name, ".", string(os.PathSeparator))
	var tried []string
	for _, pat := range strings.Split(patterns, ";") {
		if pat == "" {
			continue
		}
		file := strings.ReplaceAll(pat, "?", rel)
		if st, err := os.Stat(file); err == nil && !st.IsDir() {
			return file, nil
		}
		tried = append(tried, "no file '"+file+"'")
	}
	return "", tried
}
