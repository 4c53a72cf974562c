package h1_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

// FuzzAgainstNetHTTP sends the same bytes to this server and to net/http's,
// both running the echo handler, and compares the first request each
// handed to it. This server may refuse more than net/http (it is stricter
// about smuggling-prone forms), but whatever it serves net/http must serve
// too, and both must have seen the same request: the same method, target,
// Host, fields and body. A parser that disagreed with net/http's on where
// a request ends, or what it says, is what request smuggling is made of.
func FuzzAgainstNetHTTP(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: h\r\n\r\n",
		"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: abc\r\nContent-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}",
		"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
		"GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\n 2\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: h\r\nA : 1\r\n\r\n",
		"GET /a%20b?x=1#f HTTP/1.1\r\nhost: h\r\nx-y: \t z \r\n\r\n",
		"GET http://example.test/p?q HTTP/1.1\r\nHost: other\r\n\r\n",
		"OPTIONS * HTTP/1.0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
		"GET / HTTP/1.1\nHost: h\nA: 1\n\n",
		"GET / HTTP/1.1\r\nHost: h\rA: 1\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
		"GET / HTTP/1.2\r\nHost: h\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: [::1]:80\r\nHost: x\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	h := start(f, echo)
	ns := httptest.NewServer(echo)
	f.Cleanup(ns.Close)
	nsAddr := ns.Listener.Addr().String()
	f.Fuzz(func(t *testing.T, in []byte) {
		// RFC 9112 §2.2: blank lines before a request line are skipped;
		// net/http skips them only after a POST.
		in = bytes.TrimLeft(in, "\r\n")
		got, gotOK := firstSeen(exchange(t, h.addr, in))
		ref, refOK := firstSeen(exchange(t, nsAddr, in))
		if !gotOK {
			return
		}
		if !refOK {
			t.Fatalf("served a request net/http refuses: %q\nit saw %+v", in, got)
		}
		// A body net/http reads with an error must fail here too (the
		// texts differ); this server may refuse more.
		if got.BodyErr == "" && ref.BodyErr != "" {
			t.Fatalf("%q: read the body %q where net/http failed: %s", in, got.Body, ref.BodyErr)
		}
		if got.BodyErr != "" {
			return
		}
		if len(got.Header) == 0 && len(ref.Header) == 0 {
			got.Header, ref.Header = nil, nil
		}
		if !reflect.DeepEqual(got, ref) {
			t.Fatalf("%q:\n got %+v\nwant %+v (net/http)", in, got, ref)
		}
	})
}

// exchange writes in on a new connection, half-closes it, and returns what
// came back.
func exchange(t *testing.T, addr string, in []byte) []byte {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write(in)
	c.(*net.TCPConn).CloseWrite()
	out, _ := io.ReadAll(c)
	return out
}

// firstSeen is what the echo handler reported in the first final answer.
func firstSeen(out []byte) (seen, bool) {
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		r, err := http.ReadResponse(br, nil)
		if err != nil {
			return seen{}, false
		}
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return seen{}, false
		}
		if r.StatusCode < 200 {
			continue
		}
		var s seen
		if r.StatusCode != 200 || json.Unmarshal(b, &s) != nil {
			return seen{}, false
		}
		return s, true
	}
}
