package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/luagent/luagent/runtime/catalog"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	"github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/servercache"
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
	if !s.idle {
		s.clearTools()
		h.loadCacheLocked(s)
	}
	s.idle = false
	h.renameLocked() // the qualified names must not point into the old list
	h.setLocked(s, Connecting, nil)
	h.bg.Go(func() { h.connect(ctx, cancel, s, gen) })
}

// loadCacheLocked offers a server's cached tools (Options.CacheDir) while
// it starts; it reports whether there was a usable cache.
func (h *Hub) loadCacheLocked(s *server) bool {
	if h.opts.CacheDir == "" {
		return false
	}
	e, tools, ok := servercache.Load(h.opts.CacheDir, h.cacheKey(s.cfg))
	if !ok {
		return false
	}
	s.setTools(tools)
	s.cachedLists, s.removed = &e, nil
	return true
}

// primeLocked offers a lazy server's cached tools without starting it;
// false when it has no cache (it must start to learn its tools).
func (h *Hub) primeLocked(s *server) bool {
	s.clearTools()
	if !h.loadCacheLocked(s) {
		return false
	}
	s.wanted, s.idle = true, true
	h.renameLocked()
	h.bumpLocked()
	return true
}

// saveWait bounds a cache save: its prompt and resource lists, the wait
// for the file's lock and the write. Close waits for saves in progress.
var saveWait = 2 * time.Second // a test lengthens it

// saveCacheLater keeps a server's fresh list for its next start, after
// the server is Ready and off the start's path: listing its prompts and
// resources, the file's lock and its fsync cost the turn nothing. prev is
// what its cache held (nil: none); a server that listed just that leaves
// the file as it is. Called with h.mu held, before Close can wait.
func (h *Hub) saveCacheLater(cfg *catalog.Server, c *mcp.Client, tools []mcp.Tool, prev *servercache.Entry) {
	if h.opts.CacheDir == "" {
		return
	}
	h.saves.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), saveWait)
		defer cancel()
		if err := h.saveCache(ctx, cfg, c, tools, prev); err != nil && h.opts.Logf != nil {
			h.opts.Logf("hub: %s: %v", cfg.Name, err)
		}
	})
}

// saveCache writes a server's entry unless it is prev's. A list that
// fails (the server went away, Close closed it) saves nothing: a partial
// entry would hide the prompts or resources of the last good one.
func (h *Hub) saveCache(ctx context.Context, cfg *catalog.Server, c *mcp.Client, tools []mcp.Tool, prev *servercache.Entry) error {
	info := c.Info()
	e := servercache.Entry{Server: info.ServerInfo, Instructions: info.Instructions, Tools: make([]json.RawMessage, 0, len(tools))}
	var err error
	if info.Capabilities.Prompts != nil {
		e.HasPrompts = true
		if e.Prompts, err = c.Prompts(ctx); err != nil {
			return nil
		}
	}
	if info.Capabilities.Resources != nil {
		e.HasResources = true
		if e.Resources, err = c.Resources(ctx); err != nil {
			return nil
		}
		if e.Templates, err = c.Templates(ctx); err != nil {
			return nil
		}
	}
	for _, t := range tools {
		raw := t.Raw
		if len(raw) == 0 {
			raw, _ = json.Marshal(t)
		}
		e.Tools = append(e.Tools, raw)
	}
	if prev != nil && e.Same(prev) {
		return nil
	}
	return servercache.Save(ctx, h.opts.CacheDir, h.cacheKey(cfg), e)
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
	if err == nil {
		step = "it had not listed its tools (tools/list)"
		tools, err = listTools(ctx, c)
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
		if s.cached() { // its cached tools are not to be offered any more
			withdrawn := map[string]bool{}
			for _, t := range s.tools {
				withdrawn[t.Name] = true
			}
			s.clearTools()
			s.withdrawn = withdrawn // a call to one fails with the start's error
			h.renameLocked()
		}
		if errs.KindOf(err) == errs.Auth {
			h.setLocked(s, NeedsAuth, needsAuth(cfg, err))
			return
		}
		h.setLocked(s, Failed, err)
		return
	}
	s.client, s.skills = c, sk
	h.saveCacheLater(cfg, c, tools, s.cachedLists)
	if s.cached() {
		s.removed = nil
		for _, t := range s.tools {
			if !slices.ContainsFunc(tools, func(f mcp.Tool) bool { return f.Name == t.Name }) {
				if s.removed == nil {
					s.removed = map[string]bool{}
				}
				s.removed[t.Name] = true
			}
		}
		s.cachedLists = nil // its own lists from now on
	}
	s.setTools(tools)
	h.renameLocked()
	s.state.Info = c.Info()
	h.setLocked(s, Ready, nil)
}

