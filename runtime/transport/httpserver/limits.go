package httpserver

import (
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/net/netutil"
)

// Limits bound what one client can hold of the server, so that a slow,
// stalled or hostile client costs its own connection and never another's.
// Zero fields take the defaults of DefaultLimits, which suit a server
// reachable from a network; each is a flag of `luagent serve --http`.
type Limits struct {
	// MaxConns bounds the connections open at once (--max-conns); more
	// wait in the kernel's queue until one closes.
	MaxConns int
	// HeaderTimeout bounds reading a request's head (--header-timeout).
	HeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no request for
	// this long (--idle-timeout).
	IdleTimeout time.Duration
	// BodyTimeout bounds reading a whole request, head and body, from its
	// first byte (--body-timeout): a client trickling a byte at a time is
	// answered 408 and dropped.
	BodyTimeout time.Duration
	// WriteTimeout bounds writing one response, or one event of a stream,
	// to a client that does not read (--write-timeout); the connection is
	// then closed.
	WriteTimeout time.Duration
	// MaxBody bounds a request body in bytes (--max-body); larger is 413.
	MaxBody int64
	// MaxHeaderBytes bounds a request's head.
	MaxHeaderBytes int
	// MaxSessions bounds the 2025-11-25 sessions open at once
	// (--max-sessions): a new one ends the least recently used.
	MaxSessions int
	// SessionIdle ends a 2025-11-25 session unused for this long
	// (--session-idle); its client gets 404 and starts a new one.
	SessionIdle time.Duration
	// MaxStreams bounds the concurrent requests of one HTTP/2 connection.
	MaxStreams int
}

// DefaultLimits are the limits of a server started without flags.
var DefaultLimits = Limits{
	MaxConns:       1024,
	HeaderTimeout:  10 * time.Second,
	IdleTimeout:    60 * time.Second,
	BodyTimeout:    30 * time.Second,
	WriteTimeout:   30 * time.Second,
	MaxBody:        4 << 20,
	MaxHeaderBytes: 64 << 10,
	MaxSessions:    1000,
	SessionIdle:    30 * time.Minute,
	MaxStreams:     100,
}

// withDefaults fills the zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	orDefault(&l.MaxConns, d.MaxConns)
	orDefault(&l.HeaderTimeout, d.HeaderTimeout)
	orDefault(&l.IdleTimeout, d.IdleTimeout)
	orDefault(&l.BodyTimeout, d.BodyTimeout)
	orDefault(&l.WriteTimeout, d.WriteTimeout)
	orDefault(&l.MaxBody, d.MaxBody)
	orDefault(&l.MaxHeaderBytes, d.MaxHeaderBytes)
	orDefault(&l.MaxSessions, d.MaxSessions)
	orDefault(&l.SessionIdle, d.SessionIdle)
	orDefault(&l.MaxStreams, d.MaxStreams)
	return l
}

func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// NewServer returns a net/http server for h configured with the limits
// (the connection level ones; the Handler applies the rest). TLS, when
// served with ServeTLS, brings HTTP/2. errorLog receives net/http's own
// complaints (TLS handshakes, panics), a line each; nil discards them.
func NewServer(h http.Handler, l Limits, errorLog func(string)) *http.Server {
	l = l.withDefaults()
	s := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.HeaderTimeout,
		// The head and the body, from the request's first byte: net/http
		// clears the deadline once the body has been read, so it does
		// not bound what the handler does after (long streams).
		ReadTimeout:    l.BodyTimeout,
		IdleTimeout:    l.IdleTimeout,
		MaxHeaderBytes: l.MaxHeaderBytes,
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams: l.MaxStreams,
			// A peer that takes no bytes for this long is dropped, as
			// WriteTimeout drops an HTTP/1 one.
			WriteByteTimeout: l.WriteTimeout,
		},
		// No WriteTimeout: it would bound the whole response and cut long
		// streams (SSE, listen); each write gets a deadline instead
		// (Handler).
	}
	s.ErrorLog = log.New(lineWriter{f: errorLog}, "", 0)
	return s
}

// lineWriter hands net/http's log lines to a function.
type lineWriter struct{ f func(string) }

func (w lineWriter) Write(p []byte) (int, error) {
	if w.f != nil {
		w.f(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// Listener wraps ln so that at most l.MaxConns connections are open at
// once.
func (l Limits) Listener(ln net.Listener) net.Listener {
	return netutil.LimitListener(ln, l.withDefaults().MaxConns)
}
