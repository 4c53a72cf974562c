package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/oauth"
	"github.com/luagent/luagent/runtime/oauth/store"
	"github.com/luagent/luagent/runtime/secret"
	"github.com/luagent/luagent/runtime/skills"
	lua "github.com/yuin/gopher-lua"
)

// Connections from Lua: stdlib/mcp_client.lua reads mcp.connect's options
// into connectOptions and builds each conn method over the natives here.

type conn struct {
	m        *module
	c        *rmcp.Client
	name     string
	handlers map[string][]*lua.LFunction // loop goroutine only
	ud       *lua.LUserData
	borrowed bool // a hub's connection (hub:server): the hub closes it

	skillsOnce sync.Once
	skills     *skills.Remote // see remote
}

// connectOptions is mcp.connect's (and mcp.login's) options as
// mcp_client.lua hands them over, converted by gopher-luar: rmcp.Options
// by its fields' Go names, and what the binding turns into callbacks.
// (gopher-luar v1.0.11 fills no promoted fields: Options is not embedded.)
type connectOptions struct {
	Options                              rmcp.Options
	OAuthConfig                          *oauth.Config // nil: no OAuth
	Store                                bool          // keep OAuth credentials in Home
	TokenFile                            string        // MCP_OAUTH_TOKEN_FILE
	AccessToken                          string        // MCP_ACCESS_TOKEN
	LogLevel                             string
	OnElicit, OnSample, Roots, OnAuthURL lua.LValue
}

func (m *module) check(L *lua.LState, n int) *conn {
	return value.Check[*conn](L, n, "mcp connection expected, got %s")
}

// connect(o): o is connectOptions.
func (m *module) connect(L *lua.LState) sched.Start {
	o := value.FromLuar[connectOptions](L, 1)
	if o.Options.Name == "" {
		// Named by its URL: shown in errors, traces and logs, so without
		// the URL's secrets.
		o.Options.Name = secret.URL(o.Options.URL)
	}
	c := &conn{m: m, name: o.Options.Name, handlers: map[string][]*lua.LFunction{}}
	if err := m.prepare(&o); err != nil {
		L.ArgError(1, err.Error())
	}
	o.Options.OnNotification = func(method string, params json.RawMessage) {
		m.lp.Post(func() { c.dispatch(method, params) })
	}
	return goDo(func(ctx context.Context) sched.Completion {
		client, err := rmcp.Connect(ctx, o.Options)
		if err == nil && o.LogLevel != "" {
			if err = client.SetLogLevel(ctx, o.LogLevel); err != nil {
				client.Close()
			}
		}
		if err != nil {
			return fail(err)
		}
		return func(L *lua.LState) ([]lua.LValue, error) {
			c.c = client
			m.mu.Lock()
			m.conns[c] = true
			m.mu.Unlock()
			c.ud = value.NewUserData(L, c, m.connMT)
			return []lua.LValue{c.ud}, nil
		}
	})
}

// prepare completes o with what only Go makes: callbacks, the HTTP
// headers' canonical names, OAuth's browser step and stores.
func (m *module) prepare(o *connectOptions) error {
	o.Options.Trace = m.cfg.Trace
	o.Options.Extensions = map[string]json.RawMessage{skills.Extension: nil} // conn:skills() speaks it
	if name := o.Options.Name; m.cfg.Log != nil {
		o.Options.OnStderr = func(line string) { m.cfg.Log(name, line) }
	}
	if o.Options.Header != nil {
		h := http.Header{}
		for k, vs := range o.Options.Header {
			h[http.CanonicalHeaderKey(k)] = vs
		}
		o.Options.Header = h
	}
	o.Options.Elicit, o.Options.Sample = m.luaCallback(o.OnElicit, "on_elicit"), m.luaCallback(o.OnSample, "on_sample")
	if err := m.auth(o); err != nil {
		return err
	}
	switch r := o.Roots.(type) {
	case *lua.LFunction:
		o.Options.Roots = func(ctx context.Context) ([]rmcp.Root, error) {
			raw, err := m.callLua(ctx, r, "roots", nil)
			if err != nil {
				return nil, err
			}
			return parseRoots(raw)
		}
	case *lua.LTable:
		raw, err := value.Encode(r, value.EncodeOptions{})
		if err != nil {
			return fmt.Errorf("roots: %v", err)
		}
		roots, err := parseRoots(raw)
		if err != nil {
			return err
		}
		o.Options.Roots = func(context.Context) ([]rmcp.Root, error) { return roots, nil }
	}
	return nil
}

