package httpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/mcp"
)

// postStream is the response side of one POST (or GET): a JSON body, or an
// SSE stream once something comes before the answer. It is the
// jsonrpc.Stream of a 2026-07-28 request's session, whose one message is
// delivered.
//
// What the server sends (from the Lua state's goroutine, a timer, the
// reader of a legacy session's answers) is queued here and written by the
// request's own handler goroutine (pump), under a write deadline per
// write: no goroutine that runs Lua or serves another client ever waits
// for this client's socket.
type postStream struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	id       jsonrpc.ID // the request this POST carries
	modern   bool
	sseOK    bool
	wt       time.Duration // write timeout
	wake     chan struct{} // (1) something was queued, or the stream ended
	finished chan struct{} // closed when the answer is queued, or the stream closes

	mu     sync.Mutex
	sse    bool   // the response is an event stream (set by the first event)
	out    []byte // queued and not yet written: SSE bytes, or the JSON answer
	spare  []byte // out's last buffer, for reuse
	status int    // the JSON answer's HTTP status
	fin    bool   // the answer is queued: write what is queued, then end
	closed bool   // nothing more is queued (written out, client gone, too slow)

	// 2025-11-25 streams are resumable: events carry ids and are logged.
	sess     *session
	stream   int
	seq      int
	detached bool        // the client went away before the answer; events are only logged
	resumed  *postStream // a GET that resumed this stream gets what follows
}

// maxQueued bounds the events waiting for a client that does not read;
// past it the stream is given up (the answer itself is always taken).
const maxQueued = 4 << 20

func newPostStream(w http.ResponseWriter, r *http.Request, id jsonrpc.ID, modern bool, wt time.Duration) *postStream {
	accept := r.Header.Get("Accept")
	sseOK := accept == "" || strings.Contains(accept, "text/event-stream") || strings.Contains(accept, "*/*")
	return &postStream{w: w, rc: http.NewResponseController(w), id: id, modern: modern, sseOK: sseOK, wt: wt,
		wake: make(chan struct{}, 1), finished: make(chan struct{})}
}

// signal wakes pump; ps.mu is held or not, either way.
func (ps *postStream) signal() {
	select {
	case ps.wake <- struct{}{}:
	default:
	}
}

// stopReason is why pump returned.
type stopReason int

const (
	answered    stopReason = iota // the answer is written
	writeFailed                   // the client is gone, or took nothing for the write timeout
	stopped                       // one of the stop channels ended, or the stream was closed
)

// pump writes what is queued, as it comes, until the answer is written,
// the stream is closed or a stop channel ends (nil ones never do). It runs
// on the request's handler goroutine, the only one that touches the
// ResponseWriter. SSE streams get a comment every keepAlive.
func (ps *postStream) pump(keepAlive time.Duration, stop1, stop2, stop3 <-chan struct{}) stopReason {
	headerSent := false
	var ka *time.Timer
	var kaC <-chan time.Time
	defer func() {
		if ka != nil {
			ka.Stop()
		}
	}()
	for {
		ps.mu.Lock()
		out, sse, fin, closed, status := ps.out, ps.sse, ps.fin, ps.closed, ps.status
		ps.out, ps.spare = ps.spare[:0], nil
		ps.mu.Unlock()
		if len(out) > 0 || (!headerSent && (sse || fin)) {
			err := ps.write(out, sse, status, !headerSent)
			headerSent = true
			ps.mu.Lock()
			if cap(out) <= 64<<10 {
				ps.spare = out[:0]
			}
			ps.mu.Unlock()
			if err != nil {
				return writeFailed
			}
		}
		switch {
		case closed: // closing marks it finished too: check first
			return stopped
		case fin:
			return answered
		}
		if sse && ka == nil && keepAlive > 0 {
			ka = time.NewTimer(keepAlive)
			kaC = ka.C
		}
		select {
		case <-ps.wake:
		case <-kaC:
			ps.comment()
			ka.Reset(keepAlive)
		case <-stop1:
			return stopped
		case <-stop2:
			return stopped
		case <-stop3:
			return stopped
		}
	}
}

// write sends b (and the head first, when header is set) under a fresh
// write deadline.
func (ps *postStream) write(b []byte, sse bool, status int, header bool) error {
	ps.rc.SetWriteDeadline(time.Now().Add(ps.wt))
	if header {
		h := ps.w.Header()
		if sse {
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Accel-Buffering", "no")
			ps.w.WriteHeader(http.StatusOK)
		} else {
			h.Set("Content-Type", "application/json")
			ps.w.WriteHeader(status)
		}
	}
	if len(b) > 0 {
		if _, err := ps.w.Write(b); err != nil {
			return err
		}
	}
	if sse {
		// A JSON answer goes out when the handler returns, with its
		// Content-Length.
		if err := ps.rc.Flush(); err != nil && err != http.ErrNotSupported {
			return err
		}
	}
	return nil
}

// Read waits until the stream ends (a session's messages are delivered,
// not read; see mcp.Session).
func (ps *postStream) Read() ([]byte, error) {
	<-ps.finished
	return nil, io.EOF
}

func (ps *postStream) Write(msg []byte) error {
	if id, ok := responseID(msg); ok && id == ps.id.String() {
		ps.final(msg)
		return nil
	}
	ps.event(msg)
	return nil
}

func (ps *postStream) WriteFor(_ jsonrpc.ID, msg []byte) error { return ps.Write(msg) }

// WriteResponse: see jsonrpc.ReplyStream.
func (ps *postStream) WriteResponse(id jsonrpc.ID, msg []byte) error {
	if id == ps.id {
		ps.final(msg)
		return nil
	}
	return ps.Write(msg)
}

func (ps *postStream) Close() error {
	ps.close()
	return nil
}

