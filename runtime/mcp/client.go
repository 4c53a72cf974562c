package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/jsonscan"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/trace"
	"github.com/luagent/luagent/runtime/transport"
)

// Options configure a Client.
type Options struct {
	// Name names the server in errors, traces and logs.
	Name string
	// Command starts the server process (stdio).
	Command transport.Command
	// URL is a Streamable HTTP endpoint (instead of Command).
	URL string
	// Header is sent with every HTTP request (custom headers).
	Header http.Header
	// HTTPClient makes the HTTP requests; nil is a client that takes proxy
	// settings from the environment.
	HTTPClient *http.Client
	// Token, if set, returns the bearer token for each HTTP request (a
	// static token, or a caller's own OAuth).
	Token func(ctx context.Context) (string, error)
	// OAuth, if set (and Token is not), authorizes with a server that
	// answers 401: see OAuthOptions.
	OAuth *OAuthOptions
	// Protocol is "auto" (probe server/discover, fall back to initialize),
	// "legacy" (initialize only) or "modern" (require 2026-07-28).
	Protocol string
	// Timeout bounds each request, as inactivity: every progress
	// notification restarts it, up to 10× in total. Default 60 s.
	Timeout time.Duration
	// StartupTimeout bounds starting the process and negotiating.
	// Default 60 s (npx can take that long on a cold cache).
	StartupTimeout time.Duration
	// ProbeTimeout is how long the server/discover probe waits before
	// taking silence as "legacy". Default 5 s.
	ProbeTimeout time.Duration
	// MaxMessage caps one message from the server. Default 16 MiB.
	MaxMessage int
	// MaxInputRounds bounds the input_required rounds of one request.
	// Default 8.
	MaxInputRounds int
	// ClientInfo is sent to the server. Default luagent's.
	ClientInfo Implementation
	Trace      trace.Sink

	// Callbacks answering what the server asks of the client: legacy
	// server→client requests and modern input_required rounds alike. A
	// capability is advertised only when its callback is set. Each gets the
	// request's params and returns the result object.
	Elicit func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	Sample func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	Roots  func(ctx context.Context) ([]Root, error)
	// Extensions are declared in the client's capabilities.extensions (both
	// eras), keyed by extension id, each with its settings object (nil is
	// {}): e.g. the skills extension, which the caller then speaks itself.
	Extensions map[string]json.RawMessage

	// OnNotification receives the server's notifications that are not tied
	// to one request: list changes, resource updates, log messages. It is
	// called on the connection's reader goroutine and must not block.
	OnNotification func(method string, params json.RawMessage)
	// OnStderr receives the server's stderr lines.
	OnStderr func(line string)
	// OnDisconnect is called when a live session ends by itself (the
	// server exited or the connection broke; not Close), with why. The
	// next request starts the server again; OnReconnect is called when
	// that succeeds. Both run on their own goroutine and may block.
	OnDisconnect func(err error)
	OnReconnect  func(Info)

	tokenFrom string // where Token's token was supplied (HTTPAuth): a 401 says it was refused
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.StartupTimeout <= 0 {
		o.StartupTimeout = 60 * time.Second
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = 5 * time.Second
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = 16 << 20
	}
	if o.MaxInputRounds <= 0 {
		o.MaxInputRounds = 8
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = Implementation{Name: "luagent", Version: "0.1.0"}
	}
	if o.Name == "" {
		o.Name = o.Command.Path
		if o.URL != "" {
			o.Name = secret.URL(o.URL) // a name shows in errors and traces
		}
	}
	if o.Protocol == "" {
		o.Protocol = "auto"
	}
}

// Client is a connection to one MCP server. It is safe for concurrent use.
// When the server process dies, calls in flight fail with its exit status
// and stderr; the next call starts it again (with backoff).
type Client struct {
	opts Options
	auth *auth // OAuth state (HTTP with Options.OAuth)

	mu        sync.Mutex
	sess      *session
	dialing   chan struct{} // closed when the dial in progress ends
	closed    bool
	restarts  int       // consecutive restarts without a healthy session
	connected bool      // a session was up once (the next one is a reconnect)
	lastDial  time.Time // when the last dial started
	logLevel  string
	wantLogs  bool // a log handler listens: modern requests ask at debug when logLevel is unset
	subs      map[string]bool

	progress sync.Map // token string -> func(Progress)
	taskSubs sync.Map // taskId -> func(json.RawMessage)
	nextTok  int64
	tokMu    sync.Mutex

	lists   listCache
	schemas schemaCache
}

type session struct {
	proc    *transport.Process
	stream  jsonrpc.Stream // proc, or an HTTP stream
	conn    *jsonrpc.Conn
	info    Info
	started time.Time
	// envelope is the constant part of a modern request's _meta.
	envelope []byte
	// serverReqs cancels server→client requests in progress (legacy), by id.
	serverReqs sync.Map
	listenMu   sync.Mutex
	listen     *listenState
	invalid    chan struct{} // a non-JSON-RPC line arrived (probe signal)
	invOnce    sync.Once
	// levelMu orders logging/setLevel on this session; level is the one
	// it was last sent (legacy), so a level goes out once per connection.
	levelMu sync.Mutex
	level   string
}

