package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunSandbox(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	secret := []string{"LUAGENT_TEST_SECRET=s3cret"}
	cases := []struct {
		name string
		args []string
		src  string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{"env absent", []string{"run", "--sandbox"}, `print(type(env), type(io), type(os.execute), pcall(require, "env"))`, 0, "nil\tnil\tnil\tfalse", ""},
		{"env granted", []string{"run", "--sandbox", "--grant", "env"}, `print(env.get("LUAGENT_TEST_SECRET") == "s3cret")`, 0, "true", ""},
		{"grant with =", []string{"run", "--sandbox", "--grant=env"}, `print(type(env.get))`, 0, "function", ""},
		{"mcp.connect needs the grant", []string{"run", "--sandbox"}, `mcp.connect{name = "x", command = "sh", args = {"-c", "touch ` + marker + `"}}`, 1, "", "not granted in this sandbox"},
		{"a limit names where", []string{"run", "--sandbox"}, "local s = string.rep('x', 2^20)\nwhile true do s = s .. s end", 1, "", "x.lua:2: string of 33554432 bytes from '..' is over the limit of 16 MiB"},
		{"full profile unchanged", []string{"run"}, `print(type(env), type(io))`, 0, "table\ttable", ""},
		{"unknown grant", []string{"run", "--sandbox", "--grant", "io"}, ``, 2, "", `unknown grant "io": the sandbox can grant env, mcp, agent`},
		{"grant without sandbox", []string{"run", "--grant", "env"}, ``, 2, "", "--grant is for --sandbox"},
		{"grant needs a value", []string{"run", "--sandbox", "--grant"}, ``, 2, "", "--grant needs a module"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := writeFile(t, dir, "x.lua", c.src)
			args := append(append([]string{}, c.args...), file)
			if c.code == 2 {
				args = c.args
				if c.name != "grant needs a value" {
					args = append(args, file)
				}
			}
			r := luagent(t, "", secret, args...)
			if r.code != c.code || !strings.Contains(r.stdout, c.out) || !strings.Contains(r.stderr, c.err) {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if strings.Contains(r.stdout+r.stderr, "s3cret") {
				t.Errorf("the secret was printed")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("a program ran")
			}
			noGoStack(t, r.stderr)
		})
	}
}

func TestServeSandbox(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "s.lua", `
local s = mcp.server{name = "sandboxed"}
s:tool{name = "env", input = {}, handler = function() return tostring(env) end}
s:tool{name = "spin", input = {}, handler = function() while true do end end}
return s`)
	p := startStdio(t, "legacy", script, "--sandbox")
	p.call(1, "env", `{}`)
	if l := p.await("1", 20*time.Second); !strings.Contains(l.raw, `"text":"nil"`) {
		t.Fatalf("env in a sandboxed server: %s", l.raw)
	}
	p.call(2, "spin", `{}`)
	if l := p.await("2", 20*time.Second); !strings.Contains(l.raw, "instruction limit of 50000000 reached") && !strings.Contains(l.raw, "time limit") {
		t.Fatalf("a spinning handler: %s", l.raw)
	}
	p.call(3, "env", `{}`)
	if l := p.await("3", 20*time.Second); !strings.Contains(l.raw, `"text":"nil"`) {
		t.Fatalf("the server after a handler hit its limit: %s", l.raw)
	}
}

func TestServeSandboxFlags(t *testing.T) {
	o, _, ok := parse([]string{"serve", "s.lua", "--sandbox", "--grant", "mcp"}, nil, nil)
	if !ok || !o.sandbox || len(o.grants) != 1 || o.grants[0] != "mcp" {
		t.Fatalf("%+v %v", o, ok)
	}
	var errb strings.Builder
	if _, code, ok := parse([]string{"serve", "s.lua", "--grant", "env"}, nil, &errb); ok || code != 2 || !strings.Contains(errb.String(), "--grant is for --sandbox") {
		t.Fatalf("code %d: %s", code, errb.String())
	}
}