// close ends the stream: nothing more is queued or written.
func (ps *postStream) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closeLocked()
}

func (ps *postStream) closeLocked() {
	if !ps.closed {
		ps.closed = true
		ps.out = nil
		ps.finishLocked()
	}
}

// finishLocked marks the answer queued (or the stream over) and wakes
// pump; ps.mu is held.
func (ps *postStream) finishLocked() {
	if !ps.fin {
		ps.fin = true
		close(ps.finished)
	}
	ps.signal()
}

// end finishes the stream after what is queued (a resumed stream whose
// answer came).
func (ps *postStream) end() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.closed {
		ps.finishLocked()
	}
}

// detach leaves a broken SSE stream's request waiting for its answer,
// which is then only logged; it reports whether the stream had begun.
func (ps *postStream) detach() bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.detachLocked()
}

func (ps *postStream) detachLocked() bool {
	if ps.detached {
		return true
	}
	if !ps.sse || ps.fin {
		return false
	}
	ps.detached = true
	ps.closed = true // the ResponseWriter is done with
	ps.out = nil     // what was queued is in the session's log
	ps.signal()
	return true
}

// queue adds b to what pump writes; ps.mu is held. Events beyond
// maxQueued give the stream up: a legacy one is detached (its events are
// logged for a client that resumes), a modern one closed.
func (ps *postStream) queue(b []byte, answer bool) {
	if !answer && len(ps.out)+len(b) > maxQueued {
		if ps.sess == nil || !ps.detachLocked() {
			ps.closeLocked()
		}
		return
	}
	ps.out = append(ps.out, b...)
	ps.signal()
}

// startSSE commits the response to an event stream; ps.mu is held.
func (ps *postStream) startSSE() {
	ps.sse = true
	if ps.sess != nil {
		// Priming event: an id to resume from before any message (SEP-1699).
		ps.queue([]byte("id: "+strconv.Itoa(ps.stream)+".0\nretry: 1000\ndata: \n\n"), false)
	}
}

// event queues a message before the answer; it reports whether it could.
func (ps *postStream) event(msg []byte) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.detached && !ps.fin {
		ps.logOnly(msg)
		return true
	}
	if ps.closed || ps.fin || !ps.sseOK {
		return false
	}
	if !ps.sse {
		ps.startSSE()
	}
	ps.queue(ps.frame(msg), false)
	return true
}

// frame is msg as an SSE event, numbered and logged on legacy streams;
// ps.mu is held.
func (ps *postStream) frame(msg []byte) []byte {
	b := make([]byte, 0, len(msg)+40)
	if ps.sess != nil {
		ps.seq++
		ps.sess.record(ps.stream, ps.seq, msg)
		b = append(b, "id: "...)
		b = strconv.AppendInt(b, int64(ps.stream), 10)
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(ps.seq), 10)
		b = append(b, '\n')
	}
	b = append(b, "event: message\ndata: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}

// logOnly keeps an event of a stream whose client is gone (ps.mu held),
// and passes it on to a GET that resumed the stream.
func (ps *postStream) logOnly(msg []byte) {
	ps.seq++
	ps.sess.record(ps.stream, ps.seq, msg)
	if ps.resumed != nil {
		ps.resumed.eventAs(ps.stream, ps.seq, msg)
	}
}

// eventAs queues an event of another stream (a resumed one) with its id.
func (ps *postStream) eventAs(stream, seq int, msg []byte) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed || ps.fin {
		return
	}
	if !ps.sse {
		ps.startSSE()
	}
	b := make([]byte, 0, len(msg)+48)
	b = append(b, "id: "...)
	b = strconv.AppendInt(b, int64(stream), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(seq), 10)
	b = append(b, "\nevent: message\ndata: "...)
	b = append(b, msg...)
	ps.queue(append(b, "\n\n"...), false)
}

// comment queues an SSE keep-alive comment.
func (ps *postStream) comment() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.closed && !ps.fin && ps.sse {
		ps.queue([]byte(": keep-alive\n\n"), false)
	}
}

// final queues the answer; the stream ends once it is written.
func (ps *postStream) final(msg []byte) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.detached && !ps.fin {
		// The answer of a broken stream: kept for resumption, and sent to
		// a GET that resumed it, which then ends like the stream would.
		ps.logOnly(msg)
		ps.finishLocked()
		if ps.resumed != nil {
			ps.resumed.end()
		}
		ps.sess.done(ps.id, ps)
		return
	}
	if ps.closed || ps.fin {
		return
	}
	if ps.sse {
		ps.queue(ps.frame(msg), true)
	} else {
		ps.status = http.StatusOK
		if ps.modern {
			ps.status = statusOf(msg)
		}
		ps.queue(msg, true)
	}
	ps.finishLocked()
}

// statusOf is the HTTP status of a 2026-07-28 answer sent as JSON.
func statusOf(msg []byte) int {
	e := jsonscan.Member(msg, "error")
	if e == nil {
		return http.StatusOK
	}
	var x struct {
		Code int `json:"code"`
	}
	json.Unmarshal(e, &x)
	switch x.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidParams,
		mcp.CodeHeaderMismatch, mcp.CodeMissingClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// responseID returns the id of a response message.
func responseID(msg []byte) (string, bool) {
	var id []byte
	isResp := false
	jsonscan.Members(msg, func(k, v []byte) bool {
		switch string(k) {
		case `"id"`:
			id = v
		case `"result"`, `"error"`:
			isResp = true
		case `"method"`:
			isResp = false
			return false
		}
		return true
	})
	if !isResp || id == nil {
		return "", false
	}
	var x jsonrpc.ID
	if x.UnmarshalJSON(id) != nil {
		return "", false
	}
	return x.String(), true
}
