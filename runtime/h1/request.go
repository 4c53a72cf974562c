package h1

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// A statusError is a request the server refuses before any handler sees it;
// the connection is closed after the answer.
type statusError struct {
	code int
	text string
}

func (e *statusError) Error() string { return strconv.Itoa(e.code) + " " + e.text }

func bad(text string) error { return &statusError{http.StatusBadRequest, text} }

// errNoRequest is a connection that ended (or timed out) between requests:
// nothing to answer.
var errNoRequest = errors.New("h1: no request")

// headerEnd finds the blank line ending the request head in b (CRLF or LF
// line ends), searching from `from`; it returns the index just past it, or -1.
func headerEnd(b []byte, from int) int {
	for i := max(from, 0); ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
		if i < len(b) && b[i] == '\n' {
			return i + 1
		}
		if i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
			return i + 2
		}
	}
}

// readHead reads the request line and header fields, up to and including
// the blank line, and returns them as one string (one allocation for every
// string of the request). Bytes of a pipelined next request stay buffered.
func (c *conn) readHead() (string, error) {
	br := c.br
	limit := c.srv.maxHeaderBytes()
	// Fast path: the whole head is in (or arrives into) the read buffer.
	scanned := 0
	for {
		n := br.Buffered()
		if n > 0 {
			b, _ := br.Peek(n)
			if scanned == 0 {
				// Blank lines before a request line are ignored (RFC 9112
				// §2.2: some clients send CRLF after a POST body).
				k := 0
				for k < n && (b[k] == '\r' || b[k] == '\n') {
					k++
				}
				if k > 0 {
					br.Discard(k)
					continue
				}
				c.setActive()
			}
			if end := headerEnd(b, scanned-3); end >= 0 {
				if end > limit {
					return "", errHeadTooLarge
				}
				head := string(b[:end])
				br.Discard(end)
				return head, nil
			}
			scanned = n
			if n == br.Size() {
				break // larger than the buffer: accumulate below
			}
		}
		if n > 0 {
			c.headStarted()
		}
		if _, err := br.Peek(n + 1); err != nil {
			return "", headReadError(err, n > 0)
		}
	}
	// Slow path: a head larger than the read buffer.
	var acc []byte
	for {
		b, _ := br.Peek(br.Buffered())
		from := len(acc) - 3
		acc = append(acc, b...)
		if end := headerEnd(acc, from); end >= 0 {
			if end > limit {
				return "", errHeadTooLarge
			}
			br.Discard(len(b) - (len(acc) - end)) // the rest is the next request's
			return string(acc[:end]), nil
		}
		br.Discard(len(b))
		if len(acc) > limit {
			return "", errHeadTooLarge
		}
		if _, err := br.Peek(1); err != nil {
			return "", headReadError(err, true)
		}
	}
}

var errHeadTooLarge = &statusError{http.StatusRequestHeaderFieldsTooLarge, "request header fields too large"}

// headReadError maps a failed read of a request head: between requests (no
// byte of one yet) it is the end of the connection, answered by nothing.
func headReadError(err error, partial bool) error {
	if partial && isTimeout(err) {
		return &statusError{http.StatusRequestTimeout, "request head not received in time"}
	}
	return errNoRequest
}

// parsed is what parseHead learns beside the http.Request.
type parsed struct {
	keepAlive bool
	expect    bool  // Expect: 100-continue
	length    int64 // Content-Length, -1 for chunked
}

