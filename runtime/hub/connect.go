package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/transport"
)

// startLocked (re)connects a server in the background.
func (h *Hub) startLocked(s *server) {
	s.wanted = true
	s.gen++
	gen := s.gen
	if s.stop != nil {
		s.stop()
	}
	timeout := s.cfg.StartupTimeout
	if timeout <= 0 {
		timeout = catalog.DefaultStartupTimeout
	}
	ctx, cancel := context.WithTimeout(h.ctx, timeout)
	s.stop = cancel
	s.stderr = &ring{}
	s.clearTools()
	h.renameLocked() // the qualified names must not point into the old list
	h.setLocked(s, Connecting, nil)
	h.bg.Go(func() { h.connect(ctx, cancel, s, gen) })
}

// connect starts one server, negotiates and lists its tools.
func (h *Hub) connect(ctx context.Context, cancel context.CancelFunc, s *server, gen int) {
	defer cancel()
	h.mu.Lock()
	cfg, stderr := s.cfg, s.stderr
	h.mu.Unlock()
	var c *mcp.Client
	var tools []mcp.Tool
	o, err := h.clientOptions(cfg, stderr, false)
	o.OnDisconnect = func(err error) { h.lost(s, gen, err) }
	o.OnReconnect = func(info mcp.Info) { h.regained(s, gen, info) }
	step := "it had not answered the MCP handshake (server/discover or initialize)"
	if err == nil {
		c, err = mcp.Connect(ctx, o)
	}
	if err == nil && cfg.LogLevel != "" {
		step = "it had not answered logging/setLevel"
		err = c.SetLogLevel(ctx, cfg.LogLevel)
	}
	if err == nil && c.Info().Capabilities.Tools != nil {
		step = "it had not listed its tools (tools/list)"
		tools, err = c.Tools(ctx)
	}
	var sk *serverSkills
	if err == nil {
		sk = h.listSkills(ctx, cfg.Name, c)
	}
	if err != nil && ctx.Err() != nil && errs.KindOf(err) != errs.Auth {
		err = startupTimeoutError(cfg, step, err)
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	if s.gen != gen || h.closed {
		if c != nil {
			h.closeLater(c)
		}
		return
	}
	s.stop = nil
	if err != nil {
		if c != nil {
			h.closeLater(c)
		}
		if errs.KindOf(err) == errs.Auth {
			h.setLocked(s, NeedsAuth, needsAuth(cfg, err))
			return
		}
		h.setLocked(s, Failed, err)
		return
	}
	s.client, s.skills = c, sk
	s.setTools(tools)
	h.renameLocked()
	s.state.Info = c.Info()
	h.setLocked(s, Ready, nil)
}

// lost marks a ready server whose process exited (or whose connection
// broke) Failed, with why and its last stderr lines. Its tools stay listed:
// the next call starts it again (the client restarts it), and regained
// marks it Ready.
func (h *Hub) lost(s *server, gen int, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.gen != gen || h.closed || s.state.Status != Ready {
		return
	}
	h.setLocked(s, Failed, &errs.Error{Kind: errs.KindOf(err), Op: "hub", Err: err,
		Msg: fmt.Sprintf("server %q stopped: %v (the next call starts it again; or restart it)", s.cfg.Name, err)})
}

// regained marks a server the client restarted Ready again; its tools are
// listed anew before the next call.
func (h *Hub) regained(s *server, gen int, info mcp.Info) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.gen != gen || h.closed {
		return
	}
	s.dirty = true
	s.state.Info = info
	h.setLocked(s, Ready, nil)
	if s.client != nil {
		go h.relistSkills(s, gen, s.client)
	}
}

// startupTimeoutError is the one line of a start that ran out of its
// startup timeout: the timeout by its own name, the step it was at and
// what to do; cause (a request's "deadline exceeded") stays in the chain.
func startupTimeoutError(cfg *catalog.Server, step string, cause error) error {
	return &errs.Error{Kind: errs.Timeout, Op: "hub", Err: cause,
		Msg: fmt.Sprintf("server %q did not finish starting within %v (startupTimeoutSeconds): %s; raise startupTimeoutSeconds in its entry if it needs longer, or check that it starts (luagent -v mcp tools %s)",
			cfg.Name, startupTimeout(cfg), step, cfg.Name)}
}

func startupTimeout(cfg *catalog.Server) any {
	if cfg.StartupTimeout > 0 {
		return cfg.StartupTimeout
	}
	return catalog.DefaultStartupTimeout
}

