// Package h1 is a small HTTP/1.1 server for one http.Handler: the server
// behind `luagent serve --http`. It exists for speed. net/http's server
// costs about 20 µs of CPU per request on the project's machine (request
// parsing into maps, a goroutine and a deadline change per request to watch
// for the client leaving, a buffered writer per response), as much as the
// MCP and Lua work of a call; this one parses a request head with one
// string allocation, answers a short response with one write, and watches
// the socket only for handlers that wait on their request's context for
// more than a few milliseconds.
//
// As with net/http, a handler must not use the ResponseWriter, nor its
// Header map, after ServeHTTP returns: here the map is reused by the
// connection's next response.
//
// It serves cleartext HTTP/1.0 and 1.1 (no TLS, no HTTP/2, no Upgrade):
// keep-alive, pipelined requests (answered in order), Content-Length and
// chunked request bodies, 100-continue, responses with a Content-Length or
// chunked when the handler flushes (SSE), HEAD. Request heads are checked
// as RFC 9112 asks of a server that may sit behind a proxy: obs-fold,
// whitespace before a colon, bare CR, bad names or values, conflicting
// Content-Length, Transfer-Encoding with Content-Length and unknown codings
// are refused with 400 (or 501) and the connection closed.
package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Server serves Handler over the listeners given to Serve. Its zero
// timeouts mean none.
type Server struct {
	Handler http.Handler
	// ReadHeaderTimeout bounds the reading of a request head: from the
	// connection's start for its first request, from the head's first
	// byte for later ones. As in net/http, it does not bound bodies.
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds the wait for a next request on a kept-alive
	// connection (zero: no bound, as net/http without ReadTimeout).
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request head (default 1 MiB, as net/http).
	MaxHeaderBytes int
	// ErrorLog receives handler panics and accept errors (default: the log
	// package's standard logger).
	ErrorLog *log.Logger

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	inShut    atomic.Bool
}

const readBufSize = 8 << 10

// watchDelay is how long a handler waits on its request's context before
// the connection is watched for the client going away (which cancels the
// context). Short calls never pay for the watch; a long one is cancelled
// this much later than net/http would.
const watchDelay = 5 * time.Millisecond

// maxDrain is how much of a body a handler left unread the server reads to
// keep the connection (net/http's figure).
const maxDrain = 256 << 10

func (s *Server) maxHeaderBytes() int {
	if s.MaxHeaderBytes > 0 {
		return s.MaxHeaderBytes
	}
	return 1 << 20
}

func (s *Server) shuttingDown() bool { return s.inShut.Load() }

func (s *Server) logf(format string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Printf(format, args...)
		return
	}
	log.Printf(format, args...)
}

