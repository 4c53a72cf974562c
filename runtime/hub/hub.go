// Package hub holds the live connections of a server catalog: one MCP
// client per enabled entry of runtime/catalog, started in the background,
// each with a status; one merged catalog of their tools under stable
// qualified names (server__tool), a ranked search over it, calls routed by
// qualified name, and resources and prompts across servers.
//
//	h := hub.New(cfg.Servers, hub.Options{Store: store.Default(home)})
//	h.Start()                  // progressive: returns at once
//	h.Wait(ctx)                // one-shot use: until no server is connecting
//	tools, partial := h.Tools()
//	res, err := h.Call(ctx, "files__read_text_file", json.RawMessage(`{"path":"README.md"}`), hub.CallOptions{})
//
// A background start never opens a browser: a server that needs OAuth and
// has no usable stored credential is NeedsAuth until Reauthorize (or
// `luagent mcp login`). It knows nothing of Lua.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/servercache"
	"github.com/luagent/luagent/runtime/trace"
)

// Status is a server's place in its life.
type Status string

// The statuses.
const (
	Disabled   Status = "disabled"   // the entry is kept but not started
	Connecting Status = "connecting" // starting, negotiating, listing tools
	Ready      Status = "ready"      // connected; its tools are in the catalog
	NeedsAuth  Status = "needs_auth" // the server wants authorization: Reauthorize
	Failed     Status = "failed"     // it could not start: see State.Err, State.Stderr
	Stopped    Status = "stopped"    // the hub was closed, or the entry removed
)

// State is one server's status and what goes with it.
type State struct {
	Name   string
	Status Status
	// Err says why the server is Failed or NeedsAuth (an *errs.Error:
	// errs.KindOf tells timeout, process, auth, ...).
	Err error
	// Stderr is the last lines the server wrote to its stderr (stdio).
	Stderr []string
	// Tools is how many tools it lists (Ready).
	Tools int
	// Info is what the server said when it connected (Ready): its name,
	// era, capabilities and instructions.
	Info mcp.Info
	// Since is when the server entered this status.
	Since time.Time
}

// Event is a change in the hub, delivered to Subscribe's function.
type Event struct {
	// Kind is EventStatus (State.Status changed) or EventTools (the
	// server's tool list was refreshed).
	Kind  string
	State State
}

// Event kinds.
const (
	EventStatus = "status"
	EventTools  = "tools"
)

// Options configure a Hub. The zero value is usable.
type Options struct {
	// Params resolve {"param": NAME} env references; LookupEnv resolves
	// {"fromEnv": NAME} ones (default os.LookupEnv).
	Params    catalog.Params
	LookupEnv func(string) (string, bool)
	// Store keeps OAuth credentials (store.Default(home)); nil keeps none,
	// and every server that asks for authorization is NeedsAuth.
	Store *store.Store
	// Trace receives every client's trace events.
	Trace trace.Sink
	// ClientInfo is sent to servers (default luagent's).
	ClientInfo mcp.Implementation

	// Elicit answers servers' elicitation requests; it is advertised only
	// when set (an interactive host). Sample and Roots answer sampling and
	// roots requests, advertised only to entries with "sampling": true or
	// "roots": true (or a list of folders). An entry's list of folders is
	// its roots; for "roots": true, Roots answers when set, else the
	// working folder is the one root.
	Elicit func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)
	Sample func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)
	Roots  func(ctx context.Context, server string) ([]mcp.Root, error)

	// Browse is the browser step of Reauthorize (see oauth.Config.Browse);
	// nil uses the built-in one, which prints the URL to AuthOut (default
	// os.Stderr) and opens a browser. Background starts never run it.
	Browse  func(ctx context.Context, authURL string) (callbackURL string, err error)
	AuthOut io.Writer

	// OnStderr receives each server's stderr lines; OnNotification its
	// notifications (list changes, logs). Both run on connection
	// goroutines and must not block.
	OnStderr       func(server, line string)
	OnNotification func(server, method string, params json.RawMessage)
	// Configure, if set, has the last word on each client's options
	// before it connects (tests, hosts with needs of their own).
	Configure func(s *catalog.Server, o *mcp.Options)
	// Logf, if set, receives a line per status change.
	Logf func(format string, args ...any)

	// Dir is the folder the servers whose entry sets no cwd run in, and
	// the root of those with "roots": true ("": luagent's working folder):
	// an ACP session's cwd.
	Dir string

	// CacheDir, if set, keeps each server's tool list from its last
	// successful start (runtime/servercache; servercache.Dir(home)). A
	// server starting with a cache offers its cached tools at once: Tools
	// lists them, WaitListed does not wait for it, and a call to one of
	// them waits for that server alone, then is checked against its fresh
	// list (a changed tool is refused as a changed contract, a removed one
	// as not found; a start that fails fails the call with its error). A
	// lazy entry ("startup": "lazy") with a cache is not started until one
	// of its tools is called.
	CacheDir string
}