// listTools lists a server's tools whether or not it declared the tools
// capability, as leniently as the seed's clients: many small servers
// answer tools/list with "capabilities": {}. One that declared no tools
// and answers with an error ("method not found", or another code some
// servers use for a method they lack), or does not answer within
// undeclaredToolsWait, has none, without an error; its connection and its
// credentials failing still fail it. A server that declared tools and
// cannot list them is broken, and says so.
func listTools(ctx context.Context, c *mcp.Client) ([]mcp.Tool, error) {
	if c.Info().Capabilities.Tools != nil {
		return c.Tools(ctx)
	}
	lctx, cancel := context.WithTimeout(ctx, undeclaredToolsWait)
	defer cancel()
	tools, err := c.Tools(lctx)
	if err == nil {
		return tools, nil
	}
	var rpc *jsonrpc.Error
	switch k := errs.KindOf(err); {
	case k == errs.Auth || k == errs.Closed || ctx.Err() != nil:
		return nil, err
	case errors.As(err, &rpc), lctx.Err() != nil:
		return nil, nil
	}
	return nil, err
}

// undeclaredToolsWait bounds tools/list to a server that declared no
// tools: one that never answers a method it lacks must not hold its start
// until the startup timeout.
var undeclaredToolsWait = 5 * time.Second // a test shortens it

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

// needsAuth is the one line a NeedsAuth server shows. An entry whose env
// gives its token says why that token failed (the cause says what to do).
// An entry bound to a connectionId is named: another entry may share its
// URL.
func needsAuth(cfg *catalog.Server, cause error) error {
	_, token := cfg.Env[mcp.EnvAccessToken]
	_, file := cfg.Env[mcp.EnvOAuthTokenFile]
	if token || file {
		return &errs.Error{Kind: errs.Auth, Op: "hub", Msg: "server " + quote(cfg.Name) + " needs authorization: " + causeMsg(cause), Err: cause}
	}
	what := secret.URL(cfg.URL)
	if cfg.ConnectionID() != "" {
		what = cfg.Name
	}
	return &errs.Error{Kind: errs.Auth, Op: "hub",
		Msg: "server " + quote(cfg.Name) + " needs authorization: run `luagent mcp login " + what + "`, or reauthorize it from the hub",
		Err: cause}
}