// Serve accepts connections on ln and serves each on its own goroutine. It
// returns http.ErrServerClosed after Shutdown or Close, else the accept
// error that stopped it.
func (s *Server) Serve(ln net.Listener) error {
	if !s.track(ln, true) {
		return http.ErrServerClosed
	}
	defer s.track(ln, false)
	var delay time.Duration
	for {
		rwc, err := ln.Accept()
		if err != nil {
			if s.shuttingDown() {
				return http.ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of file descriptors and the like: wait, as net/http.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.logf("h1: accept error: %v; retrying in %v", err, delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		c := &conn{srv: s, rwc: rwc, remote: rwc.RemoteAddr().String()}
		if !s.trackConn(c, true) {
			rwc.Close()
			return http.ErrServerClosed
		}
		go c.serve()
	}
}

func (s *Server) track(ln net.Listener, add bool) bool { return register(s, &s.listeners, ln, add) }

func (s *Server) trackConn(c *conn, add bool) bool { return register(s, &s.conns, c, add) }

// register adds v to, or removes it from, one of the server's sets; adding
// fails once the server is shutting down.
func register[T comparable](s *Server, set *map[T]struct{}, v T, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !add {
		delete(*set, v)
		return true
	}
	if s.shuttingDown() {
		return false
	}
	if *set == nil {
		*set = map[T]struct{}{}
	}
	(*set)[v] = struct{}{}
	return true
}

// Shutdown stops accepting, closes idle connections, and waits until every
// request in flight has been answered (their connections then close) or
// ctx ends, whose error it returns; connections still busy stay open for
// Close.
func (s *Server) Shutdown(ctx context.Context) error {
	s.inShut.Store(true)
	s.closeListeners()
	wait := time.Millisecond
	for {
		if s.closeIdle() {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// Close closes the listeners and every connection now; handlers still
// running see their requests' contexts cancelled.
func (s *Server) Close() error {
	s.inShut.Store(true)
	s.closeListeners()
	s.mu.Lock()
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	for c := range conns {
		c.close()
	}
	return nil
}

func (s *Server) closeListeners() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ln := range s.listeners {
		ln.Close()
	}
	s.listeners = nil
}

// closeIdle closes the connections waiting for a request and reports
// whether none is left.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.state.CompareAndSwap(stateIdle, stateClosed) {
			c.rwc.Close()
			delete(s.conns, c)
		}
	}
	return len(s.conns) == 0
}

const (
	stateIdle int32 = iota // between requests (or before the first)
	stateActive
	stateClosed
)

// conn is one client connection, served by one goroutine: it reads a
// request, runs the handler, writes the response, and repeats.
type conn struct {
	srv       *Server
	rwc       net.Conn
	br        *bufio.Reader
	remote    string
	state     atomic.Int32
	deadline  time.Time // the read deadline now set (zero: none)
	headTimed bool      // the head being read is under ReadHeaderTimeout

	out    []byte      // the response being written
	hold   []byte      // a response body held back until the handler returns
	header http.Header // the response's fields, reused by the next response

	body *body // the current request's, nil without one

	watchMu   sync.Mutex
	armed     bool // a handler is running
	bodyIsIn  bool // its body is read: the socket is free to watch
	due       bool // the watch delay has passed
	watching  bool
	watchDone chan struct{}
	watchErr  error
	timerSet  bool // the watch delay is running
	timer     *time.Timer
	ctx       *reqCtx // the running request's
}

// setActive marks the connection busy (a request's first bytes are in);
// false if Shutdown closed it first.
func (c *conn) setActive() bool {
	return c.state.CompareAndSwap(stateIdle, stateActive) || c.state.Load() == stateActive
}

func (c *conn) close() {
	c.state.Store(stateClosed)
	c.rwc.Close()
	c.watchMu.Lock()
	ctx := c.ctx
	c.watchMu.Unlock()
	if ctx != nil {
		ctx.cancel()
	}
}

func (c *conn) serve() {
	defer func() {
		c.srv.trackConn(c, false)
		c.close()
	}()
	c.br = bufio.NewReaderSize(c.rwc, readBufSize)
	first := true
	for {
		if !c.state.CompareAndSwap(stateActive, stateIdle) && c.state.Load() != stateIdle {
			return // closed by Shutdown or Close
		}
		if c.srv.shuttingDown() && c.br.Buffered() == 0 {
			return
		}
		c.idleDeadline(first)
		first = false
		head, err := c.readHead()
		if err != nil {
			if c.refuse(err) {
				c.linger()
			}
			return
		}
		if !c.setActive() {
			return
		}
		if more, answered := c.serveOne(head); !more {
			if answered {
				c.linger()
			}
			return
		}
	}
}

// idleDeadline bounds the wait for a request's first byte, as net/http
// does: ReadHeaderTimeout from the connection's start for its first
// request, IdleTimeout (none if zero) between requests. Changing a
// deadline costs a trip through the runtime's timers, so an idle deadline
// is renewed only when less than 90% of it is left.
func (c *conn) idleDeadline(first bool) {
	c.headTimed = false
	t := c.srv.IdleTimeout
	if first {
		t = c.srv.ReadHeaderTimeout
		c.headTimed = true
	}
	if t <= 0 {
		if !c.deadline.IsZero() {
			c.rwc.SetReadDeadline(time.Time{})
			c.deadline = time.Time{}
		}
		return
	}
	now := time.Now()
	if c.deadline.IsZero() || c.deadline.Sub(now) < t*9/10 {
		c.deadline = now.Add(t)
		c.rwc.SetReadDeadline(c.deadline)
	}
}

// headStarted bounds the rest of a head that did not arrive whole by
// ReadHeaderTimeout. A head that arrives in one read, the usual case, pays
// for no deadline at all.
func (c *conn) headStarted() {
	if c.headTimed || c.srv.ReadHeaderTimeout <= 0 {
		return
	}
	c.headTimed = true
	c.deadline = time.Now().Add(c.srv.ReadHeaderTimeout)
	c.rwc.SetReadDeadline(c.deadline)
}

// linger closes a connection the server is done with gently: its side
// first, then it reads (and drops) what the client still sends for a
// moment. Closing with unread bytes makes the kernel reset the connection,
// and a reset can destroy the answer before the client reads it.
func (c *conn) linger() {
	tcp, ok := c.rwc.(*net.TCPConn)
	if !ok {
		return
	}
	c.srv.trackConn(c, false) // Shutdown need not wait for this
	tcp.CloseWrite()
	tcp.SetReadDeadline(time.Now().Add(lingerTime))
	io.Copy(io.Discard, io.LimitReader(tcp, 1<<20))
}

// lingerTime is net/http's rstAvoidanceDelay.
const lingerTime = 500 * time.Millisecond

// refuse answers a request refused before any handler: a status and a
// line of text, then the connection closes.
func (c *conn) refuse(err error) bool {
	var se *statusError
	if !errors.As(err, &se) {
		return false // the connection ended between requests
	}
	b := appendStatus(nil, 1, se.code)
	b = append(b, "Content-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"...)
	text := http.StatusText(se.code) + ": " + se.text
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(text)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, text...)
	c.rwc.SetWriteDeadline(time.Now().Add(time.Second))
	_, err = c.rwc.Write(b)
	return err == nil
}

// serveOne runs the handler for one request head; it reports whether the
// connection may serve another, and whether the request was answered.
func (c *conn) serveOne(head string) (more, answered bool) {
	var r0 http.Request
	p, err := parseHead(head, &r0)
	if err != nil {
		return false, c.refuse(err)
	}
	ctx := &reqCtx{c: c}
	r := r0.WithContext(ctx)
	r.RemoteAddr = c.remote
	if p.length == 0 {
		r.Body = http.NoBody
		c.body = nil
	} else {
		b := &body{c: c, chunked: p.length < 0, expect: p.expect}
		if p.length > 0 {
			b.left = p.length
		}
		r.Body = b
		c.body = b
		// A body still to arrive is not bound by the head's deadline.
		if !c.deadline.IsZero() && (p.length < 0 || int64(c.br.Buffered()) < p.length) {
			c.rwc.SetReadDeadline(time.Time{})
			c.deadline = time.Time{}
		}
	}
	if c.header == nil {
		c.header = make(http.Header, 4)
	}
	clear(c.header) // its table stays: no map allocation per response
	w := &response{c: c, req: r, header: c.header, declared: -1, hold: c.hold[:0], keepAlive: p.keepAlive, headOnly: r.Method == http.MethodHead}
	h := c.srv.Handler
	if r.RequestURI == "*" {
		h = optionsAsterisk // a question about the server, not a resource: net/http answers it so
	}
	c.arm(ctx, c.body == nil)
	panicked := c.run(h, w, r)
	gone := c.disarm()
	ctx.cancel()
	if panicked || gone {
		return false, false
	}
	w.finish()
	c.hold = w.hold[:0]
	if cap(c.hold) > 4*holdLimit {
		c.hold = nil // one large answer should not pin its buffer
	}
	if cap(c.out) > 4*holdLimit {
		c.out = nil
	}
	return !w.closeAfter && w.err == nil && !c.srv.shuttingDown(), w.err == nil
}

// run calls the handler; a panic is logged (http.ErrAbortHandler silently)
// and ends the connection, as in net/http.
func (c *conn) run(h http.Handler, w *response, r *http.Request) (panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			panicked = true
			if v != http.ErrAbortHandler {
				buf := make([]byte, 16<<10)
				buf = buf[:runtime.Stack(buf, false)]
				c.srv.logf("h1: panic serving %s: %v\n%s", c.remote, v, buf)
			}
		}
	}()
	h.ServeHTTP(w, r)
	return false
}

