package hub

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// oneTool serves a single tool, whoami.
type oneTool struct{}

func (oneTool) Capabilities() mcp.HandlerCapabilities { return mcp.HandlerCapabilities{Tools: true} }
func (oneTool) Handle(r *mcp.Request) {
	switch r.Method {
	case "tools/list":
		r.Reply(json.RawMessage(`{"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}`))
	case "tools/call":
		r.Reply(json.RawMessage(`{"content":[{"type":"text","text":"authorized"}]}`))
	default:
		r.Fail(errs.New(errs.NotFound, "", "no such method"))
	}
}

// authorizing is a Streamable HTTP MCP server behind bearer tokens
// (runtime/transport/httpserver, 401 with resource metadata) and a minimal
// authorization server on the same origin that approves without a person.
type authorizing struct {
	srv        *httptest.Server
	mu         sync.Mutex
	tokens     map[string]bool
	authorized atomic.Int32
}

func newAuthorizing(t *testing.T) *authorizing {
	a := &authorizing{tokens: map[string]bool{}}
	mux := http.NewServeMux()
	a.srv = httptest.NewServer(mux)
	t.Cleanup(a.srv.Close)
	base := a.srv.URL
	guard, err := httpserver.NewAuth(httpserver.AuthConfig{Path: "/mcp", AuthorizationServers: []string{base},
		Validate: func(_ context.Context, tok string, _ *http.Request) error {
			a.mu.Lock()
			defer a.mu.Unlock()
			if !a.tokens[tok] {
				return httpserver.Refuse("unknown token")
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	h := httpserver.NewHandler(mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "authorizing", Version: "1"}, Handler: oneTool{}}), httpserver.Options{})
	t.Cleanup(h.Close)
	mux.Handle("/mcp", guard.Wrap(h))
	mux.HandleFunc(guard.MetadataPath(), guard.ServeMetadata)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		io.WriteString(w, `{"client_id":"c1","token_endpoint_auth_method":"none"}`)
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		a.authorized.Add(1)
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c&iss="+url.QueryEscape(base)+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		tok := "tok" + string(rune('a'+len(a.tokens)))
		a.tokens[tok] = true
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	return a
}

// follow is a headless browser step: the authorization redirect's Location.
func follow(ctx context.Context, authURL string) (string, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	return resp.Header.Get("Location"), nil
}

// A server that needs OAuth is needs_auth at a background start, never
// authorized behind the user's back; Reauthorize logs in and restarts it;
// a later hub uses the stored credential without asking.
func TestReauthorize(t *testing.T) {
	a := newAuthorizing(t)
	st := store.New(filepath.Join(t.TempDir(), "creds"))
	var browsed atomic.Int32
	browse := func(ctx context.Context, u string) (string, error) { browsed.Add(1); return follow(ctx, u) }
	entry := &catalog.Server{Name: "remote", Enabled: true, URL: a.srv.URL + "/mcp"}
	h := New([]*catalog.Server{entry}, Options{Store: st, Browse: browse})
	defer h.Close()
	h.Start()
	ctx := context.Background()
	h.Wait(ctx)
	if s := h.Status()[0]; s.Status != NeedsAuth {
		t.Fatalf("before login: %s %v", s.Status, s.Err)
	}
	if browsed.Load() != 0 || a.authorized.Load() != 0 {
		t.Fatal("a background start authorized")
	}
	if err := h.Reauthorize(ctx, "remote"); err != nil {
		t.Fatal(err)
	}
	h.Wait(ctx)
	if s := h.Status()[0]; s.Status != Ready {
		t.Fatalf("after login: %s %v", s.Status, s.Err)
	}
	if r, err := h.Call(ctx, "remote__whoami", nil, CallOptions{}); err != nil || r.Text() != "authorized" {
		t.Fatalf("call: %v %v", r, err)
	}

	h2 := New([]*catalog.Server{entry}, Options{Store: st, Browse: browse})
	defer h2.Close()
	h2.Start()
	h2.Wait(ctx)
	if s := h2.Status()[0]; s.Status != Ready || browsed.Load() != 1 {
		t.Fatalf("with a stored credential: %s %v, %d browser steps", s.Status, s.Err, browsed.Load())
	}
	if err := New(nil, Options{}).Reauthorize(ctx, "remote"); err == nil {
		t.Error("reauthorize of an unknown server")
	}
}
