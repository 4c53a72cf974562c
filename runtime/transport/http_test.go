package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
)

// recorder is a scripted Streamable HTTP server: each POST is answered by
// reply (by JSON-RPC method), and every request is recorded.
type recorder struct {
	mu    sync.Mutex
	reqs  []*http.Request
	body  []string
	reply func(w http.ResponseWriter, r *http.Request, method string, body string)
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(b, &m)
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, r)
	rec.body = append(rec.body, string(b))
	rec.mu.Unlock()
	rec.reply(w, r, m.Method, string(b))
}

func (rec *recorder) find(method string) *http.Request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, r := range rec.reqs {
		if r.Method == method || strings.Contains(rec.body[i], `"method":"`+method+`"`) {
			return r
		}
	}
	return nil
}

func serve(t *testing.T, reply func(w http.ResponseWriter, r *http.Request, method, body string)) (*recorder, *HTTP) {
	rec := &recorder{reply: reply}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	h := NewHTTP(ts.URL+"/mcp", HTTPOptions{Name: "scripted"})
	t.Cleanup(func() { h.Close() })
	return rec, h
}

func read(t *testing.T, h *HTTP) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		m, err := h.Read()
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		done <- string(m)
	}()
	select {
	case m := <-done:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("nothing to read")
	}
	return ""
}

const modernCall = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"%s","arguments":{"region":"%s","n":7},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

func TestHTTPModernHeadersAndJSON(t *testing.T) {
	rec, h := serve(t, func(w http.ResponseWriter, r *http.Request, method, body string) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`)
	})
	h.opts.ParamHeaders = func(tool string) map[string]string { return map[string]string{"Region": "region", "N": "n"} }
	h.Write([]byte(fmt.Sprintf(modernCall, "héllo tool", " us-west1")))
	if m := read(t, h); !strings.Contains(m, `"resultType":"complete"`) {
		t.Fatalf("read %s", m)
	}
	r := rec.find("tools/call")
	for k, want := range map[string]string{
		"MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "=?base64?aMOpbGxvIHRvb2w=?=", // not plain ASCII
		"Mcp-Param-Region":     "=?base64?IHVzLXdlc3Qx?=",     // leading space
		"Mcp-Param-N":          "7",
		"Accept":               "application/json, text/event-stream",
	} {
		if got := r.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if r.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a session id on a 2026-07-28 request")
	}
}

func TestHTTPErrorRepliesReachTheCaller(t *testing.T) {
	_, h := serve(t, func(w http.ResponseWriter, r *http.Request, method, body string) {
		switch {
		case strings.Contains(body, `"id":1`):
			// A legacy stateful server refusing a sessionless request.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}`)
		case strings.Contains(body, `"id":2`):
			w.WriteHeader(404)
			io.WriteString(w, "404 page not found")
		default:
			w.WriteHeader(500)
		}
	})
	h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`))
	if m := read(t, h); !strings.Contains(m, `"id":1,"error":{"code":-32000`) {
		t.Errorf("null-id error: %s", m)
	}
	h.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{}}`))
	if m := read(t, h); !strings.Contains(m, `"id":2`) || !strings.Contains(m, "HTTP 404 for server/discover: 404 page not found") {
		t.Errorf("plain-text 404: %s", m)
	}
	h.Write([]byte(`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":{}}`))
	if m := read(t, h); !strings.Contains(m, `"id":"x"`) || !strings.Contains(m, "HTTP 500") {
		t.Errorf("empty 500: %s", m)
	}
}

func TestHTTPLegacySessionSSEAndResumption(t *testing.T) {
	var mu sync.Mutex
	deleted := false
	rec, h := serve(t, func(w http.ResponseWriter, r *http.Request, method, body string) {
		switch {
		case r.Method == http.MethodDelete:
			mu.Lock()
			deleted = r.Header.Get("Mcp-Session-Id") == "S1"
			mu.Unlock()
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") == "e2":
			// The resumed stream: the rest of the call's events.
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: e3\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[]}}\n\n")
		case r.Method == http.MethodGet:
			w.WriteHeader(405)
		case method == "initialize":
			w.Header().Set("Mcp-Session-Id", "S1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
		case method == "notifications/initialized":
			w.WriteHeader(202)
		case method == "tools/call":
			// A priming event, a retry, a multi-line notification, then
			// the stream drops before the answer.
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: e1\nretry: 50\ndata:\n\n: a comment\n")
			io.WriteString(w, "id: e2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\ndata: \"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		}
	})
	h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	read(t, h)
	h.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	h.Write([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}`))
	if m := read(t, h); !strings.Contains(m, `"notifications/progress","params"`) {
		t.Fatalf("multi-line event: %s", m)
	}
	if m := read(t, h); !strings.Contains(m, `"id":5,"result"`) {
		t.Fatalf("after resuming: %s", m)
	}
	call := rec.find("tools/call")
	if call.Header.Get("Mcp-Session-Id") != "S1" || call.Header.Get("MCP-Protocol-Version") != "2025-06-18" {
		t.Errorf("session headers: %v", call.Header)
	}
	h.Close()
	mu.Lock()
	defer mu.Unlock()
	if !deleted {
		t.Error("Close did not DELETE the session")
	}
}

func TestHTTPBrokenModernStreamAndExpiredSession(t *testing.T) {
	_, h := serve(t, func(w http.ResponseWriter, r *http.Request, method, body string) {
		switch {
		case strings.Contains(body, "2026-07-28"):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
		case r.Header.Get("Mcp-Session-Id") == "" && method == "initialize":
			w.Header().Set("Mcp-Session-Id", "S2")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
		default:
			w.WriteHeader(404)
		}
	})
	h.Write([]byte(fmt.Sprintf(modernCall, "t", "r")))
	read(t, h) // the log message
	if m := read(t, h); !strings.Contains(m, `"id":3,"error"`) || !strings.Contains(m, `"streamBroken":true`) {
		t.Errorf("broken stream: %s", m)
	}
	h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	read(t, h)
	h.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`))
	// The request is answered as not handled (the client may send it again
	// in a new session), then the stream ends.
	if m := read(t, h); !strings.Contains(m, `"id":2,"error"`) || !strings.Contains(m, `"sessionExpired":true`) {
		t.Errorf("404 for the session: %s", m)
	}
	m := read(t, h)
	if !strings.HasPrefix(m, "error: ") || !strings.Contains(m, "session") {
		t.Errorf("404 for the session should end the stream: %s", m)
	}
	_, err := h.Read()
	if errs.KindOf(err) != errs.Process {
		t.Errorf("kind %v", errs.KindOf(err))
	}
}

