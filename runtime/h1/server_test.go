package h1_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptrace"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luagent/luagent/internal/syncbuf"
	"github.com/luagent/luagent/runtime/h1"
)

// seen is what the echo handler saw of a request.
type seen struct {
	Method, Path, RawQuery, Host, Proto, RequestURI string
	Header                                          http.Header
	TE                                              []string
	Length                                          int64
	Body                                            string
	BodyErr                                         string
}

// echo answers a request with what it saw, as JSON.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	s := seen{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Host: r.Host, Proto: r.Proto,
		RequestURI: r.RequestURI, Header: r.Header, TE: r.TransferEncoding, Length: r.ContentLength, Body: string(b)}
	if err != nil {
		s.BodyErr = err.Error()
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s)
})

type server struct {
	*h1.Server
	addr string
	logs *syncbuf.Buffer
}

// start serves h on a loopback port until the test ends.
func start(t testing.TB, h http.Handler, opts ...func(*h1.Server)) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	s := &h1.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(logs, "", 0)}
	for _, o := range opts {
		o(s)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		s.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want http.ErrServerClosed", err)
		}
	})
	return &server{Server: s, addr: ln.Addr().String(), logs: logs}
}

func (s *server) url(path string) string { return "http://" + s.addr + path }

// raw sends bytes on a new connection, half-closes it, and returns all the
// server wrote.
func (s *server) raw(t testing.TB, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("reading the answer: %v (got %q)", err, out)
	}
	return string(out)
}

// responses parses every response in out (answers to pipelined requests).
func responses(t testing.TB, out string) []*http.Response {
	t.Helper()
	br := bufio.NewReader(strings.NewReader(out))
	var rs []*http.Response
	for {
		if _, err := br.Peek(1); err != nil {
			return rs
		}
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("unparsable answer: %v in %q", err, out)
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatalf("answer body: %v in %q", err, out)
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		rs = append(rs, r)
	}
}

func decodeSeen(t testing.TB, r *http.Response) seen {
	t.Helper()
	var s seen
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("not the echo handler's answer: %q", b)
	}
	return s
}

func TestParse(t *testing.T) {
	s := start(t, echo)
	for _, tc := range []struct {
		name, req string
		check     func(t *testing.T, s seen)
	}{
		{"get", "GET /mcp HTTP/1.1\r\nHost: localhost:1\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Method, "GET")
			want(t, s.Path, "/mcp")
			want(t, s.Host, "localhost:1")
			want(t, s.Proto, "HTTP/1.1")
			if _, ok := s.Header["Host"]; ok {
				t.Error("Host stays in Header; net/http moves it to Request.Host")
			}
		}},
		{"post body", "POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello", func(t *testing.T, s seen) {
			want(t, s.Body, "hello")
			want(t, s.Length, int64(5))
		}},
		{"chunked body with extensions and trailers", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: 1\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Body, "abcde")
			want(t, s.Length, int64(-1))
			want(t, strings.Join(s.TE, ","), "chunked")
			if _, ok := s.Header["Transfer-Encoding"]; ok {
				t.Error("Transfer-Encoding stays in Header")
			}
		}},
		{"lower-case names are canonical", "GET / HTTP/1.1\r\nhost: h\r\nmcp-session-id: abc\r\nx-some_thing: 1\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Host, "h")
			want(t, s.Header.Get("Mcp-Session-Id"), "abc")
			want(t, strings.Join(s.Header["X-Some_thing"], ","), "1")
		}},
		{"repeated fields keep their order", "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: x\r\na: 2\r\n\r\n", func(t *testing.T, s seen) {
			want(t, strings.Join(s.Header["A"], ","), "1,2")
		}},
		{"values trimmed of optional whitespace", "GET / HTTP/1.1\r\nHost: h\r\nA: \t v w \t\r\nB:\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Header.Get("A"), "v w")
			want(t, strings.Join(s.Header["B"], "|"), "")
		}},
		{"LF line ends", "GET / HTTP/1.1\nHost: h\nA: 1\n\n", func(t *testing.T, s seen) {
			want(t, s.Header.Get("A"), "1")
		}},
		{"blank lines before the request line", "\r\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Path, "/x")
		}},
		{"query and escapes", "GET /a%20b?x=1&y=%2F HTTP/1.1\r\nHost: h\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Path, "/a b")
			want(t, s.RawQuery, "x=1&y=%2F")
			want(t, s.RequestURI, "/a%20b?x=1&y=%2F")
		}},
		{"absolute form names the host", "GET http://example.test:9/p HTTP/1.1\r\nHost: other\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Host, "example.test:9")
			want(t, s.Path, "/p")
		}},
		{"HTTP/1.0 needs no Host", "GET / HTTP/1.0\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Proto, "HTTP/1.0")
		}},
		{"the same Content-Length twice", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", func(t *testing.T, s seen) {
			want(t, s.Body, "ok")
		}},
		{"chunked is case-insensitive", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", func(t *testing.T, s seen) {
			want(t, s.Body, "x")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := responses(t, s.raw(t, tc.req))
			if len(rs) != 1 || rs[0].StatusCode != 200 {
				t.Fatalf("want one 200 answer, got %d: %+v", len(rs), rs)
			}
			tc.check(t, decodeSeen(t, rs[0]))
		})
	}
}

