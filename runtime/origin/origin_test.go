package origin

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/luagent/luagent/runtime/errs"
)

// Origins compare as a browser does: scheme, host and port, case and
// default ports aside; a path, query or userinfo never shows.
func TestOrigin(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://127.0.0.1:8080/mcp?token=x", "http://127.0.0.1:8080"},
		{"HTTPS://User:pw@Example.COM:443/a", "https://example.com"},
		{"http://example.com:80", "http://example.com"},
		{"https://example.com:80/", "https://example.com:80"},
		{"http://[::1]:9000/mcp", "http://[::1]:9000"},
	} {
		u, _ := url.Parse(tc.url)
		if got := Of(u); got != tc.want {
			t.Errorf("Origin(%s) = %s, want %s", tc.url, got, tc.want)
		}
	}
}

// Client's redirect check: within the origin is followed (and the
// client's own policy still applies); another scheme, host or port is
// refused with kind protocol; the chain is bounded.
func TestClientRedirects(t *testing.T) {
	own := 0
	c := Client(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { own++; return nil }}, `MCP server "x"`)
	req := func(u string) *http.Request {
		r, _ := http.NewRequest("POST", u, nil)
		return r
	}
	from := req("https://mcp.example.com/mcp?key=secret")
	for _, tc := range []struct {
		to   string
		via  int
		kind errs.Kind
	}{
		{"https://mcp.example.com/v2/mcp", 1, errs.Unknown},
		{"https://MCP.example.com:443/v2", 1, errs.Unknown},
		{"http://mcp.example.com/mcp", 1, errs.Protocol},       // downgrade
		{"https://mcp.example.com:8443/mcp", 1, errs.Protocol}, // another port
		{"https://evil.mcp.example.com/mcp", 1, errs.Protocol}, // a subdomain is another origin
		{"https://example.com/mcp", 1, errs.Protocol},
		{"https://mcp.example.com/again", MaxRedirects, errs.Protocol}, // too many
	} {
		via := []*http.Request{from}
		for len(via) < tc.via {
			via = append(via, req("https://mcp.example.com/hop"))
		}
		err := c.CheckRedirect(req(tc.to), via)
		if errs.KindOf(err) != tc.kind || (err == nil) != (tc.kind == errs.Unknown) {
			t.Errorf("%s after %d: kind %v: %v", tc.to, tc.via, errs.KindOf(err), err)
		}
		if _, ok := Refused(err); ok != (err != nil) {
			t.Errorf("%s: not recognised as a refused redirect: %v", tc.to, err)
		}
	}
	if own != 2 {
		t.Errorf("the client's own CheckRedirect ran %d times, want 2", own)
	}
}
