// Package mcphttp serves an mcp.Server over Streamable HTTP, both protocol
// eras on one endpoint.
//
// Every POST is routed by what it carries (docs/conformance-fixture.md §8.3):
// a 2026-07-28 request — an MCP-Protocol-Version header that is not a legacy
// version, or the _meta envelope in the body — is served on its own, its
// answer written as JSON, or as an SSE stream when progress or log messages
// come first. Anything else belongs to a 2025-11-25 session: initialize
// opens one (Mcp-Session-Id), its requests are answered on their POSTs (SSE
// when the server has something to send first, including requests to the
// client, whose answers arrive as POSTs of their own), and notifications not
// tied to a request go to the session's GET stream.
package mcphttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/mcp"
)

// Options configure a Handler.
type Options struct {
	// AllowOrigins are origins (scheme://host[:port]) accepted besides
	// loopback ones; "*" accepts any.
	AllowOrigins []string
	// AnyHost turns off the Host check (a server bound to a public address
	// is reached by names it cannot know). Loopback servers keep it: it is
	// the defence against DNS rebinding.
	AnyHost bool
	// AllowHosts are Host names accepted besides loopback ones (a proxy in
	// front that forwards its own name).
	AllowHosts []string
	// MaxBody bounds a request body (default 4 MiB).
	MaxBody int64
	// SessionIdle ends legacy sessions unused this long (default 1 hour).
	SessionIdle time.Duration
	// KeepAlive is the interval of SSE comment lines on long streams
	// (default 15 s).
	KeepAlive time.Duration
	// Authorize, if set, runs on every request after the Host and Origin
	// checks; a refused request it has answered itself (401, 400) returns
	// false (runtime/httpauth's Auth.Check).
	Authorize func(w http.ResponseWriter, r *http.Request) bool
}

// Handler is the http.Handler of one MCP endpoint.
type Handler struct {
	srvs []*mcp.Server  // the workers: one server each, from one script
	busy []atomic.Int64 // modern requests in flight, per worker
	rr   atomic.Uint64  // round robin for new legacy sessions
	opts Options

	mu       sync.RWMutex // sessions (read-locked per request), closed
	sessions map[string]*session
	closed   bool
	draining atomic.Bool
	okHost   atomic.Pointer[string] // a Host value last found acceptable
	ctx      context.Context
	stop     context.CancelFunc
	drain    context.Context // done when the server drains: streams end, calls finish
	drained  context.CancelFunc
}

// NewHandler serves srv.
func NewHandler(srv *mcp.Server, opts Options) *Handler {
	return NewPool([]*mcp.Server{srv}, opts)
}

// NewPool serves one endpoint from several servers built from the same
// script (workers, each its own Lua state): a 2026-07-28 request goes to
// the worker with the fewest requests in flight, and a 2025-11-25 session
// stays on the worker that initialized it. requestState is signed with the
// process's key, so any worker verifies what another signed.
func NewPool(srvs []*mcp.Server, opts Options) *Handler {
	if opts.MaxBody <= 0 {
		opts.MaxBody = 4 << 20
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = time.Hour
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	ctx, stop := context.WithCancel(context.Background())
	drain, drained := context.WithCancel(ctx)
	return &Handler{drain: drain, drained: drained, srvs: srvs, busy: make([]atomic.Int64, len(srvs)), opts: opts, sessions: map[string]*session{}, ctx: ctx, stop: stop}
}

// idlest is the worker with the fewest modern requests in flight, the
// lowest-numbered among equals: at low concurrency every request goes to
// the same warm state instead of alternating between cold ones.
func (h *Handler) idlest() int {
	best, least := 0, h.busy[0].Load()
	for i := 1; i < len(h.srvs) && least > 0; i++ {
		if b := h.busy[i].Load(); b < least {
			best, least = i, b
		}
	}
	return best
}

// Drain starts a graceful stop: streams that never end by themselves
// (subscriptions/listen, 2025-11-25 GET streams) end now, requests in flight
// go on to their answers, and new requests get 503. Close ends the rest.
func (h *Handler) Drain() {
	h.draining.Store(true)
	h.drained()
}

// Close ends every session and open stream.
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	ss := h.sessions
	h.sessions = map[string]*session{}
	h.mu.Unlock()
	h.stop()
	for _, s := range ss {
		s.end()
	}
}