func want[T comparable](t *testing.T, got, w T) {
	t.Helper()
	if got != w {
		t.Errorf("got %v, want %v", got, w)
	}
}

// Requests refused before any handler: a status, a line saying why, and the
// connection closed (what follows the bad request is never read as one).
func TestRefused(t *testing.T) {
	var calls atomic.Int32
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
	}))
	next := "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n"
	for _, tc := range []struct {
		name, req string
		status    int
		why       string
	}{
		{"missing Host", "GET / HTTP/1.1\r\n\r\n", 400, "missing required Host"},
		{"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "more than one Host"},
		{"bad Host", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, "invalid Host"},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\n 2\r\n\r\n", 400, "folding"},
		{"space before colon", "GET / HTTP/1.1\r\nHost: h\r\nContent-Length : 5\r\n\r\nhello", 400, "field name"},
		{"bare CR", "GET / HTTP/1.1\r\nHost: h\r\nA: 1\r2\r\n\r\n", 400, "bare CR"},
		{"control byte in a value", "GET / HTTP/1.1\r\nHost: h\r\nA: 1\x002\r\n\r\n", 400, "value"},
		{"no colon", "GET / HTTP/1.1\r\nHost: h\r\nnocolon\r\n\r\n", 400, "malformed header"},
		{"empty name", "GET / HTTP/1.1\r\nHost: h\r\n: x\r\n\r\n", 400, "malformed header"},
		{"Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "both"},
		{"differing Content-Lengths", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "differing"},
		{"Content-Length with a sign", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\na", 400, "invalid Content-Length"},
		{"negative Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, "invalid Content-Length"},
		{"Content-Length list", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 1\r\n\r\na", 400, "invalid Content-Length"},
		{"gzip coding", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, "Transfer-Encoding"},
		{"two codings fields", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501, "Transfer-Encoding"},
		{"HTTP/1.0 chunked", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "HTTP/1.0"},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, "version"},
		{"extra field in the request line", "GET / x HTTP/1.1\r\nHost: h\r\n\r\n", 400, "malformed request line"},
		{"no version", "GET /\r\nHost: h\r\n\r\n", 400, "malformed request line"},
		{"bad method", "G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "method"},
		{"unknown expectation", "POST / HTTP/1.1\r\nHost: h\r\nExpect: magic\r\nContent-Length: 1\r\n\r\na", 417, "Expect"},
		{"asterisk without OPTIONS", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400, "asterisk"},
		{"CONNECT", "CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n", 405, "CONNECT"},
		{"head too large", "GET / HTTP/1.1\r\nHost: h\r\nA: " + strings.Repeat("x", 1<<20) + "\r\n\r\n", 431, "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			rs := responses(t, s.raw(t, tc.req+next))
			if len(rs) != 1 {
				t.Fatalf("want one answer (then the connection closed), got %d", len(rs))
			}
			b, _ := io.ReadAll(rs[0].Body)
			if rs[0].StatusCode != tc.status || !strings.Contains(string(b), tc.why) {
				t.Errorf("got %d %q, want %d saying %q", rs[0].StatusCode, b, tc.status, tc.why)
			}
			if !rs[0].Close {
				t.Error("the answer does not say Connection: close")
			}
			if calls.Load() != before {
				t.Error("a handler ran")
			}
		})
	}
}

func TestChunkedBodyErrors(t *testing.T) {
	s := start(t, echo)
	for name, chunks := range map[string]string{
		"not hex":              "zz\r\nab\r\n0\r\n\r\n",
		"missing CRLF":         "2\r\nabX\r\n0\r\n\r\n",
		"size too long":        strings.Repeat("0", 16) + "1\r\na\r\n0\r\n\r\n",
		"cut short":            "5\r\nab",
		"empty size":           "\r\nab\r\n0\r\n\r\n",
		"bare CR in framing":   "2\rx\r\nab\r\n0\r\n\r\n",
		"trailer without end ": "0\r\nA: 1\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			rs := responses(t, s.raw(t, "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"+chunks))
			if len(rs) != 1 {
				t.Fatalf("want one answer, got %d", len(rs))
			}
			if got := decodeSeen(t, rs[0]); got.BodyErr == "" {
				t.Errorf("the handler read %q without an error", got.Body)
			}
			if !rs[0].Close {
				t.Error("the connection stays open after a broken body")
			}
		})
	}
}

func TestPipelined(t *testing.T) {
	s := start(t, echo)
	var req strings.Builder
	for i := range 5 {
		fmt.Fprintf(&req, "POST /%d HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n%d", i, i)
	}
	req.WriteString("GET /last HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
	rs := responses(t, s.raw(t, req.String()))
	if len(rs) != 6 {
		t.Fatalf("want 6 answers, got %d", len(rs))
	}
	for i, r := range rs[:5] {
		got := decodeSeen(t, r)
		want(t, got.Path, fmt.Sprintf("/%d", i))
		want(t, got.Body, fmt.Sprint(i))
	}
	want(t, decodeSeen(t, rs[5]).Path, "/last")
	if !rs[5].Close {
		t.Error("Connection: close not answered in kind")
	}
}

func TestResponses(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 8<<10) // 128 KiB: more than a response holds
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/short":
			w.Header().Set("X-A", "1")
			io.WriteString(w, "hello")
		case "/sniffed":
			io.WriteString(w, "<html><body>hi</body></html>")
		case "/big":
			io.WriteString(w, big)
		case "/declared":
			w.Header().Set("Content-Length", "3")
			w.Write([]byte("abc"))
			if _, err := w.Write([]byte("d")); !errors.Is(err, http.ErrContentLength) {
				panic(fmt.Sprintf("writing past Content-Length: %v", err))
			}
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
			if _, err := w.Write([]byte("x")); !errors.Is(err, http.ErrBodyNotAllowed) {
				panic(fmt.Sprintf("a body on 204: %v", err))
			}
		case "/status":
			w.WriteHeader(http.StatusTeapot)
			w.WriteHeader(http.StatusOK) // superfluous: ignored
		case "/split":
			w.Header().Set("X-Bad", "a\r\nInjected: yes")
			w.Header()["Bad Name"] = []string{"x"}
		case "/empty":
		}
	}))
	c := &http.Client{}
	get := func(path, method string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.url(path), nil)
		r, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		return r, string(b)
	}
	r, b := get("/short", "GET")
	want(t, b, "hello")
	want(t, r.ContentLength, int64(5))
	want(t, r.Header.Get("X-A"), "1")
	want(t, r.Header.Get("Content-Type"), "text/plain; charset=utf-8")
	if r.Header.Get("Date") == "" {
		t.Error("no Date field")
	}
	r, _ = get("/sniffed", "GET")
	want(t, r.Header.Get("Content-Type"), "text/html; charset=utf-8")
	r, b = get("/big", "GET")
	want(t, b, big)
	want(t, strings.Join(r.TransferEncoding, ","), "chunked")
	r, b = get("/declared", "GET")
	want(t, b, "abc")
	want(t, r.ContentLength, int64(3))
	r, b = get("/nocontent", "GET")
	want(t, r.StatusCode, 204)
	want(t, b, "")
	r, _ = get("/status", "GET")
	want(t, r.StatusCode, http.StatusTeapot)
	r, _ = get("/split", "GET")
	want(t, r.Header.Get("X-Bad"), "a  Injected: yes")
	if r.Header.Get("Injected") != "" || r.Header.Get("Bad Name") != "" {
		t.Errorf("a handler's field split the head: %v", r.Header)
	}
	r, b = get("/empty", "GET")
	want(t, r.ContentLength, int64(0))
	want(t, b, "")
	r, b = get("/short", "HEAD")
	want(t, r.ContentLength, int64(5))
	want(t, b, "")
	// Every request above went over one connection.
	var reused atomic.Bool
	req, _ := http.NewRequest("GET", s.url("/short"), nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused.Store(i.Reused) }}))
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !reused.Load() {
		t.Error("the connection was not kept alive")
	}
}