// Connect starts the server and negotiates the protocol era.
func Connect(ctx context.Context, opts Options) (*Client, error) {
	opts.defaults()
	switch opts.Protocol {
	case "auto", "legacy", "modern":
	default:
		return nil, errs.Errorf(errs.Invalid, "connect", "protocol must be \"auto\", \"legacy\" or \"modern\", not %q", opts.Protocol)
	}
	if opts.Command.Path == "" && opts.URL == "" {
		return nil, errs.New(errs.Invalid, "connect", "no server given: set command= to the server program, or url= to its HTTP endpoint")
	}
	if opts.Command.Path != "" && opts.URL != "" {
		return nil, errs.New(errs.Invalid, "connect", "give command= or url=, not both")
	}
	if opts.URL != "" {
		if u, err := url.Parse(opts.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, errs.Errorf(errs.Invalid, "connect", "url must be an http:// or https:// endpoint, not %q", secret.URL(opts.URL))
		}
	}
	c := &Client{opts: opts, subs: map[string]bool{}}
	if opts.URL != "" && opts.OAuth != nil && opts.Token == nil {
		a, err := newAuth(opts.URL, opts.OAuth)
		if err != nil {
			return nil, err
		}
		c.auth = a
	}
	if _, err := c.session(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Options returns the options the client was created with.
func (c *Client) Options() Options { return c.opts }

// Info returns what the client learned when it connected (the latest
// session's, after a restart).
func (c *Client) Info() Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sess == nil {
		return Info{}
	}
	return c.sess.info
}

// Close shuts the server down (stdin closed, then SIGTERM, then SIGKILL)
// and fails calls in flight with kind closed. It returns when the process
// is gone.
func (c *Client) Close() error {
	return <-c.CloseAsync()
}

// CloseAsync is Close for callers that must not wait for the process to
// exit (an event loop): the client refuses new calls at once, and the
// returned channel yields Close's result when shutdown is complete.
func (c *Client) CloseAsync() <-chan error {
	c.mu.Lock()
	c.closed = true
	s := c.sess
	c.sess = nil
	c.mu.Unlock()
	ch := make(chan error, 1)
	if s == nil {
		ch <- nil
		return ch
	}
	s.conn.Close() // fails calls in flight now
	go func() { ch <- s.close() }()
	return ch
}

func (s *session) close() error {
	s.conn.Close()
	if s.stream != nil {
		return s.stream.Close()
	}
	return nil
}

// abort ends a session whose handshake did not finish: its process is
// killed at once (a server that never answered gets no grace) and
// reaped before abort returns.
func (s *session) abort() {
	if s.proc != nil {
		s.proc.Kill()
	}
	s.close()
}

func (s *session) alive() bool {
	select {
	case <-s.conn.Done():
		return false
	default:
		return true
	}
}

// session returns the live session, starting the server when there is none
// (first use, or after it died). Restarts back off: 0.25 s doubling to 10 s
// while the server keeps dying within 10 s of starting.
func (c *Client) session(ctx context.Context) (*session, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, errs.New(errs.Closed, "", fmt.Sprintf("connection to %q is closed", c.opts.Name))
		}
		if s := c.sess; s != nil && s.alive() {
			c.mu.Unlock()
			return s, nil
		}
		if c.dialing != nil {
			ch := c.dialing
			c.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctxError(ctx, "connect", c.opts.Name)
			}
		}
		if old := c.sess; old != nil {
			if time.Since(old.started) > 10*time.Second {
				c.restarts = 0
			}
			c.sess = nil
			go old.close()
		}
		delay := time.Duration(0)
		if c.restarts > 0 {
			delay = 250 * time.Millisecond << min(c.restarts-1, 6)
			delay = min(delay, 10*time.Second) - time.Since(c.lastDial)
		}
		c.dialing = make(chan struct{})
		c.mu.Unlock()

		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-ctx.Done():
				c.endDial(nil, false)
				return nil, ctxError(ctx, "connect", c.opts.Name)
			}
		}
		c.mu.Lock()
		c.lastDial = time.Now()
		c.mu.Unlock()
		s, err := c.dial(ctx)
		c.endDial(s, true)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

func (c *Client) endDial(s *session, counted bool) {
	c.mu.Lock()
	if counted {
		c.restarts++
	}
	if s != nil {
		if c.closed {
			go s.close()
		} else {
			c.sess = s
		}
	}
	close(c.dialing)
	c.dialing = nil
	reconnect := s != nil && c.connected
	if s != nil {
		c.connected = true
	}
	c.mu.Unlock()
	if s != nil {
		c.lists.invalidate()
		c.afterConnect(s)
		c.watch(s, reconnect)
	}
}

