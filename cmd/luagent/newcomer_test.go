package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A newcomer's first commands: help everywhere, serve and init.lua, the
// first server on a terminal.

func TestHelpAtEveryCommand(t *testing.T) {
	echo := "../../examples/echo.lua"
	for _, c := range []struct {
		args []string
		want []string // all in stdout
	}{
		{[]string{"--help"}, []string{"usage: luagent [options]", "luagent COMMAND --help", "luagent serve FILE"}},
		{[]string{"help"}, []string{"usage: luagent [options]"}},
		{[]string{"-h"}, []string{"usage: luagent [options]"}},
		{[]string{"run", "--help"}, []string{"usage: luagent [options] run FILE", "arg[-1]"}},
		{[]string{"run", "-h"}, []string{"usage: luagent [options] run FILE"}},
		{[]string{"serve", "--help"}, []string{"usage: luagent serve FILE", "--http [PORT|ADDR][/PATH]", "--max-body SIZE", "--init"}},
		{[]string{"serve", echo, "--help"}, []string{"usage: luagent serve FILE"}},
		{[]string{"serve", "--http", "8089", "-h"}, []string{"usage: luagent serve FILE"}},
		{[]string{"mcp", "--help"}, []string{"usage: luagent mcp VERB", "login URL|NAME [--scope S]", "logout URL"}},
		{[]string{"mcp", "help"}, []string{"usage: luagent mcp VERB"}},
		{[]string{"mcp", "login", "--help"}, []string{"usage: luagent mcp login URL", "--scope S"}},
		{[]string{"mcp", "logout", "--help"}, []string{"usage: luagent mcp logout URL"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := luagent(t, "", nil, c.args...)
			if r.code != 0 || r.stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and the usage on stdout", r.code, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
	// A script's own --help is the script's.
	dir := t.TempDir()
	s := writeFile(t, dir, "s.lua", "print(arg[1])")
	if r := luagent(t, "", nil, "run", s, "--help"); r.stdout != "--help\n" {
		t.Errorf("run FILE --help: %+v", r)
	}
	if r := luagent(t, "", nil, "serve", "--bogus", echo); r.code != 2 || !strings.Contains(r.stderr, "luagent serve --help lists them") {
		t.Errorf("an unknown serve option should point at serve --help: %+v", r)
	}
}

// initMarker writes an init.lua that appends its process's nesting depth
// to a file, then returns that file.
func initMarker(t *testing.T, home, body string) string {
	t.Helper()
	mark := filepath.Join(t.TempDir(), "ran")
	writeFile(t, home, "init.lua", `
local f = assert(io.open(env.get("MARK"), "a"))
f:write((env.get("LUAGENT_DEPTH") or "?") .. "\n")
f:close()
`+body)
	return mark
}

func lines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

func TestServeRunsInitLuaOnlyWithInit(t *testing.T) {
	home := t.TempDir()
	mark := initMarker(t, home, "")
	env := []string{"LUAGENT_HOME=" + home, "MARK=" + mark}
	echo := "../../examples/echo.lua"
	if r := luagent(t, "", env, "serve", echo); r.code != 0 {
		t.Fatalf("serve: %+v", r)
	}
	if got := lines(t, mark); len(got) != 0 {
		t.Errorf("serve ran init.lua without --init: %v", got)
	}
	for _, args := range [][]string{{"serve", "--init", echo}, {"serve", echo, "--init"}, {"--init", "serve", echo}} {
		os.Remove(mark)
		if r := luagent(t, "", env, args...); r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		if got := lines(t, mark); len(got) != 1 {
			t.Errorf("%v: init.lua ran %d times, want once", args, len(got))
		}
	}
	os.Remove(mark)
	if r := luagent(t, "", env, "-e", "print(1)"); r.stdout != "1\n" || len(lines(t, mark)) != 1 {
		t.Errorf("-e no longer runs init.lua: %+v", r)
	}
}

// The report's fork bomb: init.lua connects to a luagent server. serve
// no longer runs init.lua, so one child starts; and with --init, which
// would recurse for ever, the chain stops at maxNesting with a clear error.
func TestInitLuaConnectingToLuagentIsNoForkBomb(t *testing.T) {
	echo, _ := filepath.Abs("../../examples/echo.lua")
	for _, c := range []struct {
		name  string
		extra string // serve's options in init.lua's connect
		want  int    // init.lua runs
	}{{"serve skips init.lua", "", 1}, {"serve --init stops at the nesting limit", `"--init", `, maxNesting}} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			mark := initMarker(t, home, `
local ok, err = task.pcall(mcp.connect, { name = "self", command = arg[-1], args = { "serve", `+c.extra+`"`+echo+`" }, timeout = 20 })
if not ok then io.stderr:write("init.lua: ", tostring(err), "\n") end
`)
			r := luagent(t, "", []string{"LUAGENT_HOME=" + home, "MARK=" + mark, "LUAGENT_DEPTH="}, "-e", "print('top')")
			if r.code != 0 || r.stdout != "top\n" {
				t.Fatalf("%+v", r)
			}
			got := lines(t, mark)
			if len(got) != c.want {
				t.Errorf("init.lua ran %d times (depths %v), want %d", len(got), got, c.want)
			}
		})
	}
	r := luagent(t, "", []string{"LUAGENT_DEPTH=6"}, "-e", "print('nested')")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "refusing to start: 6 luagent processes already run one inside another") {
		t.Errorf("at the nesting limit: %+v", r)
	}
}

