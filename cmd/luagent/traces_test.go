package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// wireMethods are the methods a fake server logged (-log FILE), in order.
func wireMethods(t *testing.T, log string) []string {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method != "" {
			out = append(out, m.Method)
		}
	}
	return out
}

// traceKinds reads a --trace file: each event's kind, method and message.
func traceEvents(t *testing.T, file string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) != nil {
			t.Fatalf("not JSON: %q", line)
		}
		out = append(out, e)
	}
	return out
}

// A legacy server with "logLevel" in its entry is asked once per
// connection (logging/setLevel), not once by the hub and again by the
// client's restore.
func TestLogLevelSentOncePerConnection(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	home := t.TempDir()
	log := filepath.Join(home, "wire.log")
	writeCatalog(t, home, map[string]any{"f": map[string]any{"command": fake, "args": []string{"-era", "legacy", "-log", log}, "logLevel": "info"}})
	for _, args := range [][]string{{"mcp", "tools", "f"}, {"mcp", "call", "f", "echo", "message=hi"}} {
		os.Remove(log)
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, args...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		n := 0
		for _, m := range wireMethods(t, log) {
			if m == "logging/setLevel" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%v: logging/setLevel sent %d times: %v", args, n, wireMethods(t, log))
		}
	}
}

// A server that refuses a call with 401 after starting (a revoked token):
// mcp call says authorization was refused and what to do, with the kind
// auth, and the trace's tool_call_end says the same.
func TestCallRefusedWith401IsAnAuthError(t *testing.T) {
	srv := testkit.ScriptedModern(t, "locked", func(w http.ResponseWriter, r testkit.ScriptedRequest) {
		switch r.Method {
		case "tools/list":
			testkit.ScriptedTools(w, r.ID, `{"name":"t","inputSchema":{"type":"object"}}`)
		case "tools/call":
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	home := t.TempDir()
	writeCatalog(t, home, map[string]any{"locked": map[string]any{"url": srv.URL}})
	tr := filepath.Join(home, "trace.jsonl")
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "--trace", tr, "mcp", "call", "locked", "t")
	if r.code == 0 {
		t.Fatalf("exit 0: %s", r.stdout)
	}
	line := strings.TrimSpace(r.stderr)
	for _, want := range []string{"refused authorization", "HTTP 401", "luagent mcp login " + srv.URL, "or fix the token"} {
		if !strings.Contains(line, want) {
			t.Errorf("stderr %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "-32600") || strings.Contains(line, "answered error") || strings.Count(line, "\n") > 0 {
		t.Errorf("stderr: %q", line)
	}
	for _, e := range traceEvents(t, tr) {
		if e["kind"] == "tool_call_end" && !strings.Contains(fmt.Sprint(e["error"]), "refused authorization") {
			t.Errorf("tool_call_end: %v", e)
		}
		// The server answered HTTP 401, not a JSON-RPC error code.
		if e["kind"] == "error" && e["method"] == "tools/call" && (e["code"] != nil || !strings.Contains(fmt.Sprint(e["message"]), "HTTP 401")) {
			t.Errorf("error event: %v", e)
		}
	}
}

// A server slower to start than its startupTimeoutSeconds fails with the
// startup timeout's own words, whichever step it was at, not a request's
// timeout or a bare "deadline exceeded".
func TestStartupTimeoutWordedAsStartupTimeout(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	home := t.TempDir()
	writeCatalog(t, home, map[string]any{
		"slow":  map[string]any{"command": fake, "args": []string{"-era", "legacy", "-start-delay", "30s"}, "startupTimeoutSeconds": 1},
		"slowm": map[string]any{"command": fake, "args": []string{"-era", "modern", "-start-delay", "30s"}, "startupTimeoutSeconds": 1, "protocol": "modern"},
		// A request timeout shorter than the startup timeout bounds requests
		// after the start, not the handshake.
		"slowr": map[string]any{"command": fake, "args": []string{"-era", "modern", "-start-delay", "30s"}, "startupTimeoutSeconds": 1, "requestTimeoutSeconds": 0.3, "protocol": "modern"},
	})
	for _, name := range []string{"slow", "slowm", "slowr"} {
		r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "mcp", "tools", name)
		line := strings.TrimSpace(r.stderr)
		if r.code == 0 || !strings.Contains(line, `server "`+name+`" did not finish starting within 1s (startupTimeoutSeconds)`) ||
			!strings.Contains(line, "raise startupTimeoutSeconds") {
			t.Errorf("%s: exit %d: %q", name, r.code, line)
		}
		for _, bad := range []string{"deadline exceeded", "timed out: no answer", "\n"} {
			if strings.Contains(line, bad) {
				t.Errorf("%s: %q has %q", name, line, bad)
			}
		}
	}
}

// A server's tool list longer than a pipe holds reaches luagent in pieces:
// --trace records it once as buffer_moved (the seed's RunBufferMoved),
// between the request and its response, with the line's size.
func TestTraceRecordsPartialLineBuffer(t *testing.T) {
	fake := testkit.Build(t, "runtime/testkit/servers/fake")
	home := t.TempDir()
	writeCatalog(t, home, map[string]any{"many": map[string]any{"command": fake, "args": []string{"-era", "legacy", "-tools", "3000"}}})
	tr := filepath.Join(home, "trace.jsonl")
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "--trace", tr, "mcp", "tools", "many")
	if r.code != 0 || !strings.Contains(r.stdout, "tool_3000") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var seq []string
	for _, e := range traceEvents(t, tr) {
		switch k := e["kind"]; {
		case k == "buffer_moved":
			if e["server"] != "many" || e["count"].(float64) < 100000 || !strings.Contains(fmt.Sprint(e["message"]), "reads") {
				t.Errorf("buffer_moved: %v", e)
			}
			seq = append(seq, "buffer_moved")
		case e["method"] == "tools/list":
			seq = append(seq, fmt.Sprint(k))
		}
	}
	if strings.Join(seq, " ") != "request_sent buffer_moved response" {
		t.Errorf("events around tools/list: %v", seq)
	}
}

// A 2026-07-28 HTTP call that runs past requestTimeoutSeconds is cancelled
// by closing its stream: --trace shows stream_cancelled and no
// notifications/cancelled, which was never sent (nor received).
func TestHTTPTimeoutTraceShowsNoCancelledNotification(t *testing.T) {
	srv := testkit.ScriptedModern(t, "sleepy", func(w http.ResponseWriter, r testkit.ScriptedRequest) {
		switch r.Method {
		case "tools/list":
			testkit.ScriptedTools(w, r.ID, `{"name":"nap","inputSchema":{"type":"object"}}`)
		case "tools/call":
			<-r.HTTP.Context().Done() // until the client closes the stream
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	home := t.TempDir()
	writeCatalog(t, home, map[string]any{"sleepy": map[string]any{"url": srv.URL, "requestTimeoutSeconds": 0.3}})
	tr := filepath.Join(home, "trace.jsonl")
	r := luagent(t, "", []string{"LUAGENT_HOME=" + home}, "--trace", tr, "mcp", "call", "sleepy", "nap")
	if r.code == 0 || !strings.Contains(r.stderr, "timed out") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var kinds []string
	for _, e := range traceEvents(t, tr) {
		if e["method"] == "notifications/cancelled" || e["kind"] == "stream_cancelled" {
			kinds = append(kinds, fmt.Sprint(e["kind"], " ", e["method"]))
		}
	}
	if strings.Join(kinds, ",") != "stream_cancelled tools/call" {
		t.Errorf("cancellation events: %q", kinds)
	}
	if n := len(srv.Posts("notifications/cancelled")); n != 0 {
		t.Errorf("the server got %d notifications/cancelled", n)
	}
}