func TestHTTPModernCancelClosesTheStream(t *testing.T) {
	gone, open := make(chan struct{}), make(chan struct{})
	rec, h := serve(t, func(w http.ResponseWriter, r *http.Request, method, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		close(open)
		<-r.Context().Done() // until the client closes it
		close(gone)
	})
	h.Write([]byte(fmt.Sprintf(modernCall, "t", "r")))
	<-open // the call's stream is open
	h.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`))
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream was not closed")
	}
	if rec.find("notifications/cancelled") != nil {
		t.Error("notifications/cancelled was sent over 2026-07-28 HTTP")
	}
}

func TestHTTPUnreachable(t *testing.T) {
	h := NewHTTP("http://127.0.0.1:1/mcp", HTTPOptions{Name: "nowhere"})
	defer h.Close()
	h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`))
	_, err := h.Read()
	if errs.KindOf(err) != errs.Process || !strings.Contains(err.Error(), "cannot reach MCP server nowhere at http://127.0.0.1:1/mcp") {
		t.Errorf("err %v", err)
	}
}

func TestEncodeHeader(t *testing.T) {
	for in, want := range map[string]string{
		"echo":         "echo",
		"a b":          "a b",
		" lead":        "=?base64?IGxlYWQ=?=",
		"tab\tinside":  "tab\tinside",
		"ünï":          "=?base64?w7xuw68=?=",
		"=?base64?x?=": "=?base64?PT9iYXNlNjQ/eD89?=",
		"line\nbreak":  "=?base64?bGluZQpicmVhaw==?=",
		"":             "",
	} {
		if got := EncodeHeader(in); got != want {
			t.Errorf("EncodeHeader(%q) = %q, want %q", in, got, want)
		}
	}
}

// JSON that is not a JSON-RPC answer (an auth layer's or a proxy's body)
// still answers the request that got it, and a 401 says what to do.
func TestHTTPNonRPCBodiesAndAuthChallenges(t *testing.T) {
	_, h := serve(t, func(w http.ResponseWriter, r *http.Request, method, body string) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.Contains(body, `"id":1`):
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
			io.WriteString(w, `{"error":"invalid_token","error_description":"Missing Authorization header"}`)
		case strings.Contains(body, `"id":2`):
			w.WriteHeader(502)
			io.WriteString(w, `{"error":"upstream down"}`)
		default:
			w.WriteHeader(403)
		}
	})
	h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	m := read(t, h)
	for _, want := range []string{`"id":1,"error":{"code":-32600`, `HTTP 401 for initialize: the server requires authorization (resource metadata: http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp) [invalid_token]`, `"httpStatus":401`} {
		if !strings.Contains(m, want) {
			t.Errorf("401 answer %s lacks %s", m, want)
		}
	}
	h.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`))
	if m := read(t, h); !strings.Contains(m, `"id":2,"error":{"code":-32600`) || !strings.Contains(m, `"message":"HTTP 502 for tools/list: {\"error\":\"upstream down\"}"`) {
		t.Errorf("JSON non-RPC 502: %s", m)
	}
	h.Write([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`))
	if m := read(t, h); !strings.Contains(m, `HTTP 403 for tools/list: the server refused`) || !strings.Contains(m, `"httpStatus":403`) {
		t.Errorf("403: %s", m)
	}
}

