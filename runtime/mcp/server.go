package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/trace"
)

// The server side: one Server serves any number of connections (a stdio
// process has one), each answering both eras. A request whose params carry
// the modern _meta envelope is served statelessly as 2026-07-28; initialize
// opens a legacy session on that connection (always, even with modern
// _meta, and the era is never locked by a failed request); requests without
// the envelope belong to that session. What the server offers — tools,
// resources, prompts, completion — comes from its registry (AddTool,
// AddResource, ...: registry.go) or from a ServerHandler of its own; this
// file does the protocol around it.

// ServerHandler provides a server's features itself, instead of the
// registry (ServerOptions.Handler).
type ServerHandler interface {
	// Capabilities reports what the server offers now (tools, resources,
	// prompts, completions); logging is always offered.
	Capabilities() HandlerCapabilities
	// Handle serves tools/list, tools/call, resources/list,
	// resources/templates/list, resources/read, prompts/list, prompts/get
	// and completion/complete. It must not block: it answers with
	// req.Reply or req.Fail, once, from any goroutine.
	Handle(req *Request)
}

// HandlerCapabilities says which features a handler offers.
type HandlerCapabilities struct {
	Tools, Resources, Prompts, Completions bool
	// Subscribe: resources can be subscribed to.
	Subscribe bool
}

// CacheHints are the ttlMs and cacheScope put on modern results that must
// carry them when the handler did not set its own.
type CacheHints struct {
	DiscoverTTL time.Duration // server/discover
	ListTTL     time.Duration // tools/list, prompts/list, resources/list, resources/templates/list
	ReadTTL     time.Duration // resources/read
	Scope       string        // "public" or "private"
}

// ServerOptions configure a Server.
type ServerOptions struct {
	Info         Implementation
	Instructions string
	// Handler, when set, offers the server's features instead of the
	// registry (whose Add and Remove methods then fail).
	Handler ServerHandler
	// Capabilities are offered from the start even while nothing of the
	// kind is registered: a server that adds tools (or resources, prompts)
	// later says so, since modern clients listen only for changes of what
	// discover listed. Registry only.
	Capabilities HandlerCapabilities
	// StateKey signs modern requestState (HMAC-SHA256). Replicas that share
	// it accept each other's state. Nil: a random key per process.
	StateKey []byte
	// StateTTL bounds how old a requestState may be. Default 10 minutes.
	StateTTL time.Duration
	// MaxParked bounds the calls parked across modern input rounds
	// (Request.Park). Default DefaultMaxParked.
	MaxParked int
	// HandlerTimeout stops a request's handler after this long. Default 60 s.
	HandlerTimeout time.Duration
	Cache          CacheHints
	// Tasks bound the tasks of tools that run as tasks (server_tasks.go).
	Tasks TaskOptions
	Trace trace.Sink
	// Logf reports server-side problems (to stderr; never to stdout).
	Logf func(format string, args ...any)
}

// Server is the protocol engine of an MCP server.
type Server struct {
	opts  ServerOptions
	ctx   context.Context
	stop  context.CancelFunc
	infoJ []byte // serverInfo as JSON

	handler ServerHandler
	reg     *registry // nil with a Handler of the options'

	mu    sync.Mutex
	conns map[*serverConn]bool

	deadlines deadlines // the handler timeout of requests in flight
	tasks     taskStore
	parks     parkStore

	// The random state key is made on first use: crypto/rand's first read
	// costs most of a millisecond of start-up.
	keyOnce sync.Once
	key     []byte
}

// stateKey is the key that signs requestState.
func (s *Server) stateKey() []byte {
	s.keyOnce.Do(func() {
		s.key = s.opts.StateKey
		if s.key == nil {
			s.key = processKey()
		}
	})
	return s.key
}

// processKey is one random key for every server of the process, so that
// workers (several servers from one script) verify each other's state.
var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
})