// causeMsg is what an auth error itself says: the server's error
// message, or the error's own without the operation before it.
func causeMsg(err error) string {
	var je *jsonrpc.Error
	var e *errs.Error
	switch {
	case errors.As(err, &je):
		return je.Message
	case errors.As(err, &e) && e.Msg != "":
		return e.Msg
	}
	return err.Error()
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
		o.Command = transport.Command{Path: cfg.Command, Args: cfg.Args, Dir: h.dirOf(cfg), Env: env, Secrets: envSecrets(env),
			Inherit: transport.Inherit{Minimal: cfg.InheritEnv.Minimal, Names: inheritNames(cfg.InheritEnv)}}
	}
	if len(cfg.Headers) > 0 {
		o.Header = http.Header{}
		for k, v := range cfg.Headers {
			o.Header.Set(k, v)
		}
	}
	if cfg.URL != "" {
		a, err := h.httpAuth(cfg, interactive)
		if err != nil {
			return o, err
		}
		if err := a.Apply(&o); err != nil {
			return o, err
		}
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
	if cfg.Roots {
		o.Roots = h.roots(cfg)
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

// dirOf is the folder an entry's server runs in: its own cwd, else
// Options.Dir ("": luagent's working folder).
func (h *Hub) dirOf(cfg *catalog.Server) string {
	if cfg.Cwd != "" {
		return cfg.Cwd
	}
	return h.opts.Dir
}

// cacheKey is an entry's tool-cache key, with the folder it runs in (a
// server started in another folder may list other tools).
func (h *Hub) cacheKey(cfg *catalog.Server) string {
	c := *cfg
	c.Cwd = h.dirOf(cfg)
	return servercache.Key(&c)
}

// roots answers an entry's roots/list: the folders of its "roots" list;
// for "roots": true, Options.Roots when set, else the working folder.
func (h *Hub) roots(cfg *catalog.Server) func(context.Context) ([]mcp.Root, error) {
	name := cfg.Name
	if cfg.RootDirs == nil && h.opts.Roots != nil {
		return func(ctx context.Context) ([]mcp.Root, error) { return h.opts.Roots(ctx, name) }
	}
	return func(context.Context) ([]mcp.Root, error) {
		wd, err := h.opts.Dir, error(nil)
		if wd == "" {
			wd, err = os.Getwd()
		}
		if err != nil {
			return nil, errs.Errorf(errs.NotFound, "roots/list", "server %q asked for its roots, the working folder, which is gone (%v): start luagent in an existing folder", name, err)
		}
		home, _ := os.UserHomeDir()
		return FolderRoots(cfg.RootFolders(wd, home)), nil
	}
}

// FolderRoots are folders (absolute) as roots: file:// URIs, each named
// by its folder's base name.
func FolderRoots(dirs []string) []mcp.Root {
	out := make([]mcp.Root, 0, len(dirs))
	for _, d := range dirs {
		p := filepath.ToSlash(d)
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/x is file:///C:/x
		}
		out = append(out, mcp.Root{URI: (&url.URL{Scheme: "file", Path: p}).String(), Name: filepath.Base(d)})
	}
	return out
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

// OAuthOptions are the OAuth options of a catalog entry (an HTTP one):
// its oauth member (a pre-registered client, a Client ID Metadata
// Document, the scopes to ask for when the server names none) and where
// its credential lives in st: bound to the entry's connectionId when it
// has one (store.Connection), else to its URL. `luagent mcp login` and the
// hub use the same, so a login serves the entry.
func OAuthOptions(cfg *catalog.Server, st *store.Store) mcp.OAuthOptions {
	oc := oauth.Config{ServerURL: cfg.URL, ClientName: "luagent"}
	if cfg.OAuth != nil {
		oc.ClientID, oc.ClientSecret = cfg.OAuth.ClientID, cfg.OAuth.ClientSecret
		oc.ClientIDMetadataURL, oc.Scopes = cfg.OAuth.ClientIDMetadataURL, cfg.OAuth.Scopes
	}
	o := mcp.OAuthOptions{Config: oc, Store: st}
	if id := cfg.ConnectionID(); id != "" && st != nil {
		o.Entry = st.Connection(id, cfg.URL)
	}
	return o
}

// httpAuth is how an HTTP entry authorizes, decided as for mcp.connect
// (mcp.HTTPAuth): env.MCP_ACCESS_TOKEN is sent as given; otherwise OAuth,
// its credential in env.MCP_OAUTH_TOKEN_FILE's file, bound to the entry's
// connectionId, or in the store by URL. A background start (not
// interactive) uses a kept credential only, refreshing it when it
// expires; without one a server that answers 401 makes the start fail
// with an auth error (NeedsAuth) without discovery, registration or a
// browser. interactive runs the whole flow with the browser step.
func (h *Hub) httpAuth(cfg *catalog.Server, interactive bool) (mcp.HTTPAuth, error) {
	env, err := cfg.ResolveEnv(h.opts.Params, h.opts.LookupEnv)
	if err != nil {
		return mcp.HTTPAuth{}, err
	}
	o := OAuthOptions(cfg, h.opts.Store)
	oc := o.Config
	oc.Out = h.opts.AuthOut
	if interactive {
		oc.Browse = h.opts.Browse
	}
	a := mcp.HTTPAuth{AccessToken: env[mcp.EnvAccessToken], TokenFile: env[mcp.EnvOAuthTokenFile],
		OAuth: &oc, Store: h.opts.Store, Entry: o.Entry, Background: !interactive}
	if h.opts.Store != nil {
		a.Warn = h.opts.Store.Warn
	}
	return a, nil
}

// oauthOptions are an HTTP entry's OAuth options (nil: it does not use
// OAuth, or, not interactive, has no credential kept).
func (h *Hub) oauthOptions(cfg *catalog.Server, interactive bool) (*mcp.OAuthOptions, error) {
	a, err := h.httpAuth(cfg, interactive)
	if err != nil {
		return nil, err
	}
	o := mcp.Options{URL: cfg.URL}
	if err := a.Apply(&o); err != nil {
		return nil, err
	}
	return o.OAuth, nil
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
	if oa == nil {
		return errs.Errorf(errs.Invalid, "hub.reauthorize", "server %q is given its token (env.%s): nothing to log in to; change the token in its entry", name, mcp.EnvAccessToken)
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
		} else if (h.all || s.wanted) && !(cfg.Lazy() && h.primeLocked(s)) {
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

// Add starts servers beside the hub's entries (luagent acp: the MCP
// servers an editor passes to a session); an entry of the same name is
// replaced by the new one.
func (h *Hub) Add(servers ...*catalog.Server) {
	added := map[string]bool{}
	for _, s := range servers {
		added[s.Name] = true
	}
	h.mu.Lock()
	list := make([]*catalog.Server, 0, len(h.order)+len(servers))
	for _, name := range h.order {
		if s := h.servers[name]; s != nil && !added[name] {
			list = append(list, s.cfg)
		}
	}
	h.mu.Unlock()
	h.Reload(append(list, servers...))
	names := make([]string, 0, len(servers))
	for _, s := range servers {
		names = append(names, s.Name)
	}
	h.Start(names...)
}
