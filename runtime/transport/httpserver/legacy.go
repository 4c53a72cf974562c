package httpserver

import (
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/mcp"
)

// --- 2025-11-25 sessions ---

func (h *Handler) postLegacy(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message) {
	sid := r.Header.Get(hdrSession)
	var s *session
	if sid == "" {
		if m.Method != "initialize" {
			writeError(w, http.StatusBadRequest, m.ID, -32000, "Bad Request: "+hdrSession+" header is required (send initialize first, or the 2026-07-28 _meta envelope)", nil)
			return
		}
		var err error
		if s, err = h.newSession(); err != nil {
			writeError(w, http.StatusServiceUnavailable, m.ID, jsonrpc.CodeInternalError, err.Error(), nil)
			return
		}
		w.Header().Set(hdrSession, s.id)
	} else if s = h.session(sid); s == nil {
		writeError(w, http.StatusNotFound, m.ID, -32001, "Session not found: it ended or never existed; send initialize without "+hdrSession+" to start a new one", nil)
		return
	} else if m.Method == "initialize" {
		writeError(w, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidRequest, "this session is already initialized; send initialize without "+hdrSession+" for a new one", nil)
		return
	}
	if m.Method == "" || m.ID.IsZero() {
		// A notification, or the client's answer to a server request.
		s.mcp.Deliver(m)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ps := newPostStream(w, r, m.ID, false, h.limits.WriteTimeout)
	ps.sess, ps.stream = s, s.newStream()
	if !s.await(m.ID, ps) {
		writeError(w, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidRequest, "request id "+m.ID.String()+" is already in use in this session", nil)
		return
	}
	s.mcp.Deliver(m)
	switch ps.pump(h.opts.KeepAlive, r.Context().Done(), s.ctx.Done(), nil) {
	case answered:
	case stopped:
		if s.ctx.Err() != nil && r.Context().Err() == nil {
			ps.final(jsonrpc.AppendResponse(nil, m.ID, nil, &jsonrpc.Error{Code: -32001, Message: "the session ended before the request was answered"}))
			ps.pump(0, r.Context().Done(), nil, nil)
			break
		}
		fallthrough
	case writeFailed:
		// Disconnecting is not cancelling in 2025-11-25: the request goes
		// on. A stream that had begun can be resumed (Last-Event-ID): its
		// events, the answer too, are kept until then.
		if ps.detach() {
			return
		}
	}
	s.done(m.ID, ps)
	ps.close()
}

// resume replays stream's events after seq onto g and, while the stream's
// request is unanswered, hands g what follows. It reports whether g has
// more to wait for.
func (s *session) resume(stream, seq int, g *postStream) bool {
	s.mu.Lock()
	var ps *postStream
	for _, w := range s.waiting {
		if w.stream == stream {
			ps = w
		}
	}
	s.mu.Unlock()
	if ps != nil {
		ps.mu.Lock() // no event of ps between the replay and the hand-over
		defer ps.mu.Unlock()
	}
	for _, e := range s.after(stream, seq) {
		g.eventAs(e.stream, e.seq, e.msg)
	}
	// A client resuming a stream has given it up, even if its POST has
	// not been seen to end yet.
	if ps == nil || !ps.detachLocked() {
		return false
	}
	ps.resumed = g
	return true
}

func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(hdrSession)
	if sid == "" {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			"GET needs a 2025-11-25 session ("+hdrSession+"); 2026-07-28 clients use POST subscriptions/listen", nil)
		return
	}
	s := h.session(sid)
	if s == nil {
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, -32001, "Session not found", nil)
		return
	}
	ps := newPostStream(w, r, jsonrpc.ID{}, false, h.limits.WriteTimeout)
	defer ps.close()
	if stream, seq, ok := parseEventID(r.Header.Get("Last-Event-ID")); ok && stream != s.getStream() {
		// Resuming a POST's stream: its missed events, then the rest of
		// it; the stream ends with the answer, like the original. (No
		// priming event: the client's last id stands.)
		ps.mu.Lock()
		ps.startSSE()
		ps.mu.Unlock()
		if !s.resume(stream, seq, ps) {
			ps.end() // the replay is all there is
		}
		ps.pump(h.opts.KeepAlive, r.Context().Done(), s.ctx.Done(), h.drain.Done())
		return
	}
	ps.sess = s
	if !s.setGet(ps) {
		writeError(w, http.StatusConflict, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "this session already has a GET stream open", nil)
		return
	}
	defer s.setGet(nil)
	ps.mu.Lock() // a notification may already be starting it
	ps.stream = s.getStream()
	if !ps.sse {
		ps.startSSE()
	}
	ps.mu.Unlock()
	if stream, seq, ok := parseEventID(r.Header.Get("Last-Event-ID")); ok && stream == ps.stream {
		for _, e := range s.after(stream, seq) {
			ps.eventAs(e.stream, e.seq, e.msg)
		}
	}
	ps.pump(h.opts.KeepAlive, r.Context().Done(), s.ctx.Done(), h.drain.Done())
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(hdrSession)
	if sid == "" {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "DELETE needs a 2025-11-25 session ("+hdrSession+")", nil)
		return
	}
	s := h.session(sid)
	if s == nil {
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, -32001, "Session not found", nil)
		return
	}
	h.sessions.forget(s) // at once: the next request with this id gets 404
	s.end()
	w.WriteHeader(http.StatusOK)
}

