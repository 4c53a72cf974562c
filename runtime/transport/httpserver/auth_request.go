package httpserver

import (
	"net/http"
	"strings"
)

// Request is what a validator outside Go (a Lua server's s:auth) sees of
// an HTTP request: plain values, copied, since such a validator may run
// after the request's own goroutine stopped waiting for it. Headers are by
// lower-case name, several values joined with ", ". Authorization is left
// out: the token comes separately, and a script that logs the headers must
// not log it.
type Request struct {
	Method, Path, Remote string
	Headers              map[string]string
}

// RequestOf copies what a validator sees of r.
func RequestOf(r *http.Request) Request {
	q := Request{Method: r.Method, Path: r.URL.Path, Remote: r.RemoteAddr, Headers: make(map[string]string, len(r.Header))}
	for k, vs := range r.Header {
		if k != "Authorization" {
			q.Headers[strings.ToLower(k)] = strings.Join(vs, ", ")
		}
	}
	return q
}
