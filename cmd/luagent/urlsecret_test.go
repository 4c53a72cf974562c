package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The secrets of a server's URL (its userinfo, secret-named query
// parameters) never show: not in an error of mcp tools, ask or chat, not
// in hub:status(), the -v lines or a --trace file, whatever failed — a
// port nobody listens on, or a server asking for authorization.

// urlSecrets are the secrets urlSecretHome's URLs hold.
var urlSecrets = []string{"pa55", "s3cret", "api_key=k"}

// urlSecretHome is a LUAGENT_HOME whose catalog has down (a closed port)
// and locked (a server that answers 401 and names its metadata), both
// with secrets in their URLs.
func urlSecretHome(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(locked.Close)
	home := t.TempDir()
	secretURL := func(hostport string) string {
		return "http://user:pa55@" + hostport + "/mcp?token=s3cret&api_key=k"
	}
	// wait: a chat reading piped lines starts once both have settled.
	writeFile(t, home, "config.json", fmt.Sprintf(`{"version": 1, "mcpInitStrategy": "wait", "mcpServers": {
	  "down": {"url": %q, "startupTimeoutSeconds": 10},
	  "locked": {"url": %q, "startupTimeoutSeconds": 10}}}`,
		secretURL(closed), secretURL(strings.TrimPrefix(locked.URL, "http://"))))
	return home
}

// noURLSecret fails the test when a secret of urlSecretHome's URLs is in
// one of outs (named by what they are).
func noURLSecret(t *testing.T, what string, outs map[string]string) {
	t.Helper()
	for name, s := range outs {
		for _, x := range urlSecrets {
			if strings.Contains(s, x) {
				t.Errorf("%s: %q is in the %s:\n%s", what, x, name, s)
			}
		}
	}
}

func traceFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no trace: %v", err)
	}
	return string(b)
}

func TestURLSecretsMasked(t *testing.T) {
	home := urlSecretHome(t)
	env := []string{"LUAGENT_HOME=" + home, "OPENAI_API_KEY=", "ANTHROPIC_API_KEY="}
	dir := t.TempDir()

	for _, name := range []string{"down", "locked"} {
		tr := filepath.Join(dir, name+".jsonl")
		r := luagent(t, "", env, "mcp", "tools", name, "-v", "--trace", tr)
		if r.code != 1 || !strings.Contains(r.stderr, "user:<hidden>@127.0.0.1:") {
			t.Errorf("mcp tools %s: exit %d, stderr:\n%s\nwant exit 1 and the URL shown masked", name, r.code, r.stderr)
		}
		noURLSecret(t, "mcp tools "+name, map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": traceFile(t, tr)})
	}

	tr := filepath.Join(dir, "ask.jsonl")
	r := luagent(t, "", env, "--trace", tr, "-v", "ask", "--model", "mock", "hello")
	if r.code != 0 || !strings.Contains(r.stderr, "down failed to start") || !strings.Contains(r.stderr, "<hidden>") {
		t.Errorf("ask: exit %d, stderr:\n%s\nwant down's failure, its URL masked", r.code, r.stderr)
	}
	noURLSecret(t, "ask", map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": traceFile(t, tr)})

	script := writeFile(t, dir, "status.lua", `
local h = mcp.hub()
for _, s in ipairs(h:status()) do
  print(s.name, s.status, s.error and s.error.message)
end
print(inspect(h:status()))`)
	tr = filepath.Join(dir, "run.jsonl")
	r = luagent(t, "", env, "--trace", tr, "-v", "run", script)
	if r.code != 0 || !strings.Contains(r.stdout, "down\tfailed\t") || !strings.Contains(r.stdout, "locked\tneeds_auth\t") || !strings.Contains(r.stdout, "<hidden>") {
		t.Errorf("run hub:status(): exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	noURLSecret(t, "hub:status()", map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": traceFile(t, tr)})

	// A connection named by its URL (mcp.connect without a name): the
	// name shows in its errors and every trace event.
	script = writeFile(t, dir, "connect.lua", `
local ok, err = task.pcall(mcp.connect, { url = arg[1], oauth = false })
print(ok, err.kind, err.message)`)
	tr = filepath.Join(dir, "connect.jsonl")
	r = luagent(t, "", env, "--trace", tr, "-v", "run", script, "http://user:pa55@127.0.0.1:1/mcp?token=s3cret&api_key=k")
	if r.code != 0 || !strings.Contains(r.stdout, "false\tprocess\t") || !strings.Contains(r.stdout, "<hidden>") {
		t.Errorf("mcp.connect: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	noURLSecret(t, "mcp.connect", map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": traceFile(t, tr)})

	// A model's base URL holds secrets too.
	r = luagent(t, "", []string{"LUAGENT_HOME=" + t.TempDir(), "OPENAI_API_KEY=sk-x", "OPENAI_BASE_URL=http://user:pa55@127.0.0.1:1/v1?key=s3cret"},
		"ask", "--model", "openai:gpt-test", "hello")
	if r.code == 0 || !strings.Contains(r.stderr, "cannot reach http://user:<hidden>@127.0.0.1:1/v1") {
		t.Errorf("ask with the model down: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	noURLSecret(t, "the model's URL", map[string]string{"stdout": r.stdout, "stderr": r.stderr})

	// mcp logout names the URL it was given.
	r = luagent(t, "", env, "mcp", "logout", "http://user:pa55@127.0.0.1:1/mcp?token=s3cret&api_key=k")
	if r.code != 0 || !strings.Contains(r.stdout, "no stored credentials for http://user:<hidden>@127.0.0.1:1/mcp") {
		t.Errorf("mcp logout: %+v", r)
	}
	noURLSecret(t, "mcp logout", map[string]string{"stdout": r.stdout, "stderr": r.stderr})

	// chat without a terminal: the failures as they happen, then /mcp's
	// list with each one's error.
	tr = filepath.Join(dir, "chat.jsonl")
	r = luagent(t, "/mcp\n/mcp down\n/mcp locked\n", env, "--trace", tr, "-v", "chat", "--model", "mock")
	if r.code != 0 || !strings.Contains(r.stdout, "down: failed") || !strings.Contains(r.stdout, "NAME") || !strings.Contains(r.stdout, "<hidden>") {
		t.Errorf("chat: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	noURLSecret(t, "chat", map[string]string{"stdout": r.stdout, "stderr": r.stderr, "trace": traceFile(t, tr)})
}

// On a terminal: the chat's status lines and the /mcp manager's list and
// inspect view.
func TestTTYChatURLSecretsMasked(t *testing.T) {
	home := urlSecretHome(t)
	tt := startTTY(t, home, "chat", "--model", "mock")
	m := tt.wait(0, "luagent chat — model mock", "[0/2 servers ready, 1 needs auth, 1 failed]", "> ")
	tt.send("/mcp\r")
	mt := &mgrTTY{tty: tt, vt: newVT(200, 40)}
	mt.waitScreen("down ● failed", "locked ● needs auth")
	tt.send("\r") // inspect the selected server (down, the first)
	mt.waitScreen("url", "error:")
	tt.send("\x1b")
	mt.waitScreen("down ● failed")
	tt.send("\x1b[B\r") // locked
	mt.waitScreen("MCP server locked", "url")
	tt.send("\x1b")
	mt.waitScreen("down ● failed")
	tt.send("q")
	m = tt.wait(m, "> ")
	tt.send("\x04")
	tt.exited()
	noURLSecret(t, "chat on a terminal", map[string]string{"output": tt.output()})
}