// needsAuth is the one line a NeedsAuth server shows.
func needsAuth(cfg *catalog.Server, cause error) error {
	return &errs.Error{Kind: errs.Auth, Op: "hub",
		Msg: "server " + quote(cfg.Name) + " needs authorization: run `luagent mcp login " + secret.URL(cfg.URL) + "`, or reauthorize it from the hub",
		Err: cause}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// clientOptions turns a catalog entry into client options. Env values go
// only into the child's environment (never its argv, a trace or an
// error). interactive allows the OAuth browser step; a background start
// uses stored credentials only.
func (h *Hub) clientOptions(cfg *catalog.Server, stderr *ring, interactive bool) (mcp.Options, error) {
	name := cfg.Name
	o := mcp.Options{
		Name:           name,
		URL:            cfg.URL,
		Protocol:       cfg.Protocol,
		Timeout:        cfg.RequestTimeout,
		StartupTimeout: cfg.StartupTimeout,
		ClientInfo:     h.opts.ClientInfo,
		Trace:          h.opts.Trace,
		Extensions:     skillsExtension(),
	}
	if o.Timeout <= 0 {
		o.Timeout = catalog.DefaultRequestTimeout
	}
	if o.StartupTimeout <= 0 {
		o.StartupTimeout = catalog.DefaultStartupTimeout
	}
	if o.StartupTimeout < 10*time.Second {
		o.ProbeTimeout = o.StartupTimeout / 2 // leave initialize time after a silent probe
	}
	if cfg.Command != "" {
		env, err := cfg.ResolveEnv(h.opts.Params, h.opts.LookupEnv)
		if err != nil {
			return o, err
		}
		o.Command = transport.Command{Path: cfg.Command, Args: cfg.Args, Dir: cfg.Cwd, Env: env, Secrets: envSecrets(env),
			Inherit: transport.Inherit{Minimal: cfg.InheritEnv.Minimal, Names: inheritNames(cfg.InheritEnv)}}
	}
	if len(cfg.Headers) > 0 {
		o.Header = http.Header{}
		for k, v := range cfg.Headers {
			o.Header.Set(k, v)
		}
	}
	if cfg.URL != "" {
		oa, err := h.oauthOptions(cfg, interactive)
		if err != nil {
			return o, err
		}
		o.OAuth = oa
	}
	if h.opts.Elicit != nil {
		o.Elicit = func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
			return h.opts.Elicit(ctx, name, p)
		}
	}
	if cfg.Sampling {
		// Advertised whenever the entry opts in: the sampler may be set
		// after the server connects (an agent made over a started hub).
		o.Sample = func(ctx context.Context, p json.RawMessage) (json.RawMessage, error) {
			return h.sample(ctx, name, p)
		}
	}
	if cfg.Roots && h.opts.Roots != nil {
		o.Roots = func(ctx context.Context) ([]mcp.Root, error) { return h.opts.Roots(ctx, name) }
	}
	if h.opts.Configure != nil {
		h.opts.Configure(cfg, &o)
	}
	onStderr, onNote := o.OnStderr, o.OnNotification
	o.OnStderr = func(line string) {
		if stderr != nil {
			stderr.add(line)
		}
		if h.opts.OnStderr != nil {
			h.opts.OnStderr(name, line)
		}
		if onStderr != nil {
			onStderr(line)
		}
	}
	o.OnNotification = func(method string, params json.RawMessage) {
		if method == "notifications/tools/list_changed" {
			h.toolsChanged(name)
		}
		if h.opts.OnNotification != nil {
			h.opts.OnNotification(name, method, params)
		}
		if onNote != nil {
			onNote(method, params)
		}
	}
	return o, nil
}

// inheritNames is an entry's inheritEnv list for transport.Inherit: nil
// when it is no list, non-nil (maybe empty: nothing) when it is one.
func inheritNames(ie catalog.InheritEnv) []string {
	if !ie.IsList() {
		return nil
	}
	return append([]string{}, ie.Names...)
}

// envSecrets are the env values a stdio server's stderr must not show
// (transport.Command.Secrets): an entry's env values are never shown —
// literals, parameters (an agent's secret ones included) and variables
// alike; a value of several lines, each line too (stderr comes in
// lines). Values of one or two characters are not worth masking.
func envSecrets(env map[string]string) []string {
	var out []string
	for _, v := range env {
		parts := []string{v}
		if strings.Contains(v, "\n") {
			parts = append(parts, strings.Split(v, "\n")...)
		}
		for _, x := range parts {
			if x = strings.TrimSuffix(x, "\r"); len(x) >= 3 {
				out = append(out, x)
			}
		}
	}
	return out
}