// A flushed response streams (chunked): the client reads each event while
// the handler still runs, as SSE needs.
func TestStreaming(t *testing.T) {
	next := make(chan struct{})
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			<-next
		}
	}))
	r, err := http.Get(s.url("/"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	want(t, strings.Join(r.TransferEncoding, ","), "chunked")
	br := bufio.NewReader(r.Body)
	for i := range 3 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		want(t, line, fmt.Sprintf("data: %d\n", i))
		br.ReadString('\n')
		next <- struct{}{}
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after the last event: %q, %v", rest, err)
	}
}

func TestHTTP10(t *testing.T) {
	s := start(t, echo)
	rs := responses(t, s.raw(t, "GET /a HTTP/1.0\r\n\r\nGET /b HTTP/1.0\r\n\r\n"))
	if len(rs) != 1 || !rs[0].Close || rs[0].Proto != "HTTP/1.0" {
		t.Fatalf("an HTTP/1.0 request without keep-alive: want one answer and a closed connection, got %d", len(rs))
	}
	rs = responses(t, s.raw(t, "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.0\r\n\r\n"))
	if len(rs) != 2 || rs[0].Header.Get("Connection") != "keep-alive" {
		t.Fatalf("HTTP/1.0 keep-alive: want two answers, the first saying keep-alive; got %d", len(rs))
	}
}