const (
	hdrVersion = "MCP-Protocol-Version"
	hdrSession = "Mcp-Session-Id"
	hdrMethod  = "Mcp-Method"
	hdrName    = "Mcp-Name"
)

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := h.forbidden(r); msg != "" {
		writeError(w, http.StatusForbidden, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, msg, nil)
		return
	}
	if h.opts.Authorize != nil && !h.opts.Authorize(w, r) {
		return
	}
	if h.draining.Load() {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, jsonrpc.ID{}, jsonrpc.CodeInternalError, "the server is shutting down; retry (another replica may answer)", nil)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "method not allowed: use POST (GET and DELETE serve 2025-11-25 sessions)", nil)
	}
}

// forbidden checks Host and Origin against DNS rebinding; it returns why a
// request is refused, or "".
func (h *Handler) forbidden(r *http.Request) string {
	// Every request of a client names the same Host: the verdict on the
	// last one accepted is kept (the check parses and lowercases it).
	if ok := h.okHost.Load(); ok == nil || *ok != r.Host {
		if host := hostOnly(r.Host); !h.opts.AnyHost && !isLoopbackName(host) && !slices.ContainsFunc(h.opts.AllowHosts, func(a string) bool { return strings.EqualFold(a, host) }) {
			return "forbidden: Host " + r.Host + " is not a loopback name (this server accepts localhost, 127.0.0.1 and [::1]; start it with --allow-host " + host + " to accept it)"
		}
		host := r.Host
		h.okHost.Store(&host)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	if slices.Contains(h.opts.AllowOrigins, "*") || slices.Contains(h.opts.AllowOrigins, strings.TrimSuffix(origin, "/")) {
		return ""
	}
	if i := strings.Index(origin, "://"); i > 0 && isLoopbackName(hostOnly(origin[i+3:])) {
		return ""
	}
	return "forbidden: Origin " + origin + " is not allowed (start the server with --allow-origin " + origin + " to accept it)"
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

func isLoopbackName(h string) bool {
	h = strings.Trim(strings.ToLower(h), "[]")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, h.opts.MaxBody)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				"the request body is larger than the server's limit of "+sizeString(h.opts.MaxBody), nil)
			return
		}
		writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "could not read the request body: "+err.Error(), nil)
		return
	}
	m, err := jsonrpc.Decode(body)
	if err != nil {
		code := jsonrpc.CodeInvalidRequest
		if !json.Valid(body) {
			code = jsonrpc.CodeParseError
		}
		// A repeated envelope key is answered with the id, when it is not
		// what repeats.
		writeError(w, http.StatusBadRequest, jsonrpc.RefusedID(err), code, "invalid message: "+err.Error(), nil)
		return
	}
	version := strings.TrimSpace(r.Header.Get(hdrVersion))
	meta := jsonscan.Member(m.Params, "_meta")
	envelope := meta != nil && (jsonscan.Member(meta, mcp.MetaProtocolVersion) != nil || jsonscan.Member(meta, mcp.MetaClientCapabilities) != nil)
	// initialize is a 2025-11-25 method even with the envelope in its body
	// (dual-era clients do that); only a 2026-07-28 header makes it modern —
	// and then it does not exist.
	modernHeader := version != "" && !slices.Contains(mcp.LegacyVersions, version)
	if modernHeader || (envelope && m.Method != "initialize") {
		if m.Method == "initialize" {
			writeError(w, http.StatusNotFound, m.ID, jsonrpc.CodeMethodNotFound, "initialize is not part of the 2026-07-28 protocol (use server/discover; send it without the "+version+" header for a 2025-11-25 session)", nil)
			return
		}
		h.postModern(w, r, m, meta, version)
		return
	}
	h.postLegacy(w, r, m)
}