// Hub is the live connections of a catalog. It is safe for concurrent use.
type Hub struct {
	opts   Options
	ctx    context.Context // ends at Close: stops connects in progress
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[string]*server
	order   []string // catalog order
	all     bool     // Start() without names: every enabled entry, new ones too
	closed  bool
	changed chan struct{} // closed and replaced at every status change
	names   map[string]toolRef
	sampler Sampler // SetSampler's (Options.Sample wins over it)
	subs    map[*subscriber]bool

	// bg counts the starts in progress and the closes of clients let go:
	// Close waits for them, so no server outlives the hub.
	bg sync.WaitGroup
	// saves counts the cache saves in progress (saveCacheLater): Close
	// waits for them before it closes their servers' clients.
	saves sync.WaitGroup
}

// server is one entry's live side (fields under Hub.mu).
type server struct {
	cfg    *catalog.Server
	state  State
	client *mcp.Client
	gen    int // bumped by every (re)start: a stale connect's result is dropped
	stop   context.CancelFunc
	stderr *ring
	sem    chan struct{} // MaxConcurrentCalls slots (nil: no bound)

	tools      []mcp.Tool
	hashes     []string          // schema hash per tool
	qnames     []string          // qualified name per tool
	filtered   map[string]bool   // tools the entry's enabledTools/disabledTools leave out
	handed     map[string]string // tool -> schema hash last handed out
	index      *shard
	dirty      bool // a tools/list_changed arrived since the last refresh
	refreshing bool

	skills *serverSkills // nil: the server declares no skills extension

	wanted bool // asked to start (Start, Restart): Reload restarts it when it changes

	// cachedLists is its cache's entry while its tools are the cache's
	// (Options.CacheDir, cached()): the server has not listed its own
	// yet. idle: a lazy entry offered from its cache and not started.
	// removed are the cached tools its fresh list dropped (for Call's
	// error).
	cachedLists *servercache.Entry
	idle        bool
	removed     map[string]bool
	// withdrawn are the cached tools of a start that failed.
	withdrawn map[string]bool
}

// New returns a hub over servers (catalog order is kept). Nothing starts
// until Start.
func New(servers []*catalog.Server, opts Options) *Hub {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Hub{opts: opts, ctx: ctx, cancel: cancel, servers: map[string]*server{},
		changed: make(chan struct{}), subs: map[*subscriber]bool{}}
	for _, s := range servers {
		if _, dup := h.servers[s.Name]; dup {
			continue
		}
		h.servers[s.Name] = h.newServer(s)
		h.order = append(h.order, s.Name)
	}
	h.renameLocked()
	return h
}

func (h *Hub) newServer(cfg *catalog.Server) *server {
	s := &server{cfg: cfg, handed: map[string]string{}, index: &shard{}}
	s.state = State{Name: cfg.Name, Status: Stopped, Since: time.Now()}
	if !cfg.Enabled {
		s.state.Status = Disabled
	}
	if cfg.MaxConcurrentCalls > 0 {
		s.sem = make(chan struct{}, cfg.MaxConcurrentCalls)
	}
	return s
}

// Start connects servers in the background and returns at once; Status
// and Subscribe follow their progress. Without names it starts every
// enabled server (and Reload starts the entries it adds); with names, only
// those (an agent's servers, `ask --server`): the others are not spawned
// and stay Stopped until a later Start names them. A server already
// started is left as it is; names not in the catalog, and disabled
// entries, are skipped (Status shows them).
func (h *Hub) Start(names ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || (h.all && len(names) == 0) {
		return
	}
	if len(names) == 0 {
		h.all = true
		names = h.order
	}
	for _, name := range names {
		if s := h.servers[name]; s != nil && s.cfg.Enabled && !s.wanted {
			if s.cfg.Lazy() && h.primeLocked(s) {
				continue // started by its first call
			}
			h.startLocked(s)
		}
	}
}

// Wait returns when no server is connecting any more (each start is
// bounded by its entry's startup timeout, catalog.DefaultStartupTimeout
// when unset), or with the context's error when ctx ends first. The
// statuses are then in Status.
func (h *Hub) Wait(ctx context.Context) error { return h.wait(ctx, false) }

// WaitListed is Wait for the servers that have no tool list yet: a server
// starting with its cached tools (Options.CacheDir) does not hold it. A
// one-shot run waits with it and sends its first model request while the
// cached servers finish starting.
func (h *Hub) WaitListed(ctx context.Context) error { return h.wait(ctx, true) }

