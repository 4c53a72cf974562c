package mcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
)

// HTTPAuth's rules, one row each: a supplied token wins and turns OAuth
// off; OAuth nil is none; a background start uses only a kept credential
// (a token file that must be usable, or the store's) and never a browser.
func TestHTTPAuthApply(t *testing.T) {
	const u = "https://example.com/mcp"
	dir := t.TempDir()
	st := store.New(filepath.Join(dir, "creds"))
	if err := st.Save(context.Background(), u, &oauth.Credential{AccessToken: "a", TokenEndpoint: "https://example.com/token"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "tok.json")
	if err := os.WriteFile(file, []byte(`{"access_token":"a","token_endpoint":"https://example.com/token"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := func() *oauth.Config { return &oauth.Config{} }
	for _, tt := range []struct {
		name      string
		a         HTTPAuth
		url       string
		token     string // the static token sent, "" for none
		oauth     bool
		entry     bool // the credential lives in the token file
		kind      errs.Kind
		browseErr bool // a browser step is refused
	}{
		{name: "token wins", a: HTTPAuth{AccessToken: "t", TokenFile: file, OAuth: cfg(), Store: st}, token: "t"},
		{name: "no oauth", a: HTTPAuth{TokenFile: file}},
		{name: "oauth", a: HTTPAuth{OAuth: cfg(), Store: st}, oauth: true},
		{name: "token file", a: HTTPAuth{OAuth: cfg(), Store: st, TokenFile: file}, oauth: true, entry: true},
		{name: "background without a store", a: HTTPAuth{OAuth: cfg(), Background: true}},
		{name: "background stored", a: HTTPAuth{OAuth: cfg(), Store: st, Background: true}, oauth: true, browseErr: true},
		{name: "background not stored", a: HTTPAuth{OAuth: cfg(), Store: st, Background: true}, url: "https://other.example/mcp"},
		{name: "background token file", a: HTTPAuth{OAuth: cfg(), TokenFile: file, Background: true}, oauth: true, entry: true, browseErr: true},
		{name: "background missing token file", a: HTTPAuth{OAuth: cfg(), TokenFile: filepath.Join(dir, "none.json"), Background: true}, kind: errs.NotFound},
		{name: "bad url", a: HTTPAuth{AccessToken: "t", OAuth: cfg()}, url: "http://%zz"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{URL: u}
			if tt.url != "" {
				o.URL = tt.url
			}
			err := tt.a.Apply(&o)
			if tt.kind != errs.Unknown {
				if errs.KindOf(err) != tt.kind {
					t.Fatalf("err = %v, want kind %v", err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tok := ""
			if o.Token != nil {
				tok, _ = o.Token(context.Background())
			}
			if tok != tt.token || (o.OAuth != nil) != tt.oauth || (tt.token != "") != (o.tokenFrom == EnvAccessToken) {
				t.Fatalf("token %q (from %q), oauth %v", tok, o.tokenFrom, o.OAuth)
			}
			if o.OAuth == nil {
				return
			}
			if (o.OAuth.Entry != nil) != tt.entry || o.OAuth.Config.ServerURL != o.URL || o.OAuth.Config.ClientName != "luagent" {
				t.Errorf("OAuth options %+v", o.OAuth)
			}
			if tt.browseErr {
				if b := o.OAuth.Config.Browse; b == nil {
					t.Error("a background start may open a browser")
				} else if _, err := b(context.Background(), "x"); errs.KindOf(err) != errs.Auth {
					t.Errorf("background browse: %v", err)
				}
			}
		})
	}
}