var optionsAsterisk = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Length", "0")
})

// drainBody reads what the handler left of the request body; false when
// the connection cannot be reused.
func (c *conn) drainBody() bool {
	if c.body == nil {
		return true
	}
	ok := c.body.drain(maxDrain)
	c.body = nil
	return ok
}

// arm marks a handler running; the watch delay starts when it first asks
// for its context's Done channel (wantWatch).
func (c *conn) arm(ctx *reqCtx, bodyIn bool) {
	c.watchMu.Lock()
	c.armed, c.bodyIsIn, c.due, c.ctx = true, bodyIn, false, ctx
	c.watchMu.Unlock()
}

// wantWatch starts the watch delay: the running handler waits on its
// context. reqCtx.mu is held.
func (c *conn) wantWatch() {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	if !c.armed || c.timerSet {
		return
	}
	c.timerSet = true
	if c.timer == nil {
		c.timer = time.AfterFunc(watchDelay, c.watchDue)
	} else {
		c.timer.Reset(watchDelay)
	}
}

// watchDue runs when a handler has taken watchDelay: the socket is watched
// now, or as soon as the body is read.
func (c *conn) watchDue() {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	if !c.armed || c.watching {
		return // a stale timer: that handler is done
	}
	c.due = true
	if c.bodyIsIn {
		c.startWatch()
	}
}

