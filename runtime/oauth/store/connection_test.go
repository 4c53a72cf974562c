package store

import (
	"context"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// Credentials bound to a connectionId: two connections to the same URL hold
// different credentials, apart from the URL's own file; a changed URL keeps
// the binding only where the tokens' resource covers the new URL.
func TestConnectionBinding(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	a, b := s.Connection("conn-a", testURL), s.Connection("conn-b", testURL)
	if a.Path() == b.Path() || a.Path() == s.Path(testURL) {
		t.Fatalf("connections share a file: %s %s %s", a.Path(), b.Path(), s.Path(testURL))
	}
	if strings.Contains(a.Path(), "conn-a") {
		t.Errorf("the file name shows the connectionId: %s", a.Path())
	}
	if err := a.Save(ctx, cred("tok-a", "r-a")); err != nil {
		t.Fatal(err)
	}
	if err := b.Save(ctx, cred("tok-b", "r-b")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		e    *Entry
		want string
	}{{a, "tok-a"}, {b, "tok-b"}} {
		if c, err := tc.e.Load(); err != nil || c == nil || c.AccessToken != tc.want {
			t.Errorf("%s: %+v %v, want %s", tc.e.Path(), c, err, tc.want)
		}
	}
	if c, err := s.Load(testURL); err != nil || c != nil {
		t.Errorf("the URL's own credential: %+v %v, want none", c, err)
	}

	tests := []struct {
		name, url string
		want      string // "" none
	}{
		{"same URL", testURL, "tok-a"},
		{"a path under the resource", testURL + "/v2", "tok-a"},
		{"same host, another path", "https://mcp.example.com/other", ""},
		{"another host", "https://evil.example.net/mcp", ""},
		{"http instead of https", "http://mcp.example.com/mcp", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.Connection("conn-a", tt.url).Load()
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if c != nil {
				got = c.AccessToken
			}
			if got != tt.want {
				t.Errorf("token %q, want %q", got, tt.want)
			}
		})
	}

	// A file that holds another connection's record is refused.
	other := s.Connection("conn-c", testURL)
	other.path = a.Path()
	if _, err := other.Load(); errs.KindOf(err) != errs.Invalid || strings.Contains(err.Error(), "tok-a") {
		t.Errorf("another connection's file: %v", err)
	}
}
