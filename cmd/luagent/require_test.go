package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileFolder is a cloned repository as an attacker would leave it: an
// inspect.lua, help.lua, json.lua and agent.lua that, if luagent ran them,
// leave a marker beside themselves, and a module cwdmod.lua.
func hostileFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"inspect", "help", "json", "agent", "policy"} {
		writeFile(t, dir, name+".lua", "io.open('"+filepath.Join(dir, "RAN_"+name)+"', 'w'):close()\n"+
			"return setmetatable({}, {__call = function() return 'FROM THE FOLDER' end, __index = function() return function() return 'FROM THE FOLDER' end end})\n")
	}
	writeFile(t, dir, "cwdmod.lua", "return 'cwdmod from the working folder'")
	return dir
}

func markers(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "RAN_*"))
	for _, f := range m {
		os.Remove(f)
	}
	return m
}

// Typing {1,2} or help in a folder with an inspect.lua runs nothing of it:
// the REPL and -e load luagent's modules from the binary and search no
// folder, whatever init.lua did to package.path.
func TestReplAndDashERunNoLuaFromTheWorkingFolder(t *testing.T) {
	cwd := hostileFolder(t)
	home := t.TempDir()
	writeFile(t, home, "init.lua", `package.path = "./?.lua;" .. package.path`)
	pathHome := []string{"LUAGENT_HOME=" + home}
	for _, tt := range []struct {
		name  string
		env   []string
		stdin string
		args  []string
		want  []string
	}{
		{"piped REPL", nil, "{1, 2}\nhelp\nprint(inspect({3}))\n", nil, []string{"{ 1, 2 }", "modules (globals", "{ 3 }"}},
		{"-e", nil, "", []string{"-e", "help() print(require('inspect')({4}), json.encode({5}))"}, []string{"modules (globals", "{ 4 }\t[5]"}},
		{"-e finds no module in the folder", nil, "", []string{"-e", "print(pcall(require, 'cwdmod'))"}, []string{"false\t", "module cwdmod not found"}},
		{"REPL with init.lua's ./?.lua", pathHome, "{1, 2}\nhelp\nprint(require('inspect')({6}))\n", nil, []string{"{ 1, 2 }", "modules (globals", "{ 6 }"}},
		// The user's own require honours the path they set.
		{"-e with init.lua's ./?.lua", pathHome, "", []string{"-e", "print(require('cwdmod'), inspect({7}))"}, []string{"cwdmod from the working folder\t{ 7 }"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := luagentIn(t, cwd, tt.stdin, tt.env, tt.args...)
			if ran := markers(t, cwd); len(ran) > 0 || strings.Contains(r.stdout+r.stderr, "FROM THE FOLDER") {
				t.Fatalf("ran %v of the working folder: %+v", ran, r)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout+r.stderr, w) {
					t.Errorf("output lacks %q: %+v", w, r)
				}
			}
		})
	}
}

// run FILE, serve FILE and ask --agent FILE search FILE's own folder for
// its modules (then ~/.luagent/lua/, then LUA_PATH), not the working
// folder, and never for luagent's own modules.
func TestScriptsSearchTheirOwnFolder(t *testing.T) {
	cwd := hostileFolder(t)
	scripts := hostileFolder(t)
	os.Remove(filepath.Join(scripts, "cwdmod.lua"))
	writeFile(t, scripts, "helper.lua", "return 'helper beside the script'")
	main := writeFile(t, scripts, "main.lua", `
print(require('helper'))
print(pcall(require, 'cwdmod'))
print(inspect({1}), json.encode({2}), type(agent.new))
`)
	r := luagentIn(t, cwd, "", nil, "run", main)
	if ran := append(markers(t, cwd), markers(t, scripts)...); len(ran) > 0 || r.code != 0 ||
		!strings.HasPrefix(r.stdout, "helper beside the script\nfalse\t") || !strings.Contains(r.stdout, "{ 1 }\t[2]\tfunction\n") {
		t.Errorf("run: ran %v: %+v", ran, r)
	}

	server := writeFile(t, scripts, "server.lua", `local h = require('helper')
return mcp.server{ name = h }`)
	r = luagentIn(t, cwd, "", nil, "serve", server)
	if ran := append(markers(t, cwd), markers(t, scripts)...); len(ran) > 0 || r.code != 0 {
		t.Errorf("serve: ran %v: %+v", ran, r)
	}

	ag := writeFile(t, scripts, "ask_agent.lua", `local h = require('helper')
return agent.new{ name = "a", model = "mock", instructions = h }`)
	r = luagentIn(t, cwd, "", nil, "ask", "--agent", ag, "--model", "mock", "hello")
	if ran := append(markers(t, cwd), markers(t, scripts)...); len(ran) > 0 || r.code != 0 {
		t.Errorf("ask --agent: ran %v: %+v", ran, r)
	}

	// A module name with '..' is refused, whatever is there.
	sub := writeFile(t, scripts, "sub/climb.lua", `print(pcall(require, '..helper'))`)
	r = luagentIn(t, cwd, "", nil, "run", sub)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "false\t") || !strings.Contains(r.stdout, "may not contain '..'") {
		t.Errorf("require('..helper'): %+v", r)
	}

	r = luagentIn(t, cwd, "", nil, "run", "--sandbox", main)
	if ran := append(markers(t, cwd), markers(t, scripts)...); len(ran) > 0 || r.code == 0 || !strings.Contains(r.stderr, "module helper not found") {
		t.Errorf("run --sandbox read a module file: ran %v: %+v", ran, r)
	}
}
