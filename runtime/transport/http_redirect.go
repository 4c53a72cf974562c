package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/luagent/luagent/runtime/errs"
)

// maxRedirects bounds the redirects one request follows (net/http allows
// 10): a loop ends at once with an error, not after a wait.
const maxRedirects = 5

// Origin is u's scheme://host[:port] (lower case, default port left out):
// what a credential is bound to, and all of a URL that a message about
// where a request went may show (never a path, query or userinfo).
func Origin(u *url.URL) string {
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

// SameOrigin returns a copy of c that follows a redirect only within the
// origin of the request it started from, and at most maxRedirects times.
// A redirect to another origin is not followed: the request fails with an
// error of kind protocol that names both origins. So the MCP requests, the
// configured headers, the bearer token, its DPoP proof and cookies go to
// the origin the server was configured with and nowhere else (net/http
// alone keeps Authorization on another port of the same host, and custom
// headers everywhere). who names the server in that error ("MCP server
// \"docs\"").
func SameOrigin(c *http.Client, who string) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cp := *c
	next := c.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		from, to := Origin(via[0].URL), Origin(req.URL)
		if from != to {
			return &errs.Error{Kind: errs.Protocol, Err: errRedirect, Msg: fmt.Sprintf(
				"%s at %s redirected to another origin, %s; luagent sends nothing there (no request, no credentials): if the server has moved, update the server's url to its address at %s",
				who, from, to, to)}
		}
		if len(via) >= maxRedirects {
			return &errs.Error{Kind: errs.Protocol, Err: errRedirect, Msg: fmt.Sprintf(
				"%s at %s redirected %d times without answering (a redirect loop?); check the server's url", who, from, len(via))}
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &cp
}

// errRedirect marks the errors of redirects SameOrigin refused.
var errRedirect = errors.New("redirect refused")

// redirectRefused returns the error of a request whose redirect SameOrigin
// refused (its *errs.Error, without net/http's wrapping, which quotes the
// URL whole).
func redirectRefused(err error) (*errs.Error, bool) {
	var e *errs.Error
	if errors.Is(err, errRedirect) && errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
