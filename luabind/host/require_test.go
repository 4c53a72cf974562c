package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/luabind/host"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/testkit"
)

// hostile writes, in dir, an inspect.lua and a help.lua that would run
// with full access if luagent's own loads searched the folder (each leaves
// a marker), and a user module mymod.lua.
func hostile(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"inspect", "help"} {
		src := "io.open('" + filepath.Join(dir, "RAN_"+name) + "', 'w'):close()\nreturn setmetatable({}, {__call = function() return 'FROM THE FOLDER' end, __index = function() return function() return 'FROM THE FOLDER' end end})\n"
		if err := os.WriteFile(filepath.Join(dir, name+".lua"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "mymod.lua"), []byte("return 'mymod of '..(...)"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ranFrom(dir string) []string {
	var ran []string
	for _, name := range []string{"inspect", "help"} {
		if _, err := os.Stat(filepath.Join(dir, "RAN_"+name)); err == nil {
			ran = append(ran, name+".lua")
		}
	}
	return ran
}

// The REPL and -e (a host with no ScriptDir) search no folder: inspect
// and help are luagent's, in the working folder of a cloned repository and
// with a package.path that init.lua pointed at it.
func TestNoScriptFolderSearchesNoFolder(t *testing.T) {
	cwd := t.TempDir()
	hostile(t, cwd)
	t.Chdir(cwd)
	for _, tt := range []struct {
		name, init string
	}{
		{"defaults", ""},
		{"init.lua puts ./?.lua first", `package.path = "./?.lua;" .. package.path`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "init.lua"), []byte(tt.init), 0o644); err != nil {
				t.Fatal(err)
			}
			out := &testkit.Buffer{}
			h := host.New(host.Config{Home: home, Stdout: out, Stderr: out})
			defer h.Close()
			h.RunInit(context.Background())
			code := h.REPL(context.Background(), strings.NewReader("{1, 2}\nhelp\nprint(require('inspect')({3}))\n"), false)
			if ran := ranFrom(cwd); code != host.ExitOK || len(ran) > 0 || strings.Contains(out.String(), "FROM THE FOLDER") {
				t.Errorf("exit %d, ran %v, output:\n%s", code, ran, out.String())
			}
			if !strings.Contains(out.String(), "{ 1, 2 }") || !strings.Contains(out.String(), "{ 3 }") {
				t.Errorf("the built-in inspect did not print:\n%s", out.String())
			}
		})
	}
	t.Run("-e", func(t *testing.T) {
		out := &testkit.Buffer{}
		h := host.New(host.Config{Home: t.TempDir(), Clean: true, Stdout: out, Stderr: out})
		defer h.Close()
		code := h.Run(context.Background(), host.Script{Src: []byte("help() print(inspect({4})) print(pcall(require, 'mymod'))"), Name: "-e"})
		if ran := ranFrom(cwd); code != host.ExitOK || len(ran) > 0 || !strings.Contains(out.String(), "{ 4 }") {
			t.Errorf("exit %d, ran %v, output:\n%s", code, ran, out.String())
		}
		if !strings.Contains(out.String(), "false\t") || !strings.Contains(out.String(), "module mymod not found") {
			t.Errorf("-e found a module in the working folder:\n%s", out.String())
		}
	})
}

// A script's own folder is searched for its modules, never for luagent's.
func TestScriptFolderIsSearchedForUserModules(t *testing.T) {
	dir := t.TempDir()
	hostile(t, dir)
	t.Chdir(t.TempDir())
	out := &testkit.Buffer{}
	h := host.New(host.Config{Home: t.TempDir(), Clean: true, ScriptDir: dir, Stdout: out, Stderr: out})
	defer h.Close()
	code := h.Run(context.Background(), host.Script{Src: []byte("print(require('mymod')) print(inspect({5})) help()"), Name: filepath.Join(dir, "main.lua")})
	if ran := ranFrom(dir); code != host.ExitOK || len(ran) > 0 || !strings.Contains(out.String(), "mymod of mymod\n{ 5 }\n") {
		t.Errorf("exit %d, ran %v, output:\n%s", code, ran, out.String())
	}
}

// A sandboxed host reads no module file, even beside its script.
func TestSandboxHostSearchesNoFiles(t *testing.T) {
	dir := t.TempDir()
	hostile(t, dir)
	out := &testkit.Buffer{}
	h := host.New(host.Config{Home: t.TempDir(), Clean: true, ScriptDir: dir, Profile: vm.Sandbox, Stdout: out, Stderr: out})
	defer h.Close()
	h.Run(context.Background(), host.Script{Src: []byte("print(pcall(require, 'mymod')) print(inspect({6}))"), Name: "s.lua"})
	if ran := ranFrom(dir); len(ran) > 0 || !strings.Contains(out.String(), "false\t") || !strings.Contains(out.String(), "module mymod not found") || !strings.Contains(out.String(), "{ 6 }") {
		t.Errorf("ran %v, output:\n%s", ran, out.String())
	}
}