// auth sets how o authorizes (rmcp.HTTPAuth decides, as for a catalog
// entry): o.OAuthConfig with on_auth_url's browser step, the stores.
func (m *module) auth(o *connectOptions) error {
	a := rmcp.HTTPAuth{AccessToken: o.AccessToken, TokenFile: o.TokenFile}
	if o.OAuthConfig != nil {
		cfg := *o.OAuthConfig
		cfg.ServerURL, cfg.ClientName = o.Options.URL, "luagent"
		if fn, ok := o.OnAuthURL.(*lua.LFunction); ok {
			cfg.Browse = func(ctx context.Context, authURL string) (string, error) {
				arg, _ := json.Marshal(authURL)
				raw, err := m.callLua(ctx, fn, "on_auth_url", arg)
				var cb string
				if err == nil && (json.Unmarshal(raw, &cb) != nil || cb == "") {
					err = errs.New(errs.Invalid, "on_auth_url", "on_auth_url must return the URL the browser was sent back to (with code and state)")
				}
				return cb, err
			}
		}
		a.OAuth = &cfg
	}
	if o.Store && m.cfg.Home != "" {
		a.Store = store.Default(m.cfg.Home)
	}
	return a.Apply(&o.Options)
}

// parseRoots accepts {{uri=, name=}, ...} or {roots = {...}}.
func parseRoots(raw json.RawMessage) ([]rmcp.Root, error) {
	var list []rmcp.Root
	if err := json.Unmarshal(raw, &list); err != nil {
		var wrapped struct {
			Roots []rmcp.Root `json:"roots"`
		}
		if err2 := json.Unmarshal(raw, &wrapped); err2 != nil {
			return nil, fmt.Errorf("roots must be a list of {uri = \"file://...\", name = ...}")
		}
		list = wrapped.Roots
	}
	for _, r := range list {
		if !strings.HasPrefix(r.URI, "file://") {
			return nil, fmt.Errorf("root %q must be a file:// URI", r.URI)
		}
	}
	return list, nil
}

// login(url, o) authorizes with the server now and stores the credential
// (o is connectOptions).
func (m *module) login(L *lua.LState) sched.Start {
	u := L.CheckString(1)
	o := value.FromLuar[connectOptions](L, 2)
	o.Options.URL = u
	if err := m.prepare(&o); err != nil {
		L.ArgError(2, err.Error())
	}
	if o.Options.OAuth == nil {
		L.ArgError(2, "oauth = false leaves nothing to log in with")
	}
	oa := *o.Options.OAuth
	return goDo(func(ctx context.Context) sched.Completion {
		cred, err := rmcp.Login(ctx, u, oa, nil)
		if err != nil {
			return fail(err)
		}
		// What the script may see of the credential: never a token.
		return luarOut(struct {
			Issuer, Scope string
			ExpiresAt     int64
		}{cred.Issuer, cred.Scope, int64(cred.ExpiresAt)}, nil)
	})
}

// --- events ---

var events = map[string]string{
	"notifications/tools/list_changed":     "tools_changed",
	"notifications/prompts/list_changed":   "prompts_changed",
	"notifications/resources/list_changed": "resources_changed",
	"notifications/resources/updated":      "resource_updated",
	"notifications/message":                "log",
}

// dispatch runs the handlers of an event as tasks (loop goroutine).
func (c *conn) dispatch(method string, params json.RawMessage) {
	ev, ok := events[method]
	if !ok {
		return
	}
	hs := c.handlers[ev]
	if len(hs) == 0 {
		if ev == "log" && c.m.cfg.Log != nil {
			c.m.cfg.Log(c.name, "log: "+string(params))
		}
		return
	}
	var arg lua.LValue = lua.LNil
	if len(params) > 0 {
		if v, err := value.Decode(c.m.lp.L, params); err == nil {
			arg = v
		}
	}
	for _, fn := range hs {
		c.m.lp.Spawn(fn, []lua.LValue{arg, c.ud}, sched.SpawnOptions{Name: c.name + " " + ev})
	}
}