// parseHead turns a request head into an http.Request (without Body and
// context). Everything a smuggling or rebinding attack could use is
// refused: obs-folded lines, whitespace before a colon, bare CR, invalid
// names or values, several differing Content-Lengths, Transfer-Encoding
// with Content-Length, any coding but chunked, a missing or repeated Host.
func parseHead(head string, r *http.Request) (parsed, error) {
	var p parsed
	line, rest, err := nextLine(head)
	if err != nil {
		return p, err
	}
	method, line, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(line, " ")
	if !ok1 || !ok2 || method == "" || target == "" {
		return p, bad("malformed request line")
	}
	if !isToken(method) {
		return p, bad("invalid method")
	}
	switch proto {
	case "HTTP/1.1":
		r.ProtoMajor, r.ProtoMinor = 1, 1
	case "HTTP/1.0":
		r.ProtoMajor, r.ProtoMinor = 1, 0
	default:
		if strings.HasPrefix(proto, "HTTP/") {
			return p, &statusError{http.StatusHTTPVersionNotSupported, "HTTP version not supported (this server speaks HTTP/1.1)"}
		}
		return p, bad("malformed request line")
	}
	r.Method, r.Proto, r.RequestURI = method, proto, target

	// The fields go to a list first, then into the map with one insert
	// each; a name seen twice (rare) takes a second pass that appends.
	type field struct{ k, v string }
	var arr [24]field
	fs := arr[:0]
	var hosts, lengths, codings int
	var host, length, coding string
	p.length = 0
	for {
		var f string
		if f, rest, err = nextLine(rest); err != nil {
			return p, err
		}
		if f == "" {
			break
		}
		if f[0] == ' ' || f[0] == '\t' {
			return p, bad("obsolete line folding in a header field")
		}
		i := strings.IndexByte(f, ':')
		if i <= 0 {
			return p, bad("malformed header field")
		}
		name, v := f[:i], trimOWS(f[i+1:])
		key, ok := canonical(name)
		if !ok {
			return p, bad("invalid header field name")
		}
		if !validValue(v) {
			return p, bad("invalid header field value for " + key)
		}
		switch key {
		case "Host": // Request.Host, not a field (as net/http)
			hosts++
			host = v
			continue
		case "Transfer-Encoding": // Request.TransferEncoding
			codings++
			coding = v
			continue
		case "Content-Length":
			if lengths > 0 && v != length {
				return p, bad("differing Content-Length values")
			}
			lengths++
			length = v
		}
		fs = append(fs, field{key, v})
	}
	h := make(http.Header, len(fs))
	vals := make([]string, len(fs))
	for i, f := range fs {
		vals[i] = f.v
		h[f.k] = vals[i : i+1 : i+1]
	}
	if len(h) != len(fs) {
		clear(h)
		for i, f := range fs {
			if old, seen := h[f.k]; seen {
				h[f.k] = append(old, f.v)
			} else {
				h[f.k] = vals[i : i+1 : i+1]
			}
		}
	}
	r.Header = h

	if codings > 0 {
		if lengths > 0 {
			return p, bad("both Transfer-Encoding and Content-Length")
		}
		if codings != 1 || !strings.EqualFold(coding, "chunked") {
			return p, &statusError{http.StatusNotImplemented, "unsupported Transfer-Encoding (only chunked)"}
		}
		if r.ProtoMinor == 0 {
			return p, bad("Transfer-Encoding in an HTTP/1.0 request")
		}
		r.TransferEncoding = []string{"chunked"}
		p.length = -1
	} else if lengths > 0 {
		n, err := strconv.ParseUint(length, 10, 63)
		if err != nil || length[0] == '+' {
			return p, bad("invalid Content-Length")
		}
		p.length = int64(n)
	}
	r.ContentLength = p.length

	if hosts > 1 {
		return p, bad("more than one Host header")
	}
	if hosts == 0 && r.ProtoMinor == 1 {
		return p, bad("missing required Host header")
	}
	if hosts == 1 {
		r.Host = host
		if !validHost(r.Host) {
			return p, bad("invalid Host header")
		}
	}
	if r.URL, err = parseTarget(method, target); err != nil {
		return p, err
	}
	if r.URL.Host != "" {
		r.Host = r.URL.Host // absolute form wins over the Host header
	}

	conn := h["Connection"]
	p.keepAlive = r.ProtoMinor == 1
	if hasToken(conn, "close") {
		p.keepAlive = false
	} else if r.ProtoMinor == 0 && hasToken(conn, "keep-alive") {
		p.keepAlive = true
	}
	r.Close = !p.keepAlive
	if ex := h["Expect"]; len(ex) > 0 {
		if !hasToken(ex, "100-continue") {
			return p, &statusError{http.StatusExpectationFailed, "unsupported Expect header (only 100-continue)"}
		}
		// HTTP/1.0 clients know no 100 Continue (RFC 9110 §10.1.1).
		p.expect = r.ProtoMinor == 1 && p.length != 0
	}
	return p, nil
}

