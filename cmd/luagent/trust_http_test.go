package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/luagent/luagent/runtime/testkit"
)

// modernOneTool is a 2026-07-28 server named mail with one tool, send;
// tools/call is answered by call (after counting it).
func modernOneTool(t *testing.T, call func(w http.ResponseWriter, id string)) (string, *atomic.Int32) {
	var runs atomic.Int32
	s := testkit.ScriptedModern(t, "mail", func(w http.ResponseWriter, r testkit.ScriptedRequest) {
		switch r.Method {
		case "tools/list":
			testkit.ScriptedTools(w, r.ID, `{"name":"send","inputSchema":{"type":"object"}}`)
		case "tools/call":
			runs.Add(1)
			call(w, string(r.ID))
		default:
			w.WriteHeader(400)
		}
	})
	return s.URL, &runs
}

// `mcp call` of a tool that ran and whose reply stream then broke: one
// line saying it may have run, exit 1, and the tool ran once.
func TestMCPCallUnknownOutcome(t *testing.T) {
	url, runs := modernOneTool(t, func(w http.ResponseWriter, id string) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":")
	})
	env := savedHome(t, `"mail":{"url":"`+url+`"}`)
	r := failsWith(t, env, 1, "the tool call may have run; check its effect before calling it again", "mcp", "call", "mail", "send")
	if r.stdout != "" || runs.Load() != 1 {
		t.Errorf("stdout %q; the tool ran %d times, want 1", r.stdout, runs.Load())
	}
}

// A catalog server whose endpoint redirects to another origin (another
// port): `mcp tools` fails on one line naming both origins, and that
// origin receives nothing — no request, no header.
func TestMCPRedirectToAnotherOrigin(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.WriteHeader(500)
	}))
	defer other.Close()
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer moved.Close()
	env := savedHome(t, `"moved":{"url":"`+moved.URL+`/mcp?key=q-s3cret","headers":{"X-Api-Key":"key-s3cret","Authorization":"Bearer tok-s3cret"}}`)
	r := failsWith(t, env, 1, "redirected to another origin, "+other.URL+";", "mcp", "tools", "moved")
	if !strings.Contains(r.stderr, moved.URL+" ") || strings.Contains(r.stderr, "s3cret") || reached.Load() != 0 {
		t.Errorf("stderr %q; the other origin got %d requests", r.stderr, reached.Load())
	}
}