// HTTP+SSE is tried only after a 400/404/405 to initialize without a
// modern error body; a 5xx or a modern error never leads there.
func TestHTTPFallsBackToSSEOnlyOn4xx(t *testing.T) {
	for _, tc := range []struct {
		name     string
		status   int
		body     string
		wantGET  bool
		wantText string
	}{
		{"404 page", 404, "Cannot POST /sse", true, "nor is it an HTTP+SSE server"},
		{"405", 405, "", true, "nor is it an HTTP+SSE server"},
		{"500", 500, "boom", false, "HTTP 500 for initialize"},
		{"modern -32022 on 400", 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2026-07-28"]}}}`, false, "-32022"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, h := serve(t, func(w http.ResponseWriter, r *http.Request, method, body string) {
				if r.Method == "GET" {
					w.WriteHeader(405) // no SSE endpoint either
					return
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
			m := read(t, h)
			if !strings.Contains(m, tc.wantText) {
				t.Errorf("answer %s lacks %q", m, tc.wantText)
			}
			if got := rec.find("GET") != nil; got != tc.wantGET {
				t.Errorf("GET tried: %v, want %v", got, tc.wantGET)
			}
		})
	}
}

// A working HTTP+SSE server: the endpoint event, POSTs there, every
// answer on the stream; the endpoint must be on the same origin.
func TestHTTPSSETransport(t *testing.T) {
	stream := make(chan string, 8)
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && r.URL.Path == "/sse":
			w.WriteHeader(404)
		case r.Method == "GET" && r.URL.Path == "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: endpoint\ndata: /message?sessionId=abc\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case m := <-stream:
					io.WriteString(w, "event: message\ndata: "+m+"\n\n")
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case r.Method == "POST" && r.URL.Path == "/message" && r.URL.Query().Get("sessionId") == "abc":
			b, _ := io.ReadAll(r.Body)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			json.Unmarshal(b, &m)
			w.WriteHeader(202)
			if m.ID != nil {
				stream <- `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"echo":"` + m.Method + `"}}`
			}
		default:
			w.WriteHeader(400)
		}
	}))
	defer ts.Close()
	h := NewHTTP(ts.URL+"/sse", HTTPOptions{Name: "old"})
	defer h.Close()
	h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	if m := read(t, h); m != `{"jsonrpc":"2.0","id":1,"result":{"echo":"initialize"}}` {
		t.Errorf("initialize: %s", m)
	}
	h.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	h.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`))
	if m := read(t, h); m != `{"jsonrpc":"2.0","id":2,"result":{"echo":"tools/list"}}` {
		t.Errorf("tools/list: %s", m)
	}
}

// On 401 the Authorize hook runs with the challenge and the token used,
// and the request goes again once with the new token; a refusal from the
// hook answers the request.
func TestHTTPAuthorizeHook(t *testing.T) {
	var mu sync.Mutex
	token := ""
	rec := &recorder{reply: func(w http.ResponseWriter, r *http.Request, method, body string) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/prm", scope="a b"`)
			w.WriteHeader(401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}}
	ts := httptest.NewServer(rec)
	defer ts.Close()
	var calls []string
	h := NewHTTP(ts.URL, HTTPOptions{
		Token: func(context.Context) (string, error) { mu.Lock(); defer mu.Unlock(); return token, nil },
		Authorize: func(_ context.Context, status int, challenge, used string) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, fmt.Sprintf("%d %s used=%q", status, challenge, used))
			if len(calls) > 1 {
				return false, errs.New(errs.Auth, "", "refused by the test")
			}
			token = "good"
			return true, nil
		},
	})
	defer h.Close()
	h.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	if m := read(t, h); m != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("after authorizing: %s", m)
	}
	if len(calls) != 1 || calls[0] != `401 Bearer resource_metadata="http://x/prm", scope="a b" used=""` {
		t.Errorf("hook calls %q", calls)
	}
	mu.Lock()
	token = "bad"
	mu.Unlock()
	h.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`))
	if m := read(t, h); !strings.Contains(m, `"id":2,"error"`) || !strings.Contains(m, "refused by the test") || !strings.Contains(m, `"httpStatus":401`) {
		t.Errorf("refused: %s", m)
	}
	if len(calls) != 2 || !strings.HasSuffix(calls[1], `used="bad"`) {
		t.Errorf("hook calls %q", calls)
	}
}

// A server that streams data lines without ever ending the event costs
// the client one MaxMessage, then the call fails as a broken stream.
func TestHTTPEndlessEventIsBounded(t *testing.T) {
	rec := &recorder{reply: func(w http.ResponseWriter, r *http.Request, method, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		line := "data: " + strings.Repeat("x", 1000) + "\n"
		for i := 0; i < 64<<10 && r.Context().Err() == nil; i++ { // at most 64 MB, if nothing stops it
			if _, err := io.WriteString(w, line); err != nil {
				return
			}
		}
	}}
	ts := httptest.NewServer(rec)
	t.Cleanup(ts.Close)
	h := NewHTTP(ts.URL+"/mcp", HTTPOptions{Name: "endless", MaxMessage: 1 << 20})
	t.Cleanup(func() { h.Close() })
	h.Write([]byte(fmt.Sprintf(modernCall, "t", "r")))
	if m := read(t, h); !strings.Contains(m, `"id":3,"error"`) || !strings.Contains(m, "larger than the limit") {
		t.Errorf("endless event: %s", m)
	}
}
