package main

import (
	"bytes"
	"context"

	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// These tests run the real binary, as a user would.

var bin string

func TestMain(m *testing.M) {
	// LUAGENT_TEST_BIN runs the tests against another binary (main before a
	// change, say, to see a new test fail there).
	if b := os.Getenv("LUAGENT_TEST_BIN"); b != "" {
		bin = b
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "luagent-bin")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "luagent")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
		testkit.QuickRaceExit()
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building luagent: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// luagentIn runs the binary in the working folder dir ("": the test's), with a
// fresh LUAGENT_HOME unless env sets one.
func luagentIn(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir(), "LUA_PATH=")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running luagent: %v", err)
	}
	return result{out.String(), errb.String(), code}
}

// luagent runs the binary with a fresh LUAGENT_HOME unless env sets one.
func luagent(t *testing.T, stdin string, env []string, args ...string) result {
	t.Helper()
	return luagentIn(t, "", stdin, env, args...)
}

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func noGoStack(t *testing.T, s string) {
	t.Helper()
	for _, bad := range []string{"goroutine ", ".go:", "panic:", "runtime error"} {
		if strings.Contains(s, bad) {
			t.Errorf("output shows Go internals (%q):\n%s", bad, s)
		}
	}
}

func TestPipedREPL(t *testing.T) {
	tests := []struct {
		name, in, out, errContains string
	}{
		{"issue example", "x = {1,2,{a=1}}\nx\n1+1\n", "{ 1, 2, { a = 1 } }\n2\n", ""},
		{"equals prefix", "=10*2\n", "20\n", ""},
		{"several values", "1, 'a', nil, true\n", "1\ta\tnil\ttrue\n", ""},
		{"statement prints nothing", "y = 5\ny\n", "5\n", ""},
		{"continuation of a function", "function f()\n  return 'cont'\nend\nf()\n", "cont\n", ""},
		{"continuation of a table", "t = {\n 1,\n 2 }\n#t\n", "2\n", ""},
		{"continuation of a long string", "s = [[a\nb]]\ns\n", "a\nb\n", ""},
		{"error then carry on", "error('oops')\n1\n", "1\n", "stdin:1: oops"},
		{"syntax error then carry on", "x = = 1\n2\n", "2\n", "stdin:1:"},
		{"print", "print('hi', 1/0, -1/0)\n", "hi\tinf\t-inf\n", ""},
		{"globals persist", "a = 1\na = a + 1\na\n", "2\n", ""},
		{"tasks", "h = task.spawn(function() task.sleep(0.01) return 'ok' end)\nh:await()\n", "ok\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := luagent(t, tt.in, nil)
			if r.stdout != tt.out {
				t.Errorf("stdout = %q, want %q (stderr %q)", r.stdout, tt.out, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.errContains) {
				t.Errorf("stderr = %q, want it to contain %q", r.stderr, tt.errContains)
			}
			if r.code != 0 {
				t.Errorf("exit code %d", r.code)
			}
			noGoStack(t, r.stderr)
		})
	}
}

func TestRunScript(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "args.lua", `
print(arg[0], arg[1], arg[2], #arg)
print(...)
print(select('#', ...))
`)
	r := luagent(t, "", nil, "run", script, "a", "b c")
	want := script + "\ta\tb c\t2\na\tb c\n2\n"
	if r.stdout != want || r.code != 0 {
		t.Errorf("got %q (code %d, stderr %q), want %q", r.stdout, r.code, r.stderr, want)
	}
	// Without the run word, for a file that exists.
	if r := luagent(t, "", nil, script, "x"); !strings.HasPrefix(r.stdout, script+"\tx") {
		t.Errorf("luagent FILE: %q %q", r.stdout, r.stderr)
	}
}

func TestRunStdinAndE(t *testing.T) {
	r := luagent(t, "print('from stdin', ...)\n", nil, "run", "-", "z")
	if r.stdout != "from stdin\tz\n" || r.code != 0 {
		t.Errorf("run -: %+v", r)
	}
	r = luagent(t, "", nil, "-e", "print(1)")
	if r.stdout != "1\n" || r.code != 0 {
		t.Errorf("-e: %+v", r)
	}
	r = luagent(t, "", nil, "-e", "x = 2", "-e", "print(x * 21)")
	if r.stdout != "42\n" {
		t.Errorf("two -e: %+v", r)
	}
	r = luagent(t, "x\n", nil, "-i", "-e", "x = 'then repl'")
	if r.stdout != "then repl\n" {
		t.Errorf("-i -e: %+v", r)
	}
}

func TestShebang(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "tool", "#!/usr/bin/env -S luagent run\nprint('shebang ok', ...)\nerror('line three')\n")
	os.Chmod(p, 0o755)
	cmd := exec.Command(p, "q")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "LUAGENT_HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if out.String() != "shebang ok\tq\n" {
		t.Errorf("stdout %q stderr %q err %v", out.String(), errb.String(), err)
	}
	// Line numbers still count the shebang line.
	if !strings.Contains(errb.String(), p+":3: line three") {
		t.Errorf("stderr %q should blame line 3", errb.String())
	}
}