// oauthOptions: with a stored credential, OAuth (refreshing it when it
// expires); interactive, the whole flow with the browser step; otherwise
// none, so a server that answers 401 makes the start fail with an auth
// error (NeedsAuth) without discovery, registration or a browser.
func (h *Hub) oauthOptions(cfg *catalog.Server, interactive bool) (*mcp.OAuthOptions, error) {
	oc := oauth.Config{ServerURL: cfg.URL, ClientName: "luagent", Out: h.opts.AuthOut}
	if cfg.OAuth != nil {
		oc.ClientID, oc.ClientSecret = cfg.OAuth.ClientID, cfg.OAuth.ClientSecret
		oc.ClientIDMetadataURL, oc.Scopes = cfg.OAuth.ClientIDMetadataURL, cfg.OAuth.Scopes
	}
	if interactive {
		oc.Browse = h.opts.Browse
	} else {
		if h.opts.Store == nil {
			return nil, nil
		}
		if cred, err := h.opts.Store.Load(cfg.URL); err != nil || cred == nil {
			return nil, nil
		}
		oc.Browse = func(context.Context, string) (string, error) {
			return "", errs.New(errs.Auth, "hub", "a background start does not open a browser")
		}
	}
	if err := oc.Validate(); err != nil {
		return nil, err
	}
	return &mcp.OAuthOptions{Config: oc, Store: h.opts.Store}, nil
}

// Restart stops a server and connects it again in the background.
func (h *Hub) Restart(name string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, err := h.lookupLocked(name)
	if err != nil {
		return err
	}
	if !s.cfg.Enabled {
		return errs.Errorf(errs.Invalid, "hub.restart", "server %q is disabled: enable it (luagent mcp enable %s) and reload", name, name)
	}
	if c := h.stopLocked(s); c != nil {
		h.closeLater(c)
	}
	h.startLocked(s)
	return nil
}

func (h *Hub) lookupLocked(name string) (*server, error) {
	if h.closed {
		return nil, errs.New(errs.Closed, "hub", "the hub is closed")
	}
	s := h.servers[name]
	if s == nil {
		return nil, errs.Errorf(errs.NotFound, "hub", "no server %q in the catalog (luagent mcp list shows them)", name)
	}
	return s, nil
}

// Reauthorize runs the interactive OAuth login for an HTTP server (the
// browser step of Options.Browse), stores the credential in Options.Store,
// then restarts the server.
func (h *Hub) Reauthorize(ctx context.Context, name string) error {
	h.mu.Lock()
	s, err := h.lookupLocked(name)
	var cfg *catalog.Server
	if err == nil {
		cfg = s.cfg
	}
	h.mu.Unlock()
	if err != nil {
		return err
	}
	if cfg.URL == "" {
		return errs.Errorf(errs.Invalid, "hub.reauthorize", "server %q is a stdio server: only HTTP servers authorize with OAuth", name)
	}
	if h.opts.Store == nil {
		return errs.New(errs.Invalid, "hub.reauthorize", "this hub keeps no credentials (Options.Store is nil): give it a store")
	}
	oa, err := h.oauthOptions(cfg, true)
	if err != nil {
		return err
	}
	if _, err := mcp.Login(ctx, cfg.URL, *oa, nil); err != nil {
		return err
	}
	return h.Restart(name)
}

// Reload makes the hub match servers: entries that are new start,
// entries gone stop, entries that changed (compared by value) restart;
// the others keep their connections.
func (h *Hub) Reload(servers []*catalog.Server) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	keep := map[string]bool{}
	var order []string
	for _, cfg := range servers {
		if keep[cfg.Name] {
			continue
		}
		keep[cfg.Name] = true
		order = append(order, cfg.Name)
		s := h.servers[cfg.Name]
		if s != nil && sameEntry(s.cfg, cfg) {
			continue
		}
		if s != nil {
			if c := h.stopLocked(s); c != nil {
				h.closeLater(c)
			}
			s.cfg = cfg
			s.sem = nil
			if cfg.MaxConcurrentCalls > 0 {
				s.sem = make(chan struct{}, cfg.MaxConcurrentCalls)
			}
		} else {
			s = h.newServer(cfg)
			h.servers[cfg.Name] = s
		}
		if !cfg.Enabled {
			h.setLocked(s, Disabled, nil)
		} else if h.all || s.wanted {
			h.startLocked(s)
		}
	}
	for _, name := range h.order {
		if !keep[name] {
			s := h.servers[name]
			if c := h.stopLocked(s); c != nil {
				h.closeLater(c)
			}
			delete(h.servers, name)
		}
	}
	h.order = order
	h.renameLocked()
}