// on(c, event, fn): mcp_client.lua has checked event and fn.
func (m *module) on(L *lua.LState) int {
	c, ev, fn := m.check(L, 1), L.CheckString(2), L.CheckFunction(3)
	c.handlers[ev] = append(c.handlers[ev], fn)
	if ev == "log" {
		c.c.WantLogs() // the same script hears the same logs in both eras
	}
	return 0
}

func (m *module) close(L *lua.LState) int {
	c := m.check(L, 1)
	if c.borrowed {
		return 0 // the hub's: it stays open until hub:close()
	}
	m.mu.Lock()
	delete(m.conns, c)
	m.mu.Unlock()
	// The process shuts down in the background: the loop must not wait the
	// seconds a stubborn server may take.
	c.c.CloseAsync()
	return 0
}

// call(c, name, args, timeout_ns, task, progress): mcp_client.lua has read
// the options; progress(p, total, message, status) is a Lua function.
func (m *module) call(L *lua.LState) sched.Start {
	c, name := m.check(L, 1), L.CheckString(2)
	args, o := m.callArgs(L)
	return func(ctx context.Context, done func(sched.Completion)) {
		c.c.CallToolAsync(ctx, name, args, o, func(raw json.RawMessage, err error) {
			if err != nil {
				done(fail(err))
				return
			}
			done(decoded(raw))
		})
	}
}

// callArgs reads a call's arguments (3: nil or a table of named
// arguments, as JSON and as decoded Go values for validation) and options
// (4, 5, 6: the timeout in nanoseconds, task, a progress function).
func (m *module) callArgs(L *lua.LState) (json.RawMessage, rmcp.CallOptions) {
	var args json.RawMessage
	var argsValue any
	switch a := L.Get(3).(type) {
	case *lua.LNilType:
		args, argsValue = json.RawMessage("{}"), map[string]any{}
	case *lua.LTable:
		var err error
		if argsValue, err = value.FromLua(a); err != nil {
			L.ArgError(3, err.Error())
		}
		if _, isObj := argsValue.(map[string]any); !isObj {
			if list, isList := argsValue.([]any); !(isList && len(list) == 0) {
				L.ArgError(3, "arguments must be a table of named arguments, not a list")
			}
			args, argsValue = json.RawMessage("{}"), map[string]any{}
		} else if args, err = value.Encode(a, value.EncodeOptions{}); err != nil {
			L.ArgError(3, err.Error())
		}
	default:
		L.ArgError(3, "arguments must be a table, not a "+a.Type().String())
	}
	o := rmcp.CallOptions{Args: argsValue, Timeout: time.Duration(float64(L.OptNumber(4, 0))), Task: lua.LVAsBool(L.Get(5))}
	if fn, ok := L.Get(6).(*lua.LFunction); ok {
		o.Progress = func(p rmcp.Progress) {
			m.lp.Post(func() {
				args := []lua.LValue{lua.LNumber(p.Progress), lua.LNil, lua.LString(p.Message), lua.LString(p.Status)}
				if p.Total != nil {
					args[1] = lua.LNumber(*p.Total)
				}
				m.lp.Spawn(fn, args, sched.SpawnOptions{Name: "progress"})
			})
		}
	}
	return args, o
}

// --- skills (the skills extension, through runtime/skills) ---

// remote is the connection's skills (made on first use).
func (c *conn) remote() *skills.Remote {
	c.skillsOnce.Do(func() { c.skills = skills.NewRemote(c.name, c.c) })
	return c.skills
}

// authRedirect is mcp.auth_redirect(url): GET url without following
// redirects and return the Location it redirects to — the browser step
// for authorization servers that approve without a person (tests, the
// conformance suite, pre-approved automation).
func authRedirect(L *lua.LState) sched.Start {
	target := L.CheckString(1)
	return goDo(func(ctx context.Context) sched.Completion {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		if err != nil {
			return fail(errs.Errorf(errs.Invalid, "mcp.auth_redirect", "not a URL: %v", secret.URLError(err)))
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			return fail(errs.Errorf(errs.Process, "mcp.auth_redirect", "cannot reach the authorization server: %v", secret.URLError(err)))
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
			return fail(errs.Errorf(errs.Auth, "mcp.auth_redirect", "the authorization server answered HTTP %d without a redirect: it wants a person in a browser", resp.StatusCode))
		}
		if u, err := resp.Request.URL.Parse(loc); err == nil {
			loc = u.String()
		}
		return sched.Values(lua.LString(loc))
	})
}