// NewServer returns a server; serve connections with ServeStream.
func NewServer(opts ServerOptions) *Server {
	if opts.HandlerTimeout <= 0 {
		opts.HandlerTimeout = 60 * time.Second
	}
	if opts.StateTTL <= 0 {
		opts.StateTTL = 10 * time.Minute
	}
	if opts.Cache.Scope == "" {
		opts.Cache.Scope = "public"
	}
	if opts.Cache.DiscoverTTL == 0 {
		opts.Cache.DiscoverTTL = time.Hour
	}
	if opts.Cache.ListTTL == 0 {
		opts.Cache.ListTTL = time.Minute
	}
	if opts.Info.Name == "" {
		opts.Info.Name = "luagent-server"
	}
	if opts.Info.Version == "" {
		opts.Info.Version = "0.0.0"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	opts.Tasks.defaults()
	ctx, stop := context.WithCancel(context.Background())
	info, _ := json.Marshal(opts.Info)
	s := &Server{opts: opts, ctx: ctx, stop: stop, infoJ: info, conns: map[*serverConn]bool{}, handler: opts.Handler}
	if s.handler == nil {
		s.reg = &registry{srv: s, declared: opts.Capabilities}
		s.handler = s.reg
	}
	s.deadlines = deadlines{timeout: opts.HandlerTimeout, expire: s.expire}
	return s
}

// serverConn is one client connection: a legacy session, if initialize
// came, and the requests and listen streams in flight.
type serverConn struct {
	srv    *Server
	conn   *jsonrpc.Conn
	inline bool // a Session: see Request.Inline

	mu          sync.Mutex
	initialized bool // initialize answered (legacy session open)
	version     string
	clientCaps  clientCapabilities
	clientInfo  Implementation
	logLevel    string
	subs        map[string]bool
	inflight    map[string]*Request
	listens     map[string]*listenStream
}

// ServeStream serves one connection until the stream ends (stdin EOF) or
// ctx ends. It returns nil on a clean end of input.
func (s *Server) ServeStream(ctx context.Context, stream jsonrpc.Stream) error {
	ss := s.open(stream)
	// Read only now: the handlers use sc.conn.
	ss.sc.conn.Start()
	select {
	case <-ss.sc.conn.Done():
		// The stream ended: what is in flight is cancelled, but may still
		// write its last words.
		ss.end(false)
		err := ss.sc.conn.Err()
		if errs.KindOf(err) == errs.Closed || isEOF(err) {
			return nil
		}
		return err
	case <-ctx.Done():
		ss.Close()
		return ctx.Err()
	}
}

// Session is a connection whose incoming messages its owner hands over
// one at a time (Deliver) instead of the server reading them from the
// stream: Streamable HTTP, where each message is the body of a POST the
// HTTP handler has already decoded. What the server sends still goes to
// the stream's Write (and WriteFor, if it routes).
type Session struct {
	sc   *serverConn
	once sync.Once
}

// Open starts a session on stream; its Read is never called. Its requests
// are Inline: each is delivered by a goroutine that then waits for the
// answer.
func (s *Server) Open(stream jsonrpc.Stream) *Session {
	ss := s.open(stream)
	ss.sc.inline = true
	return ss
}

func (s *Server) open(stream jsonrpc.Stream) *Session {
	sc := &serverConn{srv: s, subs: map[string]bool{}, inflight: map[string]*Request{}, listens: map[string]*listenStream{}}
	sc.conn = jsonrpc.NewIdleConn(stream, jsonrpc.Options{
		Name:         "client",
		Trace:        s.opts.Trace,
		Request:      func(c *jsonrpc.Conn, m *jsonrpc.Message) { sc.handle(m) },
		Notification: sc.notification,
		Invalid: func(line []byte, err error) {
			// A malformed message: answer as JSON-RPC says, with a null id.
			c := jsonrpc.CodeInvalidRequest
			if len(line) > 0 && !json.Valid(line) {
				c = jsonrpc.CodeParseError
			}
			sc.conn.Reply(jsonrpc.ID{}, nil, &jsonrpc.Error{Code: c, Message: "invalid message: " + err.Error()})
		},
		// A repeated envelope key, a batch, an oversized line: answered
		// by id, where it could be read, so the client does not wait.
		Refuse: func(id jsonrpc.ID, rerr *jsonrpc.Error) { sc.conn.Reply(id, nil, rerr) },
	})
	s.mu.Lock()
	s.conns[sc] = true
	s.mu.Unlock()
	return &Session{sc: sc}
}

// Deliver handles one message of the session on the calling goroutine
// (see jsonrpc.Conn.Deliver); it may be called concurrently.
func (ss *Session) Deliver(m *jsonrpc.Message) { ss.sc.conn.Deliver(m) }

// Close ends the session: requests in flight are cancelled, calls to the
// client fail, and the stream is closed.
func (ss *Session) Close() { ss.end(true) }

func (ss *Session) end(closeConn bool) {
	ss.once.Do(func() {
		sc := ss.sc
		s := sc.srv
		if closeConn {
			sc.conn.Close()
		}
		s.mu.Lock()
		delete(s.conns, sc)
		s.mu.Unlock()
		sc.cancelAll(errClientGone)
		s.dropSession(sc)
	})
}

func isEOF(err error) bool {
	return err != nil && (err.Error() == "EOF" || errs.KindOf(err) == errs.Closed)
}

// Close ends every connection's requests.
func (s *Server) Close() {
	s.stop()
	s.deadlines.stop()
	s.mu.Lock()
	conns := make([]*serverConn, 0, len(s.conns))
	for sc := range s.conns {
		conns = append(conns, sc)
	}
	s.mu.Unlock()
	for _, sc := range conns {
		sc.cancelAll(context.Canceled)
	}
	s.stopTasks()
}

// ParamHeaders maps a registered tool's x-mcp-header names to the
// arguments they mirror (nil when it has none), for the HTTP server's
// Mcp-Param-* checks. A server with its own Handler mirrors none.
func (s *Server) ParamHeaders(tool string) map[string]string {
	reg := s.reg
	if reg == nil {
		return nil
	}
	reg.mu.RLock()
	defer reg.mu.RUnlock()
	if t := reg.tools.get(tool); t != nil {
		return t.headers
	}
	return nil
}

// Name is the server's name (serverInfo.name).
func (s *Server) Name() string { return s.opts.Info.Name }

// cancelAll cancels the connection's requests in flight with cause.
func (sc *serverConn) cancelAll(cause error) {
	sc.mu.Lock()
	reqs := make([]*Request, 0, len(sc.inflight))
	for _, r := range sc.inflight {
		reqs = append(reqs, r)
	}
	sc.mu.Unlock()
	for _, r := range reqs {
		r.Cancel(cause)
	}
}

var errClientGone = errs.New(errs.Closed, "", "the client went away")

type clientCapabilities struct {
	Roots       json.RawMessage `json:"roots"`
	Sampling    json.RawMessage `json:"sampling"`
	Elicitation *struct {
		Form json.RawMessage `json:"form"`
		URL  json.RawMessage `json:"url"`
	} `json:"elicitation"`
	Extensions map[string]json.RawMessage `json:"extensions"`
	Raw        json.RawMessage            `json:"-"`
}

func parseClientCaps(raw json.RawMessage) clientCapabilities {
	var c clientCapabilities
	// {} (what most requests carry) has nothing to decode.
	if len(raw) > 0 && !emptyObject(raw) {
		json.Unmarshal(raw, &c)
	}
	c.Raw = raw
	return c
}

// emptyObject reports whether raw is an object without members.
func emptyObject(raw []byte) bool {
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = jsonscan.SkipSpace(raw, i+1)
	return i < len(raw) && raw[i] == '}' && jsonscan.SkipSpace(raw, i+1) == len(raw)
}

// rpcError is a JSON-RPC error with a message.
func rpcError(code int, msg string, data any) *jsonrpc.Error {
	e := &jsonrpc.Error{Code: code, Message: msg}
	if data != nil {
		e.Data, _ = json.Marshal(data)
	}
	return e
}

// handle routes one request; it runs on the connection's reader goroutine.
func (sc *serverConn) handle(m *jsonrpc.Message) {
	switch m.Method {
	case "initialize":
		sc.initialize(m)
		return
	}
	var mv metaValues
	if meta := jsonscan.Member(m.Params, "_meta"); meta != nil {
		jsonscan.MembersOf(meta, metaNames, mv[:])
	}
	if mv[metaVersion] != nil {
		sc.modern(m, &mv) // ping is not a 2026-07-28 method
		return
	}
	if m.Method == "ping" { // legacy, allowed before initialize too
		sc.conn.Reply(m.ID, json.RawMessage("{}"), nil)
		return
	}
	sc.mu.Lock()
	initialized := sc.initialized
	sc.mu.Unlock()
	if !initialized {
		if m.Method == "server/discover" || !knownMethod(m.Method) {
			code := jsonrpc.CodeInvalidParams
			if !knownMethod(m.Method) {
				code = jsonrpc.CodeMethodNotFound
			}
			sc.conn.Reply(m.ID, nil, rpcError(code, "missing _meta \""+MetaProtocolVersion+"\": send it on every 2026-07-28 request, or initialize first (2025-11-25)", nil))
			return
		}
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidRequest, "the session is not initialized: send initialize first (2025-11-25), or put _meta \""+MetaProtocolVersion+"\" on the request (2026-07-28)", nil))
		return
	}
	sc.legacy(m, mv[metaProgress])
}