func TestExpectContinue(t *testing.T) {
	s := start(t, echo)
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("want 100 Continue before the body, got %q, %v", line, err)
	}
	br.ReadString('\n')
	io.WriteString(c, "ok")
	r, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	want(t, decodeSeen(t, r).Body, "ok")

	// A handler that answers without reading: no 100 Continue, and the
	// connection closes (the client may or may not send the body).
	s2 := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }))
	rs := responses(t, s2.raw(t, "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"))
	if len(rs) != 1 || rs[0].StatusCode != 401 || !rs[0].Close {
		t.Fatalf("want one 401 closing the connection, got %+v", rs)
	}
}

// A body the handler leaves unread is drained when small, and ends the
// connection when large.
func TestUnreadBody(t *testing.T) {
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	small := "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789GET /b HTTP/1.1\r\nHost: h\r\n\r\n"
	if rs := responses(t, s.raw(t, small)); len(rs) != 2 {
		t.Errorf("a small unread body: want 2 answers, got %d", len(rs))
	}
	n := 1 << 20
	large := fmt.Sprintf("POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n%sGET /b HTTP/1.1\r\nHost: h\r\n\r\n", n, strings.Repeat("x", n))
	rs := responses(t, s.raw(t, large))
	if len(rs) != 1 || !rs[0].Close {
		t.Errorf("a large unread body: want 1 answer closing the connection, got %d", len(rs))
	}
}

