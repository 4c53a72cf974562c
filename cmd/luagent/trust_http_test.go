package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// modernOneTool is a 2026-07-28 server with one tool, send; tools/call
// is answered by call (after counting it).
func modernOneTool(t *testing.T, call func(w http.ResponseWriter, id string)) (string, *atomic.Int32) {
	var runs atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(b, &m)
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mail","version":"1"}}}}`)
		case "tools/list":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","tools":[{"name":"send","inputSchema":{"type":"object"}}]}}`)
		case "tools/call":
			runs.Add(1)
			call(w, string(m.ID))
		default:
			w.WriteHeader(400)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", &runs
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
