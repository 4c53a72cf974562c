package httpserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/mcp"
)

// Endpoint is what Serve listens on and serves there.
type Endpoint struct {
	// Addr is HOST:PORT[/PATH] (see SplitAddr). Port 0 picks a free port.
	Addr string
	// Servers answer the endpoint: one, or a pool of workers (NewPool).
	Servers []*mcp.Server
	// AllowOrigins are browser origins accepted besides loopback ones;
	// AllowHosts are Host names accepted besides loopback ones.
	AllowOrigins, AllowHosts []string
	// Limits bound what each client may hold (connections, timeouts,
	// sizes, sessions); zero fields take DefaultLimits.
	Limits Limits
	// TLSCert and TLSKey, both set, serve HTTPS (and HTTP/2) with that
	// certificate and key (PEM files).
	TLSCert, TLSKey string
	// Grace is how long requests in flight may finish once ctx ends
	// (default 5 s).
	Grace time.Duration
	// Auth, if set, guards the endpoint with bearer tokens; Serve fills in
	// its Path and Origin, known once it listens.
	Auth *AuthConfig
	// Log receives a line for what the operator should know: net/http's
	// complaints (TLS handshakes, panics) and requests stopped after the
	// grace period. Nil discards them.
	Log func(line string)
	// Ready, if set, is called once the endpoint listens, before it serves.
	Ready func(Listening)
}

// Listening is where an Endpoint was reached.
type Listening struct {
	// URL is the endpoint's URL (scheme, the address it listens on, path).
	URL string
	// Workers is how many servers answer it.
	Workers int
	// MetadataURL is the protected resource metadata's URL, "" without Auth.
	MetadataURL string
}

// Serve listens on e.Addr and serves e.Servers over Streamable HTTP (both
// eras) until ctx ends or serving fails. When ctx ends it stops accepting,
// ends the streams that never end by themselves, gives the requests in
// flight e.Grace to finish and stops the rest; it returns nil then. Its
// errors are one line each naming the fix (the port in use, an unreadable
// certificate, a bad authorization setting).
func Serve(ctx context.Context, e Endpoint) error {
	addr, path := SplitAddr(e.Addr)
	scheme := "http"
	if e.TLSCert != "" {
		scheme = "https"
		// Read now, so a bad file is one clear line before listening.
		if _, err := tls.LoadX509KeyPair(e.TLSCert, e.TLSKey); err != nil {
			return fmt.Errorf("cannot use --tls-cert %s and --tls-key %s: %v", e.TLSCert, e.TLSKey, err)
		}
	}
	logf := func(format string, args ...any) {
		if e.Log != nil {
			e.Log(fmt.Sprintf(format, args...))
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %v (is another server using the port?)", addr, unwrapOpError(err))
	}
	tcp := ln.Addr().(*net.TCPAddr)
	origin := scheme + "://" + ln.Addr().String()
	var auth *Auth
	if e.Auth != nil {
		ac := *e.Auth
		ac.Path, ac.Origin = path, origin
		if auth, err = NewAuth(ac); err != nil {
			ln.Close()
			return err
		}
	}
	handler := NewPool(e.Servers, Options{
		AllowOrigins: e.AllowOrigins,
		AllowHosts:   e.AllowHosts,
		AnyHost:      !tcp.IP.IsLoopback(),
		Authorize:    auth.Check, // a nil auth lets everything through
		Limits:       e.Limits,
	})
	mux := http.NewServeMux()
	mux.Handle(path, handler)
	at := Listening{URL: origin + path, Workers: len(e.Servers)}
	if auth != nil {
		mux.HandleFunc(auth.MetadataPath(), auth.ServeMetadata) // needs no token
		at.MetadataURL = origin + auth.MetadataPath()
	}
	hs := NewServer(mux, e.Limits, func(line string) { logf("http: %s", line) })
	if e.Ready != nil {
		e.Ready(at)
	}
	done := make(chan error, 1)
	limited := e.Limits.Listener(ln)
	go func() {
		if e.TLSCert != "" {
			done <- hs.ServeTLS(limited, e.TLSCert, e.TLSKey)
			return
		}
		done <- hs.Serve(limited)
	}()
	select {
	case err := <-done:
		handler.Close()
		return err
	case <-ctx.Done():
	}
	grace := e.Grace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	handler.Drain()
	if err := hs.Shutdown(sctx); err != nil {
		logf("requests still running after the %s grace period were stopped", grace)
	}
	handler.Close()
	return nil
}

// SplitAddr splits HOST:PORT/PATH (path default /mcp); a bare :PORT, or
// nothing, listens on loopback (127.0.0.1, port 8080 when none).
func SplitAddr(s string) (addr, path string) {
	addr, path = s, "/mcp"
	if i := strings.Index(s, "/"); i >= 0 {
		addr, path = s[:i], s[i:]
	}
	if addr == "" {
		addr = "127.0.0.1:8080"
	}
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	return addr, path
}

func unwrapOpError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}