// nextLine splits off the first line of s (its CRLF or LF dropped).
func nextLine(s string) (line, rest string, err error) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return "", "", bad("malformed request head")
	}
	line, rest = s[:i], s[i+1:]
	if strings.HasSuffix(line, "\r") {
		line = line[:len(line)-1]
	}
	if strings.IndexByte(line, '\r') >= 0 {
		return "", "", bad("bare CR in the request head")
	}
	return line, rest, nil
}

// parseTarget parses the request target: origin form ("/path?q"), absolute
// form, or "*" for OPTIONS.
func parseTarget(method, target string) (*url.URL, error) {
	if target == "*" {
		if method != http.MethodOptions {
			return nil, bad("asterisk target outside OPTIONS")
		}
		return &url.URL{Path: "*"}, nil
	}
	if target[0] == '/' && simplePath(target) {
		return &url.URL{Path: target}, nil
	}
	if method == http.MethodConnect {
		return nil, &statusError{http.StatusMethodNotAllowed, "CONNECT is not supported"}
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, bad("invalid request target")
	}
	return u, nil
}

// simplePath reports whether a target is a path needing no decoding: no
// query, fragment, percent-escape or byte outside printable ASCII.
func simplePath(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c <= ' ' || c >= 0x7f || c == '%' || c == '?' || c == '#' {
			return false
		}
	}
	return true
}

func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// tokenChars marks the bytes of an RFC 9110 token; hostChars those of a
// Host value (below).
var tokenChars, hostChars = alnumAnd("!#$%&'*+-.^_`|~"), alnumAnd("!$%&'()*+,-.:;=[]_~")

// alnumAnd is the set of ASCII letters and digits plus the bytes of extra.
func alnumAnd(extra string) (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range extra {
		t[c] = true
	}
	return t
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenChars[s[i]] {
			return false
		}
	}
	return true
}

// validValue: no control bytes but HTAB (RFC 9110 field-value).
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// validHost is net/http's lenient check of a Host value: only bytes that
// some form of uri-host[:port] may hold.
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if !hostChars[h[i]] {
			return false
		}
	}
	return true
}

// canonical returns the canonical form of a field name (Content-Type), the
// name itself when it already is one (no allocation), and whether it is a
// valid token.
func canonical(name string) (string, bool) {
	upper, already := true, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !tokenChars[c] {
			return "", false
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			already = false
		}
		upper = c == '-'
	}
	if already {
		return name, true
	}
	if k, ok := common[strings.ToLower(name)]; ok {
		return k, true
	}
	return http.CanonicalHeaderKey(name), true
}

// common are field names clients send in lower case (Node, curl -H) that
// http.CanonicalHeaderKey would allocate for: it interns only the names
// net/textproto knows (Content-Type, Host, ...), not these.
var common = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"Authorization", "Expect", "Keep-Alive", "Last-Event-Id",
		"Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id", "Origin", "Referer",
		"Sec-Fetch-Mode", "Traceparent", "Transfer-Encoding", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		m[strings.ToLower(k)] = k
	}
	return m
}()

// hasToken reports whether a comma-separated field (Connection) holds tok.
func hasToken(vals []string, tok string) bool {
	for _, v := range vals {
		for v != "" {
			var t string
			t, v, _ = strings.Cut(v, ",")
			if strings.EqualFold(trimOWS(t), tok) {
				return true
			}
		}
	}
	return false
}
