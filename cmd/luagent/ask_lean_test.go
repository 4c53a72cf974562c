//go:build linux

package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/cachestub"
	"github.com/luagent/luagent/runtime/servercache"
)

// issue 32: `ask` does not wait for a server whose tools it has cached.
// The catalog's server starts only once the FIFO $GATE_PATH is opened for
// writing (a test's signal, not a delay); the model (an Anthropic
// stand-in) answers a prompt with "notool" in it with text, any other by
// calling srv__echo.
func TestAskDoesNotWaitForCachedServer(t *testing.T) {
	home := t.TempDir()
	srv := writeFile(t, home, "srv.lua", askServer)
	writeCatalog(t, home, map[string]any{
		"srv": map[string]any{"command": "sh",
			"args":                  []string{"-c", `cat "$GATE" >/dev/null; exec "$0" serve "$1"`, bin, srv},
			"env":                   map[string]any{"GATE": map[string]any{"fromEnv": "GATE_PATH"}},
			"startupTimeoutSeconds": 600},
	})
	stub := cachestub.New(cachestub.Options{Reply: func(r *cachestub.Request) cachestub.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Blocks[len(last.Blocks)-1]["type"] == "tool_result" {
			return cachestub.Reply{Text: "the server answered"}
		}
		if text, _ := r.Messages[0].Blocks[0]["text"].(string); strings.Contains(text, "notool") {
			return cachestub.Reply{Text: "no tool needed"}
		}
		return cachestub.Reply{Calls: []cachestub.Call{{ID: "toolu_1", Name: "srv__echo", Input: []byte(`{"message":"hi"}`)}}}
	}})
	ms := httptest.NewServer(stub)
	t.Cleanup(ms.Close)
	model := ms.URL
	env := func(gate string) []string {
		return []string{"LUAGENT_HOME=" + home, "ANTHROPIC_BASE_URL=" + model, "ANTHROPIC_API_KEY=ak-test",
			"LUAGENT_MODEL=anthropic:claude-test", "GATE_PATH=" + gate}
	}

	// The first run has no cache: it waits for the server, as before.
	if r := luagent(t, "", env("/dev/null"), "ask", "notool, just say hi"); r.code != 0 || r.stdout != "no tool needed\n" {
		t.Fatalf("first run: exit %d\nstdout: %q\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	entries, _ := filepath.Glob(filepath.Join(servercache.Dir(home), "*.json"))
	if len(entries) != 1 {
		t.Fatalf("cache files after the first run: %v", entries)
	}

	// The gate is never opened: the server never starts. A turn without a
	// tool call answers anyway, and the run exits (the server that never
	// started is killed at once).
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	held := exec.Command(bin, "ask", "notool, just say hi")
	held.Env = append(os.Environ(), append(env(gate), "LUA_PATH=", "OPENAI_API_KEY=")...)
	var hout, herr strings.Builder
	held.Stdout, held.Stderr = &hout, &herr
	if err := held.Start(); err != nil {
		t.Fatal(err)
	}
	hdone := make(chan error, 1)
	go func() { hdone <- held.Wait() }()
	select {
	case err := <-hdone:
		if err != nil || hout.String() != "no tool needed\n" {
			t.Fatalf("run with a server held at start: %v\nstdout: %q\nstderr: %s", err, hout.String(), herr.String())
		}
	case <-time.After(60 * time.Second): // a bound, not a sync: it waits for the server (startupTimeoutSeconds 600)
		held.Process.Kill()
		<-hdone
		t.Fatalf("ask waited for a server whose tools it had cached\nstderr: %s", herr.String())
	}

	// A turn that calls the held server's tool waits for that server:
	// it answers once the gate opens.
	cmd := exec.Command(bin, "ask", "please echo hi")
	cmd.Env = append(os.Environ(), append(env(gate), "LUA_PATH=", "OPENAI_API_KEY=")...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0) // until the server reads it
		if err == nil {
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("ask ended before its server started: %v\nstdout: %s\nstderr: %s", err, out.String(), errb.String())
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the server was never started\nstderr: %s", errb.String())
	}
	select {
	case err := <-done:
		if err != nil || out.String() != "the server answered\n" {
			t.Fatalf("exit %v\nstdout: %q\nstderr: %s", err, out.String(), errb.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("no answer after the server started\nstderr: %s", errb.String())
	}
}