// readBody reads a request body of at most max bytes: into a buffer of its
// Content-Length when it has one (io.ReadAll grows one from 512 bytes).
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= max {
		b := make([]byte, n)
		if _, err := io.ReadFull(r.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, max))
}

// --- 2026-07-28 ---

func (h *Handler) postModern(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, meta []byte, version string) {
	if m.Method == "" {
		writeError(w, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidRequest, "a 2026-07-28 client sends requests only, never responses", nil)
		return
	}
	if m.ID.IsZero() {
		// No client notifications are defined over 2026-07-28 HTTP.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	metaVersion := jsonscan.Member(meta, mcp.MetaProtocolVersion)
	if metaVersion != nil && jsonscan.Member(meta, mcp.MetaClientCapabilities) != nil {
		// With the envelope complete, the headers must agree with the body
		// (a missing key is the server's -32602, answered below).
		if msg := headerMismatch(h.srvs[0], r, m, metaVersion, version); msg != "" {
			writeError(w, http.StatusBadRequest, m.ID, mcp.CodeHeaderMismatch, msg, nil)
			return
		}
	}
	ps := newPostStream(w, r, m.ID, true)
	listen := m.Method == "subscriptions/listen"
	worker := h.idlest()
	if !listen { // an idle stream is no load
		h.busy[worker].Add(1)
		defer h.busy[worker].Add(-1)
	}
	// The request is served on this goroutine as far as it can be (a Lua
	// handler runs here when its state is idle): no reader goroutine, and
	// no wake-up, between the POST and its answer.
	sess := h.srvs[worker].Open(ps)
	defer ps.close()
	defer sess.Close()
	sess.Deliver(m)
	if ps.answered() {
		return // no stream to keep alive, nothing left to cancel
	}
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	stop := context.AfterFunc(r.Context(), cancel) // the client closed the stream: cancel
	defer stop()
	if listen {
		// A listen stream never ends by itself: draining ends it.
		stopDrain := context.AfterFunc(h.drain, cancel)
		defer stopDrain()
	}
	// Keep long streams (subscriptions/listen, slow calls sending progress)
	// alive through proxies.
	ka := startKeepAlive(ps, h.opts.KeepAlive)
	defer ka.stop()
	select {
	case <-ps.finished:
	case <-ctx.Done():
	}
}

// keepAlive writes an SSE comment on a stream at every interval until
// stopped (only streams that have begun as SSE get them).
type keepAlive struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

func startKeepAlive(ps *postStream, d time.Duration) *keepAlive {
	k := &keepAlive{}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.t = time.AfterFunc(d, func() {
		ps.comment()
		k.mu.Lock()
		if !k.stopped {
			k.t.Reset(d)
		}
		k.mu.Unlock()
	})
	return k
}

func (k *keepAlive) stop() {
	k.mu.Lock()
	k.stopped = true
	k.t.Stop()
	k.mu.Unlock()
}

// headerMismatch compares the 2026-07-28 request headers with the body.
func headerMismatch(srv *mcp.Server, r *http.Request, m *jsonrpc.Message, metaVersion []byte, version string) string {
	var mv string
	json.Unmarshal(metaVersion, &mv)
	if version == "" {
		return "missing " + hdrVersion + " header (it must equal _meta " + mcp.MetaProtocolVersion + ", " + mv + ")"
	}
	if version != mv {
		return hdrVersion + " header " + version + " does not match _meta " + mcp.MetaProtocolVersion + " " + mv
	}
	method, ok := r.Header[http.CanonicalHeaderKey(hdrMethod)]
	if !ok {
		return "missing " + hdrMethod + " header (it must equal the body's method, " + m.Method + ")"
	}
	if got := decodeHeader(method[0]); got != m.Method {
		return hdrMethod + " header " + got + " does not match the body's method " + m.Method
	}
	var key string
	switch m.Method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	default:
		return ""
	}
	want := ""
	if raw := jsonscan.Member(m.Params, key); raw != nil {
		json.Unmarshal(raw, &want)
	}
	name, ok := r.Header[http.CanonicalHeaderKey(hdrName)]
	if !ok {
		return "missing " + hdrName + " header (it must equal params." + key + ", " + want + ")"
	}
	if got := decodeHeader(name[0]); got != want {
		return hdrName + " header " + got + " does not match params." + key + " " + want
	}
	if m.Method == "tools/call" {
		return paramMismatch(r, jsonscan.Member(m.Params, "arguments"), srv.ParamHeaders(want))
	}
	return ""
}

