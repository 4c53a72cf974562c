package h1

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// holdLimit is how much of a body a response keeps before sending its head:
// a handler that finishes within it gets a Content-Length and one write.
const holdLimit = 32 << 10

// sendLimit is how much framed output a streaming response gathers before
// it writes without a Flush.
const sendLimit = 16 << 10

var errResponseDone = errors.New("h1: write after the handler returned")

// response is the http.ResponseWriter (and http.Flusher) of one request.
// Like net/http's, it is not safe for concurrent use: a handler that writes
// from several goroutines serializes them itself.
type response struct {
	c        *conn
	req      *http.Request
	header   http.Header
	status   int   // 0 until WriteHeader
	declared int64 // the Content-Length the handler set, or -1
	written  int64 // body bytes the handler wrote
	hold     []byte

	sent       bool // the head is written (or on its way)
	chunked    bool
	closeAfter bool
	headOnly   bool // HEAD: the body is counted, not sent
	keepAlive  bool // what the request allows
	done       bool
	err        error // the first failed socket write
}

func (w *response) Header() http.Header { return w.header }

func (w *response) WriteHeader(code int) {
	if w.done {
		return
	}
	if code < 100 || code > 999 {
		panic("h1: invalid WriteHeader code " + strconv.Itoa(code))
	}
	if w.status != 0 {
		return // superfluous, as net/http: the first one counts
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		w.informational(code)
		return
	}
	w.status = code
	w.declared = -1
	if cl := w.header.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			w.declared = n
		} else {
			w.header.Del("Content-Length")
		}
	}
}

// informational writes a 1xx head at once (103 Early Hints and the like).
func (w *response) informational(code int) {
	c := w.c
	b := appendStatus(c.out[:0], w.req.ProtoMinor, code)
	b = appendFields(b, w.header)
	b = append(b, "\r\n"...)
	c.out = b[:0]
	w.write(b)
}

func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