// bodyDone is called by the body at its end.
func (c *conn) bodyDone() {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	c.bodyIsIn = true
	if c.armed && c.due && !c.watching {
		c.startWatch()
	}
}

// startWatch reads from the socket while the handler runs: a client that
// goes away cancels the request. A byte that arrives instead (a pipelined
// request) stays buffered for the next round. watchMu is held.
func (c *conn) startWatch() {
	c.watching = true
	done := make(chan struct{})
	c.watchDone = done
	ctx := c.ctx
	go func() {
		defer close(done)
		if !c.deadline.IsZero() {
			c.rwc.SetReadDeadline(time.Time{})
			c.deadline = time.Time{}
		}
		// disarm ends the read below with a deadline in the past; had it
		// done so before the line above undid it, the read would never end.
		c.watchMu.Lock()
		armed := c.armed
		c.watchMu.Unlock()
		if !armed {
			return
		}
		_, err := c.br.Peek(1)
		c.watchErr = err
		if err != nil && !isTimeout(err) {
			ctx.cancel()
		}
	}()
}

// disarm ends the watch after the handler returned and reports whether
// the client went away.
func (c *conn) disarm() (gone bool) {
	c.watchMu.Lock()
	c.armed, c.ctx = false, nil
	watching, done := c.watching, c.watchDone
	if c.timerSet {
		c.timer.Stop()
		c.timerSet = false
	}
	c.watchMu.Unlock()
	if !watching {
		return false
	}
	c.rwc.SetReadDeadline(aLongTimeAgo) // ends the pending read
	<-done
	c.rwc.SetReadDeadline(time.Time{})
	c.watchMu.Lock()
	c.watching = false
	err := c.watchErr
	c.watchErr = nil
	c.watchMu.Unlock()
	return err != nil && !isTimeout(err)
}

var aLongTimeAgo = time.Unix(1, 0)

func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded)
}
