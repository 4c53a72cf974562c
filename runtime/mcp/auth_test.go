package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// protected is a 2026-07-28 MCP server behind a minimal authorization
// server (one origin): it accepts only the access token the token endpoint
// issued last, and counts authorizations and refreshes.
type protected struct {
	srv                 *httptest.Server
	mu                  sync.Mutex
	access              string
	authorized, refresh atomic.Int32
	n                   int
}

func newProtected(t *testing.T) *protected {
	p := &protected{}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *protected) serve(w http.ResponseWriter, r *http.Request) {
	base := p.srv.URL
	switch r.URL.Path {
	case "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource":
		json.NewEncoder(w).Encode(map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	case "/.well-known/oauth-authorization-server":
		json.NewEncoder(w).Encode(map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "code_challenge_methods_supported": []string{"S256"}, "response_types_supported": []string{"code"}})
	case "/register":
		w.WriteHeader(201)
		io.WriteString(w, `{"client_id":"c1","token_endpoint_auth_method":"none"}`)
	case "/authorize":
		p.authorized.Add(1)
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=the-code&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	case "/token":
		r.ParseForm()
		if r.Form.Get("grant_type") == "refresh_token" {
			p.refresh.Add(1)
		}
		p.mu.Lock()
		p.n++
		p.access = "tok" + string(rune('0'+p.n))
		tok := p.access
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "refresh_token": "r" + tok, "expires_in": 3600})
	case "/mcp":
		p.mu.Lock()
		ok := p.access != "" && r.Header.Get("Authorization") == "Bearer "+p.access
		p.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(401)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.Unmarshal(b, &m)
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`)
		default:
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","tools":[]}}`)
		}
	default:
		w.WriteHeader(404)
	}
}

// expire makes the server forget the token it issued (the client must
// refresh).
func (p *protected) expire() { p.mu.Lock(); p.access = "gone"; p.mu.Unlock() }

// browse is the headless browser step: the redirect's Location.
func browse(ctx context.Context, authURL string) (string, error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	return resp.Header.Get("Location"), nil
}

// Login stores a credential; a client then uses it without authorizing
// again, refreshes it once when the server refuses it, and several calls
// refused at once refresh once.
func TestOAuthLoginStoreAndRefresh(t *testing.T) {
	p := newProtected(t)
	st := store.New(t.TempDir())
	u := p.srv.URL + "/mcp"
	opts := OAuthOptions{Store: st, Config: oauth.Config{ServerURL: u, Browse: browse}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cred, err := Login(ctx, u, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cred.Issuer != p.srv.URL || p.authorized.Load() != 1 {
		t.Fatalf("login: issuer %q, %d authorizations", cred.Issuer, p.authorized.Load())
	}
	if saved, _ := st.Load(u); saved == nil || saved.AccessToken != cred.AccessToken {
		t.Fatal("the credential was not stored")
	}
	ForgetEra()
	c, err := Connect(ctx, Options{URL: u, OAuth: &opts, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if p.authorized.Load() != 1 {
		t.Errorf("connecting with a stored token authorized again")
	}
	p.expire()
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	for range 4 {
		wg.Go(func() { _, err := c.Tools(ctx); c.lists.invalidate(); errc <- err })
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Errorf("call after the token expired: %v", err)
		}
	}
	if n := p.refresh.Load(); n != 1 {
		t.Errorf("%d refreshes for 4 refused calls, want 1", n)
	}
	if p.authorized.Load() != 1 {
		t.Errorf("a refused token sent the user to the browser again")
	}
}

func TestOAuthLoginServerWithoutAuth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) }))
	defer srv.Close()
	_, err := Login(context.Background(), srv.URL+"/mcp", OAuthOptions{Config: oauth.Config{Browse: browse}}, nil)
	if errs.KindOf(err) != errs.Invalid || !strings.Contains(err.Error(), "does not ask for authorization") {
		t.Errorf("%v", err)
	}
}
