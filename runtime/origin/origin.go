// Package origin keeps HTTP requests, and the credentials they carry, with
// the origin (scheme, host and port) they were made for: a client that
// follows redirects only within that origin, and the origin's name for
// messages.
//
// net/http alone follows a redirect anywhere, with the request's custom
// headers (an API key) and its cookies, and keeps Authorization for
// another port of the same host. An HTTP client that sends credentials
// goes through Client:
//
//	hc := origin.Client(http.DefaultClient, `MCP server "docs"`)
//	resp, err := hc.Do(req) // a redirect elsewhere: err of kind protocol
//	if e, ok := origin.Refused(err); ok { ... e.Msg names both origins }
package origin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// MaxRedirects bounds the redirects one request follows (net/http allows
// 10): a loop ends at once with an error, not after a wait.
const MaxRedirects = 5

// Of is u's scheme://host[:port] (lower case, default port left out):
// what a credential is bound to, and all of a URL that a message about
// where a request went may show (never a path, query or userinfo).
func Of(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// Client returns a copy of c (nil: http.DefaultClient) that follows a
// redirect only within the origin of the request it started from, and at
// most MaxRedirects times; c's own CheckRedirect still applies. A redirect
// to another origin is not followed: the request fails with an error of
// kind protocol that names both origins and says what to do, so nothing
// the request carries (headers, a token and its DPoP proof, cookies, the
// body) reaches an origin it was not made for. who names the peer in that
// error (`MCP server "docs"`, `the model provider`).
func Client(c *http.Client, who string) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cp := *c
	next := c.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		from, to := Of(via[0].URL), Of(req.URL)
		if from != to {
			return &errs.Error{Kind: errs.Protocol, Err: errRefused, Msg: fmt.Sprintf(
				"%s at %s redirected to another origin, %s; luagent sends nothing there (no request, no credentials): if it has moved, update its url to its address at %s",
				who, from, to, to)}
		}
		if len(via) >= MaxRedirects {
			return &errs.Error{Kind: errs.Protocol, Err: errRefused, Msg: fmt.Sprintf(
				"%s at %s redirected %d times without answering (a redirect loop?); check its url", who, from, len(via))}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &cp
}

// errRefused marks the errors of redirects Client refused.
var errRefused = errors.New("redirect refused")

// Refused returns the error of a request whose redirect Client refused:
// its *errs.Error, without net/http's wrapping (which quotes the URL whole,
// query and all).
func Refused(err error) (*errs.Error, bool) {
	var e *errs.Error
	if errors.Is(err, errRefused) && errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
