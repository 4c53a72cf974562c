// Package mcp is the Lua `mcp` module: connections to MCP servers, backed
// by runtime/mcp. Every method that talks to the server waits by yielding
// the calling task, so other tasks run meanwhile.
//
//	local fs = mcp.connect{ name = "fs", command = "npx",
//	  args = { "-y", "@modelcontextprotocol/server-filesystem", "." } }
//	for _, t in ipairs(fs:tools()) do print(t.name) end
//	local r = fs:call("read_text_file", { path = "README.md" })
//	print(r.content[1].text)
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	"github.com/luagent/luagent/runtime/skills"
	"github.com/luagent/luagent/runtime/trace"
	lua "github.com/yuin/gopher-lua"
)

const connType = "mcp.connection"

// Config is what the host gives the module.
type Config struct {
	Trace trace.Sink
	// Log receives a server's stderr lines and log messages nobody handles,
	// at debug level; nil drops them.
	Log func(server, line string)
	// Warn receives what a server's operator should see at the default
	// level: a handler that failed, with the error's file and line; nil
	// drops it.
	Warn func(server, line string)
	// Home is luagent's folder: OAuth credentials live in
	// Home/credentials/mcp ("" keeps them in memory only).
	Home string
	// Params are the command line's --set and --params-file values: they
	// resolve catalog env references ({"param": NAME}) and win over a
	// script's mcp.hub{params = ...}.
	Params map[string]string
	// Interactive is set for a session a person types into (the REPL):
	// mcp.hub() then starts servers progressively under the catalog's
	// "auto" strategy; otherwise it waits for them.
	Interactive bool
}

type module struct {
	lp       *sched.Loop
	cfg      Config
	mt       *lua.LTable // connections'; see connMT
	serverMT *lua.LTable
	ctxMT    *lua.LTable
	// ctx ends when the host shuts down, releasing Go goroutines that wait
	// for Lua callbacks.
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	conns  map[*conn]bool
}

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

// Preload registers the native module mcp._native, which stdlib/mcp.lua
// (the `mcp` module) builds on.
func Preload(lp *sched.Loop, cfg Config) {
	lp.L.PreloadModule("mcp._native", func(L *lua.LState) int {
		L.Push(Open(lp, cfg))
		return 1
	})
}

// Open builds the module table. Connections it opens are closed when the
// loop closes.
func Open(lp *sched.Loop, cfg Config) *lua.LTable {
	L := lp.L
	ctx, cancel := context.WithCancel(context.Background())
	m := &module{lp: lp, cfg: cfg, ctx: ctx, cancel: cancel, conns: map[*conn]bool{}}
	lp.OnClose(m.closeAll)

	mod := L.CreateTable(0, 4)
	mod.RawSetString("connect", lp.Async("mcp.connect", m.readConnect))
	mod.RawSetString("auth_redirect", lp.Async("mcp.auth_redirect", m.authRedirect))
	mod.RawSetString("login", lp.Async("mcp.login", m.login))
	mod.RawSetString("hub", lp.Async("mcp.hub", m.newHub))
	mod.RawSetString("catalog", L.NewFunction(m.newCatalog))
	mod.RawSetString("_server", m.serverNative(L))
	return mod
}

// connMT is the metatable of connections, made by the first connect: a
// script that only serves never needs the client's methods.
func (m *module) connMT(L *lua.LState) *lua.LTable {
	if m.mt != nil {
		return m.mt
	}
	lp := m.lp
	m.mt = L.NewTypeMetatable(connType)
	methods := L.CreateTable(0, 20)
	for name, fn := range map[string]func(*lua.LState) sched.Start{
		"tools":       m.readTools,
		"call":        m.readCall,
		"resources":   m.readList("resources"),
		"templates":   m.readList("templates"),
		"prompts":     m.readList("prompts"),
		"read":        m.readRead,
		"prompt":      m.readPrompt,
		"complete":    m.readComplete,
		"subscribe":   m.readSubscribe(true),
		"unsubscribe": m.readSubscribe(false),
		"log_level":   m.readLogLevel,
		"request":     m.readRequest,
	} {
		methods.RawSetString(name, lp.Async("conn:"+name, fn))
	}
	m.skillMethods(methods)
	L.SetFuncs(methods, map[string]lua.LGFunction{
		"info":  m.info,
		"on":    m.on,
		"close": m.close,
	})
	m.mt.RawSetString("__index", methods)
	m.mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		c := m.check(L, 1)
		info := c.c.Info()
		L.Push(lua.LString(fmt.Sprintf("mcp connection %q (%s %s)", c.name, info.Era, info.ProtocolVersion)))
		return 1
	}))
	m.mt.RawSetString("__metatable", lua.LString(connType))
	return m.mt
}

