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
		name  string
		args  []string
		want  string // on stdout
		stdin string
	}{
		{"ask --server", []string{"ask", "--server", "good", "please", "echo", "hi"}, "pong", ""},
		{"ask --agent --server", []string{"ask", "--agent", agentFile, "--server", "good", "please", "echo", "hi"}, "pong", ""},
		{"agent servers", []string{"run", writeFile(t, home, "agent_servers.lua", `
local a = agent.new{ model = "mock", servers = { "good" } }
print((a:ask("please echo hi")))
`)}, "pong", ""},
		// chat as ask: a piped chat waits for its servers before the first
		// line, so one that started bad would wait its minute.
		{"chat --server", []string{"chat", "--server", "good"}, "pong", "please echo hi\n/mcp\n"},
		{"chat --agent --server", []string{"chat", "--agent", agentFile, "--server", "good"}, "pong", "please echo hi\n"},
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
			cmd.Stdin = strings.NewReader(tc.stdin)
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

// A --server name the catalog lacks is a usage error, the same line for
// chat as for ask, before anything starts.
func TestServerFlagNamesACatalogServer(t *testing.T) {
	home := t.TempDir()
	writeCatalog(t, home, map[string]any{"good": map[string]any{"command": "true"}})
	env := []string{"LUAGENT_HOME=" + home}
	for _, args := range [][]string{{"ask", "--server", "nope", "hi"}, {"chat", "--server", "nope"}, {"chat", "--server", "good", "--server", "nope"}} {
		r := luagent(t, "hi\n", env, args...)
		if want := "luagent: no server \"nope\" in the catalog (luagent mcp list shows them)\n"; r.code != 2 || r.stderr != want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", args, r.code, r.stderr, want)
		}
	}
	r := luagent(t, "", env, "chat", "--server")
	if r.code != 2 || !strings.Contains(r.stderr, "--server needs a value: luagent chat --server") {
		t.Errorf("chat --server without a value: exit %d, stderr %q", r.code, r.stderr)
	}
	r = luagent(t, "", env, "chat", "--help")
	if !strings.Contains(r.stdout, "--server NAME") || !strings.Contains(r.stdout, "offer only this catalog server's tools") {
		t.Errorf("chat --help lacks --server:\n%s", r.stdout)
	}
}
