package vm

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// SearchPath returns the filesystem require patterns in luagent's order:
// next to the script (scriptDir, or the working directory for the REPL and
// -e), then home/lua, then the entries of LUA_PATH (";;" there stands for
// the first two). The embedded stdlib is searched after all of these.
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

// installLoader replaces the Lua-file searcher (package.loaders[2]) in place:
// require reads the registry's _LOADERS, the same table object as
// package.loaders, so reassigning package.loaders would have no effect.
// package.path is kept as the ';'-joined patterns and read on every require,
// so scripts may change it as in plain Lua.
func installLoader(L *lua.LState, paths []string, embedded fs.FS) {
	pkg, _ := L.G.Global.RawGetString("package").(*lua.LTable)
	loaders, _ := L.G.Registry.RawGetString("_LOADERS").(*lua.LTable)
	if pkg == nil || loaders == nil {
		return
	}
	pkg.RawSetString("path", lua.LString(strings.Join(paths, ";")))
	files := paths != nil
	loaders.RawSetInt(2, L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(1)
		var tried []string
		if files {
			p, _ := pkg.RawGetString("path").(lua.LString)
			file, t := findFile(name, string(p))
			tried = t
			if file != "" {
				src, err := os.ReadFile(file)
				if err != nil {
					L.RaiseError("cannot read module '%s': %v", name, err)
				}
				L.Push(load(L, src, file))
				return 1
			}
		}
		if embedded != nil {
			rel := strings.ReplaceAll(name, ".", "/")
			for _, cand := range []string{rel + ".lua", rel + "/init.lua"} {
				src, err := fs.ReadFile(embedded, cand)
				if err != nil {
					tried = append(tried, "no embedded module '"+cand+"'")
					continue
				}
				compile := CompileCached
				if IsSandbox(L) {
					compile = compileSandboxedCached
				}
				proto, err := compile(src, "luagent/"+cand)
				var fn *lua.LFunction
				if err == nil {
					fn, err = FunctionOf(L, proto)
				}
				if err != nil {
					L.RaiseError("%s", err.Error())
				}
				L.Push(fn)
				return 1
			}
		}
		L.Push(lua.LString(strings.Join(tried, "\n\t")))
		return 1
	}))
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