func (m *module) check(L *lua.LState, n int) *conn {
	if ud, ok := L.Get(n).(*lua.LUserData); ok {
		if c, ok := ud.Value.(*conn); ok {
			return c
		}
	}
	L.ArgError(n, "mcp connection expected, got "+L.Get(n).Type().String())
	return nil
}

func (m *module) closeAll() {
	m.cancel()
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.conns))
	for c := range m.conns {
		conns = append(conns, c)
	}
	m.conns = map[*conn]bool{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); c.c.Close() }()
	}
	wg.Wait()
}

// errFailed completes a wait with err.
func fail(err error) sched.Completion { return sched.Fail(err) }

// decoded completes a wait with raw JSON decoded to a Lua value.
func decoded(raw json.RawMessage) sched.Completion {
	return func(L *lua.LState) ([]lua.LValue, error) {
		v, err := value.Decode(L, raw)
		if err != nil {
			return nil, errs.Wrap(errs.Protocol, "mcp", err)
		}
		return []lua.LValue{v}, nil
	}
}

// goDo runs f on a goroutine and completes the wait with its result.
func goDo(f func(ctx context.Context) sched.Completion) sched.Start {
	return func(ctx context.Context, done func(sched.Completion)) {
		go func() { done(f(ctx)) }()
	}
}

// --- connect ---

func (m *module) readConnect(L *lua.LState) sched.Start {
	opts := L.CheckTable(1)
	o, err := m.options(L, opts)
	if err != nil {
		L.ArgError(1, err.Error())
	}
	c := &conn{m: m, name: o.Name, handlers: map[string][]*lua.LFunction{}}
	m.bindCallbacks(L, opts, c, &o)
	logLevel := optString(opts, "log_level")
	return goDo(func(ctx context.Context) sched.Completion {
		client, err := rmcp.Connect(ctx, o)
		if err != nil {
			return fail(err)
		}
		if logLevel != "" {
			if err := client.SetLogLevel(ctx, logLevel); err != nil {
				client.Close()
				return fail(err)
			}
		}
		return func(L *lua.LState) ([]lua.LValue, error) {
			c.c = client
			m.mu.Lock()
			m.conns[c] = true
			m.mu.Unlock()
			ud := L.NewUserData()
			ud.Value = c
			ud.Metatable = m.connMT(L)
			c.ud = ud
			return []lua.LValue{ud}, nil
		}
	})
}

func optString(t *lua.LTable, key string) string {
	if s, ok := t.RawGetString(key).(lua.LString); ok {
		return string(s)
	}
	return ""
}

func optSeconds(t *lua.LTable, key string) (time.Duration, error) {
	switch v := t.RawGetString(key).(type) {
	case lua.LNumber:
		if v <= 0 {
			return 0, fmt.Errorf("%s must be a number of seconds > 0", key)
		}
		return time.Duration(float64(v) * float64(time.Second)), nil
	case *lua.LNilType:
		return 0, nil
	default:
		return 0, fmt.Errorf("%s must be a number of seconds, not a %s", key, v.Type())
	}
}

