package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// --log-http sends the trace to a collector; the run's output is the same
// with or without one, and a dead collector neither fails nor hangs it.
func TestLogHTTP(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	code := "local c = mcp.connect{command = '" + fake + "', args = {'-era', 'legacy'}, env = {API_TOKEN = 'hunter2-secret'}}\n" +
		"print(c:call('echo', {message = 'traced'}).content[1].text)\nc:close()"

	var mu sync.Mutex
	var got strings.Builder
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got.Write(b)
		mu.Unlock()
	}))
	defer col.Close()
	r := luagent(t, "", nil, "--log-http", col.URL+"/events?token=collector-secret", "-e", code)
	if r.code != 0 || r.stdout != "traced\n" || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	mu.Lock()
	body := got.String()
	mu.Unlock()
	for _, want := range []string{`"kind":"process_started"`, `"method":"initialize"`, `"kind":"tool_call_end"`, `"kind":"process_stopped"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the collector got no %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "hunter2") {
		t.Error("an env value reached the collector")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/events?token=collector-secret"
	ln.Close()
	r = luagent(t, "", nil, "--log-http", dead, "-e", code)
	if r.code != 0 || r.stdout != "traced\n" {
		t.Fatalf("a dead collector changed the run: %+v", r)
	}
	if !strings.Contains(r.stderr, "trace events dropped") || strings.Contains(r.stderr, "collector-secret") {
		t.Errorf("stderr should count what was lost and hide the URL's query:\n%s", r.stderr)
	}

	for _, bad := range []string{"ftp://x", "not a url", ""} {
		if r := luagent(t, "", nil, "--log-http", bad, "-e", "print(1)"); r.code != 2 || !strings.Contains(r.stderr, "--log-http needs a collector URL") {
			t.Errorf("--log-http %q: %+v", bad, r)
		}
	}
}