// metaNames are the members of params._meta that serving a request reads,
// found in one pass over it (metaValues, by the indices below).
var metaNames = []string{MetaProtocolVersion, MetaClientCapabilities, MetaClientInfo, MetaLogLevel, "progressToken"}

type metaValues [5][]byte

const (
	metaVersion = iota
	metaCaps
	metaInfo
	metaLevel
	metaProgress
)

var handlerMethods = []string{"tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read", "prompts/list", "prompts/get", "completion/complete",
	"skills/list", "skills/get", "resources/directory/read"}

func knownMethod(m string) bool {
	return slices.Contains(handlerMethods, m) || strings.HasPrefix(m, "tasks/") || m == "logging/setLevel" || m == "resources/subscribe" || m == "resources/unsubscribe" || m == "server/discover" || m == "subscriptions/listen"
}

// capabilities is the server's capabilities object for an era.
func (s *Server) capabilities(era Era) json.RawMessage {
	hc := s.handler.Capabilities()
	caps := map[string]any{"logging": map[string]any{}}
	if hc.Tools {
		caps["tools"] = map[string]any{"listChanged": true}
	}
	if hc.Resources {
		caps["resources"] = map[string]any{"listChanged": true, "subscribe": hc.Subscribe}
	}
	if hc.Prompts {
		caps["prompts"] = map[string]any{"listChanged": true}
	}
	if hc.Completions {
		caps["completions"] = map[string]any{}
	}
	ext := map[string]any{}
	if s.reg != nil && s.reg.hasTaskTools() {
		if era == EraLegacy {
			caps["tasks"] = map[string]any{"list": map[string]any{}, "cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		} else {
			ext[TasksExtension] = map[string]any{}
		}
	}
	if s.reg != nil && s.reg.hasSkills() {
		ext[SkillsExtension] = map[string]any{"directoryRead": true}
		if caps["resources"] == nil {
			caps["resources"] = map[string]any{"listChanged": true, "subscribe": hc.Subscribe}
		}
	}
	if len(ext) > 0 {
		caps["extensions"] = ext
	}
	b, _ := json.Marshal(caps)
	return b
}

func (sc *serverConn) initialize(m *jsonrpc.Message) {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      Implementation  `json:"clientInfo"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil || p.ProtocolVersion == "" {
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, "initialize needs protocolVersion, capabilities and clientInfo", nil))
		return
	}
	// Answer the client's version when we speak it, else our latest.
	version := LegacyVersion
	if slices.Contains(LegacyVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	trace.Emit(sc.srv.opts.Trace, trace.Event{Kind: trace.EraChosen, Server: p.ClientInfo.Name, Message: EraLegacy.String() + " " + version})
	sc.mu.Lock()
	sc.initialized = true
	sc.version = version
	sc.clientCaps = parseClientCaps(p.Capabilities)
	sc.clientInfo = p.ClientInfo
	sc.mu.Unlock()
	res := map[string]any{
		"protocolVersion": version,
		"capabilities":    json.RawMessage(sc.srv.capabilities(EraLegacy)),
		"serverInfo":      json.RawMessage(sc.srv.infoJ),
	}
	if sc.srv.opts.Instructions != "" {
		res["instructions"] = sc.srv.opts.Instructions
	}
	b, _ := json.Marshal(res)
	sc.conn.Reply(m.ID, b, nil)
}

// modern serves a request that carries the 2026-07-28 envelope.
func (sc *serverConn) modern(m *jsonrpc.Message, mv *metaValues) {
	versionRaw := mv[metaVersion]
	version, ok := modernVersion(versionRaw)
	if !ok {
		supported := append(append([]string{}, ModernVersions...), LegacyVersions...)
		sc.conn.Reply(m.ID, nil, rpcError(CodeUnsupportedProtocolVersion, "Unsupported protocol version",
			map[string]any{"supported": supported, "requested": json.RawMessage(versionRaw)}))
		return
	}
	capsRaw := mv[metaCaps]
	if capsRaw == nil || len(capsRaw) == 0 || capsRaw[0] != '{' {
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, "missing or invalid _meta \""+MetaClientCapabilities+"\" (send {} for none)", nil))
		return
	}
	switch m.Method {
	case "server/discover":
		res := map[string]any{
			"supportedVersions": append(append([]string{}, ModernVersions...), LegacyVersions...),
			"capabilities":      json.RawMessage(sc.srv.capabilities(EraModern)),
		}
		if sc.srv.opts.Instructions != "" {
			res["instructions"] = sc.srv.opts.Instructions
		}
		b, _ := json.Marshal(res)
		sc.conn.Reply(m.ID, sc.srv.modernResult(m.Method, b), nil)
		return
	case "subscriptions/listen":
		sc.listen(m)
		return
	case "tasks/get", "tasks/update", "tasks/cancel":
		sc.modernTask(m, parseClientCaps(capsRaw))
		return
	case "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "initialize", "ping":
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeMethodNotFound, m.Method+" is not part of the 2026-07-28 protocol", nil))
		return
	}
	if !slices.Contains(handlerMethods, m.Method) {
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeMethodNotFound, "Method not found: "+m.Method, nil))
		return
	}
	r := sc.newRequest(m, EraModern, version)
	r.clientCaps = parseClientCaps(capsRaw)
	if ci := mv[metaInfo]; ci != nil {
		json.Unmarshal(ci, &r.ClientInfo)
	}
	if lvl := mv[metaLevel]; lvl != nil {
		json.Unmarshal(lvl, &r.logLevel)
		if !slices.Contains(LogLevels, r.logLevel) {
			r.finish(nil, rpcError(jsonrpc.CodeInvalidParams, "unknown log level "+string(lvl), nil))
			return
		}
	}
	r.progressToken = mv[metaProgress]
	if rerr := r.loadInputs(); rerr != nil {
		r.finish(nil, rerr)
		return
	}
	sc.dispatch(r)
}

// modernVersion is the protocol version a modern request names, when it
// is one this server speaks: a plain string is compared as its bytes (no
// string made per request).
func modernVersion(raw []byte) (string, bool) {
	if b, ok := jsonscan.SimpleString(raw); ok {
		for _, v := range ModernVersions {
			if string(b) == v {
				return v, true
			}
		}
		return "", false
	}
	var v string
	if json.Unmarshal(raw, &v) != nil || !slices.Contains(ModernVersions, v) {
		return "", false
	}
	return v, true
}

// legacy serves a request of the initialized session; progress is its
// params._meta.progressToken (nil for none).
func (sc *serverConn) legacy(m *jsonrpc.Message, progress json.RawMessage) {
	switch m.Method {
	case "logging/setLevel":
		var p struct {
			Level string `json:"level"`
		}
		json.Unmarshal(m.Params, &p)
		if !slices.Contains(LogLevels, p.Level) {
			sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, fmt.Sprintf("unknown log level %q", p.Level), nil))
			return
		}
		sc.mu.Lock()
		sc.logLevel = p.Level
		sc.mu.Unlock()
		sc.conn.Reply(m.ID, json.RawMessage("{}"), nil)
		return
	case "resources/subscribe", "resources/unsubscribe":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.URI == "" {
			sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, m.Method+" needs a uri", nil))
			return
		}
		sc.mu.Lock()
		if m.Method == "resources/subscribe" {
			sc.subs[p.URI] = true
		} else {
			delete(sc.subs, p.URI)
		}
		sc.mu.Unlock()
		sc.conn.Reply(m.ID, json.RawMessage("{}"), nil)
		return
	case "server/discover", "subscriptions/listen":
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeInvalidParams, m.Method+" needs the 2026-07-28 _meta envelope", nil))
		return
	case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel":
		sc.legacyTask(m)
		return
	}
	if !slices.Contains(handlerMethods, m.Method) {
		sc.conn.Reply(m.ID, nil, rpcError(jsonrpc.CodeMethodNotFound, "Method not found: "+m.Method, nil))
		return
	}
	sc.mu.Lock()
	version, caps, info := sc.version, sc.clientCaps, sc.clientInfo
	sc.mu.Unlock()
	r := sc.newRequest(m, EraLegacy, version)
	r.clientCaps, r.ClientInfo = caps, info
	r.progressToken = progress
	sc.dispatch(r)
}

func (sc *serverConn) newRequest(m *jsonrpc.Message, era Era, version string) *Request {
	// Not a child of the server's context: every request of every
	// connection registering with one parent made its lock a point of
	// contention. Server.Close cancels what is in flight itself.
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &Request{Method: m.Method, Params: m.Params, ID: m.ID, Era: era, ProtocolVersion: version, sc: sc, ctx: ctx, cancelFn: cancel}
	sc.mu.Lock()
	sc.inflight[m.ID.String()] = r
	sc.mu.Unlock()
	if sc.srv.ctx.Err() != nil {
		cancel(context.Canceled) // the server closed before it came
	}
	return r
}

// dispatch hands the request to the handler under the handler timeout.
func (sc *serverConn) dispatch(r *Request) {
	if trace.Enabled(sc.srv.opts.Trace) {
		r.traceIn()
	}
	sc.srv.deadlines.add(r)
	sc.srv.handler.Handle(r)
}

// expire answers a request whose handler ran past the handler timeout, and
// stops the handler: answered first, so that a handler failing from the
// cancellation finds its request answered (Answered) and says nothing more.
func (s *Server) expire(r *Request) {
	msg := "the handler took longer than " + roundDur(s.opts.HandlerTimeout) + " (--handler-timeout) and was stopped"
	cause := errs.New(errs.Timeout, "", msg)
	if r.Method == "tools/call" {
		b, _ := json.Marshal(map[string]any{"content": []any{map[string]string{"type": "text", "text": msg}}, "isError": true})
		r.finishCause(b, nil, cause)
		return
	}
	r.finishCause(nil, rpcError(jsonrpc.CodeInternalError, msg, nil), cause)
}

// notification handles what the client notifies: cancellation of a request
// or of a listen stream.
func (sc *serverConn) notification(m *jsonrpc.Message) {
	if m.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	id := p.RequestID.String()
	sc.mu.Lock()
	r := sc.inflight[id]
	ls := sc.listens[id]
	delete(sc.listens, id)
	sc.mu.Unlock()
	if r != nil {
		// The client asked to stop: stop the handler and send nothing more.
		r.silence()
		r.Cancel(errs.New(errs.Cancelled, "", "the client cancelled the request"))
	}
	if ls != nil {
		ls.close()
	}
}

// modernResult adds what every modern result carries: resultType (when the
// handler did not set one), serverInfo in _meta, and, for discover, lists
// and reads, cache hints.
func (s *Server) modernResult(method string, res json.RawMessage) json.RawMessage {
	var has struct{ resultType, meta, ttl, scope bool }
	jsonscan.Members(res, func(k, _ []byte) bool {
		switch string(k) {
		case `"resultType"`:
			has.resultType = true
		case `"_meta"`:
			has.meta = true
		case `"ttlMs"`:
			has.ttl = true
		case `"cacheScope"`:
			has.scope = true
		}
		return true
	})
	out := make([]byte, 0, len(res)+160)
	out = append(out, '{')
	if !has.resultType {
		out = append(out, `"resultType":"complete",`...)
	}
	if !has.meta {
		out = append(out, `"_meta":{"`+MetaServerInfo+`":`...)
		out = append(out, s.infoJ...)
		out = append(out, "},"...)
	}
	if ttl, ok := s.cacheTTL(method); ok && !has.ttl {
		out = append(out, `"ttlMs":`...)
		out = strconv.AppendInt(out, ttl.Milliseconds(), 10)
		out = append(out, ',')
	}
	if _, ok := s.cacheTTL(method); ok && !has.scope {
		out = append(out, `"cacheScope":`...)
		out = jsonscan.AppendString(out, s.opts.Cache.Scope)
		out = append(out, ',')
	}
	inner := res[jsonscan.SkipSpace(res, 0)+1:]
	if i := jsonscan.SkipSpace(inner, 0); i < len(inner) && inner[i] == '}' {
		// An empty result: drop the trailing comma.
		return append(out[:len(out)-1], '}')
	}
	return append(out, inner...)
}

func (s *Server) cacheTTL(method string) (time.Duration, bool) {
	switch method {
	case "server/discover":
		return s.opts.Cache.DiscoverTTL, true
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list", "skills/list", "resources/directory/read":
		return s.opts.Cache.ListTTL, true
	case "resources/read", "skills/get":
		return s.opts.Cache.ReadTTL, true
	}
	return 0, false
}