func (w *response) Write(p []byte) (int, error) {
	if w.done {
		return 0, errResponseDone
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.declared >= 0 && w.written+int64(len(p)) > w.declared {
		return 0, http.ErrContentLength
	}
	if w.err != nil {
		return 0, w.err
	}
	w.written += int64(len(p))
	if w.headOnly {
		return len(p), nil
	}
	if !w.sent {
		w.hold = append(w.hold, p...)
		if len(w.hold) > holdLimit {
			w.sendHead(false)
			w.send()
		}
		return len(p), w.err
	}
	w.frame(p)
	if len(w.c.out) >= sendLimit {
		w.send()
	}
	return len(p), w.err
}

// Flush sends the head (chunked unless the handler set a Content-Length)
// and everything written so far.
func (w *response) Flush() {
	if w.done {
		return
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sent {
		w.sendHead(false)
	}
	w.send()
}

// FlushError is Flush reporting the write's error (http.ResponseController).
func (w *response) FlushError() error {
	w.Flush()
	return w.err
}

// frame adds body bytes to the output, as a chunk if chunked.
func (w *response) frame(p []byte) {
	if len(p) == 0 {
		return
	}
	c := w.c
	if w.chunked {
		c.out = strconv.AppendInt(c.out, int64(len(p)), 16)
		c.out = append(c.out, "\r\n"...)
		c.out = append(c.out, p...)
		c.out = append(c.out, "\r\n"...)
		return
	}
	c.out = append(c.out, p...)
}

// send moves the held body into the output and writes the output.
func (w *response) send() {
	if len(w.hold) > 0 {
		w.frame(w.hold)
		w.hold = w.hold[:0]
	}
	w.write(w.c.out)
	w.c.out = w.c.out[:0]
}

func (w *response) write(b []byte) {
	if w.err != nil || len(b) == 0 {
		return
	}
	if _, err := w.c.rwc.Write(b); err != nil {
		w.err = err
		w.closeAfter = true
	}
}

// sendHead puts the status line and fields in the output. final: the
// handler has returned, so the held body is all there is.
func (w *response) sendHead(final bool) {
	w.sent = true
	h := w.header
	allowed := bodyAllowed(w.status)
	if w.c.srv.shuttingDown() || !w.keepAlive || hasToken(h["Connection"], "close") {
		w.closeAfter = true
	}
	var length int64 = -1
	switch {
	case !allowed:
	case w.declared >= 0:
		length = w.declared
	case final:
		length = w.written
	case w.req.ProtoMinor == 1:
		w.chunked = true
	default:
		w.closeAfter = true // an HTTP/1.0 stream ends with the connection
	}
	if w.headOnly && !final && w.declared < 0 {
		w.chunked = false
	}
	c := w.c
	b := appendStatus(c.out, w.req.ProtoMinor, w.status)
	if _, ok := h["Content-Type"]; !ok && allowed && len(w.hold) > 0 {
		b = append(b, "Content-Type: "...)
		b = append(b, http.DetectContentType(w.hold)...)
		b = append(b, "\r\n"...)
	}
	b = appendFields(b, h)
	if _, ok := h["Date"]; !ok {
		b = appendDate(b)
	}
	if length >= 0 && w.declared < 0 {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, length, 10)
		b = append(b, "\r\n"...)
	}
	if w.chunked {
		b = append(b, "Transfer-Encoding: chunked\r\n"...)
	}
	if w.closeAfter {
		if !hasToken(h["Connection"], "close") {
			b = append(b, "Connection: close\r\n"...)
		}
	} else if w.req.ProtoMinor == 0 {
		b = append(b, "Connection: keep-alive\r\n"...)
	}
	c.out = append(b, "\r\n"...)
}

// finish ends the response after the handler returned: the head with a
// Content-Length and the body in one write when nothing was sent yet, the
// last chunk otherwise.
func (w *response) finish() {
	if w.done {
		return
	}
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if !w.sent {
		if !w.c.drainBody() {
			w.closeAfter = true
		}
		w.sendHead(true)
		w.send()
	} else {
		if w.chunked {
			w.c.out = append(w.c.out, "0\r\n\r\n"...)
		}
		w.send()
		if w.declared >= 0 && w.written != w.declared && !w.headOnly {
			w.closeAfter = true // the framing promised more than came
		}
		if !w.c.drainBody() {
			w.closeAfter = true
		}
	}
	w.done = true
}

func appendStatus(b []byte, minor, code int) []byte {
	if minor == 0 {
		b = append(b, "HTTP/1.0 "...)
	} else {
		b = append(b, "HTTP/1.1 "...)
	}
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, ' ')
	if t := http.StatusText(code); t != "" {
		b = append(b, t...)
	} else {
		b = append(b, "status code "...)
		b = strconv.AppendInt(b, int64(code), 10)
	}
	return append(b, "\r\n"...)
}

// appendFields writes the handler's fields sorted by name (a stable head
// for tests and caches), dropping invalid names and those the framing owns,
// and turning CR and LF in values into spaces (no response splitting).
func appendFields(b []byte, h http.Header) []byte {
	var arr [16]string
	keys := arr[:0]
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !isToken(k) || k == "Transfer-Encoding" {
			continue
		}
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			if strings.ContainsAny(v, "\r\n") {
				v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
			}
			b = append(b, trimOWS(v)...)
			b = append(b, "\r\n"...)
		}
	}
	return b
}

// The Date field, formatted once a second.
type dateLine struct {
	sec  int64
	line string
}

var dateCache atomic.Pointer[dateLine]

func appendDate(b []byte) []byte {
	now := time.Now()
	sec := now.Unix()
	d := dateCache.Load()
	if d == nil || d.sec != sec {
		d = &dateLine{sec, "Date: " + now.UTC().Format(http.TimeFormat) + "\r\n"}
		dateCache.Store(d)
	}
	return append(b, d.line...)
}