func TestPanic(t *testing.T) {
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/panic":
			panic("boom")
		case "/abort":
			panic(http.ErrAbortHandler)
		}
		io.WriteString(w, "fine")
	}))
	for _, p := range []string{"/panic", "/abort"} {
		if _, err := http.Get(s.url(p)); err == nil {
			t.Errorf("%s: the client got an answer", p)
		}
	}
	r, err := http.Get(s.url("/"))
	if err != nil {
		t.Fatalf("the server stopped serving after a panic: %v", err)
	}
	r.Body.Close()
	logs := s.logs.String()
	if !strings.Contains(logs, "panic serving") || !strings.Contains(logs, "boom") || strings.Count(logs, "panic serving") != 1 {
		t.Errorf("want the panic (not the abort) logged with its stack, got %q", logs)
	}
}

// A client that goes away while its handler runs cancels the request's
// context; a handler that returns quickly never needs the watch.
func TestClientGone(t *testing.T) {
	cancelled := make(chan error, 1)
	started := make(chan struct{})
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		close(started)
		select {
		case <-r.Context().Done():
			cancelled <- r.Context().Err()
		case <-time.After(5 * time.Second):
			cancelled <- nil
		}
	}))
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi")
	<-started
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's context: %v, want cancelled", err)
		}
	case <-time.After(6 * time.Second):
		t.Fatal("the handler never returned")
	}
}

// Handlers that end around the watch delay race the watch's start and stop:
// every answer must still arrive, on connections kept alive.
func TestWatchRace(t *testing.T) {
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var d time.Duration
		fmt.Sscan(string(b), &d)
		select { // waiting on the context starts the watch delay
		case <-time.After(d):
		case <-r.Context().Done():
			panic("cancelled while the client waits")
		}
		w.Write(b)
	}))
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 10 * time.Second}
	var wg sync.WaitGroup
	var failed atomic.Int32
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				d := time.Duration((g*40+i)%12) * time.Millisecond / 2 // 0 to 5.5 ms
				body := d.String()
				r, err := c.Post(s.url("/"), "text/plain", strings.NewReader(body))
				if err != nil {
					t.Errorf("call %d: %v", i, err)
					failed.Add(1)
					return
				}
				b, _ := io.ReadAll(r.Body)
				r.Body.Close()
				if string(b) != body {
					t.Errorf("got %q, want %q", b, body)
				}
			}
		}()
	}
	wg.Wait()
}

func TestReadHeaderTimeout(t *testing.T) {
	s := start(t, echo, func(s *h1.Server) { s.ReadHeaderTimeout = 200 * time.Millisecond })
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: h\r\n") // and never the blank line
	t0 := time.Now()
	out, _ := io.ReadAll(c)
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("a slow head held the connection %v", d)
	}
	if !strings.HasPrefix(string(out), "HTTP/1.1 408") {
		t.Errorf("want 408, got %q", out)
	}
	// A connection that never sends a request is closed after it too.
	c2, _ := net.Dial("tcp", s.addr)
	defer c2.Close()
	c2.SetDeadline(time.Now().Add(5 * time.Second))
	if out, err := io.ReadAll(c2); err != nil || len(out) != 0 {
		t.Errorf("idle connection: %q, %v; want a silent close", out, err)
	}
	// A head sent slowly after a first request: the timeout counts from
	// its first byte.
	c3, _ := net.Dial("tcp", s.addr)
	defer c3.Close()
	c3.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c3)
	io.WriteString(c3, "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n")
	if r, err := http.ReadResponse(br, nil); err != nil || r.StatusCode != 200 {
		t.Fatalf("first request: %v", err)
	} else {
		io.Copy(io.Discard, r.Body)
	}
	io.WriteString(c3, "GET /2 HTTP/1.1\r\n")
	t0 = time.Now()
	if r, err := http.ReadResponse(br, nil); err != nil || r.StatusCode != 408 {
		t.Errorf("a slow second head: %v, %v; want 408", r, err)
	} else if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("a slow second head held the connection %v", d)
	}
}