// options reads connect's option table, naming the bad field on error.
func (m *module) options(L *lua.LState, t *lua.LTable) (rmcp.Options, error) {
	o := rmcp.Options{Trace: m.cfg.Trace, Name: optString(t, "name"),
		Extensions: map[string]json.RawMessage{skills.Extension: nil}} // conn:skills() speaks it
	o.Command.Path = optString(t, "command")
	o.URL = optString(t, "url")
	switch {
	case o.Command.Path == "" && o.URL == "":
		return o, fmt.Errorf("command or url is required (the server program, e.g. command = \"npx\", or its HTTP endpoint, url = \"http://127.0.0.1:8080/mcp\")")
	case o.Command.Path != "" && o.URL != "":
		return o, fmt.Errorf("give command or url, not both")
	}
	if o.Name == "" {
		o.Name = o.Command.Path
		if o.URL != "" {
			o.Name = o.URL
		}
	}
	if hs, ok := t.RawGetString("headers").(*lua.LTable); ok {
		o.Header = http.Header{}
		var bad error
		hs.ForEach(func(k, v lua.LValue) {
			ks, ok := k.(lua.LString)
			if !ok {
				bad = fmt.Errorf("headers keys must be header names")
				return
			}
			o.Header.Set(string(ks), vm.ToString(L, v))
		})
		if bad != nil {
			return o, bad
		}
	} else if t.RawGetString("headers") != lua.LNil {
		return o, fmt.Errorf("headers must be a table of name = value")
	}
	if args, ok := t.RawGetString("args").(*lua.LTable); ok {
		for i := 1; i <= args.Len(); i++ {
			o.Command.Args = append(o.Command.Args, vm.ToString(L, args.RawGetInt(i)))
		}
	} else if t.RawGetString("args") != lua.LNil {
		return o, fmt.Errorf("args must be a list of strings")
	}
	if env, ok := t.RawGetString("env").(*lua.LTable); ok {
		o.Command.Env = map[string]string{}
		var bad error
		env.ForEach(func(k, v lua.LValue) {
			ks, ok1 := k.(lua.LString)
			if !ok1 {
				bad = fmt.Errorf("env keys must be variable names")
				return
			}
			o.Command.Env[string(ks)] = vm.ToString(L, v)
		})
		if bad != nil {
			return o, bad
		}
	}
	o.Command.Dir = optString(t, "cwd")
	if err := m.authOptions(L, t, &o); err != nil {
		return o, err
	}
	o.Protocol = optString(t, "protocol")
	var err error
	if o.Timeout, err = optSeconds(t, "timeout"); err != nil {
		return o, err
	}
	if o.StartupTimeout, err = optSeconds(t, "startup_timeout"); err != nil {
		return o, err
	}
	if o.ProbeTimeout, err = optSeconds(t, "probe_timeout"); err != nil {
		return o, err
	}
	if n, ok := t.RawGetString("max_message").(lua.LNumber); ok {
		o.MaxMessage = int(n)
	}
	name := o.Name
	if m.cfg.Log != nil {
		o.OnStderr = func(line string) { m.cfg.Log(name, line) }
	}
	return o, nil
}

// --- callbacks the server invokes ---

// bindCallbacks wires on_elicit, on_sample and roots to Lua functions run
// as tasks; the Go side waits for their result.
func (m *module) bindCallbacks(L *lua.LState, t *lua.LTable, c *conn, o *rmcp.Options) {
	if fn, ok := t.RawGetString("on_elicit").(*lua.LFunction); ok {
		o.Elicit = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
			return m.callLua(ctx, fn, "on_elicit", params)
		}
	}
	if fn, ok := t.RawGetString("on_sample").(*lua.LFunction); ok {
		o.Sample = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
			return m.callLua(ctx, fn, "on_sample", params)
		}
	}
	switch r := t.RawGetString("roots").(type) {
	case *lua.LFunction:
		o.Roots = func(ctx context.Context) ([]rmcp.Root, error) {
			raw, err := m.callLua(ctx, r, "roots", nil)
			if err != nil {
				return nil, err
			}
			return parseRoots(raw)
		}
	case *lua.LTable:
		raw, err := value.Encode(r, value.EncodeOptions{})
		if err != nil {
			L.ArgError(1, "roots: "+err.Error())
		}
		roots, err := parseRoots(raw)
		if err != nil {
			L.ArgError(1, err.Error())
		}
		o.Roots = func(context.Context) ([]rmcp.Root, error) { return roots, nil }
	}
	o.OnNotification = func(method string, params json.RawMessage) {
		m.lp.Post(func() { c.dispatch(method, params) })
	}
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
		if len(r.URI) < 7 || r.URI[:7] != "file://" {
			return nil, fmt.Errorf("root %q must be a file:// URI", r.URI)
		}
	}
	return list, nil
}

