package oauth

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Discovery fetches (which follow redirects: metadata may live elsewhere)
// carry no credential, and the requests that do carry one — registration,
// token exchange and refresh, with client secrets and DPoP proofs — follow
// no redirect at all: another origin never sees a secret.
func TestRedirectsCarryNoCredentials(t *testing.T) {
	var mu sync.Mutex
	var other []string
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		other = append(other, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization")+" cookie="+r.Header.Get("Cookie")+" dpop="+r.Header.Get("DPoP")+" body="+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"resource":"`+r.URL.Query().Get("rs")+`","authorization_servers":["http://127.0.0.1:1"]}`)
	}))
	defer b.Close()
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", b.URL+r.URL.Path+"?rs=http://"+r.Host+"/mcp")
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	defer a.Close()
	f, err := New(Config{ServerURL: a.URL + "/mcp", ClientID: "c1", ClientSecret: "client-s3cret", DPoP: true, Browse: fetchLocation})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := f.discoverResource(ctx, Challenge{}); err != nil {
		t.Fatalf("metadata behind a redirect: %v", err)
	}
	mu.Lock()
	fetched := len(other)
	for _, r := range other {
		if !strings.HasPrefix(r, "GET /.well-known/") || !strings.Contains(r, "auth= cookie= dpop= body=") {
			t.Errorf("a metadata fetch carried something: %s", r)
		}
	}
	mu.Unlock()
	if fetched == 0 {
		t.Fatal("the redirect was not followed")
	}
	cred := &Credential{ClientID: "c1", ClientSecret: "client-s3cret", TokenAuth: AuthBasic, TokenEndpoint: a.URL + "/token",
		AccessToken: "old-s3cret", RefreshToken: "refresh-s3cret"}
	if _, err := f.Refresh(ctx, cred); err == nil {
		t.Error("a refresh answered by a redirect succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(other) != fetched {
		t.Errorf("the token request followed the redirect: %q", other[fetched:])
	}
}