// paramMismatch checks the Mcp-Param-* headers of a tool whose arguments
// are mirrored (x-mcp-header): each argument present must come with its
// header, equal after decoding (integers compared as numbers).
func paramMismatch(r *http.Request, args []byte, headers map[string]string) string {
	for hname, arg := range headers {
		h := "Mcp-Param-" + hname
		vals := r.Header.Values(h)
		raw := jsonscan.Member(args, arg)
		if raw == nil || string(raw) == "null" {
			continue // nothing to mirror; a header sent anyway is ignored
		}
		if len(vals) == 0 {
			return "missing " + h + " header: argument " + arg + " is sent in the body, so it must be mirrored"
		}
		got := decodeHeader(vals[0])
		var want string
		switch raw[0] {
		case '"':
			json.Unmarshal(raw, &want)
		case 't', 'f':
			want = string(raw)
		default:
			var a, b json.Number
			if json.Unmarshal(raw, &a) == nil && json.Unmarshal([]byte(got), &b) == nil && a.String() != "" {
				af, e1 := a.Float64()
				bf, e2 := b.Float64()
				if e1 == nil && e2 == nil && af == bf {
					continue
				}
			}
			return h + " header " + strconvQuote(got) + " does not match argument " + arg + " " + string(raw)
		}
		if got != want {
			return h + " header " + strconvQuote(got) + " does not match argument " + arg
		}
	}
	return ""
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// decodeHeader trims optional whitespace and decodes the =?base64?…?=
// sentinel form (a value with only one half of the sentinel is literal).
func decodeHeader(v string) string {
	v = strings.Trim(v, " \t")
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		if b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2]); err == nil {
			return string(b)
		}
		return "\x00invalid base64"
	}
	return v
}

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
	ps := newPostStream(w, r, m.ID, false)
	ps.sess, ps.stream = s, s.newStream()
	if !s.await(m.ID, ps) {
		writeError(w, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidRequest, "request id "+m.ID.String()+" is already in use in this session", nil)
		return
	}
	s.mcp.Deliver(m) // answered here when the handler can be (see postModern)
	if ps.answered() {
		s.done(m.ID, ps)
		ps.close()
		return
	}
	select {
	case <-ps.finished:
	case <-r.Context().Done():
		// Disconnecting is not cancelling in 2025-11-25: the request goes
		// on. A stream that had begun can be resumed (Last-Event-ID): its
		// events, the answer too, are kept until then.
		if ps.detach() {
			return
		}
	case <-s.ctx.Done():
		// Through ps: its lock keeps this from racing a late answer.
		ps.final(jsonrpc.AppendResponse(nil, m.ID, nil, &jsonrpc.Error{Code: -32001, Message: "the session ended before the request was answered"}))
	}
	s.done(m.ID, ps)
	ps.close()
}

