package mcp_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// headerLog records the requests an origin received: method and the
// credential headers.
type headerLog struct {
	mu   sync.Mutex
	reqs []string // "METHOD path Authorization|X-Api-Key|Cookie|DPoP"
}

func (l *headerLog) add(r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key")+"|"+r.Header.Get("Cookie")+"|"+r.Header.Get("DPoP"))
}

func (l *headerLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

// redirecting is an MCP server (both eras, at /real) behind /mcp, whose
// answer to each request is chosen by route: "" serves it, else the
// Location of a redirect. other is a second origin that must never be
// reached.
type redirecting struct {
	url   string // the configured endpoint, with credentials in userinfo and query
	a, b  string // the two origins
	real  headerLog
	other headerLog
	hits  int // requests to /mcp
	mu    sync.Mutex
}

func newRedirecting(t *testing.T, route func(r *http.Request, a, b string) (code int, location string)) *redirecting {
	rd := &redirecting{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rd.other.add(r)
		w.WriteHeader(500)
	}))
	t.Cleanup(other.Close)
	srv := mcp.NewServer(mcp.ServerOptions{Info: mcp.Implementation{Name: "moved", Version: "1"}})
	t.Cleanup(func() { srv.Close() })
	mcp.AddToolFunc(srv, mcp.Tool{Name: "hello"}, func(context.Context, struct{}) (*mcp.CallToolResult, error) {
		return mcp.TextResult("hi"), nil
	})
	h := httpserver.NewHandler(srv, httpserver.Options{})
	t.Cleanup(h.Close)
	mux := http.NewServeMux()
	a := httptest.NewServer(mux)
	t.Cleanup(a.Close)
	rd.a, rd.b = a.URL, other.URL
	mux.HandleFunc("/real", func(w http.ResponseWriter, r *http.Request) {
		rd.real.add(r)
		h.ServeHTTP(w, r)
	})
	redirect := func(w http.ResponseWriter, r *http.Request) {
		rd.mu.Lock()
		rd.hits++
		rd.mu.Unlock()
		code, loc := route(r, rd.a, rd.b)
		if loc == "" {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(code)
	}
	mux.HandleFunc("/mcp", redirect)
	mux.HandleFunc("/loop", redirect)
	u, _ := url.Parse(a.URL + "/mcp?api_key=query-s3cret")
	u.User = url.UserPassword("user", "pass-s3cret")
	rd.url = u.String()
	mcp.ForgetEra()
	return rd
}

// options configure every credential luagent can send: a bearer token
// bound to a DPoP key (so it goes as DPoP with a proof), configured
// headers (an API key, a cookie) and a cookie jar holding the origin's
// cookie (cookies are not scoped by port: 127.0.0.1 is both origins).
func (rd *redirecting) options(t *testing.T, protocol string) mcp.Options {
	d, err := oauth.NewDPoP(nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Adopt(d.KeyPEM(), "tok-s3cret")
	jar, _ := cookiejar.New(nil)
	a, _ := url.Parse(rd.a)
	jar.SetCookies(a, []*http.Cookie{{Name: "jar", Value: "jar-s3cret"}})
	return mcp.Options{
		Name:       "moved",
		URL:        rd.url,
		Protocol:   protocol,
		Header:     http.Header{"X-Api-Key": {"key-s3cret"}, "Cookie": {"sid=cookie-s3cret"}},
		Token:      func(context.Context) (string, error) { return "tok-s3cret", nil },
		HTTPClient: &http.Client{Transport: d.RoundTripper(nil), Jar: jar},
		Timeout:    5 * time.Second, StartupTimeout: 5 * time.Second, ProbeTimeout: 2 * time.Second,
	}
}

// checkRefused: err is the redirect refusal, naming both origins and
// nothing else of the URL, and the other origin got nothing.
func (rd *redirecting) checkRefused(t *testing.T, err error) {
	t.Helper()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if errs.KindOf(err) != errs.Protocol || !strings.Contains(msg, rd.a) || !strings.Contains(msg, rd.b) || !strings.Contains(msg, "update") {
		t.Errorf("kind %v: %q; want kind protocol naming %s and %s and what to do", errs.KindOf(err), msg, rd.a, rd.b)
	}
	for _, secret := range []string{"s3cret", "/mcp", "/elsewhere", "user"} {
		if strings.Contains(msg, secret) {
			t.Errorf("the error shows %q: %s", secret, msg)
		}
	}
	if got := rd.other.all(); len(got) != 0 {
		t.Errorf("the other origin was sent %q", got)
	}
}

// A redirect of the MCP endpoint to another origin (another port here) is
// refused, in both eras and for every request (POST, the 2025-11-25 GET
// stream, DELETE): that origin receives nothing at all, no credential
// and no MCP request.
func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	away := func(code int, methods ...string) func(r *http.Request, a, b string) (int, string) {
		return func(r *http.Request, a, b string) (int, string) {
			for _, m := range methods {
				if r.Method == m {
					return code, b + "/elsewhere?token=also-s3cret"
				}
			}
			return 0, ""
		}
	}
	for _, tc := range []struct {
		name     string
		protocol string
		route    func(r *http.Request, a, b string) (int, string)
	}{
		{"modern POST, 307", "modern", away(307, "POST")},
		{"legacy POST, 308", "legacy", away(308, "POST")},
		{"auto POST, 307", "auto", away(307, "POST")},
		{"legacy GET stream", "legacy", away(307, "GET")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := newRedirecting(t, tc.route)
			ctx := context.Background()
			c, err := mcp.Connect(ctx, rd.options(t, tc.protocol))
			if err == nil {
				// The GET stream is refused after initialize: the next
				// request says why.
				_, err = c.Tools(ctx)
				c.Close()
			}
			rd.checkRefused(t, err)
		})
	}
	t.Run("legacy DELETE", func(t *testing.T) {
		rd := newRedirecting(t, away(307, "DELETE"))
		c, err := mcp.Connect(context.Background(), rd.options(t, "legacy"))
		if err != nil {
			t.Fatal(err)
		}
		if r, err := c.CallTool(context.Background(), "hello", nil, mcp.CallOptions{}); err != nil || r.Text() != "hi" {
			t.Fatalf("%v %v", r, err)
		}
		c.Close()
		if got := rd.other.all(); len(got) != 0 {
			t.Errorf("the other origin was sent %q", got)
		}
	})
}

