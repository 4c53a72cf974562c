package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/luagent/luagent/luabind/sched"
	"github.com/luagent/luagent/luabind/value"
	"github.com/luagent/luagent/luabind/vm"
	"github.com/luagent/luagent/runtime/errs"
	"github.com/luagent/luagent/runtime/jsonrpc"
	rmcp "github.com/luagent/luagent/runtime/mcp"
	lua "github.com/yuin/gopher-lua"
)

// MCP servers written in Lua:
//
//	local s = mcp.server{ name = "calc", version = "1.0.0" }
//	s:tool{ name = "add", input = { a = "number", b = "number" },
//	  handler = function(args, ctx) return args.a + args.b end }
//	return s                      -- luagent serve calc.lua
//
// The registry lives in Go (read by the protocol goroutines under a lock);
// handlers are Lua functions, each request running as its own task.

const serverType = "mcp.server"
const ctxType = "mcp.request_context"

type luaServer struct {
	m   *module
	srv *rmcp.Server
	ud  *lua.LUserData

	mu        sync.RWMutex
	tools     map[string]*toolDef
	toolOrder []string
	resources map[string]*resourceDef
	resOrder  []string
	templates []*templateDef
	prompts   map[string]*promptDef
	prOrder   []string
	completer *lua.LFunction
	declared  rmcp.HandlerCapabilities   // mcp.server{capabilities = {...}}: declared even while empty
	auth      *authDef                   // s:auth, for HTTP serving
	listCache map[string]json.RawMessage // method -> result, dropped on change
}

type toolDef struct {
	name    string
	def     json.RawMessage // the tools/list entry
	schema  *schemaRef
	output  *schemaRef
	headers map[string]string // x-mcp-header name → argument
	handler *lua.LFunction
}

type resourceDef struct {
	uri  string
	def  json.RawMessage
	mime string
	read *lua.LFunction
}

type templateDef struct {
	name     string
	def      json.RawMessage
	pattern  *regexp.Regexp
	vars     []string
	mime     string
	read     *lua.LFunction
	complete map[string]*lua.LFunction
}

type promptDef struct {
	name     string
	def      json.RawMessage
	required []string
	get      *lua.LFunction
	complete map[string]*lua.LFunction
}

// stateKey is the requestState key: LUAGENT_STATE_KEY hashed, or nil for a
// random per-process key.
func stateKey() []byte {
	if k := os.Getenv("LUAGENT_STATE_KEY"); k != "" {
		return []byte("luagent-state:" + k)
	}
	return nil
}

// HandlerTimeout bounds every request handler of servers made afterwards
// (luagent serve --handler-timeout). Zero means the default, 60 s.
var HandlerTimeout time.Duration

func (m *module) newServer(L *lua.LState) int {
	t := L.CheckTable(1)
	s := &luaServer{m: m, tools: map[string]*toolDef{}, resources: map[string]*resourceDef{}, prompts: map[string]*promptDef{}}
	info := rmcp.Implementation{Name: optString(t, "name"), Version: optString(t, "version"), Title: optString(t, "title")}
	if info.Name == "" {
		L.ArgError(1, "name is required (the server's name, e.g. name = \"notes\")")
	}
	if info.Version == "" {
		info.Version = "0.1.0"
	}
	if caps, ok := t.RawGetString("capabilities").(*lua.LTable); ok {
		// A server that adds resources (or prompts, tools) at run time
		// declares them from the start: modern clients ask for changes
		// only of what initialize/discover listed.
		var bad []string
		caps.ForEach(func(k, v lua.LValue) {
			on := lua.LVAsBool(v) || v.Type() == lua.LTTable
			switch k.String() {
			case "tools":
				s.declared.Tools = on
			case "resources":
				s.declared.Resources = on
			case "prompts":
				s.declared.Prompts = on
			case "completions":
				s.declared.Completions = on
			default:
				bad = append(bad, k.String())
			}
		})
		if len(bad) > 0 {
			L.ArgError(1, "capabilities: unknown "+strings.Join(bad, ", ")+" (tools, resources, prompts or completions = true)")
		}
	}
	logf := func(format string, args ...any) {
		if m.cfg.Log != nil {
			m.cfg.Log(info.Name, fmt.Sprintf(format, args...))
		}
	}
	s.srv = rmcp.NewServer(rmcp.ServerOptions{
		Info:           info,
		Instructions:   optString(t, "instructions"),
		Handler:        s,
		StateKey:       stateKey(),
		HandlerTimeout: HandlerTimeout,
		Trace:          m.cfg.Trace,
		Logf:           logf,
	})
	ud := L.NewUserData()
	ud.Value = s
	ud.Metatable = m.serverMT
	s.ud = ud
	L.Push(ud)
	return 1
}