func TestServeOnATerminalSaysWhatItServes(t *testing.T) {
	tt := startTTY(t, t.TempDir(), "serve", "../../examples/notes.lua")
	mark := tt.waitFor(0, "serving notes over stdio (3 tools, 1 prompt)")
	tt.waitFor(mark, "Ctrl-C or Ctrl-D stops it")
	tt.f.Write([]byte{4}) // Ctrl-D: end of input
	<-tt.done
}

func TestREPLHelp(t *testing.T) {
	conn := "c = mcp.connect{command = arg[-1], args = {'serve', '../../examples/echo.lua'}}\nhelp(c)\n"
	r := luagent(t, "help\nhelp()\nhelp(json)\n/help\n/frob\nmcp\n"+conn+"/exit\nprint('not run')\n", nil)
	if r.code != 0 || strings.Contains(r.stdout, "nil") || strings.Contains(r.stdout, "not run") {
		t.Errorf("%+v", r)
	}
	if n := strings.Count(r.stdout, "modules (globals, no require needed)"); n != 3 {
		t.Errorf("help, help() and /help should print the overview: %d times\n%s", n, r.stdout)
	}
	// help(json) and help(conn) give each function's signature and first
	// sentence, as the editor stubs do.
	for _, want := range []string{"json.encode(v: any, opts?: {indent?: string|integer}) -> string", "Encodes `v` as JSON.",
		"connect = <function", "README.md",
		"mcp.Conn: A connection to one MCP server", "conn:call(name: string, args?: table, opts?: mcp.CallOptions) -> mcp.CallResult", "conn:close()"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "unknown command /frob (/help lists them") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// An idle HTTP server, with a client's keep-alive connection open, exits
// at once on SIGINT: nothing is in flight, so nothing waits for the grace.
func TestIdleHTTPServerExitsAtOnceOnSIGINT(t *testing.T) {
	srv := serveHTTPArgs(t, "../../examples/echo.lua", "--http", "127.0.0.1:0/mcp", "--grace", "30")
	if st, body := modernCall(srv.url, "echo", `{"message":"hi"}`); st != 200 {
		t.Fatalf("echo: %d %s", st, body)
	}
	start := time.Now()
	srv.cmd.Process.Signal(syscall.SIGINT)
	srv.waitExit(t, "after SIGINT")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("an idle server took %v to exit on SIGINT (grace 30 s: it waited on something idle)", d)
	}
}