// callLua runs fn(params) as a task on the loop and returns its first result
// encoded as JSON. It blocks the calling Go goroutine, never the loop.
func (m *module) callLua(ctx context.Context, fn *lua.LFunction, what string, params json.RawMessage, extra ...lua.LValue) (json.RawMessage, error) {
	type result struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan result, 1)
	m.lp.Post(func() {
		L := m.lp.L
		var args []lua.LValue
		if params != nil {
			v, err := value.Decode(L, params)
			if err != nil {
				ch <- result{err: err}
				return
			}
			args = append(args, v)
		}
		args = append(args, extra...)
		t := m.lp.Spawn(fn, args, sched.SpawnOptions{Name: what, Parent: ctx})
		t.OnDone(func(t *sched.Task) {
			if f := t.Failure(); f != nil {
				ch <- result{err: errs.Errorf(f.Kind, what, "the %s callback failed: %s", what, f.Message)}
				return
			}
			var v lua.LValue = lua.LNil
			if r := t.Results(); len(r) > 0 {
				v = r[0]
			}
			if v == lua.LNil {
				ch <- result{err: errs.Errorf(errs.Invalid, what, "the %s callback returned nothing; return a result table", what)}
				return
			}
			raw, err := value.Encode(v, value.EncodeOptions{})
			if err != nil {
				ch <- result{err: errs.Errorf(errs.Invalid, what, "the %s callback's result: %v", what, err)}
				return
			}
			ch <- result{raw: raw}
		})
	})
	select {
	case r := <-ch:
		return r.raw, r.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-m.ctx.Done():
		return nil, errs.New(errs.Closed, what, "the Lua host is shutting down")
	}
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
	L := c.m.lp.L
	var arg lua.LValue = lua.LNil
	if len(params) > 0 {
		if v, err := value.Decode(L, params); err == nil {
			arg = v
		}
	}
	for _, fn := range hs {
		c.m.lp.Spawn(fn, []lua.LValue{arg, c.ud}, sched.SpawnOptions{Name: c.name + " " + ev})
	}
}

// on(event, fn): tools_changed, prompts_changed, resources_changed,
// resource_updated, log. fn(params, conn) runs as a task per event.
func (m *module) on(L *lua.LState) int {
	c := m.check(L, 1)
	ev := L.CheckString(2)
	fn := L.CheckFunction(3)
	valid := false
	for _, e := range events {
		valid = valid || e == ev
	}
	if !valid {
		L.ArgError(2, "unknown event "+ev+" (tools_changed, prompts_changed, resources_changed, resource_updated, log)")
	}
	c.handlers[ev] = append(c.handlers[ev], fn)
	if ev == "log" {
		c.c.WantLogs() // the same script hears the same logs in both eras
	}
	return 0
}

// --- requests ---