// watch reports the session's end and, for a restart, its start to the
// OnDisconnect and OnReconnect callbacks.
func (c *Client) watch(s *session, reconnect bool) {
	if c.opts.OnDisconnect == nil && c.opts.OnReconnect == nil {
		return
	}
	go func() {
		if reconnect && c.opts.OnReconnect != nil {
			c.opts.OnReconnect(s.info)
		}
		<-s.conn.Done()
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if !closed && c.opts.OnDisconnect != nil {
			err := s.conn.Err()
			if err == nil {
				err = errs.Errorf(errs.Process, "", "the connection to %q ended", c.opts.Name)
			}
			c.opts.OnDisconnect(err)
		}
	}()
}

// start spawns the process (or opens the HTTP stream) and wraps it in a
// JSON-RPC connection.
func (c *Client) start() (*session, error) {
	s := &session{started: time.Now(), invalid: make(chan struct{})}
	if c.opts.URL != "" {
		token := c.opts.Token
		hc := c.opts.HTTPClient
		var authorize func(context.Context, int, string, string) (bool, error)
		if c.auth == nil && token != nil && c.opts.tokenFrom != "" {
			authorize = refusedToken(c.opts.tokenFrom)
		}
		if c.auth != nil {
			token, authorize = c.auth.token, c.auth.authorize
			if d := c.auth.flow.DPoP(); d != nil {
				// DPoP-bound tokens go with the DPoP scheme and a proof.
				if hc == nil {
					hc = http.DefaultClient
				}
				cp := *hc
				cp.Transport = d.RoundTripper(hc.Transport)
				hc = &cp
			}
		}
		s.stream = transport.NewHTTP(c.opts.URL, transport.HTTPOptions{
			Name:         c.opts.Name,
			Client:       hc,
			Header:       c.opts.Header,
			Token:        token,
			Authorize:    authorize,
			ParamHeaders: c.paramHeaders,
			MaxMessage:   c.opts.MaxMessage,
			Trace:        c.opts.Trace,
		})
	} else {
		proc, err := transport.Start(c.opts.Command, transport.Options{
			Name:       c.opts.Name,
			MaxMessage: c.opts.MaxMessage,
			OnStderr:   c.opts.OnStderr,
			Trace:      c.opts.Trace,
		})
		if err != nil {
			return nil, err
		}
		s.proc, s.stream = proc, proc
	}
	s.conn = jsonrpc.NewConn(s.stream, jsonrpc.Options{
		Name:         c.opts.Name,
		Trace:        c.opts.Trace,
		Request:      func(conn *jsonrpc.Conn, m *jsonrpc.Message) { c.serverRequest(s, m) },
		Notification: func(m *jsonrpc.Message) { c.notification(s, m) },
		Invalid:      func([]byte, error) { s.invOnce.Do(func() { close(s.invalid) }) },
	})
	return s, nil
}

// ctxError is the error for a context that ended: its cause's kind when it
// has one (a Lua task.timeout says timeout), cancelled otherwise.
func ctxError(ctx context.Context, op, server string) error {
	cause := context.Cause(ctx)
	if k := errs.KindOf(cause); k != errs.Unknown {
		return &errs.Error{Kind: k, Op: op, Msg: cause.Error(), Err: cause}
	}
	if ctx.Err() == context.DeadlineExceeded {
		return errs.Errorf(errs.Timeout, op, "%s to %q: deadline exceeded", op, server)
	}
	return errs.Errorf(errs.Cancelled, op, "%s to %q cancelled", op, server)
}

// capabilities returns the client capabilities to advertise: only those
// with a callback, and the declared extensions (tasks too when asked).
func (c *Client) capabilities(era Era, tasks bool) json.RawMessage {
	var parts []string
	if c.opts.Roots != nil {
		if era == EraLegacy {
			parts = append(parts, `"roots":{"listChanged":true}`)
		} else {
			parts = append(parts, `"roots":{}`)
		}
	}
	if c.opts.Sample != nil {
		parts = append(parts, `"sampling":{}`)
	}
	if c.opts.Elicit != nil {
		parts = append(parts, `"elicitation":{"form":{},"url":{}}`)
	}
	var ext []string
	for _, id := range slices.Sorted(maps.Keys(c.opts.Extensions)) {
		if tasks && id == TasksExtension {
			continue
		}
		settings := c.opts.Extensions[id]
		if len(settings) == 0 {
			settings = json.RawMessage("{}")
		}
		ext = append(ext, jsonscan.Quote(id)+":"+string(settings))
	}
	if tasks {
		ext = append(ext, `"`+TasksExtension+`":{}`)
	}
	if len(ext) > 0 {
		parts = append(parts, `"extensions":{`+strings.Join(ext, ",")+"}")
	}
	return json.RawMessage("{" + strings.Join(parts, ",") + "}")
}

// nextToken returns a fresh progress token.
func (c *Client) nextToken() string {
	c.tokMu.Lock()
	c.nextTok++
	n := c.nextTok
	c.tokMu.Unlock()
	return "lg-" + strconv.FormatInt(n, 10)
}