// A redirect within the origin is followed, with every credential, in
// both eras and for every request.
func TestRedirectWithinTheOriginIsFollowed(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		methods  []string // the HTTP methods /real must see, credentials and all
	}{
		{"modern", []string{"POST"}},
		{"legacy", []string{"POST", "GET", "DELETE"}},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			rd := newRedirecting(t, func(r *http.Request, a, b string) (int, string) {
				if r.Method == "POST" {
					return 307, "/real"
				}
				return 308, a + "/real"
			})
			c, err := mcp.Connect(context.Background(), rd.options(t, tc.protocol))
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.CallTool(context.Background(), "hello", nil, mcp.CallOptions{})
			era := c.Info().Era
			c.Close()
			if err != nil || r.Text() != "hi" {
				t.Fatalf("%v %v", r, err)
			}
			if era.String() != tc.protocol {
				t.Errorf("era %s", era)
			}
			seen := map[string]bool{}
			for _, req := range rd.real.all() {
				method, rest, _ := strings.Cut(req, " ")
				if !strings.Contains(rest, "DPoP tok-s3cret|key-s3cret|") || !strings.Contains(rest, "sid=cookie-s3cret") || !strings.Contains(rest, "jar=jar-s3cret") || strings.HasSuffix(rest, "|") {
					t.Errorf("credentials lost on the way: %s", req)
				}
				seen[method] = true
			}
			for _, m := range tc.methods {
				if !seen[m] {
					t.Errorf("no %s reached the server (%q)", m, rd.real.all())
				}
			}
		})
	}
}

// A redirect loop ends quickly with an error of kind protocol that says
// so, after a bounded number of requests.
func TestRedirectLoopEnds(t *testing.T) {
	rd := newRedirecting(t, func(r *http.Request, a, b string) (int, string) {
		if r.URL.Path == "/mcp" {
			return 307, "/loop"
		}
		return 307, "/mcp"
	})
	start := time.Now()
	_, err := mcp.Connect(context.Background(), rd.options(t, "modern"))
	if errs.KindOf(err) != errs.Protocol || !strings.Contains(err.Error(), "redirect") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("kind %v: %v", errs.KindOf(err), err)
	}
	rd.mu.Lock()
	hits := rd.hits
	rd.mu.Unlock()
	if d := time.Since(start); d > 2*time.Second || hits > 30 {
		t.Errorf("the loop took %v and %d requests", d, hits)
	}
}

// luagent mcp login asks the server for its challenge: a redirect to
// another origin is refused there too.
func TestLoginRedirectToAnotherOriginIsRefused(t *testing.T) {
	rd := newRedirecting(t, func(r *http.Request, a, b string) (int, string) { return 307, b + "/mcp" })
	_, err := mcp.Login(context.Background(), rd.a+"/mcp?api_key=query-s3cret", mcp.OAuthOptions{Config: oauth.Config{Browse: func(context.Context, string) (string, error) {
		t.Error("the browser step was reached")
		return "", nil
	}}}, nil)
	rd.checkRefused(t, err)
}