func (m *module) info(L *lua.LState) int {
	c := m.check(L, 1)
	info := c.c.Info()
	t := L.CreateTable(0, 10)
	t.RawSetString("name", lua.LString(info.ServerInfo.Name))
	t.RawSetString("version", lua.LString(info.ServerInfo.Version))
	if info.ServerInfo.Title != "" {
		t.RawSetString("title", lua.LString(info.ServerInfo.Title))
	}
	t.RawSetString("era", lua.LString(info.Era.String()))
	t.RawSetString("protocol_version", lua.LString(info.ProtocolVersion))
	if info.Instructions != "" {
		t.RawSetString("instructions", lua.LString(info.Instructions))
	}
	if caps, err := value.Decode(L, info.Capabilities.Raw); err == nil {
		t.RawSetString("capabilities", caps)
	}
	if len(info.SupportedVersions) > 0 {
		sv := L.CreateTable(len(info.SupportedVersions), 0)
		for i, v := range info.SupportedVersions {
			sv.RawSetInt(i+1, lua.LString(v))
		}
		t.RawSetString("supported_versions", sv)
	}
	L.Push(t)
	return 1
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

// rawList decodes a list of raw JSON objects into a Lua array.
func rawList(items []json.RawMessage) sched.Completion {
	return func(L *lua.LState) ([]lua.LValue, error) {
		t := L.CreateTable(len(items), 0)
		for i, raw := range items {
			v, err := value.Decode(L, raw)
			if err != nil {
				return nil, errs.Wrap(errs.Protocol, "mcp", err)
			}
			t.RawSetInt(i+1, v)
		}
		return []lua.LValue{value.MarkArray(t)}, nil
	}
}

func (m *module) readTools(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	return goDo(func(ctx context.Context) sched.Completion {
		tools, err := c.c.Tools(ctx)
		if err != nil {
			return fail(err)
		}
		raws := make([]json.RawMessage, len(tools))
		for i, t := range tools {
			raws[i] = t.Raw
		}
		return rawList(raws)
	})
}

func (m *module) readList(which string) func(L *lua.LState) sched.Start {
	return func(L *lua.LState) sched.Start {
		c := m.check(L, 1)
		return goDo(func(ctx context.Context) sched.Completion {
			var items []json.RawMessage
			var err error
			switch which {
			case "resources":
				items, err = c.c.Resources(ctx)
			case "templates":
				items, err = c.c.Templates(ctx)
			case "prompts":
				items, err = c.c.Prompts(ctx)
			}
			if err != nil {
				return fail(err)
			}
			return rawList(items)
		})
	}
}

// call(name, args, opts): opts.progress = function(p) ... end (p has
// progress, total, message; status for task updates), opts.timeout
// (seconds), opts.task = true.
func (m *module) readCall(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	name := L.CheckString(2)
	args, argsValue := m.callArgs(L, 3)
	o := rmcp.CallOptions{Args: argsValue}
	if opts, ok := L.Get(4).(*lua.LTable); ok {
		o = m.callOptions(L, opts, 4, argsValue)
	}
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

// callArgs reads a call's arguments (argument n): nil or a table of
// named arguments, as JSON and as decoded Go values (for validation).
func (m *module) callArgs(L *lua.LState, n int) (json.RawMessage, any) {
	var args json.RawMessage
	var argsValue any
	switch a := L.Get(n).(type) {
	case *lua.LNilType:
		args = json.RawMessage("{}")
		argsValue = map[string]any{}
	case *lua.LTable:
		var err error
		if argsValue, err = value.FromLua(a); err != nil {
			L.ArgError(n, err.Error())
		}
		if _, isObj := argsValue.(map[string]any); !isObj {
			if list, isList := argsValue.([]any); !(isList && len(list) == 0) {
				L.ArgError(n, "arguments must be a table of named arguments, not a list")
			}
			argsValue = map[string]any{}
			args = json.RawMessage("{}")
		} else if args, err = value.Encode(a, value.EncodeOptions{}); err != nil {
			L.ArgError(n, err.Error())
		}
	default:
		L.ArgError(n, "arguments must be a table, not a "+a.Type().String())
	}
	return args, argsValue
}

// callOptions reads a call's options table (argument n): timeout
// (seconds), task = true, progress = function(p) ... end (p has progress,
// total, message; status for task updates).
func (m *module) callOptions(L *lua.LState, opts *lua.LTable, n int, argsValue any) rmcp.CallOptions {
	o := rmcp.CallOptions{Args: argsValue}
	if d, err := optSeconds(opts, "timeout"); err != nil {
		L.ArgError(n, err.Error())
	} else {
		o.Timeout = d
	}
	o.Task = lua.LVAsBool(opts.RawGetString("task"))
	if fn, ok := opts.RawGetString("progress").(*lua.LFunction); ok {
		o.Progress = func(p rmcp.Progress) {
			m.lp.Post(func() {
				L := m.lp.L
				t := L.CreateTable(0, 4)
				if p.Status == "" {
					t.RawSetString("progress", lua.LNumber(p.Progress))
					if p.Total != nil {
						t.RawSetString("total", lua.LNumber(*p.Total))
					}
				} else {
					t.RawSetString("status", lua.LString(p.Status))
				}
				if p.Message != "" {
					t.RawSetString("message", lua.LString(p.Message))
				}
				m.lp.Spawn(fn, []lua.LValue{t}, sched.SpawnOptions{Name: "progress"})
			})
		}
	}
	return o
}

func (m *module) readRead(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	uri := L.CheckString(2)
	return goDo(func(ctx context.Context) sched.Completion {
		raw, err := c.c.ReadResource(ctx, uri)
		if err != nil {
			return fail(err)
		}
		return decoded(raw)
	})
}

func (m *module) readPrompt(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	name := L.CheckString(2)
	args := stringArgs(L, 3)
	return goDo(func(ctx context.Context) sched.Completion {
		raw, err := c.c.GetPrompt(ctx, name, args)
		if err != nil {
			return fail(err)
		}
		return decoded(raw)
	})
}

// stringArgs reads the optional table at n as string names to string
// values (a prompt's arguments).
func stringArgs(L *lua.LState, n int) map[string]string {
	args := map[string]string{}
	if t, ok := L.Get(n).(*lua.LTable); ok {
		t.ForEach(func(k, v lua.LValue) { args[vm.ToString(L, k)] = vm.ToString(L, v) })
	}
	return args
}

// complete(ref, argument [, context]): ref = {type="ref/prompt", name=} or
// {type="ref/resource", uri=}; argument = {name=, value=}; context = the
// other arguments' values. Returns {values=, total=, hasMore=}.
func (m *module) readComplete(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	refRaw, err := value.Encode(L.CheckTable(2), value.EncodeOptions{})
	if err != nil {
		L.ArgError(2, err.Error())
	}
	arg := L.CheckTable(3)
	name, val := optString(arg, "name"), optString(arg, "value")
	if name == "" {
		L.ArgError(3, "argument must be {name = ..., value = ...}")
	}
	ctxArgs := map[string]string{}
	if t, ok := L.Get(4).(*lua.LTable); ok {
		t.ForEach(func(k, v lua.LValue) { ctxArgs[vm.ToString(L, k)] = vm.ToString(L, v) })
	}
	return goDo(func(ctx context.Context) sched.Completion {
		raw, err := c.c.Complete(ctx, refRaw, name, val, ctxArgs)
		if err != nil {
			return fail(err)
		}
		var r struct {
			Completion json.RawMessage `json:"completion"`
		}
		if json.Unmarshal(raw, &r) != nil || len(r.Completion) == 0 {
			return decoded(raw)
		}
		return decoded(r.Completion)
	})
}

func (m *module) readSubscribe(on bool) func(L *lua.LState) sched.Start {
	return func(L *lua.LState) sched.Start {
		c := m.check(L, 1)
		uri := L.CheckString(2)
		return goDo(func(ctx context.Context) sched.Completion {
			var err error
			if on {
				err = c.c.Subscribe(ctx, uri)
			} else {
				err = c.c.Unsubscribe(ctx, uri)
			}
			if err != nil {
				return fail(err)
			}
			return sched.Values()
		})
	}
}

func (m *module) readLogLevel(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	level := L.OptString(2, "")
	return goDo(func(ctx context.Context) sched.Completion {
		if err := c.c.SetLogLevel(ctx, level); err != nil {
			return fail(err)
		}
		return sched.Values()
	})
}

// request(method, params): any method, for what the API does not cover.
func (m *module) readRequest(L *lua.LState) sched.Start {
	c := m.check(L, 1)
	method := L.CheckString(2)
	var params json.RawMessage
	if t, ok := L.Get(3).(*lua.LTable); ok {
		var err error
		if params, err = value.Encode(t, value.EncodeOptions{}); err != nil {
			L.ArgError(3, err.Error())
		}
	}
	return goDo(func(ctx context.Context) sched.Completion {
		raw, err := c.c.Request(ctx, method, params)
		if err != nil {
			return fail(err)
		}
		return decoded(raw)
	})
}