// answered reports whether the answer is written already (looking at the
// request's context to wait for it would start the HTTP server's watch of
// the connection: not worth it for a call answered on the spot).
func (ps *postStream) answered() bool {
	select {
	case <-ps.finished:
		return true
	default:
		return false
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
	return true
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
	ps := newPostStream(w, r, jsonrpc.ID{}, false)
	if stream, seq, ok := parseEventID(r.Header.Get("Last-Event-ID")); ok && stream != s.getStream() {
		// Resuming a POST's stream: its missed events, then the rest of
		// it; the stream ends with the answer, like the original. (No
		// priming event: the client's last id stands.)
		ps.mu.Lock()
		ps.startSSE()
		ps.mu.Unlock()
		if s.resume(stream, seq, ps) {
			select {
			case <-ps.finished: // closed when the resumed stream ends
			case <-r.Context().Done():
			case <-s.ctx.Done():
			case <-h.drain.Done():
			}
		}
		ps.close()
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
	t := time.NewTicker(h.opts.KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			ps.close()
			return
		case <-s.ctx.Done():
			ps.close()
			return
		case <-h.drain.Done():
			ps.close()
			return
		case <-t.C:
			ps.comment()
		}
	}
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(hdrSession)
	if sid == "" {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "DELETE needs a 2025-11-25 session ("+hdrSession+")", nil)
		return
	}
	h.mu.Lock()
	s := h.sessions[sid]
	delete(h.sessions, sid)
	h.mu.Unlock()
	if s == nil {
		writeError(w, http.StatusNotFound, jsonrpc.ID{}, -32001, "Session not found", nil)
		return
	}
	s.end()
	w.WriteHeader(http.StatusOK)
}

func (h *Handler) session(id string) *session {
	h.mu.RLock()
	s := h.sessions[id]
	h.mu.RUnlock()
	if s != nil {
		s.used.Store(time.Now().UnixNano())
	}
	return s
}

func (h *Handler) newSession() (*session, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	s := &session{id: hex.EncodeToString(b), waiting: map[string]*postStream{}}
	s.used.Store(time.Now().UnixNano())
	s.ctx, s.cancel = context.WithCancel(h.ctx)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errors.New("the server is shutting down")
	}
	// Sweep sessions idle too long (clients often never DELETE).
	for id, old := range h.sessions {
		if time.Since(time.Unix(0, old.used.Load())) > h.opts.SessionIdle {
			delete(h.sessions, id)
			go old.end()
		}
	}
	h.sessions[s.id] = s
	h.mu.Unlock()
	srv := h.srvs[h.rr.Add(1)%uint64(len(h.srvs))]
	s.mcp = srv.Open(s)
	go func() {
		<-s.ctx.Done()
		s.mcp.Close()
		h.mu.Lock()
		if h.sessions[s.id] == s {
			delete(h.sessions, s.id)
		}
		h.mu.Unlock()
	}()
	return s, nil
}

// session is a 2025-11-25 session: a jsonrpc.Stream for mcp.Server whose
// messages come from POSTs and go to the POST they answer or belong with,
// or to the GET stream.
type session struct {
	id     string
	ctx    context.Context
	cancel context.CancelFunc
	mcp    *mcp.Session // the POSTs' messages are delivered to it
	used   atomic.Int64 // when last used, in Unix ns

	mu      sync.Mutex
	waiting map[string]*postStream // by request id
	getS    *postStream
	ended   bool
	streams int        // SSE streams opened (their numbers)
	getNo   int        // the GET stream's number
	log     []logEvent // the last events sent, for Last-Event-ID
}

// logEvent is one SSE event of a session, kept so that a client whose
// stream broke can resume it with Last-Event-ID (id "STREAM.SEQ").
type logEvent struct {
	stream, seq int
	msg         []byte
}

// maxLog bounds each session's event log.
const maxLog = 512

// record keeps an event of stream and returns its id; s.mu is not held.
func (s *session) record(stream, seq int, msg []byte) {
	s.mu.Lock()
	if len(s.log) >= maxLog {
		s.log = append(s.log[:0], s.log[len(s.log)-maxLog/2:]...)
	}
	s.log = append(s.log, logEvent{stream, seq, msg})
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

func (s *session) end() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.cancel()
}

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

// --- the response side of one POST (or GET) ---

