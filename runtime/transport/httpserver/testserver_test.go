package httpserver_test

import (
	"net"
	"net/http"
	"testing"

	"github.com/luagent/luagent/runtime/transport/httpserver"
)

// testServer serves a handler on loopback with the net/http server and
// limits `luagent serve --http` uses, so these tests see what users get.
type testServer struct {
	URL string
	srv *http.Server
}

func newTestServer(t testing.TB, h http.Handler) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var l httpserver.Limits
	s := httpserver.NewServer(h, l, nil)
	go s.Serve(l.Listener(ln))
	return &testServer{URL: "http://" + ln.Addr().String(), srv: s}
}

func (s *testServer) Close() { s.srv.Close() }