func TestErrorsEndCleanly(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, src string
		code      int
		stderr    []string
	}{
		{"runtime error", "local function f() error('deep') end\nlocal function g() f() end\ng()\n", 1,
			[]string{"luagent: ", "rt.lua:1: deep", "stack traceback:", "in function 'f'", "in function 'g'", "in main chunk"}},
		{"syntax error", "x = = 1\n", 1, []string{"rt.lua:1: syntax error"}},
		{"error object is a table", "error({code = 1})\n", 1, []string{"luagent: { code = 1 }\n"}},
		{"error object is an enormous table", "local t = {}\nfor i = 1, 100000 do t[i] = {n = i, s = 'item'} end\nerror(t)\n", 1,
			[]string{"luagent: { { n = 1, s = \"item\" }, { n = 2", "(output cut at 400 characters"}},
		{"error table with a message", "error(setmetatable({}, {__tostring = function() return 'custom' end}))\n", 1, []string{"luagent: custom"}},
		{"nil index", "local t = nil\nprint(t.x)\n", 1, []string{"rt.lua:2:"}},
		{"task nobody awaits", "task.spawn(function() error('bg boom') end)\ntask.sleep(0.05)\nprint('main done')\n", 1,
			[]string{"failed and nobody awaited it", "rt.lua:1: bg boom"}},
		{"wait inside pcall", "local ok, err = pcall(function() task.sleep(0.01) end)\nprint('not reached', ok, err)\n", 1,
			[]string{"rt.lua:1: task.sleep: cannot wait inside pcall; use task.pcall"}},
		{"os.exit", "print('bye')\nos.exit(3)\n", 3, nil},
		{"os.exit true", "os.exit(true)\n", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, "rt.lua", tt.src)
			r := luagent(t, "", nil, "run", p)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			if strings.Contains(r.stdout, "not reached") {
				t.Errorf("pcall swallowed the guard error: %q", r.stdout)
			}
			noGoStack(t, r.stderr)
		})
	}
}

// An error value that is not a string is shown through inspect, in the REPL
// as in scripts, and an enormous one stays a short line.
func TestErrorTablesAreInspected(t *testing.T) {
	r := luagent(t, "error({code = 1, why = 'nope'})\nprint('still here')\n", nil)
	if !strings.Contains(r.stderr, `{ code = 1, why = "nope" }`) || !strings.Contains(r.stdout, "still here") {
		t.Errorf("REPL: %+v", r)
	}
	r = luagent(t, "", nil, "-e", "local t = {} for i = 1, 200000 do t[i] = {i, {deep = {deeper = {deepest = i}}}} end error(t)")
	if r.code != 1 || len(r.stderr) > 2000 || !strings.Contains(r.stderr, "output cut at") || strings.Contains(r.stderr, "deepest") {
		t.Errorf("enormous error table: exit %d, %d bytes of stderr:\n%.3000s", r.code, len(r.stderr), r.stderr)
	}
}

func TestTaskPcallWaitsFine(t *testing.T) {
	r := luagent(t, "", nil, "-e", "print(task.pcall(function() task.sleep(0.01) return 'waited' end))")
	if r.stdout != "true\twaited\n" || r.code != 0 {
		t.Errorf("%+v", r)
	}
}

func TestSignalsStopRunawayScript(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		name string
		loop string
	}{
		{syscall.SIGINT, 130, "SIGINT", "while true do end"},
		{syscall.SIGTERM, 143, "SIGTERM", "while true do end"},
		// A pattern that backtracks for hours, inside one built-in call.
		{syscall.SIGTERM, 143, "SIGTERM", `string.find(("a"):rep(40), ("a*"):rep(40) .. "b")`},
		{syscall.SIGINT, 130, "SIGINT", `local _ = ("a"):rep(40):gsub(("a*"):rep(40) .. "b", "")`},
	} {
		t.Run(tc.name+" "+tc.loop[:12], func(t *testing.T) {
			cmd := exec.Command(bin, "-e", "print('looping') io.stdout:flush() "+tc.loop)
			cmd.Env = append(os.Environ(), "LUAGENT_HOME="+t.TempDir())
			var errb bytes.Buffer
			cmd.Stderr = &errb
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 8)
			out.Read(buf) // the loop has started
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the script did not stop")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v to stop", d)
			}
			if cmd.ProcessState.ExitCode() != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", cmd.ProcessState.ExitCode(), tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), "interrupted by "+tc.name) {
				t.Errorf("stderr %q", errb.String())
			}
			noGoStack(t, errb.String())
		})
	}
}

