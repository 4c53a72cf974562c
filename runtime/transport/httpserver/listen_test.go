package httpserver_test

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/transport/httpserver"
)

func TestSplitAddr(t *testing.T) {
	for _, tc := range []struct{ in, addr, path string }{
		{"", "127.0.0.1:8080", "/mcp"},
		{":9000", "127.0.0.1:9000", "/mcp"},
		{":9000/api/mcp", "127.0.0.1:9000", "/api/mcp"},
		{"0.0.0.0:80", "0.0.0.0:80", "/mcp"},
		{"/x", "127.0.0.1:8080", "/x"},
	} {
		addr, path := httpserver.SplitAddr(tc.in)
		if addr != tc.addr || path != tc.path {
			t.Errorf("SplitAddr(%q) = %q, %q; want %q, %q", tc.in, addr, path, tc.addr, tc.path)
		}
	}
}

// Serve listens, guards the endpoint when asked (metadata needs no token),
// says where it listens, and returns nil once ctx ends.
func TestServeListensGuardsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan httpserver.Listening, 1)
	done := make(chan error, 1)
	go func() {
		done <- httpserver.Serve(ctx, httpserver.Endpoint{
			Addr:    "127.0.0.1:0/api/mcp",
			Servers: []*mcp.Server{goServer("one")},
			Auth:    &httpserver.AuthConfig{Validate: httpserver.StaticToken("tok")},
			Ready:   func(at httpserver.Listening) { ready <- at },
		})
	}()
	var at httpserver.Listening
	select {
	case at = <-ready:
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	}
	if !strings.HasPrefix(at.URL, "http://127.0.0.1:") || !strings.HasSuffix(at.URL, "/api/mcp") || at.Workers != 1 || at.MetadataURL == "" {
		t.Fatalf("listening at %+v", at)
	}
	if r := post(t, at.URL, nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != http.StatusUnauthorized {
		t.Errorf("a request without a token: status %d, want 401", r.status)
	}
	resp, err := http.Get(at.MetadataURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("metadata: status %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after ctx ended: %v", err)
	}
}

// Serve's errors are one line naming the fix.
func TestServeErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	missing := filepath.Join(t.TempDir(), "none.pem")
	for _, tc := range []struct {
		name string
		e    httpserver.Endpoint
		want string
	}{
		{"port in use", httpserver.Endpoint{Addr: busy.Addr().String()}, "is another server using the port?"},
		{"bad certificate", httpserver.Endpoint{Addr: "127.0.0.1:0", TLSCert: missing, TLSKey: missing}, "cannot use --tls-cert " + missing},
		{"bad authorization server", httpserver.Endpoint{Addr: "127.0.0.1:0",
			Auth: &httpserver.AuthConfig{Validate: httpserver.StaticToken("t"), AuthorizationServers: []string{"http://auth.example.com"}}}, "must use https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.e.Servers = []*mcp.Server{goServer("one")}
			err := httpserver.Serve(context.Background(), tc.e)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, tc.want)
			}
		})
	}
}
