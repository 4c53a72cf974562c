package mcphttp_test

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/luagent/luagent/runtime/h1"
)

// testServer serves a handler on loopback with runtime/h1, the server
// `luagent serve --http` uses, so these tests see what users get.
type testServer struct {
	URL string
	srv *h1.Server
}

func newTestServer(t testing.TB, h http.Handler) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &h1.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go s.Serve(ln)
	return &testServer{URL: "http://" + ln.Addr().String(), srv: s}
}

func (s *testServer) Close() { s.srv.Close() }