// sessions is the table of a Handler's 2025-11-25 sessions: a map by id and
// a list from the most to the least recently used, for the cap and the
// idle expiry.
type sessions struct {
	max  int
	idle time.Duration

	mu     sync.RWMutex // byID (read-locked per request), closed
	byID   map[string]*session
	closed bool

	lruMu sync.Mutex // lru, and each session's elem
	lru   list.List  // of *session, most recently used first

	sweeping sync.Once
}

// session returns the live session id, marked used now.
func (h *Handler) session(id string) *session {
	t := &h.sessions
	t.mu.RLock()
	s := t.byID[id]
	t.mu.RUnlock()
	if s != nil {
		s.used.Store(time.Now().UnixNano())
		t.lruMu.Lock()
		if s.elem != nil {
			t.lru.MoveToFront(s.elem)
		}
		t.lruMu.Unlock()
	}
	return s
}

// newSession opens a session, ending the least recently used one when the
// table is full (a client flooding initialize can only push out idle
// sessions, never grow the server).
func (h *Handler) newSession() (*session, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	t := &h.sessions
	s := &session{id: hex.EncodeToString(b), waiting: map[string]*postStream{}}
	s.used.Store(time.Now().UnixNano())
	s.ctx, s.cancel = context.WithCancel(h.ctx)
	var evicted *session
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		s.cancel()
		return nil, errors.New("the server is shutting down")
	}
	t.lruMu.Lock()
	if len(t.byID) >= t.max {
		if back := t.lru.Back(); back != nil {
			evicted = back.Value.(*session)
			t.unlinkLocked(evicted)
		}
	}
	s.elem = t.lru.PushFront(s)
	t.lruMu.Unlock()
	t.byID[s.id] = s
	t.mu.Unlock()
	if evicted != nil {
		evicted.end()
	}
	t.sweeping.Do(func() { go h.sweep() })
	srv := h.srvs[h.rr.Add(1)%uint64(len(h.srvs))]
	s.mcp = srv.Open(s)
	context.AfterFunc(s.ctx, func() {
		s.mcp.Close()
		t.forget(s)
	})
	return s, nil
}

// unlinkLocked takes s out of the table; t.mu and t.lruMu are held.
func (t *sessions) unlinkLocked(s *session) {
	if t.byID[s.id] == s {
		delete(t.byID, s.id)
	}
	if s.elem != nil {
		t.lru.Remove(s.elem)
		s.elem = nil
	}
}

// forget takes an ended session out of the table.
func (t *sessions) forget(s *session) {
	t.mu.Lock()
	t.lruMu.Lock()
	t.unlinkLocked(s)
	t.lruMu.Unlock()
	t.mu.Unlock()
}

// sweep ends sessions idle past the limit, from the least recently used
// on, off the request path, until the handler closes.
func (h *Handler) sweep() {
	t := &h.sessions
	every := min(max(t.idle/4, 10*time.Millisecond), time.Minute)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		cutoff := time.Now().Add(-t.idle).UnixNano()
		var idle []*session
		t.mu.Lock()
		t.lruMu.Lock()
		for e := t.lru.Back(); e != nil; e = t.lru.Back() {
			s := e.Value.(*session)
			if s.used.Load() > cutoff {
				break
			}
			t.unlinkLocked(s)
			idle = append(idle, s)
		}
		t.lruMu.Unlock()
		t.mu.Unlock()
		for _, s := range idle {
			s.end()
		}
	}
}

// closeAll ends every session; no new one opens.
func (t *sessions) closeAll() {
	t.mu.Lock()
	t.closed = true
	all := make([]*session, 0, len(t.byID))
	for _, s := range t.byID {
		all = append(all, s)
	}
	t.mu.Unlock()
	for _, s := range all {
		s.end()
	}
}