// ServerOf returns the Go server behind a Lua server value (luagent serve).
func ServerOf(v lua.LValue) (*rmcp.Server, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		if s, ok := ud.Value.(*luaServer); ok {
			return s.srv, true
		}
	}
	return nil, false
}

// Summary counts what a Lua server offers, for a start-up line:
// "3 tools, 1 resource, 2 prompts" ("" when srv is not a Lua server).
func Summary(srv *rmcp.Server) string {
	s, ok := srv.Handler().(*luaServer)
	if !ok {
		return ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var parts []string
	for _, c := range []struct {
		n    int
		noun string
	}{{len(s.tools), "tool"}, {len(s.resources), "resource"}, {len(s.templates), "resource template"}, {len(s.prompts), "prompt"}} {
		if c.n > 0 || c.noun == "tool" {
			p := fmt.Sprintf("%d %s", c.n, c.noun)
			if c.n != 1 {
				p += "s"
			}
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func (m *module) checkServer(L *lua.LState) *luaServer {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if s, ok := ud.Value.(*luaServer); ok {
			return s
		}
	}
	L.ArgError(1, "mcp server expected (call it as s:tool{...})")
	return nil
}

func (m *module) serverMethods(L *lua.LState) *lua.LTable {
	methods := L.CreateTable(0, 13)
	L.SetFuncs(methods, map[string]lua.LGFunction{
		"tool":             m.addTool,
		"resource":         m.addResource,
		"template":         m.addTemplate,
		"prompt":           m.addPrompt,
		"complete":         m.setCompleter,
		"auth":             m.setAuth,
		"remove_tool":      m.remove("tools"),
		"remove_resource":  m.remove("resources"),
		"remove_prompt":    m.remove("prompts"),
		"resource_updated": m.resourceUpdated,
		"list_changed":     m.listChanged,
	})
	return methods
}

// defJSON encodes a definition table, leaving out the Lua-only fields.
func defJSON(t *lua.LTable, skip ...string) (map[string]any, error) {
	m := map[string]any{}
	var bad error
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok || bad != nil {
			return
		}
		for _, s := range skip {
			if string(ks) == s {
				return
			}
		}
		x, err := value.FromLua(v)
		if err != nil {
			bad = fmt.Errorf("%s: %v", ks, err)
			return
		}
		m[string(ks)] = x
	})
	return m, bad
}

// schemaRef is a schema compiled when first needed. One luagent generated
// from type names alone cannot fail to compile, so it waits for the tool's
// first call: compiling is most of a millisecond of a server's
// start-up. One written out in full compiles at registration, so a mistake
// is reported where it was made.
type schemaRef struct {
	raw  json.RawMessage
	once sync.Once
	s    *rmcp.Schema
	err  error
}

// newSchemaRef returns nil for no schema.
func newSchemaRef(raw json.RawMessage, generated bool) (*schemaRef, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	r := &schemaRef{raw: raw}
	if !generated {
		if _, err := r.compiled(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *schemaRef) compiled() (*rmcp.Schema, error) {
	r.once.Do(func() { r.s, r.err = rmcp.CompileSchema(r.raw) })
	return r.s, r.err
}

// AcceptsJSON reports whether raw (valid JSON) is certainly valid without
// decoding it (rmcp.Schema.AcceptsJSON); no schema accepts anything, one
// that fails to compile nothing (Validate says why).
func (r *schemaRef) AcceptsJSON(raw []byte) bool {
	if r == nil {
		return true
	}
	s, err := r.compiled()
	return err == nil && s.AcceptsJSON(raw)
}

// Validate checks v (decoded JSON) against the schema.
func (r *schemaRef) Validate(v any) error {
	s, err := r.compiled()
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// s:tool{name, title, description, input, output, annotations, handler}
func (m *module) addTool(L *lua.LState) int {
	s := m.checkServer(L)
	t := L.CheckTable(2)
	name := optString(t, "name")
	if name == "" {
		L.ArgError(2, "name is required")
	}
	handler, ok := t.RawGetString("handler").(*lua.LFunction)
	if !ok {
		L.ArgError(2, "handler must be a function(args, ctx)")
	}
	in, err := inputSchema(t.RawGetString("input"))
	if err != nil {
		L.ArgError(2, err.Error())
	}
	out, err := outputSchema(t.RawGetString("output"))
	if err != nil {
		L.ArgError(2, "output: "+err.Error())
	}
	def, err := defJSON(t, "handler", "input", "output", "name")
	if err != nil {
		L.ArgError(2, err.Error())
	}
	def["name"] = name
	def["inputSchema"] = json.RawMessage(in)
	if out != nil {
		def["outputSchema"] = json.RawMessage(out)
	}
	td := &toolDef{name: name, handler: handler, headers: paramHeaders(in)}
	if td.schema, err = newSchemaRef(in, isPlainShorthand(t.RawGetString("input"))); err != nil {
		L.ArgError(2, "input schema: "+err.Error())
	}
	if td.output, err = newSchemaRef(out, isPlainShorthand(t.RawGetString("output"))); err != nil {
		L.ArgError(2, "output schema: "+err.Error())
	}
	td.def, _ = json.Marshal(def)
	register(s, "tools", s.tools, &s.toolOrder, name, td)
	return 0
}

// register adds or replaces a definition under key (a new key goes last in
// its list) and tells clients the list of kind changed.
func register[T any](s *luaServer, kind string, defs map[string]T, order *[]string, key string, def T) {
	s.mu.Lock()
	if _, exists := defs[key]; !exists {
		*order = append(*order, key)
	}
	defs[key] = def
	s.listCache = nil
	s.mu.Unlock()
	s.srv.ListChanged(kind)
}

// s:resource{uri, name, title, description, mimeType, read}
func (m *module) addResource(L *lua.LState) int {
	s := m.checkServer(L)
	t := L.CheckTable(2)
	uri := optString(t, "uri")
	if uri == "" {
		L.ArgError(2, "uri is required")
	}
	read, ok := t.RawGetString("read").(*lua.LFunction)
	if !ok {
		L.ArgError(2, "read must be a function(ctx)")
	}
	def, err := defJSON(t, "read")
	if err != nil {
		L.ArgError(2, err.Error())
	}
	if def["name"] == nil {
		def["name"] = uri
	}
	rd := &resourceDef{uri: uri, read: read, mime: optString(t, "mimeType")}
	rd.def, _ = json.Marshal(def)
	register(s, "resources", s.resources, &s.resOrder, uri, rd)
	return 0
}

// templateVar and luaPosition compile on first use, not at every start.
var templateVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`) })

// s:template{uriTemplate, name, title, description, mimeType, read, complete}
func (m *module) addTemplate(L *lua.LState) int {
	s := m.checkServer(L)
	t := L.CheckTable(2)
	tpl := optString(t, "uriTemplate")
	if tpl == "" {
		L.ArgError(2, "uriTemplate is required (e.g. \"notes://{id}\")")
	}
	read, ok := t.RawGetString("read").(*lua.LFunction)
	if !ok {
		L.ArgError(2, "read must be a function(vars, ctx)")
	}
	def, err := defJSON(t, "read", "complete")
	if err != nil {
		L.ArgError(2, err.Error())
	}
	if def["name"] == nil {
		def["name"] = tpl
	}
	td := &templateDef{name: tpl, read: read, mime: optString(t, "mimeType"), complete: completers(t)}
	// {var} matches one path segment; other RFC 6570 operators are not
	// expanded here and match literally.
	pat := "^"
	last := 0
	for _, loc := range templateVar().FindAllStringSubmatchIndex(tpl, -1) {
		pat += regexp.QuoteMeta(tpl[last:loc[0]]) + `([^/?#]+)`
		td.vars = append(td.vars, tpl[loc[2]:loc[3]])
		last = loc[1]
	}
	td.pattern = regexp.MustCompile(pat + regexp.QuoteMeta(tpl[last:]) + "$")
	td.def, _ = json.Marshal(def)
	s.mu.Lock()
	s.templates = append(s.templates, td)
	s.listCache = nil
	s.mu.Unlock()
	s.srv.ListChanged("resources")
	return 0
}

func completers(t *lua.LTable) map[string]*lua.LFunction {
	out := map[string]*lua.LFunction{}
	if ct, ok := t.RawGetString("complete").(*lua.LTable); ok {
		ct.ForEach(func(k, v lua.LValue) {
			if fn, ok := v.(*lua.LFunction); ok {
				out[k.String()] = fn
			}
		})
	}
	return out
}

// s:prompt{name, title, description, arguments = {{name, description, required, complete}}, get}
func (m *module) addPrompt(L *lua.LState) int {
	s := m.checkServer(L)
	t := L.CheckTable(2)
	name := optString(t, "name")
	if name == "" {
		L.ArgError(2, "name is required")
	}
	get, ok := t.RawGetString("get").(*lua.LFunction)
	if !ok {
		L.ArgError(2, "get must be a function(args, ctx)")
	}
	pd := &promptDef{name: name, get: get, complete: map[string]*lua.LFunction{}}
	var args []map[string]any
	if at, ok := t.RawGetString("arguments").(*lua.LTable); ok {
		for i := 1; i <= at.Len(); i++ {
			a, ok := at.RawGetInt(i).(*lua.LTable)
			if !ok {
				L.ArgError(2, fmt.Sprintf("arguments[%d] must be {name = ..., required = ...}", i))
			}
			an := optString(a, "name")
			entry := map[string]any{"name": an}
			for _, k := range []string{"title", "description"} {
				if v := optString(a, k); v != "" {
					entry[k] = v
				}
			}
			if lua.LVAsBool(a.RawGetString("required")) {
				entry["required"] = true
				pd.required = append(pd.required, an)
			}
			if fn, ok := a.RawGetString("complete").(*lua.LFunction); ok {
				pd.complete[an] = fn
			}
			args = append(args, entry)
		}
	}
	def, err := defJSON(t, "get", "arguments")
	if err != nil {
		L.ArgError(2, err.Error())
	}
	if len(args) > 0 {
		def["arguments"] = args
	}
	pd.def, _ = json.Marshal(def)
	register(s, "prompts", s.prompts, &s.prOrder, name, pd)
	return 0
}

// s:complete(function(ref, argument, ctx) return {values...} end)
func (m *module) setCompleter(L *lua.LState) int {
	s := m.checkServer(L)
	fn := L.CheckFunction(2)
	s.mu.Lock()
	s.completer = fn
	s.mu.Unlock()
	return 0
}

func (m *module) remove(kind string) lua.LGFunction {
	return func(L *lua.LState) int {
		s := m.checkServer(L)
		key := L.CheckString(2)
		s.mu.Lock()
		removed := false
		switch kind {
		case "tools":
			_, removed = s.tools[key]
			delete(s.tools, key)
			s.toolOrder = without(s.toolOrder, key)
		case "resources":
			_, removed = s.resources[key]
			delete(s.resources, key)
			s.resOrder = without(s.resOrder, key)
		case "prompts":
			_, removed = s.prompts[key]
			delete(s.prompts, key)
			s.prOrder = without(s.prOrder, key)
		}
		s.listCache = nil
		s.mu.Unlock()
		if removed {
			s.srv.ListChanged(kind)
		}
		L.Push(lua.LBool(removed))
		return 1
	}
}

func without(list []string, s string) []string {
	out := list[:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// s:list_changed(kind) tells clients a list changed ("tools", "resources"
// or "prompts") without changing it here: for lists a handler computes.
func (m *module) listChanged(L *lua.LState) int {
	s := m.checkServer(L)
	kind := L.CheckString(2)
	if kind != "tools" && kind != "resources" && kind != "prompts" {
		L.ArgError(2, `kind must be "tools", "resources" or "prompts"`)
	}
	s.mu.Lock()
	s.listCache = nil
	s.mu.Unlock()
	s.srv.ListChanged(kind)
	return 0
}

func (m *module) resourceUpdated(L *lua.LState) int {
	s := m.checkServer(L)
	s.srv.ResourceUpdated(L.CheckString(2))
	return 0
}

// paramHeaders reads the x-mcp-header annotations of an input schema's
// top-level properties (the only place they count).
func paramHeaders(schema json.RawMessage) map[string]string {
	// Most schemas have no such annotation, and decoding one into the
	// struct below (reflection, the first time) was a third of s:tool's time.
	// Without a backslash the key can only be spelt as itself, in any case
	// (json matches field names case-insensitively).
	if !bytes.ContainsRune(schema, '\\') && !containsFoldASCII(schema, "x-mcp-header") {
		return nil
	}
	var s struct {
		Properties map[string]struct {
			Header string `json:"x-mcp-header"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out map[string]string
	for arg, p := range s.Properties {
		if p.Header != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[p.Header] = arg
		}
	}
	return out
}

// containsFoldASCII reports whether b may contain s (ASCII, lower case) in
// any mix of cases: it can answer true wrongly (a '\r' passes for a '-'),
// never false.
func containsFoldASCII(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		j := 0
		for j < len(s) && b[i+j]|0x20 == s[j] {
			j++
		}
		if j == len(s) {
			return true
		}
	}
	return false
}

// ParamHeaders implements rmcp.ParamHeaderer.
func (s *luaServer) ParamHeaders(tool string) map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.tools[tool]; t != nil {
		return t.headers
	}
	return nil
}

// --- rmcp.ServerHandler ---

func (s *luaServer) Capabilities() rmcp.HandlerCapabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.declared
	return rmcp.HandlerCapabilities{
		Tools:       d.Tools || len(s.tools) > 0,
		Resources:   d.Resources || len(s.resources) > 0 || len(s.templates) > 0,
		Prompts:     d.Prompts || len(s.prompts) > 0,
		Completions: d.Completions || s.completer != nil || len(s.templates) > 0 || len(s.prompts) > 0,
		Subscribe:   true,
	}
}

// Handle serves a feature request; it runs on the connection's reader.
func (s *luaServer) Handle(r *rmcp.Request) {
	switch r.Method {
	case "tools/list", "resources/list", "resources/templates/list", "prompts/list":
		r.Reply(s.list(r.Method))
	case "tools/call":
		s.callTool(r)
	case "resources/read":
		s.readResource(r)
	case "prompts/get":
		s.getPrompt(r)
	case "completion/complete":
		s.complete(r)
	default:
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + r.Method})
	}
}

func (s *luaServer) list(method string) json.RawMessage {
	s.mu.RLock()
	if b, ok := s.listCache[method]; ok {
		s.mu.RUnlock()
		return b
	}
	s.mu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	var key string
	var items []json.RawMessage
	switch method {
	case "tools/list":
		key = "tools"
		for _, n := range s.toolOrder {
			items = append(items, s.tools[n].def)
		}
	case "resources/list":
		key = "resources"
		for _, u := range s.resOrder {
			items = append(items, s.resources[u].def)
		}
	case "resources/templates/list":
		key = "resourceTemplates"
		for _, t := range s.templates {
			items = append(items, t.def)
		}
	case "prompts/list":
		key = "prompts"
		for _, n := range s.prOrder {
			items = append(items, s.prompts[n].def)
		}
	}
	// The items are json.Marshal's output (compact, HTML-escaped, nil when
	// it failed), so joining them gives what marshalling
	// map[string]any{key: items} gave, without building the encoders for
	// it at the first list.
	b := append(append(append(make([]byte, 0, 64), `{"`...), key...), `":[`...)
	for i, item := range items {
		if i > 0 {
			b = append(b, ',')
		}
		if item == nil {
			item = json.RawMessage("null")
		}
		b = append(b, item...)
	}
	b = append(b, "]}"...)
	if s.listCache == nil {
		s.listCache = map[string]json.RawMessage{}
	}
	s.listCache[method] = b
	return b
}

// rawMember finds a top-level member of a JSON object.
func rawMember(raw json.RawMessage, name string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m[name]
}

func textResult(text string, isError bool) json.RawMessage {
	b := make([]byte, 0, len(text)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b, _ = value.AppendJSON(b, lua.LString(text), value.EncodeOptions{})
	b = append(b, "}]"...)
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

func (s *luaServer) callTool(r *rmcp.Request) {
	name := r.StringParam("name")
	s.mu.RLock()
	t := s.tools[name]
	s.mu.RUnlock()
	if t == nil {
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown tool: " + name})
		return
	}
	args := r.Param("arguments")
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if !t.schema.AcceptsJSON(args) {
		var v any
		if err := json.Unmarshal(args, &v); err != nil {
			r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments are not a JSON object"})
			return
		}
		if err := t.schema.Validate(v); err != nil {
			// Input validation failures are tool execution errors, so the
			// model can correct itself.
			r.Reply(textResult(validationMessage(t.name, err), true))
			return
		}
	}
	s.run(r, func() {
		L := s.m.lp.L
		argv, err := value.Decode(L, args)
		if err != nil {
			r.Reply(textResult("arguments: "+err.Error(), true))
			return
		}
		ctx := s.newCtx(L, r)
		task := s.spawn(r, t.handler, []lua.LValue{argv, ctx}, "tool "+t.name)
		task.OnDone(func(task *sched.Task) { s.toolDone(r, t, task) })
	})
}

// run runs fn with the state for request r: on r's own goroutine when r is
// Inline (an HTTP request's) and the state is idle — no hand-over to the
// loop and back — else through the loop. Never on a connection's reader.
func (s *luaServer) run(r *rmcp.Request, fn func()) {
	if r.Inline() {
		s.m.lp.RunHere(fn)
		return
	}
	s.m.lp.Post(fn)
}

// spawn runs fn as the handler of request r, under the request's own
// context: the handler stops when the request ends (answered, timed out,
// cancelled), and the handler's end ends the request's context. A failed
// handler whose request was answered meanwhile says nothing more.
func (s *luaServer) spawn(r *rmcp.Request, fn *lua.LFunction, args []lua.LValue, name string) *sched.Task {
	return s.m.lp.Spawn(fn, args, sched.SpawnOptions{Name: name, Context: r.Context(), Cancel: r.Cancel})
}

func validationMessage(tool string, err error) string {
	return "invalid arguments for tool " + tool + ": " + schemaProblems(err, "argument")
}

// schemaProblems says what failed validation, naming the field.
func schemaProblems(err error, noun string) string {
	var ve *rmcp.ValidationError
	if errors.As(err, &ve) {
		return ve.Problem(noun)
	}
	return err.Error()
}

// errorText is the message of a handler's error: a Lua string without its
// "file.lua:12: " position (the model does not need it), or the error's
// text. The operator sees the whole message as a warning on the server's
// log, and the traceback at debug level. what names the handler
// (`tool "add"`).
func (s *luaServer) errorText(what string, f *sched.Failure) string {
	msg := f.Message
	if m := luaPosition().FindStringIndex(msg); m != nil && m[0] == 0 {
		msg = msg[m[1]:]
	}
	if f.Kind != errs.Cancelled && f.Kind != errs.Timeout {
		if s.m.cfg.Warn != nil {
			s.m.cfg.Warn(s.srv.Name(), what+" failed: "+f.Message)
		}
		if s.m.cfg.Log != nil {
			s.m.cfg.Log(s.srv.Name(), "handler error: "+f.Message+"\n"+f.Traceback)
		}
	}
	return msg
}

var luaPosition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^\s:]+\.lua:\d+: `) })

// toolDone maps a handler's outcome to a CallToolResult.
func (s *luaServer) toolDone(r *rmcp.Request, t *toolDef, task *sched.Task) {
	if f := task.Failure(); f != nil {
		if r.Answered() && (f.Kind == errs.Cancelled || f.Kind == errs.Timeout) {
			return // answered already (timeout, input_required) or cancelled
		}
		r.Reply(textResult(s.errorText(fmt.Sprintf("tool %q", t.name), f), true))
		return
	}
	res := task.Results()
	var first lua.LValue = lua.LNil
	if len(res) > 0 {
		first = res[0]
	}
	if first == lua.LNil && len(res) > 1 {
		// return nil, "message": a tool error.
		r.Reply(textResult(vm.ToString(s.m.lp.L, res[1]), true))
		return
	}
	out, err := s.toolResult(t, first)
	if err != nil {
		r.Reply(textResult(err.Error(), true))
		return
	}
	r.Reply(out)
}

var contentTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource": true, "resource_link": true}

func isContentBlock(v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	if !ok {
		return false
	}
	ty, ok := t.RawGetString("type").(lua.LString)
	return ok && contentTypes[string(ty)]
}

func (s *luaServer) toolResult(t *toolDef, v lua.LValue) (json.RawMessage, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return json.RawMessage(`{"content":[]}`), nil
	case lua.LString:
		return textResult(string(x), false), nil
	case lua.LNumber, lua.LBool:
		return textResult(vm.ToString(s.m.lp.L, x), false), nil
	case *lua.LTable:
		// A full result: {content = {...}, structuredContent = ..., isError = ...}.
		if c, ok := x.RawGetString("content").(*lua.LTable); ok && (c.Len() > 0 || value.IsArray(c)) && isContentList(c) {
			b, err := value.Encode(x, value.EncodeOptions{})
			if err != nil {
				return nil, fmt.Errorf("the tool's result cannot be sent: %v", err)
			}
			return b, nil
		}
		// A list of content blocks.
		if x.Len() > 0 && isContentList(x) {
			c, err := value.Encode(x, value.EncodeOptions{})
			if err != nil {
				return nil, fmt.Errorf("the tool's result cannot be sent: %v", err)
			}
			return append(append([]byte(`{"content":`), c...), '}'), nil
		}
		// Structured content, also as JSON text for clients that only read text.
		sc, err := value.Encode(x, value.EncodeOptions{})
		if err != nil {
			return nil, fmt.Errorf("the tool's result cannot be sent as JSON: %v", err)
		}
		if t.output != nil {
			var v any
			json.Unmarshal(sc, &v)
			if err := t.output.Validate(v); err != nil {
				return nil, fmt.Errorf("the tool's result does not match its output schema: %s", schemaProblems(err, "field"))
			}
		}
		b := textResult(string(sc), false)
		b = append(b[:len(b)-1], `,"structuredContent":`...)
		b = append(b, sc...)
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("the tool returned a %s, which cannot be sent", v.Type())
}

func isContentList(t *lua.LTable) bool {
	for i := 1; i <= t.Len(); i++ {
		if !isContentBlock(t.RawGetInt(i)) {
			return false
		}
	}
	return true
}

// --- resources ---

func (s *luaServer) readResource(r *rmcp.Request) {
	uri := r.StringParam("uri")
	s.mu.RLock()
	rd := s.resources[uri]
	var td *templateDef
	var vars []string
	if rd == nil {
		for _, t := range s.templates {
			if m := t.pattern.FindStringSubmatch(uri); m != nil {
				td, vars = t, m[1:]
				break
			}
		}
	}
	s.mu.RUnlock()
	if rd == nil && td == nil {
		r.NotFound(uri)
		return
	}
	s.run(r, func() {
		L := s.m.lp.L
		ctx := s.newCtx(L, r)
		var fn *lua.LFunction
		var args []lua.LValue
		mime := ""
		if rd != nil {
			fn, args, mime = rd.read, []lua.LValue{ctx}, rd.mime
		} else {
			vt := L.CreateTable(0, len(vars))
			for i, v := range vars {
				vt.RawSetString(td.vars[i], lua.LString(v))
			}
			fn, args, mime = td.read, []lua.LValue{vt, ctx}, td.mime
		}
		task := s.spawn(r, fn, args, "read "+uri)
		task.OnDone(func(task *sched.Task) {
			if f := task.Failure(); f != nil {
				if !r.Answered() {
					r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.errorText(fmt.Sprintf("resource %q", uri), f)})
				}
				return
			}
			res := task.Results()
			if len(res) == 0 || res[0] == lua.LNil {
				r.NotFound(uri)
				return
			}
			b, err := contents(uri, mime, res[0])
			if err != nil {
				r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
				return
			}
			r.Reply(b)
		})
	})
}

// contents maps what read returned to a ReadResourceResult: a string (text),
// {text=}, {blob= base64}, {bytes= raw}, or a list of those (each may name
// its uri and mimeType).
func contents(uri, mime string, v lua.LValue) (json.RawMessage, error) {
	one := func(x lua.LValue) (map[string]any, error) {
		c := map[string]any{"uri": uri}
		if mime != "" {
			c["mimeType"] = mime
		}
		switch y := x.(type) {
		case lua.LString:
			c["text"] = string(y)
			return c, nil
		case *lua.LTable:
			for _, k := range []string{"uri", "mimeType", "text", "blob"} {
				if s, ok := y.RawGetString(k).(lua.LString); ok {
					c[k] = string(s)
				}
			}
			if s, ok := y.RawGetString("bytes").(lua.LString); ok {
				c["blob"] = base64.StdEncoding.EncodeToString([]byte(s))
			}
			if c["text"] == nil && c["blob"] == nil {
				return nil, fmt.Errorf("the resource's read returned a table without text, blob or bytes")
			}
			if m, ok := y.RawGetString("_meta").(*lua.LTable); ok {
				mv, _ := value.FromLua(m)
				c["_meta"] = mv
			}
			return c, nil
		}
		return nil, fmt.Errorf("the resource's read returned a %s; return a string or {text=...}/{blob=...}", x.Type())
	}
	var list []map[string]any
	if t, ok := v.(*lua.LTable); ok && t.Len() > 0 {
		for i := 1; i <= t.Len(); i++ {
			c, err := one(t.RawGetInt(i))
			if err != nil {
				return nil, err
			}
			list = append(list, c)
		}
	} else {
		c, err := one(v)
		if err != nil {
			return nil, err
		}
		list = append(list, c)
	}
	return json.Marshal(map[string]any{"contents": list})
}

// --- prompts ---

func (s *luaServer) getPrompt(r *rmcp.Request) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompts/get: arguments must be strings"})
		return
	}
	s.mu.RLock()
	pd := s.prompts[p.Name]
	s.mu.RUnlock()
	if pd == nil {
		r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Unknown prompt: " + p.Name})
		return
	}
	for _, req := range pd.required {
		if _, ok := p.Arguments[req]; !ok {
			r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %s needs argument %s", p.Name, req)})
			return
		}
	}
	s.run(r, func() {
		L := s.m.lp.L
		at := L.CreateTable(0, len(p.Arguments))
		for k, v := range p.Arguments {
			at.RawSetString(k, lua.LString(v))
		}
		task := s.spawn(r, pd.get, []lua.LValue{at, s.newCtx(L, r)}, "prompt "+p.Name)
		task.OnDone(func(task *sched.Task) {
			if f := task.Failure(); f != nil {
				if !r.Answered() {
					r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.errorText(fmt.Sprintf("prompt %q", p.Name), f)})
				}
				return
			}
			var v lua.LValue = lua.LNil
			if res := task.Results(); len(res) > 0 {
				v = res[0]
			}
			b, err := promptResult(v)
			if err != nil {
				r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()})
				return
			}
			r.Reply(b)
		})
	})
}

