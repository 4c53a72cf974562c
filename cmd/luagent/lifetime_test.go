//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/testkit"
)

// Nothing luagent starts outlives it: each test starts a catalog server
// that never answers initialize (and has children of its own), ends
// luagent one way or another, and then looks in /proc for any process
// left in the server's process group.

// hostileServers are shell scripts that write their pid (their process
// group: luagent starts each server in a group of its own) to the file
// named by $1, then misbehave.
var hostileServers = map[string]string{
	// Never answers; a child sleeps beside it.
	"hang": "echo $$ > \"$1\"\nsleep 1000 &\nsleep 1000\n",
	// Forks a grandchild that stays in the group, and exits at once.
	"forks": "echo $$ > \"$1\"\n(sleep 1000 &)\nexit 0\n",
}

// lifetimeHome is a LUAGENT_HOME whose catalog holds the hostile server
// kind (startup timeout: timeout seconds, 0 for the default) and returns
// the file the server writes its pid to.
func lifetimeHome(t *testing.T, kind string, timeout int) (home, pidFile string) {
	t.Helper()
	home = t.TempDir()
	script := writeFile(t, home, kind+".sh", "#!/bin/sh\n"+hostileServers[kind])
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	pidFile = filepath.Join(home, kind+".pid")
	entry := map[string]any{"command": script, "args": []string{pidFile}}
	if timeout > 0 {
		entry["startupTimeoutSeconds"] = timeout
	}
	writeCatalog(t, home, map[string]any{kind: entry})
	t.Cleanup(func() {
		// A failing test must not leave the sleeps behind.
		if pg, err := readPid(pidFile); err == nil {
			syscall.Kill(-pg, syscall.SIGKILL)
		}
	})
	return home, pidFile
}

func readPid(file string) (int, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// serverPid waits for the server to have started and written its pid.
func serverPid(t *testing.T, pidFile string) int { return testkit.PidFile(t, pidFile) }

// startLuagent starts the binary in the background with LUAGENT_HOME=home.
func startLuagent(t *testing.T, home string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home, "LUA_PATH=", "LUAGENT_MODEL=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &errb
}

// exitWithin waits for cmd to exit within d and returns how long it took
// and its exit code (-1: killed by a signal).
func exitWithin(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer, d time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("luagent did not exit within %v:\n%s", d, out)
	}
	return cmd.ProcessState.ExitCode()
}

// A server that never finished initialize is stopped at once at every
// exit: one-shot commands, scripts, signals.
func TestNothingOutlivesLuagent(t *testing.T) {
	// The hub starts its servers in the background: the script waits until
	// the server has written its pid (arg[1]) before it ends.
	const hubScript = `local h = mcp.hub{ wait = false }
for _ = 1, 4000 do
  local f = io.open(arg[1])
  if f and f:read("*a") ~= "" then f:close() break end
  if f then f:close() end
  task.sleep(0.005)
end
print(#h:status())
`
	cases := []struct {
		name    string
		kind    string
		timeout int // startupTimeoutSeconds (0: the default minute)
		args    func(home, pidFile string) []string
		signal  syscall.Signal // sent once the server runs (0: none)
	}{
		{"mcp tools, startup timeout", "hang", 1, func(string, string) []string { return []string{"mcp", "tools", "hang"} }, 0},
		{"mcp tools, Ctrl-C", "hang", 0, func(string, string) []string { return []string{"mcp", "tools", "hang"} }, syscall.SIGINT},
		{"mcp tools, SIGTERM", "hang", 0, func(string, string) []string { return []string{"mcp", "tools", "hang"} }, syscall.SIGTERM},
		{"ask, startup timeout", "hang", 1, func(string, string) []string { return []string{"ask", "hello"} }, 0},
		{"ask, Ctrl-C", "hang", 0, func(string, string) []string { return []string{"ask", "hello"} }, syscall.SIGINT},
		{"ask, SIGTERM", "hang", 0, func(string, string) []string { return []string{"ask", "hello"} }, syscall.SIGTERM},
		{"run mcp.hub, script ends", "hang", 0, func(home, pid string) []string {
			return []string{"run", writeFile(t, home, "hub.lua", hubScript), pid}
		}, 0},
		{"run mcp.hub, error exit", "hang", 0, func(home, pid string) []string {
			return []string{"run", writeFile(t, home, "hub.lua", hubScript+"error('boom')\n"), pid}
		}, 0},
		{"run mcp.hub, Ctrl-C", "hang", 0, func(home, _ string) []string {
			return []string{"run", writeFile(t, home, "hub.lua", "mcp.hub()\n")}
		}, syscall.SIGINT},
		{"run mcp.hub, SIGTERM", "hang", 0, func(home, _ string) []string {
			return []string{"run", writeFile(t, home, "hub.lua", "mcp.hub()\n")}
		}, syscall.SIGTERM},
		{"run mcp.hub, os.exit", "hang", 0, func(home, pid string) []string {
			return []string{"run", writeFile(t, home, "hub.lua", hubScript+"os.exit(3)\n"), pid}
		}, 0},
		{"server forks a grandchild and exits", "forks", 0, func(string, string) []string { return []string{"mcp", "tools", "forks"} }, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home, pidFile := lifetimeHome(t, tc.kind, tc.timeout)
			cmd, out := startLuagent(t, home, tc.args(home, pidFile)...)
			pg := serverPid(t, pidFile)
			if tc.signal != 0 {
				cmd.Process.Signal(tc.signal)
			}
			exitWithin(t, cmd, out, 20*time.Second)
			testkit.GroupGone(t, pg)
			if t.Failed() {
				t.Logf("luagent said:\n%s", out)
			}
		})
	}
}

// A stopped luagent (SIGKILL: no code of its own runs) still takes its
// servers with it, their children too.
func TestServersEndWhenLuagentIsKilled(t *testing.T) {
	home, pidFile := lifetimeHome(t, "hang", 0)
	script := writeFile(t, home, "hub.lua", "mcp.hub{ wait = false }\ntask.sleep(60)\n")
	cmd, out := startLuagent(t, home, "run", script)
	pg := serverPid(t, pidFile)
	// The server's own child must be running too before the kill.
	if !testkit.Poll(10*time.Second, func() bool { return len(testkit.GroupMembers(pg)) >= 2 }) {
		t.Fatalf("the server's child never started: %v", testkit.GroupMembers(pg))
	}
	cmd.Process.Signal(syscall.SIGKILL)
	exitWithin(t, cmd, out, 10*time.Second)
	testkit.GroupGone(t, pg)
}

// A server that never answers is killed at once at exit: luagent does not
// wait out the shutdown grace (2 s after closing stdin, 2 s after SIGTERM).
func TestUnreadyServerStoppedWithoutGrace(t *testing.T) {
	home, pidFile := lifetimeHome(t, "hang", 0)
	script := writeFile(t, home, "hub.lua", `local h = mcp.hub{ wait = false }
while not io.open(arg[1]) do task.sleep(0.005) end
`)
	cmd, out := startLuagent(t, home, "run", script, pidFile)
	pg := serverPid(t, pidFile)
	start := time.Now()
	if code := exitWithin(t, cmd, out, 20*time.Second); code != 0 {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if took := time.Since(start); took > 1900*time.Millisecond {
		t.Errorf("luagent took %v to exit: it waited for a server that never started", took)
	}
	testkit.GroupGone(t, pg)
}
