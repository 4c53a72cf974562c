//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// `ask --server NAME` and an agent's servers = {...} start only those
// servers: a catalog holds a good server and one that never answers
// initialize (with the default one-minute startup timeout), whose command
// leaves a marker file when it is started at all.
func TestAskStartsOnlyItsServers(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "srv.lua", askServer)
	marker := filepath.Join(home, "bad-was-started")
	writeCatalog(t, home, map[string]any{
		"good": map[string]any{"command": bin, "args": []string{"serve", srv, filepath.Join(home, "notes.txt")}},
		"bad":  map[string]any{"command": "sh", "args": []string{"-c", "echo $$ > " + marker + "; exec sleep 1000"}},
	})
	t.Cleanup(func() {
		// Where it was started after all, it must not outlive the test.
		if pg, err := readPid(marker); err == nil {
			syscall.Kill(-pg, syscall.SIGKILL)
		}
	})
	agentFile := writeFile(t, home, "agent.lua", `return agent.new{ model = "mock", yes = true }`)
	cases := []struct {
		name string
		args []string
		want string // on stdout
	}{
		{"ask --server", []string{"ask", "--server", "good", "please", "echo", "hi"}, "pong"},
		{"ask --agent --server", []string{"ask", "--agent", agentFile, "--server", "good", "please", "echo", "hi"}, "pong"},
		{"agent servers", []string{"run", writeFile(t, home, "agent_servers.lua", `
local a = agent.new{ model = "mock", servers = { "good" } }
print((a:ask("please echo hi")))
`)}, "pong"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if pg, err := readPid(marker); err == nil {
				syscall.Kill(-pg, syscall.SIGKILL)
			}
			os.Remove(marker)
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(os.Environ(), "LUAGENT_HOME="+home, "LUA_PATH=", "LUAGENT_MODEL=", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running after 30 s: it waited for the server it does not use\nstderr: %s", errb.String())
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("stdout %q lacks %q\nstderr: %s", out.String(), tc.want, errb.String())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the server not asked for was started")
			}
			t.Logf("took %v", time.Since(start).Round(time.Millisecond))
		})
	}
}