// postStream writes one HTTP response: a JSON body, or an SSE stream once
// something comes before the answer. It is the jsonrpc.Stream of a
// 2026-07-28 request's session, whose one message is delivered.
type postStream struct {
	w        http.ResponseWriter
	r        *http.Request
	id       jsonrpc.ID // the request this POST carries
	modern   bool
	sseOK    bool
	finished chan struct{} // closed when the answer is written

	mu     sync.Mutex
	sse    bool
	closed bool
	fin    bool

	// 2025-11-25 streams are resumable: events carry ids and are logged.
	sess     *session
	stream   int
	seq      int
	detached bool        // the client went away before the answer; events are only logged
	resumed  *postStream // a GET that resumed this stream gets what follows
}

func newPostStream(w http.ResponseWriter, r *http.Request, id jsonrpc.ID, modern bool) *postStream {
	accept := r.Header.Get("Accept")
	sseOK := accept == "" || strings.Contains(accept, "text/event-stream") || strings.Contains(accept, "*/*")
	return &postStream{w: w, r: r, id: id, modern: modern, sseOK: sseOK, finished: make(chan struct{})}
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

func (ps *postStream) close() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.closed {
		ps.closed = true
		if !ps.fin {
			ps.fin = true
			close(ps.finished)
		}
	}
}

// startSSE commits the response to an event stream; ps.mu is held.
func (ps *postStream) startSSE() {
	h := ps.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	ps.w.WriteHeader(http.StatusOK)
	ps.sse = true
	if ps.sess != nil {
		// Priming event: an id to resume from before any message (SEP-1699).
		fmt.Fprintf(ps.w, "id: %d.0\nretry: 1000\ndata: \n\n", ps.stream)
	}
	ps.flush()
}

func (ps *postStream) flush() {
	if f, ok := ps.w.(http.Flusher); ok {
		f.Flush()
	}
}

// event writes a message before the answer; it reports whether it could.
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
	ps.writeEvent(msg)
	return true
}

func (ps *postStream) writeEvent(msg []byte) {
	var b bytes.Buffer
	b.Grow(len(msg) + 40)
	if ps.sess != nil {
		ps.seq++
		ps.sess.record(ps.stream, ps.seq, msg)
		fmt.Fprintf(&b, "id: %d.%d\n", ps.stream, ps.seq)
	}
	b.WriteString("event: message\ndata: ")
	b.Write(msg)
	b.WriteString("\n\n")
	ps.w.Write(b.Bytes())
	ps.flush()
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

// eventAs writes an event of another stream (a resumed one) with its id.
func (ps *postStream) eventAs(stream, seq int, msg []byte) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return
	}
	if !ps.sse {
		ps.startSSE()
	}
	fmt.Fprintf(ps.w, "id: %d.%d\nevent: message\ndata: %s\n\n", stream, seq, msg)
	ps.flush()
}

func (ps *postStream) comment() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.closed && ps.sse {
		io.WriteString(ps.w, ": keep-alive\n\n")
		ps.flush()
	}
}

// final writes the answer and ends the response.
func (ps *postStream) final(msg []byte) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.detached && !ps.fin {
		// The answer of a broken stream: kept for resumption, and sent to
		// a GET that resumed it, which then ends like the stream would.
		ps.logOnly(msg)
		ps.fin = true
		close(ps.finished)
		if ps.resumed != nil {
			ps.resumed.close()
		}
		ps.sess.done(ps.id, ps)
		return
	}
	if ps.closed || ps.fin {
		return
	}
	if ps.sse {
		ps.writeEvent(msg)
	} else {
		status := http.StatusOK
		if ps.modern {
			status = statusOf(msg)
		}
		ps.w.Header().Set("Content-Type", "application/json")
		ps.w.WriteHeader(status)
		ps.w.Write(msg)
	}
	ps.fin = true
	close(ps.finished)
	if ps.modern {
		// The answer is out: the one-request stream ends.
		ps.closed = true
	}
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

func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, code int, msg string, data json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(jsonrpc.AppendResponse(nil, id, nil, &jsonrpc.Error{Code: code, Message: msg, Data: data}))
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return itoa(n>>10) + " KiB"
	}
	return itoa(n) + " bytes"
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