// session is a 2025-11-25 session: a jsonrpc.Stream for mcp.Server whose
// messages come from POSTs and go to the POST they answer or belong with,
// or to the GET stream.
type session struct {
	id     string
	ctx    context.Context
	cancel context.CancelFunc
	mcp    *mcp.Session  // the POSTs' messages are delivered to it
	used   atomic.Int64  // when last used, in Unix ns
	elem   *list.Element // in the table's LRU list (its lruMu)

	mu       sync.Mutex
	waiting  map[string]*postStream // by request id
	getS     *postStream
	streams  int        // SSE streams opened (their numbers)
	getNo    int        // the GET stream's number
	log      []logEvent // the last events sent, for Last-Event-ID
	logBytes int
}

// logEvent is one SSE event of a session, kept so that a client whose
// stream broke can resume it with Last-Event-ID (id "STREAM.SEQ").
type logEvent struct {
	stream, seq int
	msg         []byte
}

// maxLog and maxLogBytes bound each session's event log (the newest event
// is kept whatever its size, so a broken stream's answer can be resumed).
const (
	maxLog      = 512
	maxLogBytes = 1 << 20
)

// record keeps an event of stream; s.mu is not held.
func (s *session) record(stream, seq int, msg []byte) {
	s.mu.Lock()
	s.log = append(s.log, logEvent{stream, seq, msg})
	s.logBytes += len(msg)
	if len(s.log) > maxLog || s.logBytes > maxLogBytes {
		// Drop the oldest until half the bounds are free (not one at a
		// time: each drop copies the log).
		drop := 0
		for drop < len(s.log)-1 && (len(s.log)-drop > maxLog/2 || s.logBytes > maxLogBytes/2) {
			s.logBytes -= len(s.log[drop].msg)
			drop++
		}
		s.log = append(s.log[:0], s.log[drop:]...)
	}
	s.mu.Unlock()
}

// newStream numbers a new SSE stream of the session.
func (s *session) newStream() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams++
	return s.streams
}

// after returns the logged events of stream after seq.
func (s *session) after(stream, seq int) []logEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []logEvent
	for _, e := range s.log {
		if e.stream == stream && e.seq > seq {
			out = append(out, e)
		}
	}
	return out
}

func (s *session) await(id jsonrpc.ID, ps *postStream) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.waiting[id.String()]; dup {
		return false
	}
	s.waiting[id.String()] = ps
	return true
}

func (s *session) done(id jsonrpc.ID, ps *postStream) {
	s.mu.Lock()
	if s.waiting[id.String()] == ps {
		delete(s.waiting, id.String())
	}
	s.mu.Unlock()
}

// getStream is the number of the session's GET stream (the same across
// reconnections, so Last-Event-ID resumes it).
func (s *session) getStream() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.getNo == 0 {
		s.streams++
		s.getNo = s.streams
	}
	return s.getNo
}

// parseEventID reads an event id of ours: STREAM.SEQ.
func parseEventID(v string) (stream, seq int, ok bool) {
	a, b, found := strings.Cut(v, ".")
	if !found {
		return 0, 0, false
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	return x, y, err1 == nil && err2 == nil && x > 0 && y >= 0
}

func (s *session) setGet(ps *postStream) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ps != nil && s.getS != nil {
		return false
	}
	s.getS = ps
	return true
}

func (s *session) end() { s.cancel() }

// Read is never called: a session's messages are delivered (mcp.Session).
func (s *session) Read() ([]byte, error) {
	<-s.ctx.Done()
	return nil, io.EOF
}

// Write sends a response to the POST that asked, and anything else to the
// GET stream (dropped when there is none: nothing is resumable).
func (s *session) Write(msg []byte) error {
	if id, ok := responseID(msg); ok {
		s.answer(id, msg)
		return nil
	}
	s.mu.Lock()
	g := s.getS
	s.mu.Unlock()
	if g != nil {
		g.event(msg)
	}
	return nil
}

// WriteResponse sends the response to request id to the POST that asked
// (jsonrpc.ReplyStream: no need to find the id in msg).
func (s *session) WriteResponse(id jsonrpc.ID, msg []byte) error {
	s.answer(id.String(), msg)
	return nil
}

// answer gives a response to the POST waiting for it (none: it is dropped,
// as nothing but its POST may carry it).
func (s *session) answer(id string, msg []byte) {
	s.mu.Lock()
	ps := s.waiting[id]
	s.mu.Unlock()
	if ps != nil {
		ps.final(msg)
	}
}

// WriteFor sends what belongs with request related on that request's POST
// stream (or the GET stream when the POST is gone).
func (s *session) WriteFor(related jsonrpc.ID, msg []byte) error {
	s.mu.Lock()
	ps := s.waiting[related.String()]
	s.mu.Unlock()
	if ps != nil && ps.event(msg) {
		return nil
	}
	return s.Write(msg)
}

func (s *session) Close() error {
	s.end()
	return nil
}
