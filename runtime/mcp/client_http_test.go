package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/testkit"
	"github.com/luagent/luagent/runtime/trace"
)

// modernHTTP is a scripted 2026-07-28 server: discover is answered, other
// methods by call (the n-th POST of that method, from 1). posts lists a
// method's POSTs as "ID Mcp-Param-Region".
func modernHTTP(t *testing.T, call func(w http.ResponseWriter, r *http.Request, method string, n int, id json.RawMessage)) (url string, posts func(method string) []string) {
	s := testkit.ScriptedModern(t, "scripted", func(w http.ResponseWriter, r testkit.ScriptedRequest) {
		call(w, r.HTTP, r.Method, r.N, r.ID)
	})
	ForgetEra()
	return s.URL, func(method string) []string {
		var out []string
		for _, r := range s.Posts(method) {
			out = append(out, string(r.ID)+" "+r.HTTP.Header.Get("Mcp-Param-Region"))
		}
		return out
	}
}

func connectURL(t *testing.T, url string) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Connect(ctx, Options{URL: url, Name: "scripted", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

const okResult = `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`

// -32020 about an Mcp-Param-* header: tools/list is fetched again (the tool
// gained an x-mcp-header) and the call retried with the header.
func TestHTTPClientRefreshesToolsOnParamHeaderMismatch(t *testing.T) {
	url, posts := modernHTTP(t, func(w http.ResponseWriter, r *http.Request, method string, n int, id json.RawMessage) {
		switch method {
		case "tools/list":
			schema := `{"type":"object","properties":{"region":{"type":"string"}}}`
			if n > 1 {
				schema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"resultType":"complete","tools":[{"name":"t","inputSchema":`+schema+`}]}}`)
		case "tools/call":
			if r.Header.Get("Mcp-Param-Region") != "eu" {
				w.WriteHeader(400)
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32020,"message":"missing header Mcp-Param-Region for argument region"}}`)
				return
			}
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+okResult+`}`)
		}
	})
	c := connectURL(t, url)
	if _, err := c.CallTool(context.Background(), "t", json.RawMessage(`{"region":"eu"}`), CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := posts("tools/call"); len(got) != 2 || !strings.HasSuffix(got[1], " eu") {
		t.Errorf("tools/call POSTs %q: want a retry carrying Mcp-Param-Region", got)
	}
	if n := len(posts("tools/list")); n != 2 {
		t.Errorf("%d tools/list, want 2 (one refresh)", n)
	}
}

// A 401 on the probe ends connect at once with kind auth.
func TestHTTPClientUnauthorized(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(401)
	}))
	defer ts.Close()
	ForgetEra()
	start := time.Now()
	_, err := Connect(context.Background(), Options{URL: ts.URL + "/mcp", Timeout: 5 * time.Second})
	if errs.KindOf(err) != errs.Auth || !strings.Contains(err.Error(), "requires authorization") {
		t.Errorf("kind %v: %v", errs.KindOf(err), err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
}

// A 2025-11-25 session the server forgot (404): the client initializes a
// new one and sends the call there.
func TestHTTPClientReinitializesExpiredSession(t *testing.T) {
	var mu sync.Mutex
	sessions, inits := map[string]bool{}, 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(b, &m)
		mu.Lock()
		defer mu.Unlock()
		if r.Method != "POST" {
			w.WriteHeader(405)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "server/discover":
			w.WriteHeader(400)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}`)
		case m.Method == "initialize":
			inits++
			sid := "S" + string(rune('0'+inits))
			sessions[sid] = true
			w.Header().Set("Mcp-Session-Id", sid)
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
		case !sessions[r.Header.Get("Mcp-Session-Id")]:
			w.WriteHeader(404)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}`)
		case m.ID == nil:
			w.WriteHeader(202)
		case m.Method == "tools/list":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":"in `+r.Header.Get("Mcp-Session-Id")+`"}]}}`)
		}
	}))
	defer ts.Close()
	ForgetEra()
	c := connectURL(t, ts.URL+"/mcp")
	ctx := context.Background()
	if r, err := c.CallTool(ctx, "t", nil, CallOptions{}); err != nil || r.Text() != "in S1" {
		t.Fatalf("first call: %v %v", r, err)
	}
	mu.Lock()
	sessions = map[string]bool{} // the server restarts and forgets
	mu.Unlock()
	r, err := c.CallTool(ctx, "t", nil, CallOptions{})
	if err != nil || r.Text() != "in S2" {
		t.Fatalf("call after the session expired: %v %v", r, err)
	}
}

// On a 2026-07-28 HTTP timeout the request's stream is closed, which is
// that era's cancellation: nothing is sent, so no notification_out for
// notifications/cancelled is traced, but a stream_cancelled is.
func TestHTTPTimeoutTracesNoCancelledNotification(t *testing.T) {
	closed := make(chan struct{})
	url, _ := modernHTTP(t, func(w http.ResponseWriter, r *http.Request, method string, n int, id json.RawMessage) {
		switch method {
		case "tools/call":
			<-r.Context().Done() // the client closes the stream
			close(closed)
		case "tools/list":
			testkit.ScriptedTools(w, id, `{"name":"slow","inputSchema":{"type":"object"}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	rec := &trace.Recorder{}
	c, err := Connect(context.Background(), Options{URL: url, Name: "scripted", Timeout: 200 * time.Millisecond, Trace: rec})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(context.Background(), "slow", nil, CallOptions{})
	if errs.KindOf(err) != errs.Timeout {
		t.Fatalf("call: %v", err)
	}
	<-closed
	var cancelled, streams int
	for _, e := range rec.Events() {
		if e.Kind == trace.NotificationOut && e.Method == "notifications/cancelled" {
			cancelled++
		}
		if e.Kind == trace.StreamCancelled && e.Method == "tools/call" {
			streams++
		}
	}
	if cancelled != 0 || streams != 1 {
		t.Errorf("%d notification_out notifications/cancelled (want 0), %d stream_cancelled (want 1): %+v", cancelled, streams, rec.Events())
	}
}

// A 401 on a call (the token expired or was revoked after connecting) is
// an auth error that says authorization was refused and what to do, not
// "answered error -32600".
func TestHTTPCallUnauthorizedIsAuthError(t *testing.T) {
	url, _ := modernHTTP(t, func(w http.ResponseWriter, r *http.Request, method string, n int, id json.RawMessage) {
		switch method {
		case "tools/list":
			testkit.ScriptedTools(w, id, `{"name":"t","inputSchema":{"type":"object"}}`)
		case "tools/call":
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
	c := connectURL(t, url)
	_, err := c.CallTool(context.Background(), "t", nil, CallOptions{})
	if errs.KindOf(err) != errs.Auth {
		t.Fatalf("kind %v: %v", errs.KindOf(err), err)
	}
	msg := err.Error()
	for _, want := range []string{`"scripted" refused authorization`, "HTTP 401", "[invalid_token]", "luagent mcp login " + url, "or fix the token"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	for _, bad := range []string{"-32600", "answered error", "mcp.connect{", "\n"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error %q has %q", msg, bad)
		}
	}
}
