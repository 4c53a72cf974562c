package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
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
	// Limits bound what each client may hold (body size and time, write
	// time, sessions); zero fields take DefaultLimits.
	Limits Limits
	// KeepAlive is the interval of SSE comment lines on long streams
	// (default 15 s).
	KeepAlive time.Duration
	// Authorize, if set, runs on every request after the Host and Origin
	// checks; a refused request it has answered itself (401, 400) returns
	// false (Auth.Check).
	Authorize func(w http.ResponseWriter, r *http.Request) bool
}

// Handler is the http.Handler of one MCP endpoint.
type Handler struct {
	srvs   []*mcp.Server  // the workers: one server each, from one script
	busy   []atomic.Int64 // modern requests in flight, per worker
	rr     atomic.Uint64  // round robin for new legacy sessions
	opts   Options
	limits Limits // opts.Limits with the defaults filled in

	sessions sessions // 2025-11-25
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
	limits := opts.Limits.withDefaults()
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	ctx, stop := context.WithCancel(context.Background())
	drain, drained := context.WithCancel(ctx)
	h := &Handler{drain: drain, drained: drained, srvs: srvs, busy: make([]atomic.Int64, len(srvs)), opts: opts, limits: limits, ctx: ctx, stop: stop}
	h.sessions = sessions{max: limits.MaxSessions, idle: limits.SessionIdle, byID: map[string]*session{}}
	return h
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

// taskWorker is the worker holding the task a tasks/* request names (a
// task lives in the state that made it), else dflt.
func (h *Handler) taskWorker(params []byte, dflt int) int {
	if len(h.srvs) == 1 {
		return dflt
	}
	var id string
	json.Unmarshal(jsonscan.Member(params, "taskId"), &id)
	for i, srv := range h.srvs {
		if srv.HasTask(id) {
			return i
		}
	}
	return dflt
}

// parkWorker is the worker holding the call a retry's requestState
// continues (Request.Park: parked work lives in the state that parked
// it), else dflt.
func (h *Handler) parkWorker(params []byte, dflt int) int {
	for i, srv := range h.srvs {
		if srv.HoldsState(params) {
			return i
		}
	}
	return dflt
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
	h.sessions.closeAll()
	h.stop()
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
	body, err := h.readBody(w, r)
	if err != nil {
		switch {
		case errors.Is(err, errTooLarge):
			writeError(w, http.StatusRequestEntityTooLarge, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				"the request body is larger than the server's limit of "+sizeString(h.limits.MaxBody)+" (--max-body)", nil)
		case errors.Is(err, os.ErrDeadlineExceeded):
			writeError(w, http.StatusRequestTimeout, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
				"the request body did not arrive within "+h.limits.BodyTimeout.String()+" (--body-timeout)", nil)
		default:
			writeError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "could not read the request body: "+err.Error(), nil)
		}
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

var errTooLarge = errors.New("request body too large")

// readBody reads the request body, at most limits.MaxBody bytes within
// limits.BodyTimeout (NewServer's). The buffer grows as bytes arrive: a
// head announcing megabytes that never come costs what came, not what it
// announced.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (_ []byte, err error) {
	max := h.limits.MaxBody
	if r.ContentLength > max {
		return nil, errTooLarge
	}
	// The time limit is the server's ReadTimeout (NewServer): net/http sets
	// it with the head's and clears it when the body ends. After a failure
	// it is expired, or net/http would wait for the rest of a body it
	// cannot use before closing the connection.
	defer func() {
		if err != nil {
			http.NewResponseController(w).SetReadDeadline(time.Now())
		}
	}()
	size := int64(512)
	if r.ContentLength > 0 {
		size = min(r.ContentLength, 4<<10)
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // grows by the runtime's steps
		}
		var n int
		n, err = r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, errTooLarge
		}
		if err == io.EOF {
			err = nil
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func writeError(w http.ResponseWriter, status int, id jsonrpc.ID, code int, msg string, data json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(jsonrpc.AppendResponse(nil, id, nil, &jsonrpc.Error{Code: code, Message: msg, Data: data}))
}

// sizeString says a limit the way a user would write it: whole MiB or KiB
// when it is one, else bytes.
func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
