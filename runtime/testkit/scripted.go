// Serves a 2026-07-28 MCP peer over HTTP whose answers a
// test writes by hand: what a real server would never do (break a reply
// stream after running a tool, redirect, answer out of turn) is the point
// of such a test. server/discover is answered; every other POST goes to
// the test's function.

package testkit

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// ScriptedRequest is one POST the server received.
type ScriptedRequest struct {
	ID     json.RawMessage // the JSON-RPC id as sent ("" for a notification)
	Method string
	N      int // this is the N-th POST of Method, from 1
	HTTP   *http.Request
}

// ScriptedServer is a running scripted peer.
type ScriptedServer struct {
	URL string // the MCP endpoint, ".../mcp"
	ts  *httptest.Server

	mu   sync.Mutex
	seen map[string][]ScriptedRequest
}

// ScriptedModern starts a server that answers server/discover as a 2026-07-28
// server named name, and every other POST with answer (which
// writes the whole reply; Content-Type is preset to application/json). It
// ends with the test.
func ScriptedModern(t testing.TB, name string, answer func(w http.ResponseWriter, r ScriptedRequest)) *ScriptedServer {
	s := &ScriptedServer{seen: map[string][]ScriptedRequest{}}
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(b, &m)
		s.mu.Lock()
		req := ScriptedRequest{ID: m.ID, Method: m.Method, N: len(s.seen[m.Method]) + 1, HTTP: r}
		s.seen[m.Method] = append(s.seen[m.Method], req)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if m.Method == "server/discover" {
			ScriptedResult(w, m.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":`+quote(name)+`,"version":"1"}}}`)
			return
		}
		answer(w, req)
	}))
	t.Cleanup(s.ts.Close)
	s.URL = s.ts.URL + "/mcp"
	return s
}

// Close stops the server now: nothing listens at its URL any more.
func (s *ScriptedServer) Close() { s.ts.Close() }

// Posts returns the POSTs of method received so far, in order.
func (s *ScriptedServer) Posts(method string) []ScriptedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ScriptedRequest(nil), s.seen[method]...)
}

// ScriptedResult writes a JSON-RPC result (result is its JSON) for id.
func ScriptedResult(w http.ResponseWriter, id json.RawMessage, result string) {
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+result+`}`)
}

// ScriptedTools writes a tools/list result holding tools (a JSON array's items,
// e.g. `{"name":"send","inputSchema":{"type":"object"}}`).
func ScriptedTools(w http.ResponseWriter, id json.RawMessage, tools string) {
	ScriptedResult(w, id, `{"resultType":"complete","tools":[`+tools+`]}`)
}

// BreakStream starts an SSE reply, sends a log notification, and ends in
// the middle of the next event: the answer never comes, though whatever
// the request asked for may have been done.
func BreakStream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n")
	io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":")
	w.(http.Flusher).Flush()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
