package httpserver_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// Options.Authorize guards every method of both eras, after the Host and
// Origin checks.
func TestAuthorize(t *testing.T) {
	srv := goServer("go-test")
	auth, err := httpserver.NewAuth(httpserver.AuthConfig{Path: "/", Validate: httpserver.StaticToken("tok")})
	if err != nil {
		t.Fatal(err)
	}
	h := httpserver.NewHandler(srv, httpserver.Options{KeepAlive: 50 * time.Millisecond, Authorize: auth.Check})
	ts := newTestServer(t, h)
	t.Cleanup(func() { h.Close(); ts.Close(); srv.Close() })
	bearer := map[string]string{"Authorization": "Bearer tok"}
	with := func(a, b map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range a {
			out[k] = v
		}
		for k, v := range b {
			out[k] = v
		}
		return out
	}

	// 2026-07-28: one POST per request.
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + envelope + `}}`
	if r := post(t, ts.URL, modernHeaders("server/discover", ""), discover); r.status != 401 || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), `Bearer resource_metadata="`) {
		t.Errorf("modern without a token: %d %v", r.status, r.header)
	}
	if r := post(t, ts.URL, with(modernHeaders("server/discover", ""), bearer), discover); r.status != 200 {
		t.Errorf("modern with the token: %d %s", r.status, r.body)
	}
	// A foreign Origin is refused as such (403) before any token question.
	if r := post(t, ts.URL, with(modernHeaders("server/discover", ""), map[string]string{"Origin": "https://evil.example"}), discover); r.status != 403 {
		t.Errorf("foreign Origin without a token: %d %s", r.status, r.body)
	}

	// 2025-11-25: initialize, the GET stream and DELETE all need the token.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if r := post(t, ts.URL, nil, init); r.status != 401 {
		t.Errorf("initialize without a token: %d %s", r.status, r.body)
	}
	r := post(t, ts.URL, bearer, init)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != 200 || sid == "" {
		t.Fatalf("initialize with the token: %d %s", r.status, r.body)
	}
	session := with(bearer, map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if r := post(t, ts.URL, map[string]string{"Mcp-Session-Id": sid}, list); r.status != 401 {
		t.Errorf("a session's request without the token: %d", r.status)
	}
	if r := post(t, ts.URL, session, list); r.status != 200 || !strings.Contains(r.body, "echo") {
		t.Errorf("a session's request with the token: %d %s", r.status, r.body)
	}
	do := func(method string, headers map[string]string) int {
		req, _ := http.NewRequest(method, ts.URL, nil)
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // a GET stream ends here
		return resp.StatusCode
	}
	if s := do("GET", map[string]string{"Mcp-Session-Id": sid}); s != 401 {
		t.Errorf("GET without the token: %d", s)
	}
	if s := do("GET", session); s != 200 {
		t.Errorf("GET with the token: %d", s)
	}
	if s := do("DELETE", map[string]string{"Mcp-Session-Id": sid}); s != 401 {
		t.Errorf("DELETE without the token: %d", s)
	}
	if s := do("DELETE", session); s != 200 {
		t.Errorf("DELETE with the token: %d", s)
	}
}