// Kept-alive connections stay open between requests, however long, unless
// IdleTimeout says otherwise (net/http's defaults: clients such as Go's
// keep idle connections 90 s and must not race a server closing them).
func TestIdle(t *testing.T) {
	for _, idle := range []time.Duration{0, 100 * time.Millisecond} {
		s := start(t, echo, func(s *h1.Server) { s.ReadHeaderTimeout = 100 * time.Millisecond; s.IdleTimeout = idle })
		c, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(c)
		io.WriteString(c, "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n")
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		time.Sleep(300 * time.Millisecond)
		io.WriteString(c, "GET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
		_, err = http.ReadResponse(br, nil)
		if idle == 0 && err != nil {
			t.Errorf("no IdleTimeout: the idle connection was closed (%v)", err)
		}
		if idle > 0 && err == nil {
			t.Errorf("IdleTimeout %v: the connection idle for 300 ms still served", idle)
		}
	}
}

func TestShutdown(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release
		}
		io.WriteString(w, "done")
	}))
	// An idle keep-alive connection and a busy one.
	idle := &http.Client{Transport: &http.Transport{}}
	if r, err := idle.Get(s.url("/")); err != nil {
		t.Fatal(err)
	} else {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	answer := make(chan string, 1)
	go func() {
		r, err := http.Get(s.url("/slow"))
		if err != nil {
			answer <- err.Error()
			return
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		answer <- string(b) + " close=" + fmt.Sprint(r.Close)
	}()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown with a request in flight: %v, want the context's deadline", err)
	}
	if _, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
		t.Error("still accepting after Shutdown")
	}
	close(release)
	if got := <-answer; got != "done close=true" {
		t.Errorf("the request in flight: %q, want its answer and Connection: close", got)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if err := s.Shutdown(ctx2); err != nil {
		t.Errorf("Shutdown once idle: %v", err)
	}
}

func TestCloseCancelsHandlers(t *testing.T) {
	entered := make(chan struct{})
	ended := make(chan error, 1)
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done()
		ended <- r.Context().Err()
	}))
	go http.Get(s.url("/"))
	<-entered
	s.Close()
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close left the handler running")
	}
}

// The fields of an answer come out sorted, the same every time.
func TestStableHead(t *testing.T) {
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, k := range []string{"Zeta", "Alpha", "Mcp-Session-Id", "Content-Type"} {
			w.Header().Set(k, "v")
		}
	}))
	out := s.raw(t, "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
	var names []string
	for _, l := range strings.Split(strings.SplitN(out, "\r\n\r\n", 2)[0], "\r\n")[1:] {
		names = append(names, strings.SplitN(l, ":", 2)[0])
	}
	if !sort.StringsAreSorted(names[:4]) {
		t.Errorf("fields not sorted: %v", names)
	}
}

// Contexts made from a request's context (WithCancel, AfterFunc) end with
// it: when the client goes away, and when the handler returns; a stopped
// AfterFunc does not run.
func TestContextChildren(t *testing.T) {
	gone := make(chan string, 4)
	started := make(chan struct{})
	var kept context.Context
	s := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		child, cancel := context.WithCancel(r.Context())
		defer cancel()
		context.AfterFunc(r.Context(), func() { gone <- "afterfunc" })
		stop := context.AfterFunc(r.Context(), func() { gone <- "stopped one ran" })
		stop()
		if r.URL.Path == "/quick" {
			kept = child
			return
		}
		close(started)
		<-child.Done()
		gone <- "child: " + child.Err().Error()
	}))
	// A handler that returns: its request's context and children end.
	r, err := http.Get(s.url("/quick"))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if got := <-gone; got != "afterfunc" {
		t.Errorf("after a handler returned: %q", got)
	}
	if kept.Err() == nil {
		t.Error("a child of a finished request's context is not done")
	}
	// A client that leaves while its handler waits.
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /wait HTTP/1.1\r\nHost: h\r\n\r\n")
	<-started
	c.Close()
	got := map[string]bool{}
	for range 2 {
		select {
		case g := <-gone:
			got[g] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("the client left; only %v ended", got)
		}
	}
	if !got["afterfunc"] || !got["child: context canceled"] {
		t.Errorf("got %v", got)
	}
	select {
	case g := <-gone:
		t.Errorf("unexpected: %q", g)
	case <-time.After(50 * time.Millisecond):
	}
}