// promptResult maps get's return: a string (one user message), a list of
// messages ({role=, content=}, content a string or a block), or a full
// {description=, messages=} table.
func promptResult(v lua.LValue) (json.RawMessage, error) {
	msg := func(x lua.LValue) (any, error) {
		switch y := x.(type) {
		case lua.LString:
			return map[string]any{"role": "user", "content": map[string]string{"type": "text", "text": string(y)}}, nil
		case *lua.LTable:
			m, err := value.FromLua(y)
			if err != nil {
				return nil, err
			}
			mm, ok := m.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("a prompt message must be {role = ..., content = ...}")
			}
			if s, ok := mm["content"].(string); ok {
				mm["content"] = map[string]string{"type": "text", "text": s}
			}
			if mm["role"] == nil {
				mm["role"] = "user"
			}
			return mm, nil
		}
		return nil, fmt.Errorf("a prompt message must be a string or a table, not a %s", x.Type())
	}
	out := map[string]any{}
	var list *lua.LTable
	switch y := v.(type) {
	case lua.LString:
		m, _ := msg(y)
		out["messages"] = []any{m}
		return json.Marshal(out)
	case *lua.LTable:
		if ms, ok := y.RawGetString("messages").(*lua.LTable); ok {
			list = ms
			if d, ok := y.RawGetString("description").(lua.LString); ok {
				out["description"] = string(d)
			}
		} else {
			list = y
		}
	default:
		return nil, fmt.Errorf("the prompt's get returned a %s; return a string or a list of messages", v.Type())
	}
	msgs := []any{}
	for i := 1; i <= list.Len(); i++ {
		m, err := msg(list.RawGetInt(i))
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	out["messages"] = msgs
	return json.Marshal(out)
}