func (h *Hub) wait(ctx context.Context, listed bool) error {
	for {
		h.mu.Lock()
		busy := false
		for _, s := range h.servers {
			busy = busy || s.state.Status == Connecting && !(listed && s.cached())
		}
		ch := h.changed
		h.mu.Unlock()
		if !busy {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return errs.New(errs.Timeout, "hub.wait", "servers were still connecting at the deadline; see the hub's status")
			}
			return errs.New(errs.Cancelled, "hub.wait", "waiting for the servers was cancelled")
		}
	}
}

// Status returns every server's state, in catalog order.
func (h *Hub) Status() []State {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]State, 0, len(h.order))
	for _, name := range h.order {
		out = append(out, h.servers[name].snapshot())
	}
	return out
}

func (s *server) snapshot() State {
	st := s.state
	st.Stderr = slices.Clone(st.Stderr)
	return st
}

// Instructions returns each ready server's instructions (servers without
// any are left out).
func (h *Hub) Instructions() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]string{}
	for name, s := range h.servers {
		switch {
		case s.state.Status == Ready && s.state.Info.Instructions != "":
			out[name] = s.state.Info.Instructions
		case s.cached() && s.cachedLists.Instructions != "":
			out[name] = s.cachedLists.Instructions // as it said at its last start
		}
	}
	return out
}

// Client returns the ready client of a server, for what the hub does not
// cover. The hub owns it: do not Close it.
func (h *Hub) Client(name string) (*mcp.Client, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.servers[name]
	if s == nil || s.client == nil || s.state.Status != Ready {
		return nil, false
	}
	return s.client, true
}

// Close stops every server and returns when their processes are gone: a
// ready server is closed gracefully, a start in progress is cut short and
// its process killed at once. Subscribers hear the Stopped statuses, then
// no more.
func (h *Hub) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.cancel()
	var clients []*mcp.Client
	for _, name := range h.order {
		s := h.servers[name]
		if c := h.stopLocked(s); c != nil {
			clients = append(clients, c)
		}
	}
	h.renameLocked()
	subs := h.subs
	h.subs = map[*subscriber]bool{}
	h.mu.Unlock()
	h.saves.Wait() // bounded by saveWait
	for _, c := range clients {
		h.bg.Go(func() { c.Close() })
	}
	// The starts in progress end with the hub's context: each kills its
	// server at once (it never became ready) before it returns.
	h.bg.Wait()
	for sub := range subs {
		sub.end()
	}
	return nil
}

// closeLater closes c in the background; Close waits for it. Called with
// h.mu held (bg.Go before Close's Wait: Close sets closed under h.mu
// first, and nothing calls closeLater after that but connect, itself
// counted in bg).
func (h *Hub) closeLater(c *mcp.Client) {
	h.bg.Go(func() { c.Close() })
}

// stopLocked ends a server's connection (or its start) and returns the
// client to close.
func (h *Hub) stopLocked(s *server) *mcp.Client {
	s.gen++
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
	c := s.client
	s.client = nil
	s.clearTools()
	s.idle = false
	h.renameLocked()
	if s.state.Status != Disabled {
		h.setLocked(s, Stopped, nil)
	}
	return c
}

// setLocked changes a server's status and tells subscribers and waiters.
func (h *Hub) setLocked(s *server, st Status, err error) {
	prev := s.state.Status
	s.state.Status, s.state.Err, s.state.Since = st, err, time.Now()
	s.state.Tools = len(s.tools)
	if st != Ready {
		s.state.Info = mcp.Info{}
	}
	if st == Failed && s.stderr != nil {
		s.state.Stderr = s.stderr.lines()
	} else if st == Connecting {
		s.state.Stderr = nil
	}
	if prev == st && err == nil && st != Ready {
		return
	}
	h.bumpLocked()
	if h.opts.Logf != nil {
		if err != nil {
			h.opts.Logf("hub: %s: %s: %v", s.cfg.Name, st, err)
		} else {
			h.opts.Logf("hub: %s: %s", s.cfg.Name, st)
		}
	}
	h.emitLocked(Event{Kind: EventStatus, State: s.snapshot()})
}

// ring keeps the last lines of a server's stderr.
type ring struct {
	mu  sync.Mutex
	buf []string
}

const stderrLines = 20

func (r *ring) add(line string) {
	r.mu.Lock()
	if len(r.buf) == stderrLines {
		copy(r.buf, r.buf[1:])
		r.buf = r.buf[:stderrLines-1]
	}
	r.buf = append(r.buf, line)
	r.mu.Unlock()
}

func (r *ring) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.buf)
}