func TestInitLua(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, "init.lua", "greeting = 'from init'\n")
	env := []string{"LUAGENT_HOME=" + home}
	if r := luagent(t, "", env, "-e", "print(greeting)"); r.stdout != "from init\n" {
		t.Errorf("init.lua not run: %+v", r)
	}
	if r := luagent(t, "greeting\n", env); r.stdout != "from init\n" {
		t.Errorf("init.lua not run before the REPL: %+v", r)
	}
	if r := luagent(t, "", env, "--clean", "-e", "print(greeting)"); r.stdout != "nil\n" {
		t.Errorf("--clean still ran init.lua: %+v", r)
	}
	writeFile(t, home, "init.lua", "error('broken init')\n")
	r := luagent(t, "", env, "-e", "print('still runs')")
	if r.stdout != "still runs\n" || !strings.Contains(r.stderr, "broken init") || r.code != 0 {
		t.Errorf("a broken init.lua should be reported and skipped: %+v", r)
	}
}

func TestRequirePaths(t *testing.T) {
	home := t.TempDir()
	scripts := t.TempDir()
	extra := t.TempDir()
	writeFile(t, scripts, "beside.lua", "return 'beside the script'")
	writeFile(t, scripts, "pkg/init.lua", "return 'package init'")
	writeFile(t, home, "lua/homemod.lua", "return 'from home'")
	writeFile(t, extra, "pathmod.lua", "return 'from LUA_PATH'")
	main := writeFile(t, scripts, "main.lua", `
print(require('beside'))
print(require('pkg'))
print(require('homemod'))
print(require('pathmod'))
print(type(require('inspect')))
local ok, err = pcall(require, 'nowhere')
print(ok, (err:gsub('\n.*', ''):gsub('^.-main.lua:%d+: ', '')))
`)
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home, "LUA_PATH=" + filepath.Join(extra, "?.lua") + ";;"}, "run", main)
	want := "beside the script\npackage init\nfrom home\nfrom LUA_PATH\ntable\nfalse\tmodule nowhere not found:\n"
	if r.stdout != want {
		t.Errorf("got:\n%s\nwant:\n%s\nstderr: %s", r.stdout, want, r.stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	if r := luagent(t, "", nil, "no-such-file.lua"); r.code != 2 || !strings.Contains(r.stderr, "no such command or file") {
		t.Errorf("%+v", r)
	}
	if r := luagent(t, "", nil, "--bogus"); r.code != 2 || !strings.Contains(r.stderr, "unknown option --bogus") {
		t.Errorf("%+v", r)
	}
	if r := luagent(t, "", nil, "run", "/nonexistent/x.lua"); r.code != 1 || !strings.Contains(r.stderr, "cannot read /nonexistent/x.lua") {
		t.Errorf("%+v", r)
	}
	if r := luagent(t, "", nil, "--version"); !strings.Contains(r.stdout+r.stderr, version) {
		t.Errorf("%+v", r)
	}
}

func TestBackgroundTasksFinishBeforeExit(t *testing.T) {
	r := luagent(t, "", nil, "-e", "task.spawn(function() task.sleep(0.05) print('late') end) print('early')")
	if r.stdout != "early\nlate\n" {
		t.Errorf("%+v", r)
	}
}

func TestTraceFlags(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	dir := t.TempDir()
	tr := filepath.Join(dir, "trace.jsonl")
	code := "local c = mcp.connect{command = '" + fake + "', args = {'-era', 'legacy'}, env = {API_TOKEN = 'hunter2-secret'}}\n" +
		"print(c:call('echo', {message = 'traced'}).content[1].text)\nc:close()"
	r := luagent(t, "", nil, "--trace", tr, "-v", "-e", code)
	if r.code != 0 || r.stdout != "traced\n" {
		t.Fatalf("%+v", r)
	}
	b, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind":"process_started"`, `"env_names":["API_TOKEN"]`, `"kind":"request_sent"`, `"method":"initialize"`,
		`"kind":"tool_call_end"`, `"kind":"process_stopped"`, `"kind":"era_chosen"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("trace lacks %s", want)
		}
	}
	if !strings.Contains(r.stderr, "trace tool_call_start") {
		t.Errorf("-v printed no trace lines:\n%s", r.stderr)
	}
	if strings.Contains(string(b)+r.stderr+r.stdout, "hunter2") {
		t.Error("an env value reached the output or the trace")
	}
}

// A flag that takes a value does not take the next option as it: the
// value was forgotten. --name=VALUE passes any value, and a number is one.
func TestOptionValueIsNotTheNextOption(t *testing.T) {
	r := luagent(t, "", nil, "--trace", "-v", "-e", "print(1)")
	if r.code != 2 || !strings.Contains(r.stderr, "--trace needs a file") {
		t.Errorf("--trace -v: %+v", r)
	}
	tr := filepath.Join(t.TempDir(), "-odd.jsonl")
	if r := luagent(t, "", nil, "--trace="+tr, "-e", "print(1)"); r.code != 0 || r.stdout != "1\n" {
		t.Errorf("--trace=FILE: %+v", r)
	}
	for s, want := range map[string]bool{"-v": true, "--http": true, "-": false, "-1": false, "-0.5": false, "x": false} {
		if got := looksLikeOption(s); got != want {
			t.Errorf("looksLikeOption(%q) = %v", s, got)
		}
	}
}