// --- completion ---

func (s *luaServer) complete(r *rmcp.Request) {
	var p struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	json.Unmarshal(r.Params, &p)
	s.mu.RLock()
	fn := s.completer
	switch p.Ref.Type {
	case "ref/prompt":
		if pd := s.prompts[p.Ref.Name]; pd != nil && pd.complete[p.Argument.Name] != nil {
			fn = pd.complete[p.Argument.Name]
		}
	case "ref/resource":
		for _, t := range s.templates {
			if t.name == p.Ref.URI && t.complete[p.Argument.Name] != nil {
				fn = t.complete[p.Argument.Name]
			}
		}
	}
	s.mu.RUnlock()
	if fn == nil {
		r.Reply(json.RawMessage(`{"completion":{"values":[],"hasMore":false}}`))
		return
	}
	s.run(r, func() {
		L := s.m.lp.L
		refV, _ := value.Decode(L, rawMember(r.Params, "ref"))
		argT := L.CreateTable(0, 3)
		argT.RawSetString("name", lua.LString(p.Argument.Name))
		argT.RawSetString("value", lua.LString(p.Argument.Value))
		ctxArgs := L.CreateTable(0, len(p.Context.Arguments))
		for k, v := range p.Context.Arguments {
			ctxArgs.RawSetString(k, lua.LString(v))
		}
		argT.RawSetString("context", ctxArgs)
		var args []lua.LValue
		if fn == s.completer {
			args = []lua.LValue{refV, argT, s.newCtx(L, r)}
		} else {
			args = []lua.LValue{lua.LString(p.Argument.Value), argT, s.newCtx(L, r)}
		}
		task := s.spawn(r, fn, args, "complete")
		task.OnDone(func(task *sched.Task) {
			if f := task.Failure(); f != nil {
				if !r.Answered() {
					r.Fail(&jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: s.errorText("completion", f)})
				}
				return
			}
			var v lua.LValue = lua.LNil
			if res := task.Results(); len(res) > 0 {
				v = res[0]
			}
			values := []string{}
			var total any
			hasMore := false
			if t, ok := v.(*lua.LTable); ok {
				vs := t
				if inner, ok := t.RawGetString("values").(*lua.LTable); ok {
					vs = inner
					if n, ok := t.RawGetString("total").(lua.LNumber); ok {
						total = int(n)
					}
					hasMore = lua.LVAsBool(t.RawGetString("hasMore"))
				}
				for i := 1; i <= vs.Len(); i++ {
					values = append(values, vm.ToString(L, vs.RawGetInt(i)))
				}
			}
			if len(values) > 100 {
				values, hasMore = values[:100], true
			}
			c := map[string]any{"values": values, "hasMore": hasMore}
			if total != nil {
				c["total"] = total
			}
			b, _ := json.Marshal(map[string]any{"completion": c})
			r.Reply(b)
		})
	})
}

var _ = strconv.Itoa
