package httpserver

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

const secret = "s3cret-T0ken_x.y~z+/="

const metaURL = "http://example.test/.well-known/oauth-protected-resource/mcp"

// guarded returns a mux serving /mcp behind a and the metadata document,
// as luagent serve mounts them.
func guarded(t *testing.T, a *Auth) http.Handler {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", a.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("served"))
	})))
	mux.HandleFunc(a.MetadataPath(), a.ServeMetadata)
	return mux
}

func mustNew(t *testing.T, cfg AuthConfig) *Auth {
	t.Helper()
	a, err := NewAuth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestCheck(t *testing.T) {
	a := mustNew(t, AuthConfig{Path: "/mcp", Validate: StaticToken(secret)})
	h := guarded(t, a)
	plain := `Bearer resource_metadata="` + metaURL + `"`
	invalidToken := plain + `, error="invalid_token", error_description="the token is not valid"`
	invalidRequest := func(desc string) string {
		return plain + `, error="invalid_request", error_description="` + desc + `"`
	}
	cases := []struct {
		name      string
		method    string
		auth      []string // Authorization header values
		status    int
		challenge string // WWW-Authenticate; "" = none
	}{
		{"no token", "POST", nil, 401, plain},
		{"no token GET (legacy stream)", "GET", nil, 401, plain},
		{"no token DELETE (legacy session end)", "DELETE", nil, 401, plain},
		{"wrong token", "POST", []string{"Bearer nope"}, 401, invalidToken},
		{"token with a suffix", "POST", []string{"Bearer " + secret + "x"}, 401, invalidToken},
		{"token prefix", "POST", []string{"Bearer " + secret[:5]}, 401, invalidToken},
		{"right token", "POST", []string{"Bearer " + secret}, 200, ""},
		{"right token GET", "GET", []string{"Bearer " + secret}, 200, ""},
		{"right token DELETE", "DELETE", []string{"Bearer " + secret}, 200, ""},
		{"scheme is case-insensitive", "POST", []string{"bearer " + secret}, 200, ""},
		{"extra spaces", "POST", []string{"  Bearer   " + secret + "  "}, 200, ""},
		{"Basic scheme", "POST", []string{"Basic xx"}, 401, plain},
		{"token without scheme", "POST", []string{secret}, 401, plain},
		{"Bearer with empty token", "POST", []string{"Bearer "}, 400, invalidRequest("the Bearer token is empty")},
		{"Bearer alone", "POST", []string{"Bearer"}, 400, invalidRequest("the Bearer token is empty")},
		{"token with a space", "POST", []string{"Bearer " + secret + " more"}, 400, invalidRequest("the Bearer token has spaces, control or non-ASCII characters")},
		{"two Authorization headers", "POST", []string{"Bearer " + secret, "Bearer " + secret}, 400, invalidRequest("send one Authorization header, not several")},
		{"CORS preflight needs none", "OPTIONS", nil, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(c.method, "http://example.test/mcp", strings.NewReader("{}"))
			for _, v := range c.auth {
				r.Header.Add("Authorization", v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.status {
				t.Fatalf("status %d, want %d (body %s)", w.Code, c.status, w.Body)
			}
			if got := w.Header().Get("WWW-Authenticate"); got != c.challenge {
				t.Errorf("WWW-Authenticate:\n got %s\nwant %s", got, c.challenge)
			}
			if strings.Contains(w.Body.String()+w.Header().Get("WWW-Authenticate"), secret) {
				t.Errorf("the token leaked into the response: %s", w.Body)
			}
			if c.status == 200 {
				if w.Body.String() != "served" {
					t.Errorf("body %q: the request did not reach the endpoint", w.Body)
				}
				return
			}
			// Refusals are JSON-RPC errors an MCP client can show.
			var body struct {
				JSONRPC string
				Error   struct {
					Code    int
					Message string
					Data    struct{ HTTPStatus int }
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.JSONRPC != "2.0" || body.Error.Code != -32600 || body.Error.Data.HTTPStatus != c.status {
				t.Errorf("body %s (%v)", w.Body, err)
			}
			prefix := map[int]string{401: "unauthorized: ", 400: "bad request: "}[c.status]
			if !strings.HasPrefix(body.Error.Message, prefix) || len(body.Error.Message) < len(prefix)+10 {
				t.Errorf("message %q does not say what failed", body.Error.Message)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

func TestChallengeScopesAndHost(t *testing.T) {
	a := mustNew(t, AuthConfig{Path: "/api/mcp", Scopes: []string{"notes:read", "notes:write"}, Validate: StaticToken(secret)})
	r := httptest.NewRequest("POST", "http://localhost:8123/api/mcp", nil)
	r.TLS = &tls.ConnectionState{}
	w := httptest.NewRecorder()
	if a.Check(w, r) {
		t.Fatal("accepted without a token")
	}
	want := `Bearer resource_metadata="https://localhost:8123/.well-known/oauth-protected-resource/api/mcp", scope="notes:read notes:write"`
	if got := w.Header().Get("WWW-Authenticate"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A fixed public resource URL (behind a proxy) decides both URLs.
	a = mustNew(t, AuthConfig{Path: "/mcp", Resource: "https://mcp.example.com/public/mcp", Validate: StaticToken(secret)})
	w = httptest.NewRecorder()
	a.Check(w, httptest.NewRequest("POST", "http://127.0.0.1:9/mcp", nil))
	want = `Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp"`
	if got := w.Header().Get("WWW-Authenticate"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// No Host (HTTP/1.0): the configured origin stands in.
	a = mustNew(t, AuthConfig{Path: "/mcp", Origin: "http://127.0.0.1:7", Validate: StaticToken(secret)})
	r = httptest.NewRequest("POST", "/mcp", nil)
	r.Host = ""
	w = httptest.NewRecorder()
	a.Check(w, r)
	if got := w.Header().Get("WWW-Authenticate"); got != `Bearer resource_metadata="http://127.0.0.1:7/.well-known/oauth-protected-resource/mcp"` {
		t.Errorf("got %s", got)
	}
}

func TestValidatorOutcomes(t *testing.T) {
	var logged []string
	var verdict error
	a := mustNew(t, AuthConfig{Path: "/mcp", Log: func(m string) { logged = append(logged, m) },
		Validate: func(ctx context.Context, token string, r *http.Request) error {
			if token != "tok-123" || r.URL.Path != "/mcp" || ctx == nil {
				t.Errorf("validator got %q %s", token, r.URL.Path)
			}
			return verdict
		}})
	try := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "http://example.test/mcp", nil)
		r.Header.Set("Authorization", "Bearer tok-123")
		w := httptest.NewRecorder()
		if ok := a.Check(w, r); ok != (verdict == nil) {
			t.Errorf("Check = %v with verdict %v", ok, verdict)
		}
		return w
	}
	verdict = nil
	if w := try(); w.Code != 200 {
		t.Errorf("accepted: %d", w.Code)
	}
	// The reason becomes error_description: quotes and control characters
	// cannot break the header, and the token is never repeated.
	verdict = Refuse("expired \"yesterday\"\n for tok-123")
	w := try()
	want := `Bearer resource_metadata="` + metaURL + `", error="invalid_token", error_description="expired 'yesterday'  for [token]"`
	if w.Code != 401 || w.Header().Get("WWW-Authenticate") != want {
		t.Errorf("%d %s\nwant %s", w.Code, w.Header().Get("WWW-Authenticate"), want)
	}
	if !strings.Contains(w.Body.String(), `"message":"unauthorized: expired \"yesterday\"\n for [token]"`) {
		t.Errorf("token in body %s", w.Body)
	}
	// A failing check is the server's fault: 500, logged without the token.
	verdict = errs.New(errs.Runtime, "", "validator error: boom while checking tok-123")
	w = try()
	if w.Code != 500 || w.Header().Get("WWW-Authenticate") != "" || !strings.Contains(w.Body.String(), `"code":-32603,"message":"internal error: the token check failed`) {
		t.Errorf("%d %q %s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body)
	}
	if len(logged) != 1 || logged[0] != "auth: the token check failed: validator error: boom while checking [token]" {
		t.Errorf("logged %q", logged)
	}
	// A plain Go error is a failure too, not a refusal.
	verdict = errors.New("database down")
	if w := try(); w.Code != 500 {
		t.Errorf("plain error: %d", w.Code)
	}
}

func TestMetadata(t *testing.T) {
	a := mustNew(t, AuthConfig{Path: "/mcp", AuthorizationServers: []string{"https://auth.example.com", "http://127.0.0.1:9000/tenant"},
		Scopes: []string{"notes:read"}, ResourceName: "notes", Validate: StaticToken(secret)})
	h := guarded(t, a)
	if a.MetadataPath() != "/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("path %s", a.MetadataPath())
	}
	// No token needed.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", metaURL, nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
	var doc map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resource":                 "http://example.test/mcp",
		"authorization_servers":    []any{"https://auth.example.com", "http://127.0.0.1:9000/tenant"},
		"scopes_supported":         []any{"notes:read"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "notes",
	}
	if got, _ := json.Marshal(doc); string(got) != mustJSON(want) {
		t.Errorf("document\n got %s\nwant %s", got, mustJSON(want))
	}
	// The resource is the URL the client used (RFC 9728 §3.3: it must
	// match the URL the metadata was derived from).
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "http://localhost:4242/.well-known/oauth-protected-resource/mcp", nil))
	if !strings.Contains(w.Body.String(), `"resource": "http://localhost:4242/mcp"`) {
		t.Errorf("%s", w.Body)
	}
	// Minimal: no authorization servers or scopes configured, no fields.
	b := mustNew(t, AuthConfig{Path: "/", Validate: StaticToken(secret)})
	if b.MetadataPath() != WellKnown {
		t.Errorf("root endpoint's metadata path %s", b.MetadataPath())
	}
	w = httptest.NewRecorder()
	b.ServeMetadata(w, httptest.NewRequest("GET", "http://example.test"+WellKnown, nil))
	if got := strings.Join(strings.Fields(w.Body.String()), ""); got != `{"resource":"http://example.test/","bearer_methods_supported":["header"]}` {
		t.Errorf("minimal document %s", got)
	}
	// HEAD has no body; OPTIONS is a CORS preflight; others are refused.
	for _, c := range []struct {
		method string
		status int
	}{{"HEAD", 200}, {"OPTIONS", 204}, {"POST", 405}, {"DELETE", 405}} {
		w = httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(c.method, metaURL, nil))
		if w.Code != c.status || (c.method == "HEAD" && w.Body.Len() != 0) {
			t.Errorf("%s: %d %q", c.method, w.Code, w.Body)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestNewRefusesBadConfig(t *testing.T) {
	ok := StaticToken("x")
	for _, c := range []struct {
		cfg  AuthConfig
		want string
	}{
		{AuthConfig{Path: "/mcp"}, "no token check"},
		{AuthConfig{Path: "mcp", Validate: ok}, "must start with /"},
		{AuthConfig{Path: "/mcp", Validate: ok, Resource: "/mcp"}, "absolute"},
		{AuthConfig{Path: "/mcp", Validate: ok, Resource: "https://x/mcp#f"}, "fragment"},
		{AuthConfig{Path: "/mcp", Validate: ok, AuthorizationServers: []string{"auth.example.com"}}, "absolute"},
		{AuthConfig{Path: "/mcp", Validate: ok, AuthorizationServers: []string{"http://auth.example.com"}}, "must use https"},
		{AuthConfig{Path: "/mcp", Validate: ok, AuthorizationServers: []string{"http://127.evil.com"}}, "must use https"},
		{AuthConfig{Path: "/mcp", Validate: ok, AuthorizationServers: []string{"https://a.example.com?x=1"}}, "query"},
		{AuthConfig{Path: "/mcp", Validate: ok, Scopes: []string{"a b"}}, "not a valid OAuth scope"},
		{AuthConfig{Path: "/mcp", Validate: ok, Scopes: []string{`a"`}}, "not a valid OAuth scope"},
	} {
		_, err := NewAuth(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errs.Is(err, errs.Invalid) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	for _, u := range []string{"https://auth.example.com", "https://auth.example.com/tenant1", "http://localhost:9000", "http://127.0.0.1:9000", "http://[::1]:1"} {
		if err := CheckServerURL(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

func TestEnvToken(t *testing.T) {
	t.Setenv("LUAGENT_TEST_TOKEN_OK", secret)
	t.Setenv("LUAGENT_TEST_TOKEN_EMPTY", "")
	t.Setenv("LUAGENT_TEST_TOKEN_SPACE", "has space-"+secret)
	if tok, err := EnvToken("LUAGENT_TEST_TOKEN_OK"); err != nil || tok != secret {
		t.Errorf("%q %v", tok, err)
	}
	for name, want := range map[string]string{
		"LUAGENT_TEST_TOKEN_UNSET": "LUAGENT_TEST_TOKEN_UNSET is not set",
		"LUAGENT_TEST_TOKEN_EMPTY": "LUAGENT_TEST_TOKEN_EMPTY is empty",
		"LUAGENT_TEST_TOKEN_SPACE": "the token in LUAGENT_TEST_TOKEN_SPACE has spaces",
	} {
		_, err := EnvToken(name)
		if err == nil || !strings.Contains(err.Error(), want) || !errs.Is(err, errs.Invalid) {
			t.Errorf("%s: %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error shows the token: %v", name, err)
		}
	}
}

func TestNilAuthAllows(t *testing.T) {
	var a *Auth
	if !a.Check(httptest.NewRecorder(), httptest.NewRequest("POST", "/mcp", nil)) {
		t.Error("a nil Auth refused a request")
	}
}
